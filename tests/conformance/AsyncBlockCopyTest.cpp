// Conformance of AsyncCopy.copyBlock (Kir.h IntrinsicOp::AsyncCopyBlock): a group copies a block
// of a matrix whose rows are `stride` elements apart into shared memory, elements outside the
// matrix zero, on every group shape (one work-item, waves and parts of waves, 2D groups), with
// rows of 16-, 8- and 4-byte chunks, and as a two-stage ring down a matrix.
#include "ConformanceSupport.h"

namespace conformance {
namespace {

/// Each workgroup's block of an h x w matrix (rows Stride apart), reversed as the kernels write
/// it out: Want[g * Rows * Cols + k] = block[Rows * Cols - 1 - k], zero outside the matrix.
template <class T>
std::vector<T> reversedBlocks(const std::vector<T>& M, uint32_t H, uint32_t W, uint32_t Stride,
                              uint32_t Rows, uint32_t Cols, uint32_t Across, uint32_t Down) {
  const uint32_t Size = Rows * Cols;
  std::vector<T> Want(size_t(Across) * Down * Size);
  for (uint32_t Y = 0; Y < Down; ++Y)
    for (uint32_t X = 0; X < Across; ++X)
      for (uint32_t K = 0; K < Size; ++K) {
        const uint32_t E = Size - 1 - K, R = Y * Rows + E / Cols, C = X * Cols + E % Cols;
        Want[size_t(Y * Across + X) * Size + K] = R < H && C < W ? M[size_t(R) * Stride + C] : T(0);
      }
  return Want;
}

template <class T>
void checkBlocks(const xpu::Program& P, const char* Kernel, const std::vector<T>& M, uint32_t H,
                 uint32_t W, uint32_t Stride, uint32_t Rows, uint32_t Cols) {
  const uint32_t Across = (W + Cols - 1) / Cols, Down = (H + Rows - 1) / Rows;
  auto DM = toDevice(M);
  const std::vector<T> Want = reversedBlocks(M, H, W, Stride, Rows, Cols, Across, Down);
  const xpu::Dim3 Shapes[] = {xpu::block(64), xpu::block(1),    xpu::block(96),
                              xpu::block(37), xpu::block(8, 4), xpu::block(5, 3)};
  for (const xpu::Dim3& Shape : Shapes) {
    auto Out = filledBuffer<T>(Want.size(), T(7));
    runKernel(P.kernel(Kernel), xpu::grid(Across, Down), Shape, Out, DM, H, W, Stride);
    expectSame(fromDevice(Out), Want,
               std::string(Kernel) + " " + std::to_string(H) + " x " + std::to_string(W) +
                   " stride " + std::to_string(Stride) + ", group " + std::to_string(Shape.x) +
                   " x " + std::to_string(Shape.y));
  }
}

TEST(AsyncBlockCopy, BlocksOfAMatrixWithZerosOutsideIt) {
  xpu::Program P = compileProgram("AsyncBlocks");
  // Sizes that are multiples of the block, and ones that leave partial blocks at the right and
  // bottom; rows longer than the matrix is wide (stride > w) hold non-zero data the copy must
  // not read.
  struct Case {
    uint32_t H, W, Stride;
  };
  for (Case C : {Case{48, 80, 80}, Case{50, 90, 96}, Case{7, 3, 5}}) {
    std::vector<float> M = uniformData<float>(size_t(C.H) * C.Stride, 800 + C.W, 1, 2);
    checkBlocks(P, "AsyncBlocks.wide", M, C.H, C.W, C.Stride, 24, 40);
  }
  for (Case C : {Case{32, 72, 72}, Case{33, 70, 75}}) {
    std::vector<int16_t> M = intData<int16_t>(size_t(C.H) * C.Stride, 900 + C.W);
    checkBlocks(P, "AsyncBlocks.halves", M, C.H, C.W, C.Stride, 16, 36);
  }
  for (Case C : {Case{16, 24, 24}, Case{19, 25, 29}}) {
    std::vector<int8_t> M = intData<int8_t>(size_t(C.H) * C.Stride, 1000 + C.W);
    checkBlocks(P, "AsyncBlocks.bytes", M, C.H, C.W, C.Stride, 8, 12);
  }
}

// The block at a shared-memory offset known at run time: aligned for the accelerator's box
// (0, 32 elements) and not (4: 16 bytes off, copied in chunks inside the TMA entry).
TEST(AsyncBlockCopy, BlocksAtAnOffsetKnownAtRunTime) {
  xpu::Program P = compileProgram("AsyncBlocks");
  const uint32_t H = 50, W = 90, Stride = 96, Rows = 24, Cols = 40;
  const uint32_t Across = (W + Cols - 1) / Cols, Down = (H + Rows - 1) / Rows;
  std::vector<float> M = uniformData<float>(size_t(H) * Stride, 1200, 1, 2);
  auto DM = toDevice(M);
  const std::vector<float> Want = reversedBlocks(M, H, W, Stride, Rows, Cols, Across, Down);
  for (uint32_t At : {0u, 4u, 32u})
    for (uint32_t Group : {64u, 128u}) {
      auto Out = filledBuffer<float>(Want.size(), 7.0f);
      runKernel(P.kernel("AsyncBlocks.shifted"), xpu::grid(Across, Down), xpu::block(Group), Out,
                DM, H, W, Stride, At);
      expectSame(fromDevice(Out), Want,
                 "AsyncBlocks.shifted at " + std::to_string(At) + ", group " +
                     std::to_string(Group));
    }
}

TEST(AsyncBlockCopy, ATwoStageRingOfBlocksDownAMatrix) {
  xpu::Program P = compileProgram("AsyncBlocks");
  struct Case {
    uint32_t H, W, Stride;
  };
  for (Case C : {Case{64, 32, 32}, Case{61, 29, 40}}) {
    std::vector<float> M = uniformData<float>(size_t(C.H) * C.Stride, 1100 + C.H, 1, 4);
    auto DM = toDevice(M);
    const uint32_t Steps = (C.H + 7) / 8;
    std::vector<float> Want(256, 0.0f);
    for (uint32_t T = 0; T < 256; ++T)
      for (uint32_t K = 0; K < Steps; ++K) {
        const uint32_t E = (T * 7 + 3) % 256, R = K * 8 + E / 32, Col = E % 32;
        Want[T] += R < C.H && Col < C.W ? M[size_t(R) * C.Stride + Col] : 0.0f;
      }
    for (uint32_t Group : {256u, 320u}) {
      auto Out = filledBuffer<float>(256, -1.0f);
      runKernel(P.kernel("AsyncBlocks.ring"), xpu::grid(1), xpu::block(Group), Out, DM, C.H, C.W,
                C.Stride);
      expectSame(fromDevice(Out), Want,
                 "AsyncBlocks.ring " + std::to_string(C.H) + " x " + std::to_string(C.W) +
                     ", group " + std::to_string(Group));
    }
  }
}

} // namespace
} // namespace conformance
