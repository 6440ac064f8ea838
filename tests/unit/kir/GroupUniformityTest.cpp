// The CPU's workgroup uniformity and implicit loop barriers on small kernels compiled from source:
// which locals every running work-item agrees on, which are recomputed from coordinates, which
// loops run once per group (and which the cost model keeps inside the work-item), the masked
// guard and the counter form of a loop with its own trip count.
#include "compiler/kir/GroupUniformity.h"
#include "compiler/kir/Verifier.h"
#include "compiler/kir/Walk.h"
#include "compiler/kir/transforms/ImplicitLoopBarriers.h"

#include "KirFromSource.h"

#include <gtest/gtest.h>

namespace cajeta::kir {
namespace {

std::unique_ptr<Module> frontend(const std::string& Body) {
  return kirOfClassK(Body);
}

Function& kernel(Module& M, const std::string& Name) {
  for (auto& F : M.Functions)
    if (F->Name == "K." + Name)
      return *F;
  ADD_FAILURE() << "no kernel " << Name;
  return *M.Functions.front();
}

/// The first local of F called Name.
uint32_t local(const Function& F, const std::string& Name) {
  for (uint32_t I = 0; I < F.Locals.size(); ++I)
    if (F.Locals[I].Name == Name)
      return I;
  ADD_FAILURE() << "no local " << Name;
  return 0;
}

unsigned barriers(const Function& F) {
  unsigned N = 0;
  forEachStmt(F.Body, [&](const Stmt* S) { N += S->K == Stmt::Kind::Barrier; });
  return N;
}

const char* Gemm = R"(
  @Kernel public static void gemm(KernelBuffer<float32> c, KernelBuffer<float32> a,
      KernelBuffer<float32> b, uint32 n) {
    uint32 j = KernelThread.globalIdX();
    uint32 i = KernelThread.globalIdY();
    if (i < n && j < n) {
      float32 sum = 0.0f;
      for (uint32 k = 0; k < n; k++) { sum += a[i * n + k] * b[k * n + j]; }
      c[i * n + j] = sum;
    }
  })";

TEST(GroupUniformity, CountersAreUniformCoordinatesRecomputedAccumulatorsPerWorkItem) {
  auto M = frontend(Gemm);
  ASSERT_TRUE(M);
  Function& F = kernel(*M, "gemm");
  ImplicitLoopBarriers::run(*M, F);
  GroupUniformity U(F);
  EXPECT_TRUE(U.isUniformLocal(local(F, "k")));           // counted inside the masked guard
  EXPECT_TRUE(U.isUniformLocal(local(F, "n")));           // a parameter's copy
  EXPECT_FALSE(U.isUniformLocal(local(F, "j")));          // a coordinate...
  EXPECT_NE(U.rematerialization(local(F, "j")), nullptr); // ...recomputed where read
  EXPECT_FALSE(U.isUniformLocal(local(F, "sum")));
  EXPECT_EQ(U.rematerialization(local(F, "sum")), nullptr);
  std::string Problems;
  EXPECT_TRUE(verify(*M, Problems)) << Problems;
}

// Each work-item walks its own row: across work-items a[i * n + k] steps by n.
const char* Rows = R"(
  @Kernel public static void rows(KernelBuffer<float32> out, KernelBuffer<float32> a, uint32 n) {
    uint32 i = KernelThread.globalIdX();
    if (i < n) {
      float32 sum = 0.0f;
      for (uint32 k = 0; k < n; k++) { sum += a[i * n + k]; }
      out[i] = sum;
    }
  })";

TEST(GroupUniformity, ALoopThatWouldGatherStaysInsideTheWorkItem) {
  auto M = frontend(Rows);
  ASSERT_TRUE(M);
  Function& F = kernel(*M, "rows");
  ImplicitLoopBarriers::run(*M, F);
  EXPECT_EQ(barriers(F), 0u);
  EXPECT_FALSE(F.HasBarrier);
  // ...unless every uniform loop is asked for (the test mode).
  auto M2 = frontend(Rows);
  ASSERT_TRUE(M2);
  Function& F2 = kernel(*M2, "rows");
  ImplicitLoopBarriers::run(*M2, F2, /*IgnoreCost=*/true);
  EXPECT_GE(barriers(F2), 1u);
}

TEST(GroupUniformity, ADivergentBreakScopesACounterToItsLoop) {
  // found is read after the loop: a work-item that broke out early must keep its own value.
  auto M = frontend(R"(
  @Kernel public static void search(KernelBuffer<int32> out, KernelBuffer<float32> a, uint32 n) {
    uint32 j = KernelThread.globalIdX();
    int32 found = -1;
    for (uint32 r = 0; r < n; r++) {
      if (a[r * n + j] < 0.0f) { found = (int32) r; break; }
    }
    out[j] = found;
  })");
  ASSERT_TRUE(M);
  Function& F = kernel(*M, "search");
  GroupUniformity U(F);
  EXPECT_TRUE(U.isUniformLocal(local(F, "r"))); // set just before the loop, read only inside
  EXPECT_FALSE(U.isUniformLocal(local(F, "found")));
}

