// Targeted checks of the SPIR-V emitter: multi-level break/continue, the parameter block layout
// of VulkanKernelAbi.h, specialisation constants, payloads in the bundle, and bad KIR.
#include "SpirvTestSupport.h"

#include "bundle/VulkanKernelAbi.h"
#include "compiler/lowering/spirv/SpirvPayloadBuilder.h"

#include <gtest/gtest.h>

#include <cstring>
#include <map>

namespace cajeta::lowering::spirv::test {
namespace {

void expectValid(const SpirvKernel& K) {
  ASSERT_TRUE(K.Ok) << K.Error;
  for (const char* V : {"1.1", "1.3"}) {
    std::string Out;
    EXPECT_TRUE(spirvVal(K.Module, V, Out)) << Out << "\n" << disassemble(K.Module);
  }
}

bool contains(const std::string& Text, const std::string& What) {
  return Text.find(What) != std::string::npos;
}

const char* ThreeLoops = R"(import cajeta.xpu.*;
public final class T {
    @Kernel
    public static void run(KernelBuffer<int32> out, uint32 n) {
        uint32 i = KernelThread.globalIdX();
        int32 count = 0;
        outer:
        for (int32 a = 0; a < 8; a++) {
            middle:
            for (int32 b = 0; b < 8; b++) {
                int32 c = 0;
                while (c < 8) {
                    c++;
                    if (c == 3 && b == 2) {
                        continue outer;
                    }
                    if (a * b * c > (int32) n) {
                        break outer;
                    }
                    if (c == a) {
                        continue middle;
                    }
                    if (c > b) {
                        break middle;
                    }
                    count++;
                }
            }
        }
        out[i] = count;
    }
}
)";

TEST(SpirvTargeted, LabeledJumpsOutOfThreeNestedLoopsValidate) {
  driver::FrontendResult F = frontend("T.cj", ThreeLoops);
  ASSERT_TRUE(F.Ok) << F.Diagnostics;
  SpirvKernel K = emit(F, "T.run");
  expectValid(K);
  std::string Dis = disassemble(K.Module);
  // Three loops with their merges, and the pending-jump variable the jumps go through.
  size_t Loops = 0;
  for (size_t P = Dis.find("OpLoopMerge"); P != std::string::npos;
       P = Dis.find("OpLoopMerge", P + 1))
    ++Loops;
  EXPECT_EQ(Loops, 3u) << Dis;
  SpirvEmitOptions O;
  O.CheckBounds = true;
  expectValid(emit(F, "T.run", O));
}

const char* Params = R"(import cajeta.xpu.*;
final class P {
    int8 a;
    float64 b;
    uint16 c;
}
public final class T {
    @Kernel
    public static void run(KernelBuffer<float32> out, int8 s8, int64 s64, P pod, float16 h,
                           uint32 n) {
        uint32 i = KernelThread.globalIdX();
        if (i < n) {
            out[i] = (float32) s8 + (float32) s64 + (float32) pod.a + (float32) pod.b
                     + (float32) pod.c + (float32) h;
        }
    }
}
)";

TEST(SpirvTargeted, ParameterBlockFollowsTheAbi) {
  driver::FrontendResult F = frontend("T.cj", Params);
  ASSERT_TRUE(F.Ok) << F.Diagnostics;
  SpirvKernel K = emit(F, "T.run");
  expectValid(K);
  // out: binding 0, no slot; s8: 4 bytes at 0; s64: 8 at 8; pod (24 bytes, align 8) at 16;
  // h: 4 at 40; n: 4 at 44.
  std::vector<std::tuple<uint32_t, uint32_t, uint32_t>> Want = {
      {1, 0, 4}, {2, 8, 8}, {3, 16, 24}, {4, 40, 4}, {5, 44, 4}};
  ASSERT_EQ(K.Slots.size(), Want.size());
  for (size_t I = 0; I < Want.size(); ++I) {
    EXPECT_EQ(K.Slots[I].Param, std::get<0>(Want[I])) << I;
    EXPECT_EQ(K.Slots[I].Offset, std::get<1>(Want[I])) << I;
    EXPECT_EQ(K.Slots[I].Size, std::get<2>(Want[I])) << I;
  }
  EXPECT_EQ(K.ParamBlockBytes, 48u);
  EXPECT_FALSE(K.ParamBlockIsUniform);
  std::string Dis = disassemble(K.Module);
  EXPECT_TRUE(contains(Dis, "PushConstant")) << Dis;
  EXPECT_TRUE(contains(Dis, "DescriptorSet 0")) << Dis;
  EXPECT_TRUE(contains(Dis, "Binding 0")) << Dis;
  for (const char* Cap : {"Int8", "Int64", "Float16", "Float64"})
    EXPECT_NE(std::find(K.Capabilities.begin(), K.Capabilities.end(), Cap), K.Capabilities.end())
        << Cap;
}

