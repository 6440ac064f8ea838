// The nvcc peers of the PolyBench/GPU cases (PolyBenchCudaPeers.cu), behind a CUDA-free API.
#pragma once

#include "PolyBenchSuite.h"

#include <string>

namespace cajeta::gpubench {

/// Enqueues one run of a case on Stream (a cudaStream_t) on device arrays in the order
/// PolyBenchSuite.h lists.
using PolyBenchCudaPeer = void (*)(void* Stream, polybench::Arrays A, const polybench::Dims& D);

/// The peer of case Name; throws std::invalid_argument for an unknown name.
PolyBenchCudaPeer polyBenchCudaPeer(const std::string& Name);

} // namespace cajeta::gpubench
