// The float64 references of the PolyBench/GPU cases: PolyBench's loops, plainly, in double.
// Arguments: the case's arrays in the order PolyBenchSuite.h lists, updated in place.
#pragma once

#include "PolyBenchSuite.h"

namespace cajeta::polybench {

void mm2Reference(ReferenceArrays A, const Dims& D);
void mm3Reference(ReferenceArrays A, const Dims& D);
void ataxReference(ReferenceArrays A, const Dims& D);
void bicgReference(ReferenceArrays A, const Dims& D);
void corrReference(ReferenceArrays A, const Dims& D);
void covarReference(ReferenceArrays A, const Dims& D);
void gemmReference(ReferenceArrays A, const Dims& D);
void gesummvReference(ReferenceArrays A, const Dims& D);
void gramschmReference(ReferenceArrays A, const Dims& D);
void mvtReference(ReferenceArrays A, const Dims& D);
void syr2kReference(ReferenceArrays A, const Dims& D);
void syrkReference(ReferenceArrays A, const Dims& D);
void conv2dReference(ReferenceArrays A, const Dims& D);
void conv3dReference(ReferenceArrays A, const Dims& D);
void fdtd2dReference(ReferenceArrays A, const Dims& D);
void jacobi2dReference(ReferenceArrays A, const Dims& D);

} // namespace cajeta::polybench