TEST(SpirvTargeted, LargeParameterBlockIsAUniformBuffer) {
  std::string Src = "import cajeta.xpu.*;\npublic final class T {\n    @Kernel\n    public static "
                    "void run(KernelBuffer<int64> out";
  for (int I = 0; I < 20; ++I)
    Src += ", int64 p" + std::to_string(I);
  Src += ") {\n        out[0] = p0 + p19;\n    }\n}\n";
  driver::FrontendResult F = frontend("T.cj", Src);
  ASSERT_TRUE(F.Ok) << F.Diagnostics;
  SpirvKernel K = emit(F, "T.run");
  expectValid(K);
  EXPECT_EQ(K.ParamBlockBytes, 160u);
  EXPECT_TRUE(K.ParamBlockIsUniform);
  std::string Dis = disassemble(K.Module);
  EXPECT_TRUE(contains(Dis, "Binding 22")) << Dis; // P + 1 with P = 21 parameters
}

const char* Shared = R"(import cajeta.xpu.*;
public final class T {
    @Kernel
    public static void run(KernelBuffer<float32> out, KernelBuffer<float32> in, uint32 n) {
        Shared<float32> tile = shared float32[64];
        Shared<float32> dyn = shared float32[];
        uint32 t = KernelThread.x();
        tile[t % 64] = in[KernelThread.globalIdX()];
        dyn[t] = tile[t % 64];
        Barrier.sync();
        out[KernelThread.globalIdX()] = dyn[Workgroup.dimX() - 1 - t];
    }
}
)";

TEST(SpirvTargeted, SpecialisationConstantsForWorkgroupSizeAndDynamicShared) {
  driver::FrontendResult F = frontend("T.cj", Shared);
  ASSERT_TRUE(F.Ok) << F.Diagnostics;
  SpirvKernel K = emit(F, "T.run");
  expectValid(K);
  std::string Dis = disassemble(K.Module);
  for (const char* Id : {"SpecId 0", "SpecId 1", "SpecId 2", "SpecId 3"})
    EXPECT_TRUE(contains(Dis, Id)) << Id << "\n" << Dis;
  EXPECT_TRUE(contains(Dis, "BuiltIn WorkgroupSize")) << Dis;
  EXPECT_TRUE(contains(Dis, "OpSpecConstantComposite")) << Dis;
  EXPECT_TRUE(contains(Dis, "OpControlBarrier")) << Dis;
  EXPECT_EQ(K.StaticSharedBytes, 256u);
  EXPECT_EQ(K.DynamicSharedElementBytes, 4u);
}

TEST(SpirvTargeted, CheckBoundsAddsTheStatusBinding) {
  driver::FrontendResult F = frontend("T.cj", Shared);
  ASSERT_TRUE(F.Ok) << F.Diagnostics;
  SpirvEmitOptions O;
  O.CheckBounds = true;
  SpirvKernel K = emit(F, "T.run", O);
  expectValid(K);
  std::string Dis = disassemble(K.Module);
  EXPECT_TRUE(contains(Dis, "Binding 3")) << Dis; // P = 3 parameters
  EXPECT_TRUE(contains(Dis, "OpAtomicCompareExchange")) << Dis;
}

