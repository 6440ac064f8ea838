// The PolyBench/GPU cases: extents, initial data, our launches (PolyBench/GPU's thread mapping:
// 2D blocks of 32x8 over (column, row), 1D blocks of 256) and the float64 reference.
#include "PolyBenchSuite.h"

#include "PolyBenchReference.h"
#include "PolyBenchTarget.h"

#include <cmath>
#include <stdexcept>

namespace cajeta::polybench {

namespace {

/// N values in [-1, 1) from a hash of (Seed, index): the same for every side of a case.
std::vector<float> pattern(size_t N, uint32_t Seed) {
  std::vector<float> V(N);
  for (size_t I = 0; I < N; ++I) {
    uint64_t H = (uint64_t(Seed) << 40 ^ uint64_t(I)) * 0x9E3779B97F4A7C15ull;
    H ^= H >> 29;
    H *= 0xBF58476D1CE4E5B9ull;
    H ^= H >> 32;
    V[I] = float(H >> 40) * (2.0f / 16777216.0f) - 1.0f; // 24 bits: exact in float32
  }
  return V;
}

std::vector<float> zeros(size_t N) {
  return std::vector<float>(N, 0.0f);
}

size_t sq(uint32_t N) {
  return size_t(N) * N;
}

std::string launches(const char* Block, uint64_t Count) {
  return std::string("blk ") + Block + ", " + std::to_string(Count) +
         (Count == 1 ? " launch" : " launches");
}

Case named(std::string Name, std::string Size, std::string Geometry) {
  Case C;
  C.Name = std::move(Name);
  C.Size = std::move(Size);
  C.Geometry = std::move(Geometry);
  return C;
}

Case mm2(uint32_t N) {
  Case C = named("2mm", "n=" + std::to_string(N), launches("32x8", 2));
  C.D.NI = C.D.NJ = C.D.NK = C.D.NL = N;
  C.Flops = 4.0 * N * double(N) * N;
  C.Init = {zeros(sq(N)), zeros(sq(N)), pattern(sq(N), 1), pattern(sq(N), 2), pattern(sq(N), 3)};
  C.Checked = {0, 1};
  C.Ours = [](PolyBenchTarget& T, const Dims& D) {
    T.kernel("mm").launch(T.stream(), grid2d(D.NJ, D.NI), Block2d)(T.buffer(0), T.buffer(2),
                                                                   T.buffer(3), D.NI, D.NJ, D.NK);
    T.kernel("mm").launch(T.stream(), grid2d(D.NL, D.NI), Block2d)(T.buffer(1), T.buffer(0),
                                                                   T.buffer(4), D.NI, D.NL, D.NJ);
  };
  C.Reference = mm2Reference;
  return C;
}

Case mm3(uint32_t N) {
  Case C = named("3mm", "n=" + std::to_string(N), launches("32x8", 3));
  C.D.NI = C.D.NJ = C.D.NK = C.D.NL = C.D.NM = N;
  C.Flops = 6.0 * N * double(N) * N;
  C.Init = {zeros(sq(N)),      zeros(sq(N)),      zeros(sq(N)),     pattern(sq(N), 4),
            pattern(sq(N), 5), pattern(sq(N), 6), pattern(sq(N), 7)};
  C.Checked = {0, 1, 2};
  C.Ours = [](PolyBenchTarget& T, const Dims& D) {
    const xpu::Kernel& Mm = T.kernel("mm");
    Mm.launch(T.stream(), grid2d(D.NJ, D.NI), Block2d)(T.buffer(0), T.buffer(3), T.buffer(4), D.NI,
                                                       D.NJ, D.NK);
    Mm.launch(T.stream(), grid2d(D.NL, D.NJ), Block2d)(T.buffer(1), T.buffer(5), T.buffer(6), D.NJ,
                                                       D.NL, D.NM);
    Mm.launch(T.stream(), grid2d(D.NL, D.NI), Block2d)(T.buffer(2), T.buffer(0), T.buffer(1), D.NI,
                                                       D.NL, D.NJ);
  };
  C.Reference = mm3Reference;
  return C;
}

Case atax(uint32_t N) {
  Case C = named("atax", "n=" + std::to_string(N), launches("256", 2));
  C.D.NI = C.D.NJ = N;
  C.Flops = 4.0 * sq(N);
  C.Init = {zeros(N), zeros(N), pattern(sq(N), 8), pattern(N, 9)};
  C.Checked = {0, 1};
  C.Ours = [](PolyBenchTarget& T, const Dims& D) {
    T.kernel("atax1").launch(T.stream(), grid1d(D.NI), Block1d)(T.buffer(1), T.buffer(2),
                                                                T.buffer(3), D.NI, D.NJ);
    T.kernel("atax2").launch(T.stream(), grid1d(D.NJ), Block1d)(T.buffer(0), T.buffer(2),
                                                                T.buffer(1), D.NI, D.NJ);
  };
  C.Reference = ataxReference;
  return C;
}

Case bicg(uint32_t N) {
  Case C = named("bicg", "n=" + std::to_string(N), launches("256", 2));
  C.D.NI = C.D.NJ = N;
  C.Flops = 4.0 * sq(N);
  C.Init = {zeros(N), zeros(N), pattern(sq(N), 10), pattern(N, 11), pattern(N, 12)};
  C.Checked = {0, 1};
  C.Ours = [](PolyBenchTarget& T, const Dims& D) {
    T.kernel("bicg1").launch(T.stream(), grid1d(D.NJ), Block1d)(T.buffer(0), T.buffer(2),
                                                                T.buffer(3), D.NI, D.NJ);
    T.kernel("bicg2").launch(T.stream(), grid1d(D.NI), Block1d)(T.buffer(1), T.buffer(2),
                                                                T.buffer(4), D.NI, D.NJ);
  };
  C.Reference = bicgReference;
  return C;
}

Case corr(uint32_t N) {
  Case C = named("corr", "n=" + std::to_string(N), launches("256/32x8", 4));
  C.D.NI = C.D.NJ = N; // NI observations of NJ variables
  C.Flops = 7.0 * sq(N) + double(N) * (N - 1) * N;
  C.Init = {zeros(sq(N)), pattern(sq(N), 13), zeros(N), zeros(N)};
  C.Checked = {0, 2, 3};
  C.Ours = [](PolyBenchTarget& T, const Dims& D) {
    const uint32_t Rows = D.NI, Cols = D.NJ;
    T.kernel("mean").launch(T.stream(), grid1d(Cols), Block1d)(T.buffer(2), T.buffer(1), Rows,
                                                               Cols);
    T.kernel("stddev").launch(T.stream(), grid1d(Cols), Block1d)(T.buffer(3), T.buffer(2),
                                                                 T.buffer(1), Rows, Cols, 0.005f);
    T.kernel("corrReduce")
        .launch(T.stream(), grid2d(Cols, Rows), Block2d)(T.buffer(1), T.buffer(2), T.buffer(3),
                                                         Rows, Cols);
    T.kernel("corr").launch(T.stream(), grid1d(Cols), Block1d)(T.buffer(0), T.buffer(1), Rows,
                                                               Cols);
  };
  C.Reference = corrReference;
  return C;
}

Case covar(uint32_t N) {
  Case C = named("covar", "n=" + std::to_string(N), launches("256/32x8", 3));
  C.D.NI = C.D.NJ = N;
  C.Flops = 2.0 * sq(N) + double(N) * (N + 1) * N;
  C.Init = {zeros(sq(N)), pattern(sq(N), 14), zeros(N)};
  C.Checked = {0, 2};
  C.Ours = [](PolyBenchTarget& T, const Dims& D) {
    const uint32_t Rows = D.NI, Cols = D.NJ;
    T.kernel("mean").launch(T.stream(), grid1d(Cols), Block1d)(T.buffer(2), T.buffer(1), Rows,
                                                               Cols);
    T.kernel("covarReduce")
        .launch(T.stream(), grid2d(Cols, Rows), Block2d)(T.buffer(1), T.buffer(2), Rows, Cols);
    T.kernel("covar").launch(T.stream(), grid1d(Cols), Block1d)(T.buffer(0), T.buffer(1), Rows,
                                                                Cols);
  };
  C.Reference = covarReference;
  return C;
}

Case gemm(uint32_t N) {
  Case C = named("gemm", "n=" + std::to_string(N), launches("32x8", 1));
  C.D.NI = C.D.NJ = C.D.NK = N;
  C.Flops = sq(N) * (3.0 * N + 1);
  C.Init = {pattern(sq(N), 15), pattern(sq(N), 16), pattern(sq(N), 17)};
  C.Checked = {0};
  C.Ours = [](PolyBenchTarget& T, const Dims& D) {
    T.kernel("gemm").launch(T.stream(), grid2d(D.NJ, D.NI), Block2d)(
        T.buffer(0), T.buffer(1), T.buffer(2), D.NI, D.NJ, D.NK, D.Alpha, D.Beta);
  };
  C.Reference = gemmReference;
  return C;
}

Case gesummv(uint32_t N) {
  Case C = named("gesummv", "n=" + std::to_string(N), launches("256", 1));
  C.D.NI = N;
  C.Flops = N * (4.0 * N + 3);
  C.Init = {zeros(N), zeros(N), pattern(sq(N), 18), pattern(sq(N), 19), pattern(N, 20)};
  C.Checked = {0, 1};
  C.Ours = [](PolyBenchTarget& T, const Dims& D) {
    T.kernel("gesummv").launch(T.stream(), grid1d(D.NI), Block1d)(
        T.buffer(0), T.buffer(1), T.buffer(2), T.buffer(3), T.buffer(4), D.NI, D.Alpha, D.Beta);
  };
  C.Reference = gesummvReference;
  return C;
}

Case gramschm(uint32_t N) {
  Case C = named("gramschm", "n=" + std::to_string(N), launches("256", 3ull * N));
  C.D.NI = C.D.NJ = N;
  C.Flops = 3.0 * sq(N) + 2.0 * N * double(N) * (N - 1);
  // A + 2 sqrt(n) I: well conditioned, so float32 Gram-Schmidt stays near the float64 one.
  std::vector<float> A = pattern(sq(N), 21);
  for (uint32_t I = 0; I < N; ++I)
    A[size_t(I) * N + I] += 2.0f * std::sqrt(float(N));
  C.Init = {std::move(A), zeros(sq(N)), zeros(sq(N))};
  C.Checked = {1, 2};
  C.Ours = [](PolyBenchTarget& T, const Dims& D) {
    const xpu::Kernel &K1 = T.kernel("gramschm1"), &K2 = T.kernel("gramschm2"),
                      &K3 = T.kernel("gramschm3");
    for (uint32_t K = 0; K < D.NJ; ++K) {
      K1.launch(T.stream(), xpu::grid(1), xpu::block(1))(T.buffer(1), T.buffer(0), D.NI, D.NJ, K);
      K2.launch(T.stream(), grid1d(D.NI), Block1d)(T.buffer(2), T.buffer(1), T.buffer(0), D.NI,
                                                   D.NJ, K);
      K3.launch(T.stream(), grid1d(D.NJ), Block1d)(T.buffer(0), T.buffer(1), T.buffer(2), D.NI,
                                                   D.NJ, K);
    }
  };
  C.Reference = gramschmReference;
  return C;
}

Case mvt(uint32_t N) {
  Case C = named("mvt", "n=" + std::to_string(N), launches("256", 2));
  C.D.NI = N;
  C.Flops = 4.0 * sq(N);
  C.Init = {pattern(N, 22), pattern(N, 23), pattern(sq(N), 24), pattern(N, 25), pattern(N, 26)};
  C.Checked = {0, 1};
  C.Ours = [](PolyBenchTarget& T, const Dims& D) {
    T.kernel("mvt1").launch(T.stream(), grid1d(D.NI), Block1d)(T.buffer(0), T.buffer(2),
                                                               T.buffer(3), D.NI);
    T.kernel("mvt2").launch(T.stream(), grid1d(D.NI), Block1d)(T.buffer(1), T.buffer(2),
                                                               T.buffer(4), D.NI);
  };
  C.Reference = mvtReference;
  return C;
}

Case syr2k(uint32_t N) {
  Case C = named("syr2k", "n=" + std::to_string(N), launches("32x8", 1));
  C.D.NI = C.D.NK = N;
  C.Flops = sq(N) * (6.0 * N + 1);
  C.Init = {pattern(sq(N), 27), pattern(sq(N), 28), pattern(sq(N), 29)};
  C.Checked = {0};
  C.Ours = [](PolyBenchTarget& T, const Dims& D) {
    T.kernel("syr2k").launch(T.stream(), grid2d(D.NI, D.NI), Block2d)(
        T.buffer(0), T.buffer(1), T.buffer(2), D.NI, D.NK, D.Alpha, D.Beta);
  };
  C.Reference = syr2kReference;
  return C;
}

Case syrk(uint32_t N) {
  Case C = named("syrk", "n=" + std::to_string(N), launches("32x8", 1));
  C.D.NI = C.D.NK = N;
  C.Flops = sq(N) * (3.0 * N + 1);
  C.Init = {pattern(sq(N), 30), pattern(sq(N), 31)};
  C.Checked = {0};
  C.Ours = [](PolyBenchTarget& T, const Dims& D) {
    T.kernel("syrk").launch(T.stream(), grid2d(D.NI, D.NI), Block2d)(T.buffer(0), T.buffer(1), D.NI,
                                                                     D.NK, D.Alpha, D.Beta);
  };
  C.Reference = syrkReference;
  return C;
}

Case conv2d(uint32_t N) {
  Case C = named("2dconv", std::to_string(N) + "^2", launches("32x8", 1));
  C.D.NI = C.D.NJ = N;
  C.Flops = 17.0 * (N - 2.0) * (N - 2.0);
  C.Init = {zeros(sq(N)), pattern(sq(N), 32)};
  C.Checked = {0};
  C.Ours = [](PolyBenchTarget& T, const Dims& D) {
    T.kernel("conv2d").launch(T.stream(), grid2d(D.NJ, D.NI), Block2d)(T.buffer(0), T.buffer(1),
                                                                       D.NI, D.NJ);
  };
  C.Reference = conv2dReference;
  return C;
}

Case conv3d(uint32_t N) {
  Case C = named("3dconv", std::to_string(N) + "^3", launches("32x8", N > 2 ? N - 2 : 0));
  C.D.NI = C.D.NJ = C.D.NK = N;
  C.Flops = 29.0 * (N - 2.0) * (N - 2.0) * (N - 2.0);
  C.Init = {zeros(sq(N) * N), pattern(sq(N) * N, 33)};
  C.Checked = {0};
  C.Ours = [](PolyBenchTarget& T, const Dims& D) {
    const xpu::Kernel& K = T.kernel("conv3d");
    for (uint32_t I = 1; I + 1 < D.NI; ++I)
      K.launch(T.stream(), grid2d(D.NK, D.NJ), Block2d)(T.buffer(0), T.buffer(1), D.NI, D.NJ, D.NK,
                                                        I);
  };
  C.Reference = conv3dReference;
  return C;
}

Case fdtd2d(uint32_t N, uint32_t Steps) {
  Case C = named("fdtd2d", std::to_string(N) + "^2, " + std::to_string(Steps) + " steps",
                 launches("32x8", 3ull * Steps));
  C.D.NI = C.D.NJ = N;
  C.D.Steps = Steps;
  C.Flops = 11.0 * sq(N) * Steps;
  std::vector<float> Fict(Steps);
  for (uint32_t T = 0; T < Steps; ++T)
    Fict[T] = float(T);
  C.Init = {pattern(size_t(N) * (N + 1), 34), pattern(size_t(N + 1) * N, 35), pattern(sq(N), 36),
            std::move(Fict)};
  C.Checked = {0, 1, 2};
  C.Ours = [](PolyBenchTarget& T, const Dims& D) {
    const xpu::Kernel &K1 = T.kernel("fdtd1"), &K2 = T.kernel("fdtd2"), &K3 = T.kernel("fdtd3");
    const xpu::Dim3 Grid = grid2d(D.NJ, D.NI);
    for (uint32_t Step = 0; Step < D.Steps; ++Step) {
      K1.launch(T.stream(), Grid, Block2d)(T.buffer(1), T.buffer(2), T.buffer(3), D.NI, D.NJ, Step);
      K2.launch(T.stream(), Grid, Block2d)(T.buffer(0), T.buffer(2), D.NI, D.NJ);
      K3.launch(T.stream(), Grid, Block2d)(T.buffer(2), T.buffer(0), T.buffer(1), D.NI, D.NJ);
    }
  };
  C.Reference = fdtd2dReference;
  return C;
}

Case jacobi2d(uint32_t N, uint32_t Steps) {
  Case C = named("jacobi2d", std::to_string(N) + "^2, " + std::to_string(Steps) + " steps",
                 launches("32x8", 2ull * Steps));
  C.D.NI = N;
  C.D.Steps = Steps;
  C.Flops = 5.0 * (N - 2.0) * (N - 2.0) * Steps;
  C.Init = {pattern(sq(N), 37), zeros(sq(N))};
  C.Checked = {0};
  C.Ours = [](PolyBenchTarget& T, const Dims& D) {
    const xpu::Kernel &K1 = T.kernel("jacobi1"), &K2 = T.kernel("jacobi2");
    const xpu::Dim3 Grid = grid2d(D.NI, D.NI);
    for (uint32_t Step = 0; Step < D.Steps; ++Step) {
      K1.launch(T.stream(), Grid, Block2d)(T.buffer(1), T.buffer(0), D.NI);
      K2.launch(T.stream(), Grid, Block2d)(T.buffer(0), T.buffer(1), D.NI);
    }
  };
  C.Reference = jacobi2dReference;
  return C;
}

} // namespace

const std::vector<std::string>& caseNames() {
  static const std::vector<std::string> Names = {
      "2mm",      "3mm", "atax",  "bicg", "corr",   "covar",  "gemm",   "gesummv",
      "gramschm", "mvt", "syr2k", "syrk", "2dconv", "3dconv", "fdtd2d", "jacobi2d"};
  return Names;
}

Case makeCase(const std::string& Name, const Sizes& S) {
  if (Name == "2mm")
    return mm2(S.Mat);
  if (Name == "3mm")
    return mm3(S.Mat);
  if (Name == "atax")
    return atax(S.Vec);
  if (Name == "bicg")
    return bicg(S.Vec);
  if (Name == "corr")
    return corr(S.Mat);
  if (Name == "covar")
    return covar(S.Mat);
  if (Name == "gemm")
    return gemm(S.Mat);
  if (Name == "gesummv")
    return gesummv(S.Vec);
  if (Name == "gramschm")
    return gramschm(S.Mat);
  if (Name == "mvt")
    return mvt(S.Vec);
  if (Name == "syr2k")
    return syr2k(S.Mat);
  if (Name == "syrk")
    return syrk(S.Mat);
  if (Name == "2dconv")
    return conv2d(S.Conv2d);
  if (Name == "3dconv")
    return conv3d(S.Conv3d);
  if (Name == "fdtd2d")
    return fdtd2d(S.Grid, S.Steps);
  if (Name == "jacobi2d")
    return jacobi2d(S.Grid, S.Steps);
  throw std::invalid_argument("no PolyBench case '" + Name + "'");
}

std::vector<std::vector<double>> referenceResult(const Case& C) {
  std::vector<std::vector<double>> Arrays;
  std::vector<double*> Pointers;
  for (const std::vector<float>& Init : C.Init)
    Arrays.emplace_back(Init.begin(), Init.end());
  for (std::vector<double>& A : Arrays)
    Pointers.push_back(A.data());
  C.Reference(Pointers.data(), C.D);
  return Arrays;
}

double relativeError(const float* Got, const std::vector<double>& Ref) {
  double Diff = 0, Norm = 0;
  for (size_t I = 0; I < Ref.size(); ++I) {
    double D = double(Got[I]) - Ref[I];
    Diff += D * D;
    Norm += Ref[I] * Ref[I];
  }
  // A NaN anywhere makes Diff NaN, which no bound accepts.
  return Norm > 0 ? std::sqrt(Diff / Norm) : std::sqrt(Diff);
}

} // namespace cajeta::polybench
