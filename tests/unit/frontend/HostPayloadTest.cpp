// The driver's host payload: a program with host methods gets one "host" payload (an x86-64 ELF
// shared object) whose attributes name its runnable methods, its default entry point and its
// static initialiser by findEntry's rules; kernels-only programs and the JIT's compiles get none,
// and every target's payload is built as without it.
#include "compiler/driver/Compiler.h"

#include <gtest/gtest.h>

#include <cstring>

using cajeta::driver::CompileOptions;
using cajeta::driver::Compiler;
namespace bundle = cajeta::bundle;

namespace {

const char* Program = "import cajeta.xpu.*;\n"
                      "class K {\n"
                      "  @Kernel static void twice(KernelBuffer<float32> y, uint32 n) {\n"
                      "    for (i, float32 v : y.range(n)) { y[i] = v * 2.0f; }\n"
                      "  }\n"
                      "}\n"
                      "public final class P {\n"
                      "  static int32 calls = 1;\n"
                      "  static int32 helper(int32 x) { return x + calls; }\n"
                      "  public static void main(String[] args) {\n"
                      "    System.out.println(helper(1));\n"
                      "  }\n"
                      "  public static int32 status() { return 3; }\n"
                      "}\n";

const bundle::Payload* hostPayload(const bundle::Program& P) {
  return P.findPayload("host");
}

std::string attribute(const bundle::Payload& P, const char* Key) {
  auto It = P.Attributes.find(Key);
  return It == P.Attributes.end() ? "<absent>" : It->second;
}

} // namespace

TEST(HostPayload, AProgramWithHostMethodsCarriesItsHostCode) {
  auto R = Compiler::compile("P.cj", Program, {});
  ASSERT_TRUE(R.Ok) << R.Diagnostics;
  const bundle::Payload* H = hostPayload(R.Program);
  ASSERT_NE(H, nullptr);
  EXPECT_EQ(H->Format, "elf-shared-object");
  ASSERT_GT(H->Bytes.size(), 64u);
  EXPECT_EQ(std::memcmp(H->Bytes.data(),
                        "\x7f"
                        "ELF",
                        4),
            0);
  const cajeta::kir::Function* Main = R.HostKir->findFunction("P.main");
  const cajeta::kir::Function* Status = R.HostKir->findFunction("P.status");
  ASSERT_TRUE(Main && Status);
  EXPECT_EQ(attribute(*H, "entry"), Main->Symbol);
  // Runnable: no parameters, void or int32; P.helper takes one, the initialiser is none.
  EXPECT_EQ(attribute(*H, "methods"), "P.main=" + Main->Symbol + ",P.status=" + Status->Symbol);
  EXPECT_EQ(attribute(*H, "returns_int"), "P.status");
  EXPECT_NE(attribute(*H, "static_init"), "<absent>");
  EXPECT_EQ(attribute(*H, "source_file"), "P.cj");
  EXPECT_EQ(attribute(*H, "triple"), "x86_64-unknown-linux-gnu");
  EXPECT_EQ(attribute(*H, "features"), attribute(*R.Program.findPayload("cpu-x86_64"), "features"));
  // The kernels' payloads are there as ever.
  auto Without = [] {
    CompileOptions O;
    O.HostPayload = false; // as the JIT compiles
    return Compiler::compile("P.cj", Program, O);
  }();
  ASSERT_TRUE(Without.Ok) << Without.Diagnostics;
  EXPECT_EQ(hostPayload(Without.Program), nullptr);
  ASSERT_EQ(R.Program.Payloads.size(), Without.Program.Payloads.size() + 1);
  for (size_t I = 0; I != Without.Program.Payloads.size(); ++I)
    EXPECT_EQ(R.Program.Payloads[I].Target, Without.Program.Payloads[I].Target);
}

TEST(HostPayload, SeveralEntryPointsLeaveTheDefaultEmpty) {
  auto R = Compiler::compile("Q.cj",
                             "public final class Q {\n"
                             "  public static void a() { System.out.println(1); }\n"
                             "  public static void b() { System.out.println(2); }\n"
                             "}\n",
                             {});
  ASSERT_TRUE(R.Ok) << R.Diagnostics;
  const bundle::Payload* H = hostPayload(R.Program);
  ASSERT_NE(H, nullptr);
  EXPECT_EQ(attribute(*H, "entry"), "");
  EXPECT_EQ(attribute(*H, "returns_int"), "");
  EXPECT_EQ(attribute(*H, "static_init"), "<absent>");
  EXPECT_NE(attribute(*H, "methods").find("Q.a="), std::string::npos);
  EXPECT_NE(attribute(*H, "methods").find(",Q.b="), std::string::npos);
}

TEST(HostPayload, AKernelsOnlyProgramHasNone) {
  auto R = Compiler::compile("K.cj",
                             "import cajeta.xpu.*;\n"
                             "class K {\n"
                             "  @Kernel static void k(KernelBuffer<float32> y) {\n"
                             "    y[KernelThread.globalIdX()] = 1.0f;\n"
                             "  }\n"
                             "}\n",
                             {});
  ASSERT_TRUE(R.Ok) << R.Diagnostics;
  EXPECT_EQ(hostPayload(R.Program), nullptr);
}