TEST(SpirvTargeted, FloatAtomicAddNativeOrCompareExchange) {
  const char* Src = R"(import cajeta.xpu.*;
public final class T {
    @Kernel
    public static void run(KernelBuffer<float32> sum, KernelBuffer<float32> in, uint32 n) {
        uint32 i = KernelThread.globalIdX();
        if (i < n) {
            Atomics.add(sum, 0, in[i]);
        }
    }
}
)";
  driver::FrontendResult F = frontend("T.cj", Src);
  ASSERT_TRUE(F.Ok) << F.Diagnostics;
  SpirvKernel Cas = emit(F, "T.run");
  expectValid(Cas);
  EXPECT_FALSE(Cas.UsesNativeFloatAtomicAdd);
  EXPECT_FALSE(contains(disassemble(Cas.Module), "OpAtomicFAddEXT"));
  SpirvEmitOptions O;
  O.NativeFloatAtomicAdd = true;
  SpirvKernel Native = emit(F, "T.run", O);
  expectValid(Native);
  EXPECT_TRUE(Native.UsesNativeFloatAtomicAdd);
  std::string Dis = disassemble(Native.Module);
  EXPECT_TRUE(contains(Dis, "OpAtomicFAddEXT")) << Dis;
  EXPECT_TRUE(contains(Dis, "SPV_EXT_shader_atomic_float_add")) << Dis;
}

TEST(SpirvTargeted, ProgramPayloadsFollowTheAbi) {
  driver::FrontendResult F = frontend("T.cj", Shared);
  ASSERT_TRUE(F.Ok) << F.Diagnostics;
  SpirvBuildResult R = SpirvPayloadBuilder::build(*F.Kir, {});
  ASSERT_TRUE(R.Errors.empty()) << R.Errors.front();
  ASSERT_EQ(R.Payloads.size(), 1u);
  const bundle::Payload& P = R.Payloads[0];
  EXPECT_EQ(P.Target, "spirv:T.run");
  EXPECT_EQ(P.Format, "spirv");
  ASSERT_GE(P.Bytes.size(), 20u);
  uint32_t Magic;
  std::memcpy(&Magic, P.Bytes.data(), 4);
  EXPECT_EQ(Magic, 0x07230203u);
  EXPECT_EQ(P.Attributes.at("vulkan_abi"), std::to_string(CAJETA_VULKAN_KERNEL_ABI_VERSION));
  EXPECT_EQ(P.Attributes.at("param_block"), "push-constant");
  EXPECT_EQ(P.Attributes.at("param_slots"), "2:0:4");
  EXPECT_EQ(P.Attributes.at("dynamic_shared_element_bytes"), "4");
  EXPECT_TRUE(contains(P.Attributes.at("capabilities"), "Shader"));
  ASSERT_TRUE(R.Manifests.count("T.run"));
  EXPECT_EQ(R.Manifests["T.run"].Symbol, P.Attributes.at("entry"));
  EXPECT_EQ(R.Manifests["T.run"].StaticSharedBytes, 256u);
}

// A kernel that never reads the grid's size may be dispatched in pieces (vkCmdDispatchBase:
// NumWorkgroups would be the piece's); one that does (a grid-stride loop) says so.
TEST(SpirvTargeted, PayloadsSayWhetherTheyReadTheGridSize) {
  const char* Src = R"(import cajeta.xpu.*;
public final class T {
    @Kernel
    public static void guarded(KernelBuffer<int32> out, uint32 n) {
        uint32 i = KernelThread.globalIdX();
        if (i < n) { out[i] = 1; }
    }
    @Kernel
    public static void strided(KernelBuffer<int32> out, uint32 n) {
        for (i, int32 v : out.range(n)) { out[i] = 2; }
    }
    @Kernel
    public static void counted(KernelBuffer<int32> out) {
        out[0] = (int32) Workgroup.countY();
    }
}
)";
  driver::FrontendResult F = frontend("T.cj", Src);
  ASSERT_TRUE(F.Ok) << F.Diagnostics;
  SpirvBuildResult R = SpirvPayloadBuilder::build(*F.Kir, {});
  ASSERT_TRUE(R.Errors.empty()) << R.Errors.front();
  std::map<std::string, std::string> GridCount;
  for (const bundle::Payload& P : R.Payloads)
    GridCount[P.Attributes.at("kernel")] = P.Attributes.at("grid_count");
  EXPECT_EQ(GridCount["T.guarded"], "unread");
  EXPECT_EQ(GridCount["T.strided"], "read");
  EXPECT_EQ(GridCount["T.counted"], "read");
  std::string Dis = disassemble(emit(F, "T.guarded").Module);
  EXPECT_FALSE(contains(Dis, "NumWorkgroups")) << Dis;
}

