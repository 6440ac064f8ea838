// Conformance of AsyncCopy (Kir.h IntrinsicOp::AsyncCopy/AsyncCommit/AsyncWait): copies in two
// groups waited for one at a time, zero fill past the source's valid elements, a two-stage ring
// in a loop (the pipelined K-loop's shape), and sources that are not aligned to the copy's size.
#include "ConformanceSupport.h"

#include <algorithm>

namespace conformance {
namespace {

TEST(AsyncCopy, TwoGroupsWaitedInTurnWithZeroFill) {
  xpu::Program P = compileProgram("AsyncCopies");
  for (uint32_t N : {1024u, 1000u, 771u}) {
    const uint32_t Groups = 2;
    // Data past n too: the zero fill must come from `valid`, not from reads off the buffer's end.
    std::vector<float> X = uniformData<float>(N + 64, 300 + N, -10, 10);
    auto DX = toDevice(X);
    auto Out = filledBuffer<float>(Groups * 512, -1.0f);
    runKernel(P.kernel("AsyncCopies.stage"), xpu::grid(Groups), xpu::block(64), Out, DX, N);
    std::vector<float> Want(Groups * 512);
    auto At = [&](uint32_t I) { return I < N ? X[I] : 0.0f; };
    for (uint32_t G = 0; G < Groups; ++G)
      for (uint32_t K = 0; K < 256; ++K) {
        Want[G * 512 + K] = 2.0f * At(G * 512 + K);
        Want[G * 512 + 256 + K] = At(G * 512 + 511 - K);
      }
    expectSame(fromDevice(Out), Want, "AsyncCopies.stage n=" + std::to_string(N));
  }
}

TEST(AsyncCopy, ATwoStageRingSeesEachChunkAfterItsWait) {
  xpu::Program P = compileProgram("AsyncCopies");
  for (uint32_t N : {2048u, 1901u}) { // 8 chunks; the last partial in the second
    const uint32_t Steps = 8;
    // Non-zero data past n and past the 8 chunks: a kernel that reads beyond either (a wrong
    // count or bound) changes the sums instead of reading zeros.
    std::vector<float> X = uniformData<float>(N + 600, 700 + N, 1, 4);
    auto DX = toDevice(X);
    std::vector<float> Want(128, float(Steps)); // the sums, then the chunks each read
    std::fill(Want.begin(), Want.begin() + 64, 0.0f);
    for (uint32_t T = 0; T < 64; ++T)
      for (uint32_t K = 0; K < Steps; ++K) {
        uint32_t I = K * 256 + (T * 4 + 5) % 256;
        Want[T] += I < N ? X[I] : 0.0f;
      }
    // Two barriers per step, and one with the wait at the top of the loop.
    for (const char* Kernel : {"AsyncCopies.ring", "AsyncCopies.ringWaitFirst"}) {
      auto Out = filledBuffer<float>(128, -1.0f);
      runKernel(P.kernel(Kernel), xpu::grid(1), xpu::block(64), Out, DX, Steps, N);
      expectSame(fromDevice(Out), Want, std::string(Kernel) + " n=" + std::to_string(N));
    }
  }
}

TEST(AsyncCopy, SourcesNotAlignedToTheCopy) {
  xpu::Program P = compileProgram("AsyncCopies");
  std::vector<int16_t> X = intData<int16_t>(300, 310);
  auto DX = toDevice(X);
  for (uint32_t Shift : {0u, 1u, 8u, 13u}) {
    auto Out = filledBuffer<int16_t>(256, 7);
    runKernel(P.kernel("AsyncCopies.shifted"), xpu::grid(1), xpu::block(32), Out, DX, Shift);
    std::vector<int16_t> Want(256);
    for (uint32_t I = 0; I < 256; ++I)
      Want[I] = X[Shift + 255 - I];
    expectSame(fromDevice(Out), Want, "AsyncCopies.shifted shift=" + std::to_string(Shift));
  }
}

TEST(AsyncCopy, ARunOfCopiesWithOneNotAligned) {
  xpu::Program P = compileProgram("AsyncCopies");
  std::vector<int16_t> X = intData<int16_t>(300, 311);
  auto DX = toDevice(X);
  for (uint32_t Shift : {0u, 1u, 8u, 13u}) {
    auto Out = filledBuffer<int16_t>(512, 7);
    runKernel(P.kernel("AsyncCopies.shiftedRun"), xpu::grid(1), xpu::block(32), Out, DX, Shift);
    std::vector<int16_t> Want(512);
    for (uint32_t I = 0; I < 512; ++I) {
      uint32_t At = 511 - I; // the shared element out[I] reads
      Want[I] = At < 256 ? X[At] : X[Shift + At - 256];
    }
    expectSame(fromDevice(Out), Want, "AsyncCopies.shiftedRun shift=" + std::to_string(Shift));
  }
}

// The branch-free K-loop: aligned and whole chunks, a partial last one, and sources shifted off
// the copies' alignment (element copies, made later in the block where a target defers them).
TEST(AsyncCopy, ABranchFreeRingWithCopiesPartialOrNotAligned) {
  xpu::Program P = compileProgram("AsyncCopies");
  const uint32_t Steps = 6;
  for (uint32_t Shift : {0u, 4u, 1u, 6u})
    for (uint32_t N : {2048u, 1400u}) {
      // Non-zero data past n: a copy that reads past its valid elements changes the sums.
      std::vector<float> X = uniformData<float>(2048 + 300, 900 + N + Shift, 1, 4);
      auto DX = toDevice(X);
      std::vector<float> Want(64, 0.0f);
      for (uint32_t T = 0; T < 64; ++T)
        for (uint32_t K = 0; K < Steps; ++K) {
          uint32_t I = Shift + K * 256 + (T * 4 + 5) % 256;
          Want[T] += I < N ? X[I] : 0.0f;
        }
      auto Out = filledBuffer<float>(64, -1.0f);
      runKernel(P.kernel("AsyncCopies.ringInLine"), xpu::grid(1), xpu::block(64), Out, DX, Steps, N,
                Shift);
      expectSame(fromDevice(Out), Want,
                 "AsyncCopies.ringInLine shift=" + std::to_string(Shift) +
                     " n=" + std::to_string(N));
    }
}

} // namespace
} // namespace conformance
