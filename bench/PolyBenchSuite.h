// The PolyBench/GPU suite as cases that both benches run: each case's extents, its arrays'
// initial contents, the launches of our kernels (polybench.cj) and its float64 reference. The
// peers (OpenMP on the CPU, nvcc on the GPU) belong to the benches and take the same arrays.
#pragma once

#include "PolyBenchSizes.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace cajeta::polybench {

class PolyBenchTarget;

/// A case's extents, in PolyBench's names, and its scalars.
struct Dims {
  uint32_t NI = 0, NJ = 0, NK = 0, NL = 0, NM = 0;
  uint32_t Steps = 0; // time steps (fdtd2d, jacobi2d)
  float Alpha = 1.5f, Beta = 1.2f;
};

/// Every array of a case in one order, the order of the peers' and the reference's arguments
/// (outputs first, as in the kernels); per case:
///   2mm      tmp E A B C               tmp = A B, E = tmp C
///   3mm      E F G A B C D             E = A B, F = C D, G = E F
///   atax     y tmp A x                 tmp = A x, y = A^T tmp
///   bicg     s q A r p                 s = A^T r, q = A p
///   corr     sym data mean std         (data: NI rows x NJ columns)
///   covar    sym data mean
///   gemm     C A B                     C = beta C + alpha A B
///   gesummv  y tmp A B x               y = alpha A x + beta B x
///   gramschm A R Q                     modified Gram-Schmidt, A = Q R (A: NI x NJ)
///   mvt      x1 x2 A y1 y2             x1 += A y1, x2 += A^T y2
///   syr2k    C A B                     C = beta C + alpha A B^T + alpha B A^T
///   syrk     C A                       C = beta C + alpha A A^T
///   2dconv   B A
///   3dconv   B A
///   fdtd2d   ex ey hz fict             (ex: NI x NJ+1, ey: NI+1 x NJ, fict: Steps)
///   jacobi2d A B
using Arrays = float* const*;
using ReferenceArrays = double* const*;

/// One PolyBench kernel at one size.
struct Case {
  std::string Name;     // as --only names it: "gemm"
  std::string Size;     // "n=256"
  std::string Geometry; // our launches: "blk 32x8, 2 launches"
  Dims D;
  double Flops = 0;                     // floating-point operations of one run, as written
  std::vector<std::vector<float>> Init; // each array's contents before a run
  std::vector<size_t> Checked;          // the arrays compared with the reference after a run
  /// Enqueues one run of our kernels on the target's stream (no sync).
  void (*Ours)(PolyBenchTarget& T, const Dims& D) = nullptr;
  /// One run in float64, in place on the arrays.
  void (*Reference)(ReferenceArrays A, const Dims& D) = nullptr;
};

/// The suite's case names, in PolyBench/GPU's order.
const std::vector<std::string>& caseNames();
/// Case Name at sizes S; throws std::invalid_argument for an unknown name.
Case makeCase(const std::string& Name, const Sizes& S);

/// The reference's result for each array of C: its Init in float64, then C.Reference.
std::vector<std::vector<double>> referenceResult(const Case& C);
/// ||Got - Ref||_2 / ||Ref||_2 over Ref.size() elements (an absolute norm where Ref is zero).
double relativeError(const float* Got, const std::vector<double>& Ref);
/// The bound on relativeError for every checked array of every case: float32 round-off over
/// sums of up to a few thousand terms stays orders of magnitude under it, a wrong element or
/// index does not.
constexpr double ErrorBound = 1e-4;

} // namespace cajeta::polybench
