// The compiler's one diagnostics sink: every stage (frontend, KIR passes, the LLVM and SPIR-V
// back ends, the driver) reports into it, and it renders them in the style of clang:
// `file:line:col: error: msg`, the line, a caret; or `file: note: msg` for the file as a whole.
#pragma once

#include "compiler/frontend/SourceFile.h"

#include <string>
#include <vector>

namespace cajeta {

/// Internal: a compiler bug, not a problem of the program; rendered as "internal error" with the
/// stage that raised it. It counts as an error.
enum class Severity { Error, Warning, Note, Internal };

/// The part of the compiler a diagnostic comes from.
enum class Stage { Frontend, Kir, Llvm, Spirv, Driver };

/// "frontend", "KIR", "LLVM", "SPIR-V", "driver".
const char* stageName(Stage S);

struct Diagnostic {
  Severity Level = Severity::Error;
  frontend::SourceRange Range;
  std::string Message;
  bool HasLocation = true;
  Stage From = Stage::Frontend;
};

class Diagnostics {
public:
  explicit Diagnostics(const frontend::SourceFile& File) : File(File) {}

  void error(frontend::SourceRange R, std::string Message);
  void warning(frontend::SourceRange R, std::string Message);
  void note(frontend::SourceRange R, std::string Message);
  /// A note about the file as a whole (no line, no caret).
  void fileNote(std::string Message);
  /// A diagnostic about the file as a whole (no line, no caret), raised by stage From.
  void report(Severity Level, Stage From, std::string Message);
  /// As report, unless the same file-level diagnostic is already there (a note every NVPTX
  /// architecture's build repeats).
  void reportOnce(Severity Level, Stage From, std::string Message);

  bool hasErrors() const { return ErrorCount > 0; }
  unsigned errorCount() const { return ErrorCount; }
  const std::vector<Diagnostic>& all() const { return List; }
  const frontend::SourceFile& file() const { return File; }

  /// Every diagnostic in order, each as the header line, the source line and a caret line.
  std::string render() const;
  static std::string render(const frontend::SourceFile& File, const Diagnostic& D);

  /// Stop collecting after this many errors (the rest would be noise).
  static constexpr unsigned MaxErrors = 50;

private:
  void add(Severity Level, frontend::SourceRange R, std::string Message, bool HasLocation,
           Stage From);

  const frontend::SourceFile& File;
  std::vector<Diagnostic> List;
  unsigned ErrorCount = 0;
};

} // namespace cajeta
