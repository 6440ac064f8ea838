// Rendering of diagnostics in the style of clang.
#include "compiler/Diagnostics.h"

#include <algorithm>

namespace cajeta {

const char* stageName(Stage S) {
  switch (S) {
  case Stage::Frontend:
    return "frontend";
  case Stage::Kir:
    return "KIR";
  case Stage::Llvm:
    return "LLVM";
  case Stage::Spirv:
    return "SPIR-V";
  case Stage::Driver:
    return "driver";
  }
  return "driver";
}

void Diagnostics::add(Severity Level, frontend::SourceRange R, std::string Message,
                      bool HasLocation, Stage From) {
  if (Level == Severity::Error || Level == Severity::Internal) {
    if (ErrorCount >= MaxErrors)
      return;
    ++ErrorCount;
  }
  Diagnostic D;
  D.Level = Level;
  D.Range = R;
  D.Message = std::move(Message);
  D.HasLocation = HasLocation;
  D.From = From;
  List.push_back(std::move(D));
}

void Diagnostics::error(frontend::SourceRange R, std::string Message) {
  add(Severity::Error, R, std::move(Message), true, Stage::Frontend);
}

void Diagnostics::warning(frontend::SourceRange R, std::string Message) {
  add(Severity::Warning, R, std::move(Message), true, Stage::Frontend);
}

void Diagnostics::note(frontend::SourceRange R, std::string Message) {
  add(Severity::Note, R, std::move(Message), true, Stage::Frontend);
}

void Diagnostics::fileNote(std::string Message) {
  add(Severity::Note, {}, std::move(Message), false, Stage::Frontend);
}

void Diagnostics::report(Severity Level, Stage From, std::string Message) {
  add(Level, {}, std::move(Message), false, From);
}

void Diagnostics::reportOnce(Severity Level, Stage From, std::string Message) {
  for (const Diagnostic& D : List)
    if (!D.HasLocation && D.Level == Level && D.From == From && D.Message == Message)
      return;
  report(Level, From, std::move(Message));
}

/// The severity as rendered; an internal error names the stage that raised it.
static std::string severityText(const Diagnostic& D) {
  switch (D.Level) {
  case Severity::Error:
    return "error";
  case Severity::Warning:
    return "warning";
  case Severity::Note:
    return "note";
  case Severity::Internal:
    return std::string("internal error (") + stageName(D.From) + ")";
  }
  return "error";
}

std::string Diagnostics::render(const frontend::SourceFile& File, const Diagnostic& D) {
  std::string Out = File.name() + ":";
  if (!D.HasLocation)
    return Out + " " + severityText(D) + ": " + D.Message + "\n";
  uint32_t Begin = std::min<uint32_t>(D.Range.Begin, File.text().size());
  uint32_t Line = File.lineOf(Begin);
  uint32_t Col = File.columnOf(Begin);
  Out += std::to_string(Line) + ":" + std::to_string(Col) + ": " + severityText(D) + ": " +
         D.Message + "\n";
  std::string_view Text = File.lineText(Line);
  Out.append(Text);
  Out += "\n";
  // Caret line: keep tabs so the caret lines up under the source.
  std::string Caret;
  for (uint32_t I = 1; I < Col && I - 1 < Text.size(); ++I)
    Caret += Text[I - 1] == '\t' ? '\t' : ' ';
  Caret += '^';
  uint32_t End = std::max(D.Range.End, Begin + 1);
  uint32_t LineEnd = Begin - (Col - 1) + Text.size();
  for (uint32_t I = Begin + 1; I < End && I < LineEnd; ++I)
    Caret += '~';
  Out += Caret + "\n";
  return Out;
}

std::string Diagnostics::render() const {
  std::string Out;
  for (const Diagnostic& D : List)
    Out += render(File, D);
  if (ErrorCount >= MaxErrors)
    Out +=
        File.name() + ": note: too many errors, stopping after " + std::to_string(MaxErrors) + "\n";
  return Out;
}

} // namespace cajeta
