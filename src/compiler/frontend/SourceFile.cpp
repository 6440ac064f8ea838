// Line table of a source file.
#include "compiler/frontend/SourceFile.h"

#include <algorithm>

namespace cajeta::frontend {

SourceFile::SourceFile(std::string N, std::string T) : Name(std::move(N)), Text(std::move(T)) {
  LineStarts.push_back(0);
  for (uint32_t I = 0; I < Text.size(); ++I)
    if (Text[I] == '\n')
      LineStarts.push_back(I + 1);
}

uint32_t SourceFile::lineOf(uint32_t Offset) const {
  auto It = std::upper_bound(LineStarts.begin(), LineStarts.end(), Offset);
  return static_cast<uint32_t>(It - LineStarts.begin());
}

uint32_t SourceFile::columnOf(uint32_t Offset) const {
  return Offset - LineStarts[lineOf(Offset) - 1] + 1;
}

uint32_t SourceFile::offsetOf(uint32_t Line, uint32_t Col) const {
  if (Line == 0 || Line > LineStarts.size())
    return static_cast<uint32_t>(Text.size());
  uint64_t Off = static_cast<uint64_t>(LineStarts[Line - 1]) + (Col ? Col - 1 : 0);
  return static_cast<uint32_t>(std::min<uint64_t>(Off, Text.size()));
}

std::string_view SourceFile::lineText(uint32_t Line) const {
  if (Line == 0 || Line > LineStarts.size())
    return {};
  uint32_t Begin = LineStarts[Line - 1];
  uint32_t End = Line < LineStarts.size() ? LineStarts[Line] : Text.size();
  while (End > Begin && (Text[End - 1] == '\n' || Text[End - 1] == '\r'))
    --End;
  return std::string_view(Text).substr(Begin, End - Begin);
}

} // namespace cajeta::frontend
