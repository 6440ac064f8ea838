// Conformance of the classic GPU algorithms written with shared memory, barriers and atomics:
// tiled matmul, tree reductions, histograms, Blelloch scan, tiled transpose, 2D stencil with a
// halo, bitonic sorts and stream compaction, each against a C++ reference.
#include "ConformanceSupport.h"

#include <algorithm>

namespace conformance {
namespace {

TEST(Algorithms, TiledMatMulNonMultipleSizes) {
  xpu::Program P = compileProgram("TiledMatMul");
  struct Shape {
    uint32_t Rows, Inner, Cols;
  };
  for (Shape Sz : {Shape{45, 33, 51}, Shape{16, 16, 16}, Shape{1, 70, 3}, Shape{37, 5, 17}}) {
    std::vector<float> A = uniformData<float>(Sz.Rows * Sz.Inner, 1000 + Sz.Rows, -2, 2);
    std::vector<float> B = uniformData<float>(Sz.Inner * Sz.Cols, 1001 + Sz.Cols, -2, 2);
    auto DA = toDevice(A), DB = toDevice(B);
    auto C = filledBuffer<float>(Sz.Rows * Sz.Cols, -1234.5f);
    runKernel(P.kernel("TiledMatMul.run"),
              xpu::grid(groupsFor(Sz.Cols, 16), groupsFor(Sz.Rows, 16)), xpu::block(16, 16), C, DA,
              DB, Sz.Rows, Sz.Inner, Sz.Cols);
    // The kernel adds the products in k order (padding adds +0, which changes no nonzero sum).
    std::vector<float> Want(Sz.Rows * Sz.Cols);
    for (uint32_t R = 0; R < Sz.Rows; ++R)
      for (uint32_t Col = 0; Col < Sz.Cols; ++Col) {
        float S = 0.0f;
        for (uint32_t K = 0; K < Sz.Inner; ++K)
          S += A[R * Sz.Inner + K] * B[K * Sz.Cols + Col];
        Want[R * Sz.Cols + Col] = S;
      }
    expectSame(fromDevice(C), Want,
               "TiledMatMul " + std::to_string(Sz.Rows) + "x" + std::to_string(Sz.Inner) + "x" +
                   std::to_string(Sz.Cols));
  }
}

TEST(Algorithms, TreeReductionSeveralBlockSizes) {
  xpu::Program P = compileProgram("ReduceTree");
  const size_t N = 1000;
  std::vector<float> In = uniformData<float>(N, 1010, -100, 100);
  std::vector<int64_t> InI = intData<int64_t>(N, 1011);
  auto DIn = toDevice(In);
  auto DInI = toDevice(InI);
  for (uint32_t Block : {32u, 64u, 128u, 256u}) {
    uint32_t Groups = groupsFor(N, Block);
    auto Partial = filledBuffer<float>(Groups + 1, -7.0f);
    auto PartialI = filledBuffer<int64_t>(Groups + 1, 42);
    run1D(P.kernel("ReduceTree.sum"), N, Block, Partial, DIn, uint32_t(N));
    run1D(P.kernel("ReduceTree.max"), N, Block, PartialI, DInI, uint32_t(N));
    // The reference walks the same tree, so the float sums round identically.
    std::vector<float> Want(Groups + 1, -7.0f);
    std::vector<int64_t> WantI(Groups + 1, 42);
    for (uint32_t G = 0; G < Groups; ++G) {
      std::vector<float> Tile(Block);
      std::vector<int64_t> TileI(Block);
      for (uint32_t T = 0; T < Block; ++T) {
        size_t I = size_t(G) * Block + T;
        Tile[T] = I < N ? In[I] : 0.0f;
        TileI[T] = I < N ? InI[I] : std::numeric_limits<int64_t>::min();
      }
      for (uint32_t S = Block / 2; S > 0; S >>= 1)
        for (uint32_t T = 0; T < S; ++T) {
          Tile[T] += Tile[T + S];
          TileI[T] = std::max(TileI[T], TileI[T + S]);
        }
      Want[G] = Tile[0];
      WantI[G] = TileI[0];
    }
    expectSame(fromDevice(Partial), Want, "ReduceTree.sum block " + std::to_string(Block));
    expectSame(fromDevice(PartialI), WantI, "ReduceTree.max block " + std::to_string(Block));
  }
}

TEST(Algorithms, HistogramBufferAndSharedAtomics) {
  xpu::Program P = compileProgram("Histogram");
  const size_t N = 10007;
  std::vector<uint8_t> Data(N);
  Rng R(1020);
  for (size_t I = 0; I < N; ++I) // skewed: many hits on a few bins, none on others
    Data[I] = I % 5 == 0 ? uint8_t(R.next() % 4) : uint8_t(R.next() % 200);
  auto DData = toDevice(Data);
  std::vector<uint32_t> Start(256);
  for (uint32_t B = 0; B < 256; ++B)
    Start[B] = 1000 + B;
  std::vector<uint32_t> Want = Start;
  for (uint8_t V : Data)
    ++Want[V];
  struct Launch {
    const char* Kernel;
    uint32_t Groups, Block;
  };
  for (Launch L : {Launch{"Histogram.viaBuffer", 7, 96}, Launch{"Histogram.viaShared", 5, 64},
                   Launch{"Histogram.viaShared", 40, 256}, Launch{"Histogram.viaShared", 3, 100}}) {
    auto Bins = toDevice(Start);
    runKernel(P.kernel(L.Kernel), xpu::grid(L.Groups), xpu::block(L.Block), Bins, DData,
              uint32_t(N));
    expectSame(fromDevice(Bins), Want,
               std::string(L.Kernel) + " grid " + std::to_string(L.Groups) + " block " +
                   std::to_string(L.Block));
  }
}

/// Exclusive prefix sum with wrap-around (uint32 arithmetic wraps in C++ too).
std::vector<uint32_t> exclusiveScan(const std::vector<uint32_t>& In) {
  std::vector<uint32_t> Out(In.size());
  uint32_t S = 0;
  for (size_t I = 0; I < In.size(); ++I) {
    Out[I] = S;
    S += In[I];
  }
  return Out;
}

/// Runs blockScan with blocks of Block, a one-workgroup scan of the block sums (blocks of 256),
/// and addOffsets of program P (the scan and the compaction programs both have these kernels).
/// Returns the total.
uint32_t deviceScan(const xpu::Program& P, const std::string& Class,
                    xpu::KernelBuffer<uint32_t>& Out, xpu::KernelBuffer<uint32_t>& In, uint32_t N,
                    uint32_t Block) {
  uint32_t Chunk = 2 * Block, Groups = groupsFor(N, Chunk);
  EXPECT_LE(Groups, 512u) << "the sums must fit one workgroup's chunk";
  auto Sums = filledBuffer<uint32_t>(Groups, 0xDEADu);
  auto Offsets = filledBuffer<uint32_t>(Groups, 0xBEEFu);
  auto Total = filledBuffer<uint32_t>(1, 0xF00Du);
  runKernel(P.kernel(Class + ".blockScan"), xpu::grid(Groups), xpu::block(Block), Out, Sums, In, N);
  runKernel(P.kernel(Class + ".blockScan"), xpu::grid(1), xpu::block(256), Offsets, Total, Sums,
            Groups);
  run1D(P.kernel(Class + ".addOffsets"), N, Block, Out, Offsets, Chunk, N);
  return fromDevice(Total)[0];
}

TEST(Algorithms, BlellochScan) {
  xpu::Program P = compileProgram("ScanBlelloch");
  for (uint32_t Block : {128u, 32u, 256u}) {
    const uint32_t N = Block == 256 ? 70000 : 5000; // 256: 137 chunks of 512
    std::vector<uint32_t> In = intData<uint32_t>(N, 1030 + Block);
    auto DIn = toDevice(In);
    auto Out = filledBuffer<uint32_t>(N + 3, 0x5EEDu);
    uint32_t Total = deviceScan(P, "ScanBlelloch", Out, DIn, N, Block);
    std::vector<uint32_t> Want = exclusiveScan(In);
    uint32_t WantTotal = Want.back() + In.back();
    Want.insert(Want.end(), 3, 0x5EEDu);
    expectSame(fromDevice(Out), Want, "ScanBlelloch block " + std::to_string(Block));
    EXPECT_EQ(Total, WantTotal) << "ScanBlelloch total, block " << Block;
  }
}

TEST(Algorithms, TiledTransposePadded) {
  xpu::Program P = compileProgram("TransposeTiled");
  struct Shape {
    uint32_t Rows, Cols, BlockY;
  };
  for (Shape Sz : {Shape{70, 45, 8}, Shape{33, 100, 4}, Shape{32, 32, 32}, Shape{1, 65, 8}}) {
    std::vector<float> In = floatData<float>(size_t(Sz.Rows) * Sz.Cols, 1040 + Sz.Rows, -1e6, 1e6);
    auto DIn = toDevice(In);
    auto Out = filledBuffer<float>(size_t(Sz.Rows) * Sz.Cols, -99.0f);
    runKernel(P.kernel("TransposeTiled.run"),
              xpu::grid(groupsFor(Sz.Cols, 32), groupsFor(Sz.Rows, 32)), xpu::block(32, Sz.BlockY),
              Out, DIn, Sz.Rows, Sz.Cols);
    std::vector<float> Want(In.size());
    for (uint32_t R = 0; R < Sz.Rows; ++R)
      for (uint32_t C = 0; C < Sz.Cols; ++C)
        Want[size_t(C) * Sz.Rows + R] = In[size_t(R) * Sz.Cols + C];
    expectSame(fromDevice(Out), Want,
               "TransposeTiled " + std::to_string(Sz.Rows) + "x" + std::to_string(Sz.Cols));
  }
}

TEST(Algorithms, Stencil2DSharedHalo) {
  xpu::Program P = compileProgram("Stencil2DShared");
  struct Shape {
    uint32_t W, H;
  };
  for (Shape Sz : {Shape{50, 37}, Shape{16, 16}, Shape{1, 20}, Shape{33, 1}}) {
    std::vector<float> In = uniformData<float>(size_t(Sz.W) * Sz.H, 1050 + Sz.W, -10, 10);
    auto DIn = toDevice(In);
    auto Out = filledBuffer<float>(In.size(), 555.0f);
    runKernel(P.kernel("Stencil2DShared.run"), xpu::grid(groupsFor(Sz.W, 16), groupsFor(Sz.H, 16)),
              xpu::block(16, 16), Out, DIn, Sz.W, Sz.H);
    auto At = [&](int64_t X, int64_t Y) {
      X = std::clamp<int64_t>(X, 0, Sz.W - 1);
      Y = std::clamp<int64_t>(Y, 0, Sz.H - 1);
      return In[size_t(Y) * Sz.W + size_t(X)];
    };
    std::vector<float> Want(In.size());
    for (int64_t Y = 0; Y < Sz.H; ++Y)
      for (int64_t X = 0; X < Sz.W; ++X) {
        float Ring = ((At(X - 1, Y) + At(X + 1, Y)) + At(X, Y - 1)) + At(X, Y + 1);
        Want[size_t(Y) * Sz.W + size_t(X)] = 0.5f * At(X, Y) + 0.125f * Ring;
      }
    expectSame(fromDevice(Out), Want,
               "Stencil2DShared " + std::to_string(Sz.W) + "x" + std::to_string(Sz.H));
  }
}

TEST(Algorithms, BitonicSortOneWorkgroup) {
  xpu::Program P = compileProgram("BitonicSortShared");
  struct Case {
    uint32_t Block, N;
  };
  for (Case C : {Case{256, 500}, Case{256, 512}, Case{64, 100}, Case{1, 2}, Case{512, 1000}}) {
    std::vector<int32_t> In = intData<int32_t>(C.N, 1060 + C.N);
    for (uint32_t I = 12; I < C.N; I += 9) // duplicates
      In[I] = In[I / 2];
    auto Data = toDevice(In);
    runKernel(P.kernel("BitonicSortShared.run"), xpu::grid(1), xpu::block(C.Block), Data, C.N);
    std::vector<int32_t> Want = In;
    std::sort(Want.begin(), Want.end());
    expectSame(fromDevice(Data), Want,
               "BitonicSortShared block " + std::to_string(C.Block) + " n " + std::to_string(C.N));
  }
}

TEST(Algorithms, BitonicSortGlobalMultiPass) {
  xpu::Program P = compileProgram("BitonicSortGlobal");
  xpu::Kernel Pass = P.kernel("BitonicSortGlobal.pass");
  for (uint32_t N : {3000u, 4096u, 5u}) {
    uint32_t Size = 1;
    while (Size < N)
      Size <<= 1;
    std::vector<int64_t> In = intData<int64_t>(N, 1070 + N);
    for (uint32_t I = 12; I < N; I += 7)
      In[I] = In[I / 3];
    std::vector<int64_t> Padded = In;
    Padded.resize(Size, std::numeric_limits<int64_t>::max());
    auto Data = toDevice(Padded);
    xpu::KernelStream& S = xpu::KernelStream::current();
    for (uint32_t K = 2; K <= Size; K <<= 1)
      for (uint32_t J = K >> 1; J > 0; J >>= 1)
        Pass.launch(S, xpu::grid(groupsFor(Size, 128)), xpu::block(128))(Data, J, K, Size);
    S.sync();
    std::vector<int64_t> Want = Padded;
    std::sort(Want.begin(), Want.end());
    expectSame(fromDevice(Data), Want, "BitonicSortGlobal n " + std::to_string(N));
  }
}

TEST(Algorithms, StreamCompaction) {
  xpu::Program P = compileProgram("StreamCompaction");
  for (uint32_t N : {3001u, 128u, 1u}) {
    std::vector<int32_t> In = intData<int32_t>(N, 1080 + N);
    auto DIn = toDevice(In);
    auto Flags = filledBuffer<uint32_t>(N, 7u);
    auto Pos = filledBuffer<uint32_t>(N, 7u);
    const int32_t Sentinel = -123456789; // not divisible by 3
    auto Out = filledBuffer<int32_t>(N, Sentinel);
    run1D(P.kernel("StreamCompaction.mark"), N, 64, Flags, DIn, N);
    uint32_t Count = deviceScan(P, "StreamCompaction", Pos, Flags, N, 64);
    run1D(P.kernel("StreamCompaction.scatter"), N, 64, Out, DIn, Flags, Pos, N);
    std::vector<int32_t> Want;
    for (int32_t V : In)
      if (cjRem(V, 3) == 0)
        Want.push_back(V);
    EXPECT_EQ(Count, Want.size()) << "StreamCompaction count, n " << N;
    Want.resize(N, Sentinel);
    expectSame(fromDevice(Out), Want, "StreamCompaction n " + std::to_string(N));
  }
}

} // namespace
} // namespace conformance
