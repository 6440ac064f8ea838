// xxh3 hashes of byte ranges: bundle checksums, kernel code hashes and JIT cache keys.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace cajeta::bundle {

/// XXH3-64 of [Data, Data + Size), seed 0.
uint64_t hash64(const void* Data, size_t Size);

/// XXH3-128 of [Data, Data + Size), seed 0, as 32 lowercase hex digits (canonical
/// big-endian order: the high 64 bits first).
std::string hash128Hex(const void* Data, size_t Size);

} // namespace cajeta::bundle
