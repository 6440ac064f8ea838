// The access-mode analysis recorded in kernel manifests: read, write, read-write, none, and
// modes that flow through @Device helpers.
#include "compiler/driver/Compiler.h"

#include <gtest/gtest.h>

using cajeta::bundle::Access;
using cajeta::driver::Compiler;

namespace {

std::vector<Access> accessOf(const std::string& Src, const std::string& Kernel) {
  auto R = Compiler::runFrontend("t.cj", Src);
  EXPECT_TRUE(R.Ok) << R.Diagnostics;
  if (!R.Ok)
    return {};
  const auto* F = R.Kir->findFunction(Kernel);
  EXPECT_NE(F, nullptr);
  return F ? F->ParamAccess : std::vector<Access>{};
}

const char* Prelude = "import cajeta.xpu.KernelBuffer;\nimport cajeta.xpu.KernelThread;\n";

TEST(AccessAnalysis, SaxpyReadsXAndUpdatesY) {
  auto A = accessOf(std::string(Prelude) +
                        "class K { @Kernel static void saxpy(KernelBuffer<float32> y, "
                        "KernelBuffer<float32> x, float32 a, uint32 n) {\n"
                        "uint32 i = KernelThread.globalIdX(); if (i < n) { y[i] = a * x[i] + "
                        "y[i]; } } }",
                    "K.saxpy");
  EXPECT_EQ(A, (std::vector<Access>{Access::ReadWrite, Access::Read, Access::None, Access::None}));
}

TEST(AccessAnalysis, WriteOnlyAndUnused) {
  auto A =
      accessOf(std::string(Prelude) + "class K { @Kernel static void k(KernelBuffer<int32> out, "
                                      "KernelBuffer<int32> unused) { out[0] = 1; } }",
               "K.k");
  EXPECT_EQ(A, (std::vector<Access>{Access::Write, Access::None}));
}

TEST(AccessAnalysis, FlowsThroughHelpers) {
  auto A = accessOf(std::string(Prelude) +
                        "class K {\n"
                        "@Device static void put(KernelBuffer<int32> b, int32 v) { b[0] = v; }\n"
                        "@Device static int32 get(KernelBuffer<int32> b) { return b[1]; }\n"
                        "@Kernel static void k(KernelBuffer<int32> w, KernelBuffer<int32> r, "
                        "KernelBuffer<int32> rw) {\n"
                        "put(w, get(r)); put(rw, get(rw)); } }",
                    "K.k");
  EXPECT_EQ(A, (std::vector<Access>{Access::Write, Access::Read, Access::ReadWrite}));
}

TEST(AccessAnalysis, CompoundAssignmentIsReadWrite) {
  auto A = accessOf(std::string(Prelude) +
                        "class K { @Kernel static void k(KernelBuffer<int32> b) { b[3] += 1; } }",
                    "K.k");
  EXPECT_EQ(A, (std::vector<Access>{Access::ReadWrite}));
}

} // namespace

TEST(AccessAnalysis, AtomicsReadAndWrite) {
  auto A = accessOf("import cajeta.xpu.*;\n"
                    "class K { @Kernel static void k(KernelBuffer<int32> sum, "
                    "KernelBuffer<int32> peek, KernelBuffer<int32> put, KernelBuffer<int32> x) {\n"
                    "uint32 i = KernelThread.globalIdX();\n"
                    "if (i == 0) { Atomics.add(sum, 0, x[i]); }\n"
                    "int32 v = Atomics.load(peek, i);\n"
                    "Atomics.store(put, i, v); } }",
                    "K.k");
  EXPECT_EQ(A, (std::vector<Access>{Access::ReadWrite, Access::Read, Access::Write, Access::Read}));
}

TEST(AccessAnalysis, FlowsThroughFunctionValues) {
  auto A =
      accessOf("import cajeta.xpu.*;\n"
               "class K {\n"
               "@Device static void fill(KernelBuffer<float32> b, uint32 i) { b[i] = 1.0f; }\n"
               "@Device static void keep(KernelBuffer<float32> b, uint32 i) { }\n"
               "@Kernel static void k(KernelBuffer<float32> out, Fn<void(KernelBuffer<float32>, "
               "uint32)> f) {\n"
               "f(out, KernelThread.globalIdX()); } }",
               "K.k");
  ASSERT_EQ(A.size(), 2u);
  EXPECT_EQ(A[0], Access::Write);
}