TEST(GroupUniformity, ADivergentContinueMakesTheBodyDivergent) {
  auto M = frontend(R"(
  @Kernel public static void skip(KernelBuffer<int32> out, uint32 n) {
    uint32 j = KernelThread.globalIdX();
    int32 count = 0;
    for (uint32 r = 0; r < n; r++) {
      if (((j + r) & 1) == 0) { continue; }
      count++;
    }
    out[j] = count;
  })");
  ASSERT_TRUE(M);
  Function& F = kernel(*M, "skip");
  GroupUniformity U(F);
  bool AnyUniformLoop = false;
  forEachStmt(F.Body, [&](const Stmt* S) {
    AnyUniformLoop |= S->K == Stmt::Kind::Loop && U.isUniformLoop(S);
  });
  EXPECT_FALSE(AnyUniformLoop);
}

TEST(ImplicitLoopBarriers, ATriangularLoopTakesItsCounterForm) {
  auto M = frontend(R"(
  @Kernel public static void tri(KernelBuffer<float32> sym, KernelBuffer<float32> d, uint32 n) {
    uint32 j1 = KernelThread.globalIdX();
    if (j1 < n) {
      for (uint32 j2 = j1 + 1; j2 < n; j2++) {
        float32 s = 0.0f;
        for (uint32 i = 0; i < n; i++) { s += d[i * n + j1] * d[i * n + j2]; }
        sym[j1 * n + j2] = s;
      }
    }
  })");
  ASSERT_TRUE(M);
  Function& F = kernel(*M, "tri");
  ImplicitLoopBarriers::run(*M, F);
  // The sum over i, once per group: unrolled by eight (UniformLoopUnroll) and its remainder.
  EXPECT_EQ(barriers(F), 2u);
  GroupUniformity U(F);
  EXPECT_TRUE(U.isUniformLocal(local(F, "i")));
  EXPECT_NE(U.rematerialization(local(F, "j2")), nullptr); // $start + $step * 1
  std::string Problems;
  EXPECT_TRUE(verify(*M, Problems)) << Problems;
}

// A loop counted from zero in counter form has a uniform counter q; a value computed from it and
// the coordinates early in the body (LoopJam's `j2 = start + 4 q`) is recomputed where it is read
// later in the body, so its loads stay contiguous across work-items.
TEST(GroupUniformity, ValuesOfAUniformLocalSetOnceInTheBodyAreRecomputed) {
  auto M = frontend(R"(
  @Kernel public static void quads(KernelBuffer<float32> out, KernelBuffer<float32> d, uint32 n) {
    uint32 j1 = KernelThread.globalIdX();
    if (j1 < n) {
      uint32 count = (n - j1) / 4;
      for (uint32 q = 0; q < count; q++) {
        uint32 j2 = j1 + 4 * q;
        float32 s = 0.0f;
        for (uint32 i = 0; i < n; i++) { s += d[i * n + j2]; }
        out[j2] = s;
      }
    }
  })");
  ASSERT_TRUE(M);
  Function& F = kernel(*M, "quads");
  ImplicitLoopBarriers::run(*M, F);
  GroupUniformity U(F);
  EXPECT_TRUE(U.isUniformLocal(local(F, "q")));
  EXPECT_NE(U.rematerialization(local(F, "j2")), nullptr); // j1 + 4 * q
  std::string Problems;
  EXPECT_TRUE(verify(*M, Problems)) << Problems;
}

TEST(ImplicitLoopBarriers, APlainCountedLoopIsUnrolledAndAContinueKeepsItWhole) {
  auto M = frontend(R"(
  @Kernel public static void sums(KernelBuffer<float32> out, KernelBuffer<float32> d, uint32 n) {
    uint32 j = KernelThread.globalIdX();
    float32 s = 0.0f;
    for (uint32 i = 0; i < n; i++) { s += d[i * n + j]; }
    float32 t = 0.0f;
    for (uint32 i2 = 0; i2 < n; i2++) {
      if (i2 == 3) { continue; }
      t += d[i2 * n + j];
    }
    out[j] = s + t;
  })");
  ASSERT_TRUE(M);
  Function& F = kernel(*M, "sums");
  ImplicitLoopBarriers::run(*M, F);
  // The first loop: its eight-wide copy and the remainder; the second, whole (a continue).
  EXPECT_EQ(barriers(F), 3u);
  unsigned Unrolled = 0;
  forEachStmt(F.Body, [&](const Stmt* S) {
    if (S->K == Stmt::Kind::Loop && S->E && S->E->K == Expr::Kind::Binary &&
        S->E->BOp == BinaryOp::LogicalAnd)
      ++Unrolled;
  });
  EXPECT_EQ(Unrolled, 1u);
  std::string Problems;
  EXPECT_TRUE(verify(*M, Problems)) << Problems;
}

} // namespace
} // namespace cajeta::kir
