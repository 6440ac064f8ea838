// Sema for the device subset: the KIR it builds for shared arrays, barriers, atomics, PODs,
// function values and @Backend, checked through the KIR dump.
#include "compiler/driver/Compiler.h"

#include <gtest/gtest.h>

using cajeta::driver::Compiler;

namespace {

std::string kirOf(const std::string& Body) {
  auto R = Compiler::runFrontend("t.cj", "import cajeta.xpu.*;\n" + Body);
  EXPECT_TRUE(R.Ok) << R.Diagnostics;
  return R.Ok ? cajeta::kir::dump(*R.Kir) : "";
}

bool has(const std::string& Hay, const std::string& Needle) {
  return Hay.find(Needle) != std::string::npos;
}

TEST(DeviceSubsetSema, SharedArraysAndBarriers) {
  std::string K = kirOf("class K { @Kernel static void k(KernelBuffer<float32> o) {\n"
                        "Shared<float32> t = shared float32[256];\n"
                        "Shared<int32> d = shared int32[];\n"
                        "t[KernelThread.x()] = 1.0f; Barrier.sync();\n"
                        "o[0] = t[0] + (float32) d.length(); } }");
  EXPECT_TRUE(has(K, "shared @t : float32[256]")) << K;
  EXPECT_TRUE(has(K, "shared @d : int32[dynamic]")) << K;
  EXPECT_TRUE(has(K, "barrier")) << K;
  EXPECT_TRUE(has(K, "(store float32 @t")) << K;
  EXPECT_TRUE(has(K, "(buffer_length uint64 @d)")) << K;
}

TEST(DeviceSubsetSema, AtomicsWithOrders) {
  std::string K = kirOf("class K { @Kernel static void k(KernelBuffer<uint32> h, "
                        "KernelBuffer<float32> f) {\n"
                        "Atomics.add(h, 3, 1);\n"
                        "uint32 old = Atomics.compareExchange(h, 0, 5, 6, MemoryOrder.ACQ_REL);\n"
                        "Atomics.max(f, 0, 2.5f, MemoryOrder.SEQ_CST); } }");
  EXPECT_TRUE(has(K, "(atomic.add relaxed uint32 $h")) << K;
  EXPECT_TRUE(has(K, "(atomic.cmpxchg acq_rel uint32 $h")) << K;
  EXPECT_TRUE(has(K, "(atomic.max seq_cst float32 $f")) << K;
}

TEST(DeviceSubsetSema, PodFieldsHaveCLayout) {
  auto R = Compiler::runFrontend("t.cj", "import cajeta.xpu.*;\n"
                                         "class P { uint8 flag; float64 big; float32 s; }\n"
                                         "class K { @Kernel static void k(KernelBuffer<float64> o, "
                                         "@PushConstant P p) { o[0] = p.big + p.s; } }");
  ASSERT_TRUE(R.Ok) << R.Diagnostics;
  ASSERT_EQ(R.Kir->Pods.size(), 1u);
  const auto& Pod = R.Kir->Pods[0];
  EXPECT_EQ(Pod.Fields[0].Offset, 0u);
  EXPECT_EQ(Pod.Fields[1].Offset, 8u);
  EXPECT_EQ(Pod.Fields[2].Offset, 16u);
  EXPECT_EQ(Pod.Size, 24u);
  EXPECT_EQ(Pod.Align, 8u);
}

TEST(DeviceSubsetSema, FunctionValuesDispatchOverTheClosedSet) {
  auto R = Compiler::runFrontend(
      "t.cj", "import cajeta.xpu.*;\nclass K {\n"
              "@Device static float32 sq(float32 x) { return x * x; }\n"
              "@Device static int32 other(int32 x) { return x; }\n"
              "@Device static float32 neg(float32 x) { return -x; }\n"
              "@Kernel static void k(KernelBuffer<float32> o, Fn<float32(float32)> op) {\n"
              "Fn<float32(float32)> f = K::neg; o[0] = op(o[0]) + f(1.0f); } }");
  ASSERT_TRUE(R.Ok) << R.Diagnostics;
  std::string K = cajeta::kir::dump(*R.Kir);
  EXPECT_TRUE(has(K, "(dispatch float32 [K.sq, K.neg]")) << K;
  const auto* Fn = R.Kir->findFunction("K.k");
  ASSERT_NE(Fn, nullptr);
  EXPECT_TRUE(Fn->Params[1].IsFunction);
  EXPECT_EQ(Fn->Params[1].FunctionTable.size(), 2u);
  EXPECT_TRUE(has(K, "(set %f.1 uint32 1)")) << K; // K::neg is tag 1
}

TEST(DeviceSubsetSema, BackendRestrictionIsRecorded) {
  auto R = Compiler::runFrontend("t.cj", "import cajeta.xpu.*;\nclass K {\n"
                                         "@Backend(\"cuda\") @Kernel static void k() { } }");
  ASSERT_TRUE(R.Ok) << R.Diagnostics;
  EXPECT_EQ(R.Kir->Functions[0]->Backends, std::vector<std::string>{"cuda"});
}

TEST(DeviceSubsetSema, Float16ArithmeticStaysHalf) {
  std::string K = kirOf("class K { @Kernel static void k(KernelBuffer<float16> o) {\n"
                        "float16 h = 1.5; o[0] = o[1] * h + (float16) 2.0f; } }");
  EXPECT_TRUE(has(K, "(mul float16")) << K;
  EXPECT_TRUE(has(K, "(add float16")) << K;
}

} // namespace

namespace {

// Java rules the conformance suite ran into.
TEST(JavaRules, MostNegativeLiteralsFitAfterUnaryMinus) {
  auto R = cajeta::driver::Compiler::runFrontend(
      "t.cj", "class K { @Kernel static void k() { int64 a = -9223372036854775808L; "
              "int32 b = -2147483648; } }");
  EXPECT_TRUE(R.Ok) << R.Diagnostics;
  auto Bad = cajeta::driver::Compiler::runFrontend(
      "t.cj", "class K { @Kernel static void k() { int64 a = 9223372036854775808L; } }");
  EXPECT_FALSE(Bad.Ok);
}

TEST(JavaRules, EndlessLoopsNeedNoTrailingReturn) {
  auto R = cajeta::driver::Compiler::runFrontend(
      "t.cj", "class K {\n"
              "@Device static int32 f(int32 x) { while (true) { if (x > 3) { return x; } x++; } }\n"
              "@Device static int32 g(int32 x) { for (;;) { return x; } }\n"
              "@Device static int32 h(int32 x) { do { return x; } while (true); } }");
  EXPECT_TRUE(R.Ok) << R.Diagnostics;
  auto Bad = cajeta::driver::Compiler::runFrontend(
      "t.cj", "class K { @Device static int32 f(int32 x) { while (true) { if (x > 3) { break; } "
              "x++; } } }");
  EXPECT_FALSE(Bad.Ok) << "a break leaves the loop, so the end is reachable";
}

} // namespace
