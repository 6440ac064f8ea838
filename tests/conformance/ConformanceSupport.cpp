// Shared helpers of the conformance tests: program paths, compilation, bool buffers, ULP checks.
#include "ConformanceSupport.h"

#include <algorithm>
#include <chrono>

#include <cstdlib>
#include <memory>

namespace conformance {

std::string programPath(const std::string& Name) {
  // CAJETA_CONFORMANCE_PROGRAMS points the suite at another copy of programs/ (e.g. mutated
  // programs, to check that the tests notice) without touching the source tree.
  const char* Dir = std::getenv("CAJETA_CONFORMANCE_PROGRAMS");
  return std::string(Dir && *Dir ? Dir : CAJETA_CONFORMANCE_DIR) + "/" + Name + ".cj";
}

xpu::Program compileProgram(const std::string& Name) {
  return compileProgram(Name, xpu::CompileOptions{});
}

bool cpuListsTileProduct(const std::string& Shape) {
  xpu::Device D = xpu::defaultDevice();
  if (D.backend() != "cpu")
    return false;
  const std::vector<std::string> Shapes = D.matrixShapes();
  return std::find(Shapes.begin(), Shapes.end(), Shape) != Shapes.end();
}

xpu::Program compileProgram(const std::string& Name, const xpu::CompileOptions& Options) {
  try {
    return xpu::Program::compileFile(programPath(Name), Options);
  } catch (const xpu::CompileError& E) {
    ADD_FAILURE() << "compiling " << Name << ".cj failed:\n" << E.diagnostics();
    throw;
  }
}

xpu::KernelBuffer<bool> boolsToDevice(const std::vector<uint8_t>& Host) {
  std::unique_ptr<bool[]> Tmp(new bool[Host.size()]);
  for (size_t I = 0; I < Host.size(); ++I)
    Tmp[I] = Host[I] != 0;
  xpu::KernelBuffer<bool> B(Host.size());
  B.upload(Tmp.get(), Host.size());
  return B;
}

std::vector<uint8_t> boolsFromDevice(xpu::KernelBuffer<bool>& B) {
  // Download into bytes: a kernel that stored something other than 0/1 shows up as that byte.
  std::vector<uint8_t> Raw(B.size());
  B.download(reinterpret_cast<bool*>(Raw.data()), Raw.size());
  return Raw;
}

namespace {

// Maps a float's bits onto a line where adjacent floats differ by one (-0 and +0 coincide).
template <class F, class U> uint64_t ulpDistanceImpl(F A, F B) {
  auto Key = [](F X) -> int64_t {
    U Bits;
    std::memcpy(&Bits, &X, sizeof(F));
    constexpr U SignBit = U(1) << (sizeof(U) * 8 - 1);
    if (Bits & SignBit)
      return -static_cast<int64_t>(Bits & ~SignBit);
    return static_cast<int64_t>(Bits);
  };
  int64_t KA = Key(A), KB = Key(B);
  return KA > KB ? static_cast<uint64_t>(KA - KB) : static_cast<uint64_t>(KB - KA);
}

template <class F> void expectUlpNearImpl(F Got, F Want, uint64_t MaxUlp, const std::string& What) {
  if (std::isnan(Want) || std::isnan(Got)) {
    EXPECT_TRUE(std::isnan(Want) && std::isnan(Got))
        << What << ": got " << Got << ", want " << Want;
    return;
  }
  if (std::isinf(Want) || std::isinf(Got)) {
    EXPECT_EQ(Got, Want) << What;
    return;
  }
  uint64_t D = ulpDistance(Got, Want);
  EXPECT_LE(D, MaxUlp) << What << ": got " << Got << ", want " << Want << " (" << D << " ulp)";
}

} // namespace

uint64_t ulpDistance(float A, float B) {
  return ulpDistanceImpl<float, uint32_t>(A, B);
}
uint64_t ulpDistance(double A, double B) {
  return ulpDistanceImpl<double, uint64_t>(A, B);
}

void expectUlpNear(float Got, float Want, uint64_t MaxUlp, const std::string& What) {
  expectUlpNearImpl(Got, Want, MaxUlp, What);
}
void expectUlpNear(double Got, double Want, uint64_t MaxUlp, const std::string& What) {
  expectUlpNearImpl(Got, Want, MaxUlp, What);
}

uint32_t slowFillRounds(const xpu::Program& P, xpu::KernelBuffer<int32_t>& Data) {
  const uint32_t N = uint32_t(Data.size()), Block = 128; // N: a multiple of Block
  uint32_t Rounds = P.device().runsOnHostCpu() ? 2000 : 200000;
  // A driver that ends loops early (lavapipe) would stop the spin there, not run it longer.
  uint64_t LoopLimit = P.device().maxLoopIterations();
  uint32_t Limit = LoopLimit ? uint32_t(std::min<uint64_t>(LoopLimit, 1u << 30)) : 1u << 30;
  xpu::KernelStream S;
  for (;;) {
    auto Start = std::chrono::steady_clock::now();
    P.kernel("StreamOrder.slowFill")
        .launch(S, xpu::grid(N / Block), xpu::block(Block))(Data, 3, Rounds, 0u, N);
    S.sync();
    if (std::chrono::steady_clock::now() - Start >= std::chrono::milliseconds(20) ||
        Rounds >= Limit)
      return Rounds;
    Rounds = std::min(Limit, Rounds * 4);
  }
}

uint32_t roundsLasting(double MinMs, uint32_t Start,
                       const std::function<void(uint32_t)>& RunAndSync, double& TookMs) {
  using Clock = std::chrono::steady_clock;
  uint32_t Rounds = Start;
  for (;;) {
    auto T0 = Clock::now();
    RunAndSync(Rounds);
    TookMs = std::chrono::duration<double, std::milli>(Clock::now() - T0).count();
    if (TookMs >= MinMs || Rounds >= (1u << 30))
      return Rounds;
    Rounds = uint32_t(
        std::min<double>(1u << 30, Rounds * std::max(2.0, 1.25 * MinMs / std::max(TookMs, 1e-3))));
  }
}

} // namespace conformance
