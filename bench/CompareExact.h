// Bit-exact comparison of our output with the peer's, describing the first differences.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

namespace cajeta::bench {

/// True when the N floats are bit-identical; otherwise Detail names the first mismatches.
inline bool compareExact(const float* Ours, const float* Peer, size_t N, std::string& Detail) {
  size_t Bad = 0;
  char Line[160];
  for (size_t I = 0; I < N; ++I) {
    if (std::memcmp(&Ours[I], &Peer[I], sizeof(float)) == 0)
      continue;
    if (Bad++ < 3) {
      std::snprintf(Line, sizeof Line, "[%zu] ours %.9g, peer %.9g; ", I, double(Ours[I]),
                    double(Peer[I]));
      Detail += Line;
    }
  }
  if (Bad) {
    std::snprintf(Line, sizeof Line, "%zu of %zu elements differ", Bad, N);
    Detail += Line;
    return false;
  }
  std::snprintf(Line, sizeof Line, "%zu elements bit-identical", N);
  Detail = Line;
  return true;
}

/// True when the N counts are equal; otherwise Detail names the first mismatches.
inline bool compareCounts(const uint32_t* Ours, const uint32_t* Peer, size_t N,
                          std::string& Detail) {
  size_t Bad = 0;
  char Line[160];
  for (size_t I = 0; I < N; ++I) {
    if (Ours[I] == Peer[I])
      continue;
    if (Bad++ < 3) {
      std::snprintf(Line, sizeof Line, "[%zu] ours %u, peer %u; ", I, unsigned(Ours[I]),
                    unsigned(Peer[I]));
      Detail += Line;
    }
  }
  if (Bad) {
    std::snprintf(Line, sizeof Line, "%zu of %zu counts differ", Bad, N);
    Detail += Line;
    return false;
  }
  std::snprintf(Line, sizeof Line, "%zu counts equal", N);
  Detail = Line;
  return true;
}

} // namespace cajeta::bench
