// A source file in memory, with the line table diagnostics use to turn offsets into line:col.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace cajeta::frontend {

/// A half-open byte range [Begin, End) in a SourceFile.
struct SourceRange {
  uint32_t Begin = 0;
  uint32_t End = 0;
};

class SourceFile {
public:
  SourceFile(std::string Name, std::string Text);

  const std::string& name() const { return Name; }
  const std::string& text() const { return Text; }
  /// 1-based line and column of a byte offset (columns count bytes).
  uint32_t lineOf(uint32_t Offset) const;
  uint32_t columnOf(uint32_t Offset) const;
  /// The byte offset of a 1-based line and column (clamped to the file).
  uint32_t offsetOf(uint32_t Line, uint32_t Col) const;
  /// The text of a 1-based line, without its newline.
  std::string_view lineText(uint32_t Line) const;

private:
  std::string Name;
  std::string Text;
  std::vector<uint32_t> LineStarts;
};

} // namespace cajeta::frontend
