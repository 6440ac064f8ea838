// Rendering of diagnostics in the style of clang.
#include "compiler/frontend/Diagnostics.h"

namespace cajeta::frontend {

void Diagnostics::error(SourceRange R, std::string Message) {
  if (ErrorCount >= MaxErrors)
    return;
  ++ErrorCount;
  List.push_back({Severity::Error, R, std::move(Message)});
}

void Diagnostics::warning(SourceRange R, std::string Message) {
  List.push_back({Severity::Warning, R, std::move(Message)});
}

void Diagnostics::note(SourceRange R, std::string Message) {
  List.push_back({Severity::Note, R, std::move(Message)});
}

void Diagnostics::fileNote(std::string Message) {
  List.push_back({Severity::Note, {}, std::move(Message), false});
}

static const char* severityName(Severity S) {
  switch (S) {
  case Severity::Error:
    return "error";
  case Severity::Warning:
    return "warning";
  case Severity::Note:
    return "note";
  }
  return "error";
}

std::string Diagnostics::render(const SourceFile& File, const Diagnostic& D) {
  std::string Out = File.name() + ":";
  if (!D.HasLocation)
    return Out + " " + severityName(D.Level) + ": " + D.Message + "\n";
  uint32_t Begin = std::min<uint32_t>(D.Range.Begin, File.text().size());
  uint32_t Line = File.lineOf(Begin);
  uint32_t Col = File.columnOf(Begin);
  Out += std::to_string(Line) + ":" + std::to_string(Col) + ": " + severityName(D.Level) + ": " +
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

} // namespace cajeta::frontend
