// The scheduling analysis on small kernels compiled from source: costs per work-item and per
// launch, loop trip counts, streaming and accumulating buffers, restartability, yield points,
// tile granularity, and unknown costs with their reason.
#include "compiler/kir/SchedulingAnalysis.h"
#include "bundle/CostExpr.h"
#include "compiler/kir/AccessAnalysis.h"

#include "KirFromSource.h"

#include <gtest/gtest.h>

#include <chrono>
#include <map>

namespace cajeta::kir {
namespace {

using bundle::CostExpr;
using bundle::formatCost;

/// Sema's module for Source (access modes analysed), or null with the diagnostics reported.
std::unique_ptr<Module> frontend(const std::string& Source) {
  std::string Diags;
  std::unique_ptr<Module> M = kirFromSource("t.cj", Source, Diags);
  EXPECT_TRUE(M) << Diags;
  if (!M)
    return nullptr;
  analyzeAccess(*M);
  return M;
}

struct Result {
  bundle::SchedulingManifest S;
  std::vector<std::string> Params;
  /// The schedule of the buffer parameter called Name (fails the test when there is none).
  const bundle::BufferSchedule& buffer(const std::string& Name) const {
    for (const bundle::BufferSchedule& B : S.Buffers)
      if (B.Param < Params.size() && Params[B.Param] == Name)
        return B;
    ADD_FAILURE() << "no schedule for buffer " << Name;
    static const bundle::BufferSchedule None;
    return None;
  }
};

/// The schedule of kernel "K.<Kernel>" of Source (the class K, cajeta.xpu imported).
Result schedule(const std::string& Body, const std::string& Kernel) {
  std::unique_ptr<Module> M = frontend("import cajeta.xpu.*;\nclass K {\n" + Body + "\n}\n");
  Result R;
  if (!M)
    return R;
  const Function* F = M->findFunction("K." + Kernel);
  EXPECT_NE(F, nullptr) << Kernel;
  if (!F)
    return R;
  R.S = SchedulingAnalysis(*M).analyze(*F);
  for (const Param& P : F->Params)
    R.Params.push_back(P.Name);
  return R;
}

std::optional<double> eval(const CostExpr& E, std::map<std::string, double> Values) {
  return bundle::evaluateCost(E, [&](const std::string& V) -> std::optional<double> {
    auto It = Values.find(V);
    return It == Values.end() ? std::nullopt : std::optional<double>(It->second);
  });
}

TEST(SchedulingAnalysis, SaxpyStreamsTwoReadsAndOneWrite) {
  Result R = schedule("@Kernel static void saxpy(KernelBuffer<float32> out, "
                      "KernelBuffer<float32> x, KernelBuffer<float32> y, float32 a, uint32 n) {\n"
                      "  uint32 i = KernelThread.globalIdX();\n"
                      "  if (i < n) { out[i] = a * x[i] + y[i]; }\n"
                      "}",
                      "saxpy");
  EXPECT_EQ(formatCost(R.S.BytesRead), "8*items");
  EXPECT_EQ(formatCost(R.S.BytesWritten), "4*items");
  EXPECT_EQ(formatCost(R.S.Operations), "2*items"); // the multiply and the add
  ASSERT_EQ(R.S.Buffers.size(), 3u);
  for (const char* B : {"out", "x", "y"}) {
    EXPECT_TRUE(R.buffer(B).Streaming) << B;
    EXPECT_FALSE(R.buffer(B).Accumulates) << B;
  }
  EXPECT_EQ(formatCost(R.buffer("x").BytesRead), "4*items");
  EXPECT_EQ(formatCost(R.buffer("x").BytesWritten), "0");
  EXPECT_EQ(formatCost(R.buffer("out").BytesWritten), "4*items");
  EXPECT_TRUE(R.S.Restartable);
  EXPECT_EQ(R.S.YieldPoints, 0u);
  EXPECT_EQ(R.S.TileRows, 0u);
  EXPECT_EQ(R.S.TileCols, 0u);
  EXPECT_EQ(eval(R.S.BytesRead, {{"items", 1024}}), 8192.0);
}

TEST(SchedulingAnalysis, CountedLoopMultipliesItsBodyByTheParameter) {
  Result R = schedule("@Kernel static void rowSum(KernelBuffer<float32> out, "
                      "KernelBuffer<float32> m, uint32 n) {\n"
                      "  uint32 i = KernelThread.globalIdX();\n"
                      "  float32 s = 0;\n"
                      "  for (uint32 k = 0; k < n; k++) { s += m[i * n + k]; }\n"
                      "  out[i] = s;\n"
                      "}",
                      "rowSum");
  EXPECT_EQ(formatCost(R.buffer("m").BytesRead), "4*n*items");
  // Per iteration: i * n, + k, s +=, k++.
  EXPECT_EQ(formatCost(R.S.Operations), "4*n*items");
  EXPECT_FALSE(R.buffer("m").Streaming); // read n times per work-item
  EXPECT_TRUE(R.buffer("out").Streaming);
  EXPECT_EQ(eval(R.S.BytesRead, {{"n", 8}, {"items", 64}}), 4.0 * 8 * 64);
  EXPECT_FALSE(eval(R.S.BytesRead, {{"items", 64}})); // n has no value
}

TEST(SchedulingAnalysis, LoopFormsBoundTheirTripCount) {
  Result R = schedule("@Kernel static void forms(KernelBuffer<float32> out, "
                      "KernelBuffer<float32> x, uint32 n, int32 m) {\n"
                      "  uint32 i = KernelThread.globalIdX();\n"
                      "  float32 s = 0;\n"
                      "  for (uint32 k = 0; k <= n; k++) { s += x[k]; }\n"   // n + 1
                      "  for (int32 k = 0; k < m; k += 4) { s += x[k]; }\n"  // ceil(m / 4)
                      "  for (uint32 k = n; k > 0; k--) { s += x[k]; }\n"    // n
                      "  for (uint32 k = 2; k < n; k++) { s += x[k]; }\n"    // n - 2, bounded by n
                      "  for (int32 k = 0; 2 * m > k; ++k) { s += x[k]; }\n" // 2m, mirrored
                      "  out[i] = s;\n"
                      "}",
                      "forms");
  // 4 bytes a read: 4(n + 1) + 4(m + 3) / 4 + 4n + 4n + 4 * 2m.
  EXPECT_EQ(formatCost(R.buffer("x").BytesRead), "12*n*items + 9*m*items + 7*items");
}

TEST(SchedulingAnalysis, WhileLoopsSteppedInTheirBodyAreCounted) {
  const char* Src = "@Kernel static void k(KernelBuffer<float32> out, KernelBuffer<float32> x, "
                    "uint32 n) {\n" // line 3
                    "  uint32 i = KernelThread.globalIdX();\n"
                    "  float32 s = 0;\n"
                    "  uint32 r = 0;\n"
                    "  while (r < n) { s += x[r]; r++; }\n"
                    "  uint32 q = 0;\n"
                    "  while (s > 0.0f && q < 8u) { s -= x[q]; q += 2u; }\n" // 4 at most
                    "  out[i] = s;\n"
                    "}\n"
                    "@Kernel static void skips(KernelBuffer<float32> out, KernelBuffer<float32> x, "
                    "uint32 n) {\n"
                    "  uint32 i = KernelThread.globalIdX();\n"
                    "  float32 s = 0;\n"
                    "  uint32 r = 0;\n"
                    "  while (r < n) {\n" // line 16
                    "    if (x[r] > 0.0f) { s += 1.0f; continue; }\n"
                    "    r++;\n"
                    "  }\n"
                    "  uint32 q = 0;\n"
                    "  while (q < n) { if (s > 0.0f) { q++; } }\n" // line 21
                    "  out[i] = s;\n"
                    "}\n"
                    "@Kernel static void lazy(KernelBuffer<float32> out, KernelBuffer<float32> x, "
                    "uint32 n) {\n"
                    "  float32 s = 0;\n"
                    "  uint32 r = 0;\n"
                    "  while (r < n) { s += x[0]; bool b = s > 1.0f && r++ < n; }\n" // line 27
                    "  out[0] = s;\n"
                    "}";
  Result R = schedule(Src, "k");
  EXPECT_EQ(formatCost(R.buffer("x").BytesRead), "4*n*items + 16*items");
  // A continue skips the step (the loop may not end), and so does a step under a branch.
  R = schedule(Src, "skips");
  EXPECT_EQ(R.buffer("x").BytesRead.Unknown,
            "loop at line 16 has no counter that each iteration steps");
  R = schedule(std::string(Src).replace(std::string(Src).find("continue; "), 10, ""), "skips");
  EXPECT_EQ(R.S.Operations.Unknown, "loop at line 21 has no counter that each iteration steps");
  // A step on the right of && may not run.
  R = schedule(Src, "lazy");
  EXPECT_EQ(R.buffer("x").BytesRead.Unknown,
            "loop at line 27 has no counter that each iteration steps");
}

TEST(SchedulingAnalysis, GridStrideLoopCostsItsCountAcrossTheLaunch) {
  const char* Src =
      "@Kernel static void scale(KernelBuffer<float32> out, KernelBuffer<float32> in, "
      "float32 a, uint32 n) {\n"
      "  for (i, float32 v : in.range(n)) { out[i] = v * a; }\n"
      "}\n"
      "@Kernel static void byHand(KernelBuffer<float32> out, KernelBuffer<float32> in, "
      "float32 a, uint32 n) {\n"
      "  for (uint32 i = KernelThread.globalIdX(); i < n; i += KernelThread.globalSizeX()) {\n"
      "    out[i] = in[i] * a;\n"
      "  }\n"
      "}\n"
      "@Kernel static void rows(KernelBuffer<float32> out, KernelBuffer<float32> in, "
      "float32 a, uint32 n) {\n"
      "  uint32 row = KernelThread.globalIdY();\n"
      "  for (i, float32 v : in.range(n)) { out[row * n + i] = v * a; }\n"
      "}";
  for (const char* Kernel : {"scale", "byHand"}) {
    Result R = schedule(Src, Kernel);
    EXPECT_EQ(formatCost(R.S.BytesRead), "4*n") << Kernel;
    EXPECT_EQ(formatCost(R.S.BytesWritten), "4*n") << Kernel;
    EXPECT_EQ(formatCost(R.S.Operations), "2*n") << Kernel; // the multiply and the step
    EXPECT_TRUE(R.buffer("in").Streaming) << Kernel;
    EXPECT_TRUE(R.buffer("out").Streaming) << Kernel;
    EXPECT_TRUE(R.S.Restartable) << Kernel;
  }
  // A kernel that reads y geometry may run a 2-D launch: the per-work-item bound instead.
  Result R = schedule(Src, "rows");
  EXPECT_EQ(formatCost(R.S.BytesRead), "4*n*items");
  EXPECT_FALSE(R.buffer("in").Streaming);
}

TEST(SchedulingAnalysis, AtomicAddsAccumulate) {
  const char* Src = "@Kernel static void histogram(KernelBuffer<uint32> bins, "
                    "KernelBuffer<uint32> data, uint32 n) {\n"
                    "  for (i, uint32 v : data.range(n)) { Atomics.add(bins, v % 16u, 1u); }\n"
                    "}\n"
                    "@Kernel static void swaps(KernelBuffer<uint32> bins, "
                    "KernelBuffer<uint32> data, uint32 n) {\n"
                    "  for (i, uint32 v : data.range(n)) { Atomics.exchange(bins, v % 16u, 1u); }\n"
                    "}\n"
                    "@Kernel static void mixed(KernelBuffer<uint32> bins, "
                    "KernelBuffer<uint32> data, uint32 n) {\n"
                    "  for (i, uint32 v : data.range(n)) { Atomics.max(bins, v % 16u, 1u); }\n"
                    "  bins[0] = 0u;\n"
                    "}";
  Result R = schedule(Src, "histogram");
  EXPECT_TRUE(R.buffer("bins").Accumulates);
  EXPECT_FALSE(R.buffer("bins").Streaming);
  EXPECT_TRUE(R.buffer("data").Streaming);
  EXPECT_FALSE(R.buffer("data").Accumulates); // read only
  EXPECT_EQ(formatCost(R.buffer("bins").BytesRead), "4*n");
  EXPECT_EQ(formatCost(R.buffer("bins").BytesWritten), "4*n");
  EXPECT_FALSE(R.S.Restartable);
  // An exchange does not commute with others, nor does a plain store.
  EXPECT_FALSE(schedule(Src, "swaps").buffer("bins").Accumulates);
  EXPECT_FALSE(schedule(Src, "mixed").buffer("bins").Accumulates);
}

TEST(SchedulingAnalysis, InPlaceUpdateIsNotRestartable) {
  const char* Src = "@Kernel static void twice(KernelBuffer<float32> x, uint32 n) {\n"
                    "  uint32 i = KernelThread.globalIdX();\n"
                    "  if (i < n) { x[i] = x[i] * 2.0f; }\n"
                    "}\n"
                    "@Kernel static void copy(KernelBuffer<float32> y, KernelBuffer<float32> x, "
                    "uint32 n) {\n"
                    "  uint32 i = KernelThread.globalIdX();\n"
                    "  if (i < n) { y[i] = x[i] * 2.0f; }\n"
                    "}";
  Result R = schedule(Src, "twice");
  EXPECT_FALSE(R.S.Restartable);
  EXPECT_FALSE(R.buffer("x").Accumulates);
  EXPECT_TRUE(R.buffer("x").Streaming);
  EXPECT_TRUE(schedule(Src, "copy").S.Restartable);
}

TEST(SchedulingAnalysis, BarriersAreYieldPoints) {
  Result R = schedule("@Device static void twoSyncs() { Barrier.sync(); Barrier.sync(); }\n"
                      "@Kernel static void k(KernelBuffer<float32> out, uint32 n) {\n"
                      "  Shared<float32> t = shared float32[64];\n"
                      "  uint32 l = KernelThread.x();\n"
                      "  t[l] = 1.0f;\n"
                      "  Barrier.sync();\n"
                      "  for (uint32 r = 0; r < n; r++) { twoSyncs(); }\n"
                      "  twoSyncs();\n"
                      "  out[KernelThread.globalIdX()] = t[63 - l];\n"
                      "}",
                      "k");
  // Static: one in the kernel, two at each of the two call sites (the loop does not multiply).
  EXPECT_EQ(R.S.YieldPoints, 5u);
  // Shared memory is not buffer traffic.
  EXPECT_EQ(formatCost(R.S.BytesRead), "0");
}

TEST(SchedulingAnalysis, DataDependentLoopIsUnknownWithItsLine) {
  const char* Src =
      "@Kernel static void k(KernelBuffer<float32> out, KernelBuffer<int32> counts, "
      "KernelBuffer<float32> x) {\n"             // line 3
      "  uint32 i = KernelThread.globalIdX();\n" // line 4
      "  int32 c = counts[i];\n"                 // line 5
      "  float32 s = 0;\n"                       // line 6
      "  for (int32 k = 0; k < c; k++) {\n"      // line 7
      "    s += x[k];\n"
      "  }\n"
      "  out[i] = s;\n"
      "}\n"
      "@Kernel static void tri(KernelBuffer<float32> out, KernelBuffer<float32> x) {\n"
      "  uint32 i = KernelThread.globalIdX();\n" // line 13
      "  float32 s = 0;\n"
      "  for (uint32 k = 0; k < i; k++) { s += x[k]; }\n"        // line 15
      "  while (true) { s -= 1.0f; if (s < 0.0f) { break; } }\n" // line 16
      "  out[i] = s;\n"
      "}";
  Result R = schedule(Src, "k");
  std::string Why = "loop at line 7 runs a count read from a buffer";
  EXPECT_EQ(R.S.Operations.Unknown, Why);
  EXPECT_EQ(formatCost(R.S.Operations), "unknown (" + Why + ")");
  EXPECT_EQ(R.buffer("x").BytesRead.Unknown, Why);
  EXPECT_EQ(R.S.BytesRead.Unknown, Why);
  EXPECT_FALSE(eval(R.S.BytesRead, {{"items", 1}}));
  // What the loop does not touch keeps its cost.
  EXPECT_EQ(formatCost(R.buffer("counts").BytesRead), "4*items");
  EXPECT_EQ(formatCost(R.S.BytesWritten), "4*items");

  R = schedule(Src, "tri");
  EXPECT_EQ(R.buffer("x").BytesRead.Unknown,
            "loop at line 15 runs a count that depends on the work-item");
  EXPECT_EQ(R.S.Operations.Unknown, "loop at line 15 runs a count that depends on the work-item");
  R = schedule("@Kernel static void k(KernelBuffer<float32> out) {\n" // line 3
               "  float32 s = 4.0f;\n"
               "  while (true) { s -= 1.0f; if (s < 0.0f) { break; } }\n" // line 5
               "  out[0] = s;\n"
               "}",
               "k");
  EXPECT_EQ(R.S.Operations.Unknown, "loop at line 5 runs until a break");
  EXPECT_EQ(formatCost(R.S.BytesWritten), "4*items");
}

TEST(SchedulingAnalysis, TileGranularityIsTheLargestTile) {
  Result R = schedule("@Kernel static void mm(KernelBuffer<float32> c, KernelBuffer<float16> a, "
                      "KernelBuffer<float16> b) {\n"
                      "  uint32 g = Workgroup.x();\n"
                      "  Tile<float32, 16, 16> acc = Tile.zero();\n"
                      "  Tile<float16, 16, 32> ta = Tile.load(a, g * 512, 32);\n"
                      "  Tile<float16, 32, 16> tb = Tile.load(b, g * 512, 16);\n"
                      "  Group.mac(acc, ta, tb);\n"
                      "  acc.store(c, g * 256, 16);\n"
                      "}",
                      "mm");
  EXPECT_EQ(R.S.TileRows, 16u);
  EXPECT_EQ(R.S.TileCols, 32u);
  // A wave moves 16 x 32 float16 of a; each work-item is charged a quarter (4-lane waves).
  EXPECT_EQ(formatCost(R.buffer("a").BytesRead), "256*items");
  EXPECT_EQ(formatCost(R.buffer("c").BytesWritten), "256*items");
  EXPECT_FALSE(R.buffer("a").Streaming);
  // 16 x 16 x 32 multiply-adds, 2 operations each, a quarter per work-item; and the three g * .
  EXPECT_EQ(formatCost(R.S.Operations), "4099*items");
}

TEST(SchedulingAnalysis, HelperCostsTakeTheArguments) {
  const char* Src =
      "@Device static float32 sumTo(KernelBuffer<float32> x, uint32 m) {\n" // line 3
      "  float32 s = 0;\n"
      "  for (uint32 j = 0; j < m; j++) { s += x[j]; }\n"
      "  return s;\n"
      "}\n"
      "@Kernel static void k(KernelBuffer<float32> out, KernelBuffer<float32> x, uint32 n) {\n"
      "  uint32 i = KernelThread.globalIdX();\n"
      "  out[i] = sumTo(x, 2 * n) + sumTo(x, 3);\n"
      "}\n"
      "@Kernel static void fromBuffer(KernelBuffer<float32> out, KernelBuffer<float32> x, "
      "KernelBuffer<uint32> counts) {\n"
      "  uint32 i = KernelThread.globalIdX();\n" // line 13
      "  out[i] = sumTo(x, counts[i]);\n"        // line 14
      "}";
  Result R = schedule(Src, "k");
  EXPECT_EQ(formatCost(R.buffer("x").BytesRead), "8*n*items + 12*items");
  EXPECT_FALSE(R.buffer("x").Streaming);
  EXPECT_TRUE(R.buffer("out").Streaming);
  R = schedule(Src, "fromBuffer");
  EXPECT_EQ(R.buffer("x").BytesRead.Unknown,
            "helper 'K.sumTo' called at line 14 runs a count from its parameter 'm', here a "
            "value read from a buffer");
  EXPECT_EQ(formatCost(R.buffer("counts").BytesRead), "4*items");
}

TEST(SchedulingAnalysis, BranchTakesTheLargerArmPerBuffer) {
  Result R = schedule("@Kernel static void k(KernelBuffer<float32> out, KernelBuffer<float32> x, "
                      "KernelBuffer<float32> y, uint32 n) {\n"
                      "  uint32 i = KernelThread.globalIdX();\n"
                      "  if (i < n) { out[i] = x[i] + x[i + 1]; } else { out[i] = y[i] * y[i]; }\n"
                      "}",
                      "k");
  EXPECT_EQ(formatCost(R.buffer("x").BytesRead), "8*items");
  EXPECT_EQ(formatCost(R.buffer("y").BytesRead), "8*items");
  EXPECT_EQ(formatCost(R.buffer("out").BytesWritten), "4*items");
  // An upper bound: the larger arm of each buffer, summed.
  EXPECT_EQ(formatCost(R.S.BytesRead), "16*items");
  EXPECT_EQ(formatCost(R.S.Operations), "2*items"); // i + 1 and + (then), * (else): max 2
  EXPECT_FALSE(R.buffer("x").Streaming);            // two work-items touch each element
  EXPECT_TRUE(R.buffer("y").Streaming);
}

TEST(SchedulingAnalysis, LoopBoundsFollowABoundedChainOfLocals) {
  auto chain = [](int Length) {
    std::string Body = "@Kernel static void k(KernelBuffer<float32> out, KernelBuffer<float32> x, "
                       "uint32 n) {\n  uint32 a0 = n;\n";
    for (int I = 1; I < Length; ++I)
      Body += "  uint32 a" + std::to_string(I) + " = a" + std::to_string(I - 1) + " + 1u;\n";
    Body += "  float32 s = 0;\n  for (uint32 k = 0; k < a" + std::to_string(Length - 1) +
            "; k++) { s += x[k]; }\n  out[KernelThread.globalIdX()] = s;\n}";
    return schedule(Body, "k");
  };
  EXPECT_EQ(formatCost(chain(20).buffer("x").BytesRead), "4*n*items + 76*items");
  // Past 64 locals the count is unknown, not a deep recursion.
  Result R = chain(300);
  EXPECT_EQ(R.buffer("x").BytesRead.Unknown,
            "loop at line 305 runs a count computed through more than 64 locals");
}

TEST(SchedulingAnalysis, TenThousandStatementsAnalyseInLinearTime) {
  // A long kernel whose statements each add a known cost: the result checks the walk, the clock
  // that it does not revisit (a quadratic walk over 10,000 statements takes seconds).
  std::string Body = "@Kernel static void big(KernelBuffer<float32> out, KernelBuffer<float32> x, "
                     "uint32 n) {\n  uint32 i = KernelThread.globalIdX();\n  float32 s = 0;\n";
  const int Blocks = 2500;
  for (int B = 0; B < Blocks; ++B)
    Body += "  s = s * 2.0f;\n  if (s > 8.0f) { s = s - x[i]; }\n"
            "  for (uint32 k = 0; k < n; k++) { s += x[k]; }\n";
  Body += "  out[i] = s;\n}";
  std::unique_ptr<Module> M = frontend("import cajeta.xpu.*;\nclass K {\n" + Body + "\n}\n");
  ASSERT_TRUE(M);
  const Function* F = M->findFunction("K.big");
  ASSERT_NE(F, nullptr);
  auto Start = std::chrono::steady_clock::now();
  bundle::SchedulingManifest S = SchedulingAnalysis(*M).analyze(*F);
  double Seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - Start).count();
  EXPECT_LT(Seconds, 0.5);
  EXPECT_EQ(formatCost(S.BytesRead), "10000*n*items + 10000*items");
  // Per block: * and - outside, + and ++ per iteration.
  EXPECT_EQ(formatCost(S.Operations), "5000*n*items + 5000*items");
}

} // namespace
} // namespace cajeta::kir
