// kir::LoopJam on small kernels compiled from source: the nests it jams (and into what), and the
// ones it must leave alone because jamming would change what they compute.
#include "compiler/kir/transforms/LoopJam.h"
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

/// Whether LoopJam takes the only kernel of a program whose class body is Kernel; the result
/// verifies.
bool jams(const std::string& Kernel) {
  std::unique_ptr<Module> M = frontend(Kernel);
  if (!M)
    return false;
  Function& F = *M->Functions.front();
  bool Jammed = LoopJam::run(*M, F);
  std::string Problems;
  EXPECT_TRUE(verify(*M, Problems)) << Problems;
  return Jammed;
}

/// The triangle of CORR with Before, Inner (the inner loop's body) and After spliced in.
std::string triangle(const std::string& Before, const std::string& Inner,
                     const std::string& After) {
  return "@Kernel public static void corr(KernelBuffer<float32> sym, KernelBuffer<float32> "
         "data, uint32 n, uint32 m) {\n"
         "  uint32 j1 = KernelThread.globalIdX();\n"
         "  if (j1 < m) {\n"
         "    for (uint32 j2 = j1 + 1; j2 < m; j2++) {\n" +
         Before + "\n      for (uint32 i = 0; i < n; i++) {\n" + Inner + "\n      }\n" + After +
         "\n    }\n  }\n}";
}

const char* Sum = "float32 sum = 0.0f;";
const char* Product = "sum += data[i * m + j1] * data[i * m + j2];";
const char* Store = "sym[j1 * m + j2] = sum; sym[j2 * m + j1] = sum;";

TEST(LoopJam, TheTriangleIsJammedByFourWithAJammedLoopAndTheRest) {
  std::unique_ptr<Module> M = frontend(triangle(Sum, Product, Store));
  ASSERT_TRUE(M);
  Function& F = *M->Functions.front();
  ASSERT_TRUE(LoopJam::run(*M, F));
  std::string Problems;
  ASSERT_TRUE(verify(*M, Problems)) << Problems;
  // Four sums, four stores of each kind in the jammed loop, and the rest as it was: the loop
  // nests are the jammed one and the original.
  unsigned Sums = 0, Stores = 0, Loops = 0;
  for (const Local& L : F.Locals)
    Sums += L.Name.rfind("sum$", 0) == 0;
  forEachExprIn(F.Body, [&](const Expr* E) { Stores += E->K == Expr::Kind::Store; });
  forEachStmt(F.Body, [&](const Stmt* S) { Loops += S->K == Stmt::Kind::Loop; });
  EXPECT_EQ(Sums, LoopJam::Factor);
  EXPECT_EQ(Stores, 2 * LoopJam::Factor + 2);
  EXPECT_EQ(Loops, 4u);
  // And the fission then runs the jammed inner loop once per group.
  ImplicitLoopBarriers::run(*M, F);
  unsigned Barriers = 0;
  forEachStmt(F.Body, [&](const Stmt* S) { Barriers += S->K == Stmt::Kind::Barrier; });
  EXPECT_GE(Barriers, 1u);
}

TEST(LoopJam, SignedCountersAndLocalsSetBeforeTheInnerLoopToo) {
  EXPECT_TRUE(
      jams("@Kernel public static void k(KernelBuffer<float32> out, KernelBuffer<float32> data,\n"
           "    uint32 n, int32 m) {\n"
           "  int32 j1 = (int32) KernelThread.globalIdX();\n"
           "  for (int32 j2 = j1 - 3; j2 < m; j2++) {\n"
           "    float32 w = j2 < 0 ? 1.0f : 2.0f; float32 sum = w;\n"
           "    for (uint32 i = 0; i < n; i++) { float32 t = data[i] * w; sum += t; }\n"
           "    if (j2 >= 0) { out[(uint32) j2] = sum; }\n"
           "  }\n"
           "}"));
}

