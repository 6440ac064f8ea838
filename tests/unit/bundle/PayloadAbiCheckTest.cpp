// A manifest held against the code it describes: the PTX entries' parameter lists, the SPIR-V
// kernels' parameter blocks and interfaces, and the CPU payload's own record (checked by the
// loader). A compiled program agrees with itself; each kind of lie a manifest can tell about its
// payload is refused with a message naming the kernel and the parameter, by the check and by
// the runtime's loader, which never hands such code to a device.
#include "bundle/PayloadAbiCheck.h"
#include "bundle/BundleWriter.h"
#include "bundle/PtxInterface.h"
#include "bundle/SpirvInterface.h"
#include "cajeta/xpu/Program.hpp"
#include "compiler/driver/Compiler.h"

#include <gtest/gtest.h>

#include <functional>

using cajeta::bundle::KernelInfo;
using cajeta::bundle::ParamKind;
using cajeta::bundle::PayloadAbiCheck;
using cajeta::bundle::Program;
using cajeta::bundle::PtxInterface;
using cajeta::bundle::PtxParam;
using cajeta::bundle::ScalarType;
namespace bundle = cajeta::bundle;
namespace xpu = cajeta::xpu;

namespace {

const char* Source = "import cajeta.xpu.*;\n"
                     "public final class Pair { public float64 scale; public int32 bias; }\n"
                     "public final class K {\n"
                     "  static float32 twice(float32 v) { return v * 2.0f; }\n"
                     "  @Kernel public static void mix(KernelBuffer<float32> y, "
                     "KernelBuffer<int16> x, int8 a, float64 b, Pair p, uint32 n) {\n"
                     "    uint32 i = KernelThread.x();\n"
                     "    if (i < n) { y[i] = (float32) (x[i] + a) + (float32) (b * p.scale) "
                     "+ (float32) p.bias; }\n"
                     "  }\n"
                     "}\n";

const Program& compiled() {
  static Program P = [] {
    auto R = cajeta::driver::Compiler::compile("K.cj", Source, {});
    if (!R.Ok)
      ADD_FAILURE() << R.Diagnostics;
    return R.Program;
  }();
  return P;
}

KernelInfo& mix(Program& P) {
  for (KernelInfo& K : P.Kernels)
    if (K.Name == "K.mix")
      return K;
  throw std::runtime_error("no K.mix");
}

/// The check's verdict on the compiled program after Lie, for every target it has.
std::string checkAfter(const std::function<void(Program&)>& Lie) {
  Program P = compiled();
  Lie(P);
  return PayloadAbiCheck::checkProgram(P);
}

} // namespace

TEST(PtxInterface, ReadsEveryEntryWithItsParameterSizesAndRecords) {
  const char* Ptx = "// a comment .entry fake(\n"
                    ".visible .entry first(\n"
                    "\t.param .u64 .ptr .global .align 1 first_param_0, /* c */\n"
                    "\t.param .u8 first_param_1,\n"
                    "\t.param .align 8 .b8 first_param_2[24],\n"
                    "\t.param .f64 first_param_3\n"
                    ")\n{ ret; }\n"
                    ".visible .entry second(.param .u32 a, .param .u16 b) { ret; }\n"
                    ".visible .entry third() { ret; }\n"
                    ".visible .global .align 1 .b8 cajeta_abi_first[6] = {98, 56, 44, 102, "
                    "49, 0};\n"
                    ".visible .global .align 1 .b8 cajeta_abi_third[1];\n";
  PtxInterface Face;
  std::string Error;
  ASSERT_TRUE(PtxInterface::read(Ptx, Face, Error)) << Error;
  std::map<std::string, std::vector<PtxParam>>& Entries = Face.Entries;
  ASSERT_EQ(Entries.size(), 3u);
  const std::vector<PtxParam>& First = Entries["first"];
  ASSERT_EQ(First.size(), 4u);
  EXPECT_EQ(First[0].Size, 8u);
  EXPECT_EQ(First[1].Size, 1u);
  EXPECT_EQ(First[2].Size, 24u);
  EXPECT_EQ(First[2].Align, 8u);
  EXPECT_EQ(First[3].Size, 8u);
  ASSERT_EQ(Entries["second"].size(), 2u);
  EXPECT_EQ(Entries["second"][1].Size, 2u);
  EXPECT_TRUE(Entries["third"].empty());
  ASSERT_EQ(Face.Records.size(), 2u);
  EXPECT_EQ(Face.Records["cajeta_abi_first"], "b8,f1");
  EXPECT_EQ(Face.Records["cajeta_abi_third"], ""); // zero-initialised: no parameters
}

