// A grid in pieces of about one wave (GridPieces.h).
#include "runtime/scheduler/GridPieces.h"

#include <algorithm>

namespace cajeta::xpu::rt {

std::vector<GridPiece> gridPieces(const uint32_t Grid[3], uint64_t Most) {
  const uint64_t Row = Grid[0], Plane = Row * Grid[1], All = Plane * Grid[2];
  std::vector<GridPiece> Out;
  if (!Most || All <= Most) {
    Out.push_back({{0, 0, 0}, {Grid[0], Grid[1], Grid[2]}});
    return Out;
  }
  if (Plane <= Most) { // whole planes of z
    const uint32_t Step = uint32_t(Most / Plane);
    for (uint32_t Z = 0; Z < Grid[2]; Z += Step)
      Out.push_back({{0, 0, Z}, {Grid[0], Grid[1], std::min(Step, Grid[2] - Z)}});
    return Out;
  }
  for (uint32_t Z = 0; Z < Grid[2]; ++Z) {
    if (Row <= Most) { // whole rows of y
      const uint32_t Step = uint32_t(Most / Row);
      for (uint32_t Y = 0; Y < Grid[1]; Y += Step)
        Out.push_back({{0, Y, Z}, {Grid[0], std::min(Step, Grid[1] - Y), 1}});
      continue;
    }
    const uint32_t Step = uint32_t(Most); // parts of each row
    for (uint32_t Y = 0; Y < Grid[1]; ++Y)
      for (uint32_t X = 0; X < Grid[0]; X += Step)
        Out.push_back({{X, Y, Z}, {std::min(Step, Grid[0] - X), 1, 1}});
  }
  return Out;
}

} // namespace cajeta::xpu::rt