TEST(LoopJam, NestsWhoseIterationsDependOnEachOtherAreLeftAlone) {
  // A buffer the kernel writes is read: an earlier iteration's store may be what it reads.
  EXPECT_FALSE(jams(triangle(Sum, "sum += sym[i * m + j2];", Store)));
  // A store inside the inner loop would interleave with the other copies' stores.
  EXPECT_FALSE(jams(triangle(Sum, "sym[i] = data[i * m + j2];", Store)));
  // The inner loop's trip count depends on the counter.
  EXPECT_FALSE(
      jams("@Kernel public static void k(KernelBuffer<float32> out, KernelBuffer<float32> data,\n"
           "    uint32 m) {\n"
           "  uint32 j1 = KernelThread.globalIdX();\n"
           "  for (uint32 j2 = j1; j2 < m; j2++) {\n"
           "    float32 sum = 0.0f;\n"
           "    for (uint32 i = 0; i < j2; i++) { sum += data[i]; }\n"
           "    out[j2] = sum;\n"
           "  }\n"
           "}"));
  // A break out of the loop.
  EXPECT_FALSE(jams(triangle(Sum, Product, "if (sum > 1.0f) { break; } sym[j2] = sum;")));
  // Steps other than one, and bounds the loop changes, keep their shape.
  EXPECT_FALSE(
      jams("@Kernel public static void k(KernelBuffer<float32> out, KernelBuffer<float32> data,\n"
           "    uint32 n, uint32 m) {\n"
           "  uint32 j1 = KernelThread.globalIdX();\n"
           "  for (uint32 j2 = j1; j2 < m; j2 += 2) {\n"
           "    float32 sum = 0.0f;\n"
           "    for (uint32 i = 0; i < n; i++) { sum += data[i * m + j2]; }\n"
           "    out[j2] = sum;\n"
           "  }\n"
           "}"));
}

TEST(LoopJam, ALocalCarriedAcrossIterationsIsLeftAlone) {
  EXPECT_FALSE(
      jams("@Kernel public static void k(KernelBuffer<float32> out, KernelBuffer<float32> data,\n"
           "    uint32 n, uint32 m) {\n"
           "  uint32 j1 = KernelThread.globalIdX();\n"
           "  float32 carry = 0.0f;\n"
           "  for (uint32 j2 = j1; j2 < m; j2++) {\n"
           "    float32 sum = carry;\n"
           "    for (uint32 i = 0; i < n; i++) { sum += data[i * m + j2]; }\n"
           "    carry = sum;\n"
           "    out[j2] = sum;\n"
           "  }\n"
           "}"));
  // Nor an inner counter read after the nest.
  EXPECT_FALSE(
      jams("@Kernel public static void k(KernelBuffer<float32> out, KernelBuffer<float32> data,\n"
           "    uint32 n, uint32 m) {\n"
           "  uint32 j1 = KernelThread.globalIdX();\n"
           "  uint32 i = 0;\n"
           "  for (uint32 j2 = j1; j2 < m; j2++) {\n"
           "    float32 sum = 0.0f;\n"
           "    for (i = 0; i < n; i++) { sum += data[i * m + j2]; }\n"
           "    out[j2] = sum;\n"
           "  }\n"
           "  out[j1] = (float32) i;\n"
           "}"));
  // Nor a local set in the loop and read after it.
  EXPECT_FALSE(
      jams("@Kernel public static void k(KernelBuffer<float32> out, KernelBuffer<float32> data,\n"
           "    uint32 n, uint32 m) {\n"
           "  uint32 j1 = KernelThread.globalIdX();\n"
           "  float32 last = 0.0f;\n"
           "  for (uint32 j2 = j1; j2 < m; j2++) {\n"
           "    last = 0.0f;\n"
           "    for (uint32 i = 0; i < n; i++) { last += data[i * m + j2]; }\n"
           "    out[j2] = last;\n"
           "  }\n"
           "  out[j1] = last;\n"
           "}"));
}

} // namespace
} // namespace cajeta::kir