TEST(PtxInterface, MalformedParameterListsAndRecordsAreRefusedWithTheirName) {
  for (const char* Ptx :
       {".entry k(.param .u32 a", ".entry k(.param .x32 a)", ".entry k(.param .u32)",
        ".entry k(.reg .u32 a)", ".entry k(.param .b8 a[zz])", ".entry k() {} .entry k() {}",
        ".global .b8 cajeta_abi_k[2] = {98, x};", ".global .b8 cajeta_abi_k[2] = {98, 0",
        ".global .b8 cajeta_abi_k[2] = {300, 0};"}) {
    PtxInterface Face;
    std::string Error;
    EXPECT_FALSE(PtxInterface::read(Ptx, Face, Error)) << Ptx;
    EXPECT_NE(Error.find("k"), std::string::npos) << Ptx << ": " << Error;
  }
}

TEST(SpirvInterface, BytesThatAreNoModuleAreRefused) {
  const uint8_t Short[8] = {0x03, 0x02, 0x23, 0x07};
  bundle::SpirvInterface Face;
  std::string Error;
  EXPECT_FALSE(bundle::SpirvInterface::read(Short, sizeof Short, Face, Error));
  EXPECT_NE(Error.find("not a SPIR-V module"), std::string::npos) << Error;
  // A header and one instruction claiming 100 words.
  uint8_t Overrun[24] = {0x03, 0x02, 0x23, 0x07, 0, 3, 1, 0};
  Overrun[20] = 15;
  Overrun[22] = 100;
  EXPECT_FALSE(bundle::SpirvInterface::read(Overrun, sizeof Overrun, Face, Error));
  EXPECT_NE(Error.find("past the module's end"), std::string::npos) << Error;
}

TEST(PayloadAbiCheck, ACompiledProgramAgreesWithItsPayloads) {
  const Program& P = compiled();
  ASSERT_FALSE(P.Kernels.empty());
  EXPECT_TRUE(mix(const_cast<Program&>(P)).Targets.count("spirv"));
  EXPECT_EQ(PayloadAbiCheck::checkProgram(P), "");
}

TEST(PayloadAbiCheck, EachLieAboutTheParametersIsNamed) {
  struct Case {
    const char* What;
    std::function<void(Program&)> Lie;
    const char* Expected; // in the message
  };
  const Case Cases[] = {
      {"a dropped parameter", [](Program& P) { mix(P).Params.erase(mix(P).Params.begin() + 2); },
       "K.mix"},
      {"a duplicated parameter",
       [](Program& P) { mix(P).Params.insert(mix(P).Params.begin(), mix(P).Params[0]); }, "K.mix"},
      {"a scalar widened", [](Program& P) { mix(P).Params[2].Type = ScalarType::I64; },
       "parameter 2 'a'"},
      {"another buffer element type", [](Program& P) { mix(P).Params[0].Type = ScalarType::F64; },
       "marshal as 'b8,b2,"},
      {"a buffer called a scalar",
       [](Program& P) {
         mix(P).Params[1].Kind = ParamKind::Scalar;
         mix(P).Params[1].Type = ScalarType::U64;
       },
       "K.mix"},
      {"a POD resized", [](Program& P) { mix(P).Params[4].PodSize = 8; }, "parameter 4 'p'"},
      {"another entry symbol",
       [](Program& P) {
         for (auto& [Target, M] : mix(P).Targets)
           M.Symbol += "_x";
       },
       "K.mix"},
  };
  for (const Case& C : Cases) {
    std::string Message = checkAfter(C.Lie);
    EXPECT_NE(Message.find(C.Expected), std::string::npos)
        << C.What << ": '" << Message << "' does not name " << C.Expected;
  }
}

TEST(PayloadAbiCheck, ASpirvParameterBlockThatDisagreesIsNamed) {
  std::string Message = checkAfter([](Program& P) {
    for (bundle::Payload& Pay : P.Payloads)
      if (Pay.Target == "spirv:K.mix")
        Pay.Attributes["param_slots"] = "2:0:4";
  });
  EXPECT_NE(Message.find("spirv: kernel 'K.mix': the manifest's parameters take the block"),
            std::string::npos)
      << Message;
}

TEST(PayloadAbiCheck, TheLoaderRefusesAManifestThatLiesAboutItsPayload) {
  // Whatever device the runtime picks (the CPU, lavapipe, a GPU), the lie is caught at load with
  // the kernel named, before any launch.
  Program Lying = compiled();
  mix(Lying).Params.erase(mix(Lying).Params.begin() + 3);
  std::vector<uint8_t> Bytes = bundle::BundleWriter::write(Lying);
  try {
    xpu::Program::loadMemory(Bytes.data(), Bytes.size());
    ADD_FAILURE() << "a bundle whose manifest drops a parameter loaded";
  } catch (const xpu::BundleError& E) {
    EXPECT_NE(std::string(E.what()).find("K.mix"), std::string::npos) << E.what();
  }
  std::vector<uint8_t> Honest = bundle::BundleWriter::write(compiled());
  EXPECT_NO_THROW(xpu::Program::loadMemory(Honest.data(), Honest.size()));
}
