// The verifier in the pass pipeline: Sema's output for every conformance program verifies, and so
// does every pass's output in every target's pipeline configuration; invalid input and invalid
// pass output are errors that say where.
#include "compiler/kir/Builder.h"
#include "compiler/kir/Clone.h"
#include "compiler/kir/Verifier.h"
#include "compiler/kir/transforms/Pipeline.h"
#include "compiler/kir/transforms/Polyfill.h"
#include "compiler/kir/transforms/WaveExpand.h"
#include "compiler/kir/transforms/WaveSteps.h"
#include "compiler/kir/transforms/WorkItemQuads.h"
#include "compiler/lowering/spirv/SpirvPayloadBuilder.h"

#include "KirFromSource.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace cajeta::kir {
namespace {

bool contains(const std::string& S, const std::string& Part) {
  return S.find(Part) != std::string::npos;
}

/// Sema's module for a source file, or null with Diags set.
std::unique_ptr<Module> frontend(const std::string& Path, std::string& Diags) {
  std::ifstream In(Path);
  std::stringstream Text;
  Text << In.rdbuf();
  return kirFromSource(Path, Text.str(), Diags);
}

/// Every pipeline a payload builder runs: the CPU (barrier helpers inlined, portable waves), NVPTX
/// (native waves, or portable with CAJETA_GPU_WAVE_IMPL=software), SPIR-V in both wave tiers.
std::vector<PipelineConfig> allConfigs() {
  std::vector<PipelineConfig> Out;
  WavePrimitives NoWaves; // the CPU target in the portable wave tier
  WavePrimitives Sm90;    // NvptxTarget::wavePrimitives on sm_90 (redux.sync)
  Sm90.Available = true;
  Sm90.ConstantWidth = 32;
  Sm90.ReduceInt32 = true;
  WavePrimitives Sm70 = Sm90; // and on sm_70 (no redux.sync)
  Sm70.ReduceInt32 = false;
  TileLoweringConfig Portable; // the software tile
  TileLoweringConfig Mma;      // sm_80+ in the native tile tier
  Mma.F = TileLoweringConfig::Form::MmaSync;
  Out.push_back({"cpu", true, ImplTier::Portable, PolyfillConfig::llvm(), NoWaves, Portable});
  Out.back().ImplicitLoopBarriers = LoopBarriers::All;
  // The CPU in its native wave tier: waves as vectors of the work-item loop (kir::WaveSteps).
  Out.push_back(
      {"cpu", true, ImplTier::Native, PolyfillConfig::llvm(), WaveSteps::primitives(16), Portable});
  Out.back().ImplicitLoopBarriers = LoopBarriers::Profitable;
  Out.back().WaveSteps = true;
  Out.push_back({"cuda", false, ImplTier::Native, PolyfillConfig::llvm(), Sm90, Mma});
  Out.push_back({"cuda", false, ImplTier::Native, PolyfillConfig::llvm(), Sm70, Portable});
  Out.push_back({"cuda", false, ImplTier::Portable, PolyfillConfig::llvm(), Sm90, Portable});
  // The CPU once more as CAJETA_KIR_LEGALIZE=vulkan runs it.
  Out.push_back({"cpu", true, ImplTier::Portable, PolyfillConfig::spirv(), NoWaves, Portable});
  Out.back().ImplicitLoopBarriers = LoopBarriers::All;
  lowering::spirv::SpirvEmitOptions Spirv;
  Out.push_back(lowering::spirv::SpirvPayloadBuilder::pipelineConfig(Spirv));
  Spirv.PortableWaveOps = true;
  Out.push_back(lowering::spirv::SpirvPayloadBuilder::pipelineConfig(Spirv));
  return Out;
}

TEST(KirPipelineVerify, EveryConformanceProgramVerifiesAfterEveryPass) {
  std::vector<std::filesystem::path> Programs;
  for (const auto& Entry : std::filesystem::directory_iterator(CAJETA_CONFORMANCE_PROGRAMS))
    if (Entry.path().extension() == ".cj")
      Programs.push_back(Entry.path());
  std::sort(Programs.begin(), Programs.end());
  ASSERT_GT(Programs.size(), 100u);
  std::vector<PipelineConfig> Configs = allConfigs();
  ASSERT_EQ(Configs[6].Backend, "vulkan");
  ASSERT_EQ(Configs[7].WaveTier, ImplTier::Portable);
  size_t Compiled = 0, PortableWaveRuns = 0, WaveStepRuns = 0, InlineRuns = 0, QuadRuns = 0;
  for (const auto& Path : Programs) {
    std::string Diags;
    std::unique_ptr<Module> M = frontend(Path.string(), Diags);
    if (!M)
      continue; // a program the conformance suite expects to be rejected
    ++Compiled;
    std::string Error;
    EXPECT_TRUE(verify(*M, Error)) << Path.filename() << " after Sema:\n" << Error;
    bool Waves = false, Barriers = false;
    for (const auto& F : M->Functions) {
      Waves |= F->UsesWave;
      Barriers |= F->HasBarrier;
    }
    std::string NoMma;
    bool MmaFits = TileLowering::fitsMmaSync(*M, NoMma);
    for (PipelineConfig C : Configs) {
      // As the driver does: a program whose tiles have no mma.sync form gets the software tile.
      if (C.Tiles.F == TileLoweringConfig::Form::MmaSync && !MmaFits)
        C.Tiles.F = TileLoweringConfig::Form::Portable;
      PipelineTrace Trace;
      Trace.VerifyEach = true;
      std::string PipelineError;
      std::unique_ptr<Module> Out = runPipeline(*M, C, PipelineError, &Trace);
      // Tiles past this configuration's shared memory in the portable tier: the driver leaves
      // that kernel without code for such a target, with a warning (TilesBlockCopied.wider's
      // 16 x 256 tiles beside the configurations' 48 KiB).
      if (!Out && PipelineError.find("use smaller tiles") != std::string::npos)
        continue;
      EXPECT_TRUE(Out) << Path.filename() << " (" << C.Backend << "): " << PipelineError;
      if (!Out)
        continue;
      EXPECT_TRUE(verify(*Out, Error)) << Path.filename() << " (" << C.Backend << "): " << Error;
      // The GPUs' quad entries (made after the pipeline, beside the kernel): verified too, with
      // Vulkan's whole chunks.
      if (C.Backend != "cpu") {
        size_t Kernels = Out->Functions.size();
        for (size_t I = 0; I < Kernels; ++I) {
          if (WorkItemQuads::countParam(*Out->Functions[I]) < 0)
            continue;
          std::unique_ptr<Function> Quads = cloneFunction(*Out->Functions[I], *Out);
          Quads->Name += "#quads";
          ASSERT_TRUE(WorkItemQuads::rewrite(*Quads, *Out, C.Backend == "vulkan"));
          Out->Functions.push_back(std::move(Quads));
          ++QuadRuns;
        }
        EXPECT_TRUE(verify(*Out, Error))
            << Path.filename() << " (" << C.Backend << ", quad entries): " << Error;
      }
      PortableWaveRuns += Waves && C.WaveTier == ImplTier::Portable;
      WaveStepRuns += Waves && C.WaveSteps;
      InlineRuns += Barriers && C.InlineBarrierHelpers;
    }
  }
  EXPECT_GT(Compiled, 100u);
  EXPECT_GT(PortableWaveRuns, 0u); // the rewriting passes really ran
  EXPECT_GT(WaveStepRuns, 0u);
  EXPECT_GT(InlineRuns, 0u);
  EXPECT_GT(QuadRuns, 10u);
}

TEST(KirPipelineVerify, InvalidInputIsAnErrorNotACrash) {
  Module M;
  Builder K(M);
  K.kernel("K.bad");
  K.setLoc({2, 3});
  K.body({K.brk(7)}); // no such loop
  for (const PipelineConfig& C : allConfigs()) {
    std::string Error;
    EXPECT_FALSE(runPipeline(M, C, Error));
    EXPECT_TRUE(contains(Error, "invalid KIR given to the " + C.Backend + " pipeline")) << Error;
    EXPECT_TRUE(contains(Error, "function 'K.bad' at 2:3: Break: target loop 7")) << Error;
  }
}

TEST(KirPipelineVerify, AFailureAfterAPassNamesThePassAndDumpsTheModule) {
  Module M;
  Builder K(M);
  K.kernel("K.broken");
  uint32_t Out = K.param("out", Type::buffer(bundle::ScalarType::I32));
  K.body({K.eval(K.store(Out, K.i32(0), K.constFloat(bundle::ScalarType::F32, 1)))});
  std::string Error;
  EXPECT_FALSE(verifyAfterPass(M, "portable-wave", "vulkan", Error));
  EXPECT_TRUE(contains(Error, "invalid KIR after pass portable-wave (vulkan)")) << Error;
  EXPECT_TRUE(contains(Error, "function 'K.broken' at 0:0: Store: stored value of type float32"))
      << Error;
  EXPECT_TRUE(contains(Error, dump(M))) << Error;
  EXPECT_TRUE(contains(Error, "K.broken")) << Error;

  Module Good;
  Builder G(Good);
  G.kernel("K.good");
  G.body({});
  EXPECT_TRUE(verifyAfterPass(Good, "portable-wave", "vulkan", Error));
}

TEST(KirPipelineVerify, VerifyEachIsOnByDefaultOnlyInDebugBuilds) {
#ifdef NDEBUG
  EXPECT_FALSE(verifyEachPassByDefault());
#else
  EXPECT_TRUE(verifyEachPassByDefault());
#endif
  bool Was = verifyEachPassByDefault();
  setVerifyEachPassByDefault(!Was);
  EXPECT_EQ(verifyEachPassByDefault(), !Was);
  setVerifyEachPassByDefault(Was);
}

} // namespace
} // namespace cajeta::kir
