// A TMA entry's PTX parameters held against its manifest (bundle::PayloadAbiCheck) with
// hand-written PTX: the plain entry's parameters, then one 128-byte, 64-byte aligned tensor map
// per TargetManifest::TensorMaps entry. No compiler needed.
#include "bundle/KernelAbiRecord.h"
#include "bundle/PayloadAbiCheck.h"

#include <gtest/gtest.h>

using namespace cajeta::bundle;

namespace {

const char* const Target = "nvptx-sm_90a";

/// A `.global .b8` record of Text (NUL-terminated) named for entry Symbol.
std::string record(const std::string& Symbol, const std::string& Text) {
  std::string Bytes;
  for (char C : Text)
    Bytes += std::to_string(int(C)) + ", ";
  return ".visible .global .align 1 .b8 " + kernelAbiRecordSymbol(Symbol) + "[" +
         std::to_string(Text.size() + 1) + "] = {" + Bytes + "0};\n";
}

/// K.copy(a: buffer of float16, n: uint32): its plain entry and, when Tma is not empty, a TMA
/// entry whose parameters after the status pointer are Tma.
Program program(const std::string& Tma, size_t Maps = 1, const std::string& TmaRecord = "") {
  Program P;
  P.CompilerVersion = "test";
  KernelInfo K;
  K.Name = "K.copy";
  ParamInfo A;
  A.Name = "a";
  A.Kind = ParamKind::Buffer;
  A.Type = ScalarType::F16;
  A.Mode = Access::Read;
  ParamInfo N;
  N.Name = "n";
  N.Kind = ParamKind::Scalar;
  N.Type = ScalarType::U32;
  K.Params = {A, N};
  TargetManifest M;
  M.Symbol = "K_copy";
  M.TmaSymbol = "K_copy_tma";
  TensorMapRecipe R;
  R.BufferParam = 0;
  R.Height.Param = 1;
  R.Width.Param = 1;
  R.Stride.Param = 1;
  R.BoxCols = 64;
  R.BoxRows = 64;
  M.TensorMaps.assign(Maps, R);
  K.Targets[Target] = M;
  std::string Plain = ".param .u64 p0, .param .u64 p1, .param .u32 p2, .param .u64 p3";
  std::string Text = ".version 8.4\n.target sm_90a\n.address_size 64\n"
                     ".visible .entry K_copy(" +
                     Plain + ") { ret; }\n" + record("K_copy", kernelAbiRecord(K.Params));
  if (!Tma.empty())
    Text += ".visible .entry K_copy_tma(" + Plain + Tma + ") { ret; }\n";
  if (!TmaRecord.empty())
    Text += record("K_copy_tma", TmaRecord);
  P.Kernels.push_back(K);
  Payload Ptx;
  Ptx.Target = Target;
  Ptx.Format = "ptx";
  Ptx.Bytes.assign(Text.begin(), Text.end());
  P.Payloads.push_back(Ptx);
  return P;
}

const char* const OneMap = ", .param .align 64 .b8 p4[128]";

} // namespace

TEST(PayloadAbiCheckTma, ATmaEntryTakesThePlainParametersThenItsTensorMaps) {
  EXPECT_EQ(PayloadAbiCheck::checkTarget(program(OneMap), Target), "");
  EXPECT_EQ(PayloadAbiCheck::checkTarget(
                program(std::string(OneMap) + ", .param .align 64 .b8 p5[128]", 2), Target),
            "");
  // Its own record, where it has one, describes the kernel's parameters.
  EXPECT_EQ(PayloadAbiCheck::checkTarget(program(OneMap, 1, "b2,suint32"), Target), "");
}

TEST(PayloadAbiCheckTma, EachDisagreementIsNamed) {
  EXPECT_EQ(PayloadAbiCheck::checkTarget(program(""), Target),
            "nvptx-sm_90a: kernel 'K.copy': the PTX has no entry 'K_copy_tma'");
  EXPECT_EQ(PayloadAbiCheck::checkTarget(program(", .param .u64 p4"), Target),
            "nvptx-sm_90a: kernel 'K.copy': tensor map 0 takes 128 bytes aligned to 64, but PTX "
            "parameter 4 of entry 'K_copy_tma' has 8 aligned to 8");
  EXPECT_EQ(PayloadAbiCheck::checkTarget(program(", .param .align 8 .b8 p4[128]"), Target),
            "nvptx-sm_90a: kernel 'K.copy': tensor map 0 takes 128 bytes aligned to 64, but PTX "
            "parameter 4 of entry 'K_copy_tma' has 128 aligned to 8");
  EXPECT_EQ(PayloadAbiCheck::checkTarget(program(OneMap, 2), Target),
            "nvptx-sm_90a: kernel 'K.copy': the manifest lists 2 parameters and 2 tensor maps, "
            "which take 6 PTX parameters with the status pointer; entry 'K_copy_tma' has 5");
  EXPECT_EQ(PayloadAbiCheck::checkTarget(program(" "), Target),
            "nvptx-sm_90a: kernel 'K.copy': the manifest lists 2 parameters and 1 tensor maps, "
            "which take 5 PTX parameters with the status pointer; entry 'K_copy_tma' has 4");
  EXPECT_EQ(PayloadAbiCheck::checkTarget(program(OneMap, 1, "b4,suint32"), Target),
            "nvptx-sm_90a: kernel 'K.copy': the manifest's parameters marshal as 'b2,suint32', "
            "but the PTX's 'K_copy_tma' takes 'b4,suint32'");
}
