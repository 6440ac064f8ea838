// Pacing at the granularity of workgroups: a grid released to the device in pieces of about one
// wave, so that another queue's latency-class launch starts after the piece being dispatched
// rather than after the whole grid. A GPU's work distributor dispatches every workgroup of a grid
// before it takes a grid of another queue at the same priority (measured on the H200: an empty
// probe beside a 40 ms grid of short workgroups waits the 40 ms through CUDA and through Vulkan,
// and 55-80 us beside the same work launched as 200 grids). The pieces are boxes of the grid in
// launch order (x fastest, then y, then z), each at most Most workgroups where a row of the grid
// allows it. Pure arithmetic, tested without a device.
#pragma once

#include <cstdint>
#include <vector>

namespace cajeta::xpu::rt {

struct GridPiece {
  uint32_t Base[3];
  uint32_t Count[3];
};

/// Grid cut into pieces of at most Most workgroups (whole planes of z, else whole rows of y,
/// else parts of a row); one piece, the grid, when it holds at most Most or Most is 0.
std::vector<GridPiece> gridPieces(const uint32_t Grid[3], uint64_t Most);

} // namespace cajeta::xpu::rt
