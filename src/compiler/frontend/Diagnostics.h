// Collects and renders compiler diagnostics: `file:line:col: error: msg`, the line, a caret.
#pragma once

#include "compiler/frontend/SourceFile.h"

#include <string>
#include <vector>

namespace cajeta::frontend {

enum class Severity { Error, Warning, Note };

struct Diagnostic {
  Severity Level = Severity::Error;
  SourceRange Range;
  std::string Message;
  bool HasLocation = true;
};

class Diagnostics {
public:
  explicit Diagnostics(const SourceFile& File) : File(File) {}

  void error(SourceRange R, std::string Message);
  void warning(SourceRange R, std::string Message);
  void note(SourceRange R, std::string Message);
  /// A note about the file as a whole (no line, no caret).
  void fileNote(std::string Message);

  bool hasErrors() const { return ErrorCount > 0; }
  unsigned errorCount() const { return ErrorCount; }
  const std::vector<Diagnostic>& all() const { return List; }
  const SourceFile& file() const { return File; }

  /// Every diagnostic in order, each as the header line, the source line and a caret line.
  std::string render() const;
  static std::string render(const SourceFile& File, const Diagnostic& D);

  /// Stop collecting after this many errors (the rest would be noise).
  static constexpr unsigned MaxErrors = 50;

private:
  const SourceFile& File;
  std::vector<Diagnostic> List;
  unsigned ErrorCount = 0;
};

} // namespace cajeta::frontend