TEST(SpirvTargeted, BackendRestrictedKernelsAreSkipped) {
  const char* Src = R"(import cajeta.xpu.*;
public final class T {
    @Kernel
    @Backend("cuda")
    public static void onlyCuda(KernelBuffer<int32> out) {
        out[0] = 1;
    }
    @Kernel
    public static void anywhere(KernelBuffer<int32> out) {
        out[0] = 2;
    }
}
)";
  driver::FrontendResult F = frontend("T.cj", Src);
  ASSERT_TRUE(F.Ok) << F.Diagnostics;
  SpirvBuildResult R = SpirvPayloadBuilder::build(*F.Kir, {});
  ASSERT_EQ(R.Payloads.size(), 1u);
  EXPECT_EQ(R.Payloads[0].Target, "spirv:T.anywhere");
  SpirvKernel K = emit(F, "T.onlyCuda");
  EXPECT_FALSE(K.Ok);
  EXPECT_TRUE(contains(K.Error, "not available on vulkan")) << K.Error;
}

// The emitter assumes verified KIR; the pipeline verifies its input, so hand-made malformed KIR
// is the verifier's error (each invariant is tested in tests/unit/kir/VerifierTest.cpp).
TEST(SpirvTargeted, MalformedKirIsAnErrorNotACrash) {
  kir::Module M;
  auto Fn = std::make_unique<kir::Function>();
  Fn->Name = "K.bad";
  Fn->Symbol = "cj_K_bad";
  Fn->IsKernel = true;
  kir::Stmt* Body = M.newStmt(kir::Stmt::Kind::Block, {1, 1});
  kir::Stmt* Jump = M.newStmt(kir::Stmt::Kind::Break, {2, 3});
  Jump->LoopId = 7; // no such loop
  Body->Body.push_back(Jump);
  Fn->Body = Body;
  M.Functions.push_back(std::move(Fn));
  SpirvKernel K = SpirvPayloadBuilder::emitKernel(M, *M.Functions[0], {});
  EXPECT_FALSE(K.Ok);
  EXPECT_TRUE(contains(K.Error, "K.bad")) << K.Error;
  EXPECT_TRUE(contains(K.Error, "2:3")) << K.Error;
  EXPECT_TRUE(contains(K.Error, "invalid KIR given to the vulkan pipeline")) << K.Error;
}

TEST(SpirvTargeted, CompilerAddsSpirvPayloads) {
  driver::CompileOptions O;
  driver::CompileResult R = driver::Compiler::compile("T.cj", Shared, O);
  ASSERT_TRUE(R.Ok) << R.Diagnostics;
  const bundle::Payload* P = R.Program.findPayload("spirv:T.run");
  ASSERT_NE(P, nullptr);
  const bundle::KernelInfo* K = R.Program.findKernel("T.run");
  ASSERT_NE(K, nullptr);
  ASSERT_TRUE(K->Targets.count("spirv"));
  EXPECT_EQ(K->Targets.at("spirv").Symbol, P->Attributes.at("entry"));
}

} // namespace
} // namespace cajeta::lowering::spirv::test

namespace cajeta::lowering::spirv::test {
namespace {

TEST(SpirvTargeted, TheValidatorRejectsABrokenModule) {
  // The harness can fail: a module whose last instruction is cut short is rejected.
  driver::FrontendResult F = frontend("T.cj", Shared);
  ASSERT_TRUE(F.Ok) << F.Diagnostics;
  SpirvKernel K = emit(F, "T.run");
  ASSERT_TRUE(K.Ok) << K.Error;
  Words Broken = K.Module;
  Broken.pop_back();
  std::string Out;
  EXPECT_FALSE(spirvVal(Broken, "1.1", Out));
  EXPECT_FALSE(Out.empty());
}

} // namespace
} // namespace cajeta::lowering::spirv::test
