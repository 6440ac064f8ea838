// The OpenMP peers of the PolyBench/GPU cases: the same arithmetic per element as our kernels,
// with the loops as a C++ programmer writes them for a CPU (`omp parallel for` over rows or
// column blocks, `omp simd` on the unit-stride loop); built like the other peers.
#pragma once

#include "PolyBenchSuite.h"

#include <string>

namespace cajeta::polybench {

/// One run of a case on the arrays in the order PolyBenchSuite.h lists, in place.
using OmpPeer = void (*)(Arrays A, const Dims& D);

/// The peer of case Name; throws std::invalid_argument for an unknown name.
OmpPeer ompPeer(const std::string& Name);

} // namespace cajeta::polybench
