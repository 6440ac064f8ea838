// Loading bundles (good, corrupt, incomplete, wrong CPU) and choosing backends and devices.
#include "TestProgram.h"

#include "bundle/BundleWriter.h"

#include <cstring>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <unistd.h>

using namespace cajeta;
using namespace cajeta::xpu;
using namespace cajeta::xpu::test;

static std::string loadError(const bundle::Program& P) {
  std::vector<uint8_t> Bytes = bundle::BundleWriter::write(P);
  return messageOf<BundleError>([&] { Program::loadMemory(Bytes.data(), Bytes.size()); });
}

TEST(Program, CorruptBundleIsABundleError) {
  std::vector<uint8_t> Bytes = testBundleBytes();
  std::vector<uint8_t> Flipped = Bytes;
  Flipped[Flipped.size() / 2] ^= 0x5a;
  EXPECT_TRUE(
      contains(messageOf<BundleError>([&] { Program::loadMemory(Flipped.data(), Flipped.size()); }),
               "bundle in memory"));
  EXPECT_THROW(Program::loadMemory(Bytes.data(), Bytes.size() - 1), BundleError);
  EXPECT_THROW(Program::loadMemory(Bytes.data(), 3), BundleError);
  EXPECT_THROW(Program::loadMemory(nullptr, 0), BundleError);
  const char Junk[] = "this is not a bundle at all, just some text";
  EXPECT_THROW(Program::loadMemory(Junk, sizeof(Junk)), BundleError);
}

TEST(Program, MissingSymbolIsABundleErrorNamingIt) {
  bundle::Program P = makeTestProgram();
  P.Kernels[1].Targets["cpu-x86_64"].Symbol = "cj_K_missing";
  std::string M = loadError(P);
  EXPECT_TRUE(contains(M, "kernel 'K.coords'"));
  EXPECT_TRUE(contains(M, "symbol 'cj_K_missing' is missing"));
}

TEST(Program, AQuadEntryTheManifestNamesMustBeThereWithA32BitIntegerCount) {
  // K.saxpy(y, x, a, n): the quad entry's count must be the uint32 n (an int32 would do too), its
  // symbol in the payload.
  bundle::Program P = makeTestProgram();
  bundle::TargetManifest& Cpu = P.Kernels[0].Targets["cpu-x86_64"];
  Cpu.QuadSymbol = "cj_K_saxpy_quads";
  Cpu.QuadCountParam = 3;
  EXPECT_TRUE(contains(loadError(P), "symbol 'cj_K_saxpy_quads' is missing")) << loadError(P);
  Cpu.QuadSymbol = Cpu.Symbol;
  Cpu.QuadCountParam = 2; // a, a float32
  EXPECT_TRUE(contains(loadError(P), "quadCountParam 2 is not a uint32 or int32 parameter"))
      << loadError(P);
  Cpu.QuadCountParam = 3;
  std::vector<uint8_t> Bytes = bundle::BundleWriter::write(P);
  Program Loaded = Program::loadMemory(Bytes.data(), Bytes.size());
  EXPECT_TRUE(Loaded.kernel("K.saxpy").name() == "K.saxpy");
}

TEST(Program, ATmaEntryTheManifestNamesMustBeThereAndBackendsWithoutTensorMapsIgnoreIt) {
  // K.saxpy(y, x, a, n) with a TMA entry reading x as n rows of 4: its symbol must be in the
  // payload; the CPU has no tensor maps, so the plain entry runs.
  bundle::Program P = makeTestProgram();
  bundle::TargetManifest& Cpu = P.Kernels[0].Targets["cpu-x86_64"];
  Cpu.TmaSymbol = "cj_K_saxpy_tma";
  bundle::TensorMapRecipe X;
  X.BufferParam = 1;
  X.Height.Param = 3;
  X.Width.Value = 4;
  X.Stride.Value = 4;
  X.ElemBytes = 4;
  X.BoxCols = 4;
  X.BoxRows = 1;
  Cpu.TensorMaps = {X};
  EXPECT_TRUE(contains(loadError(P), "symbol 'cj_K_saxpy_tma' is missing")) << loadError(P);
  Cpu.TmaSymbol = Cpu.Symbol;
  std::vector<uint8_t> Bytes = bundle::BundleWriter::write(P);
  Program Loaded = Program::loadMemory(Bytes.data(), Bytes.size());
  EXPECT_TRUE(Loaded.kernel("K.saxpy").name() == "K.saxpy");
}

// A kernel the compiler left without code for the payload's target (it warns): the program
// loads, and launching that kernel names the target.
TEST(Program, KernelWithoutATargetManifestLoadsAndFailsAtLaunch) {
  bundle::Program P = makeTestProgram();
  P.Kernels[0].Targets.clear();
  std::vector<uint8_t> Bytes = bundle::BundleWriter::write(P);
  Program Loaded = Program::loadMemory(Bytes.data(), Bytes.size());
  Kernel Saxpy = Loaded.kernel("K.saxpy");
  KernelBuffer<float> X(4), Y(4);
  KernelStream S;
  try {
    Saxpy.launch(S, grid(1), block(4))(Y, X, 2.0f, 4u);
    ADD_FAILURE() << "a kernel without code launched";
  } catch (const LaunchError& E) {
    EXPECT_TRUE(contains(E.what(), "K.saxpy has no code in its bundle for target 'cpu-x86_64'"))
        << E.what();
  }
}

TEST(Program, PayloadThatIsNotASharedObjectIsRejected) {
  bundle::Program P = makeTestProgram();
  P.Payloads[0].Bytes.resize(64);
  P.Payloads[0].Bytes[0] = 'X';
  EXPECT_TRUE(contains(loadError(P), "not an ELF object"));
  P = makeTestProgram();
  P.Payloads[0].Bytes.resize(P.Payloads[0].Bytes.size() / 3); // a truncated ELF
  EXPECT_TRUE(contains(loadError(P), "section headers"));
  std::memset(P.Payloads[0].Bytes.data() + 0x28, 0, 8); // e_shoff = 0: no section headers
  EXPECT_TRUE(contains(loadError(P), "lies outside its"));
  P = makeTestProgram();
  P.Payloads[0].Format = "ptx";
  EXPECT_TRUE(contains(loadError(P), "expected 'elf-shared-object'"));
}

TEST(Program, PayloadForCpuFeaturesTheHostLacksIsRefused) {
  __builtin_cpu_init();
  const char* Missing = nullptr;
  if (!__builtin_cpu_supports("fma4"))
    Missing = "fma4";
  else if (!__builtin_cpu_supports("xop"))
    Missing = "xop";
  else if (!__builtin_cpu_supports("avx512fp16"))
    Missing = "avx512fp16";
  if (!Missing)
    GTEST_SKIP() << "this host has every feature we could ask for";
  bundle::Program P = makeTestProgram();
  P.Payloads[0].Attributes["features"] = std::string("+sse2,+") + Missing + ",+madeupfeature";
  EXPECT_TRUE(contains(loadError(P), std::string("CPU feature '") + Missing + "'"));
  // Unmapped features and disabled ones do not block loading.
  P.Payloads[0].Attributes["features"] = std::string("+sse2,+madeupfeature,-") + Missing;
  std::vector<uint8_t> Bytes = bundle::BundleWriter::write(P);
  EXPECT_NO_THROW(Program::loadMemory(Bytes.data(), Bytes.size()));
}

TEST(Program, CpuPayloadWaveWidthIsCheckedAndKeysTheLaunchCheck) {
  bundle::Program P = makeTestProgram();
  P.Payloads[0].Attributes["wave_width"] = "3";
  EXPECT_TRUE(contains(loadError(P), "wave_width '3' is not a power of two"));
  // A kernel that uses wave ops launches only in whole waves of the payload's width.
  P = makeTestProgram();
  P.Payloads[0].Attributes["wave_width"] = "8";
  for (bundle::KernelInfo& K : P.Kernels)
    if (K.Name == "K.saxpy")
      K.UsesWave = true;
  std::vector<uint8_t> Bytes = bundle::BundleWriter::write(P);
  Program Prog = Program::loadMemory(Bytes.data(), Bytes.size());
  KernelBuffer<float> X(16), Y(16);
  X.upload(std::vector<float>(16, 1.0f));
  Y.upload(std::vector<float>(16, 1.0f));
  KernelStream S;
  std::string M = messageOf<LaunchError>(
      [&] { Prog.kernel("K.saxpy").launch(S, grid(1), block(12))(Y, X, 1.0f, 12u); });
  EXPECT_TRUE(contains(M, "K.saxpy")) << M;
  EXPECT_TRUE(contains(M, "multiple of the wave width 8")) << M;
  EXPECT_NO_THROW(Prog.kernel("K.saxpy").launch(S, grid(2), block(8))(Y, X, 1.0f, 16u));
  S.sync();
}

TEST(Program, LoadsFromAFileAndTwoCopiesCoexist) {
  std::filesystem::create_directories(CAJETA_TEST_SCRATCH_DIR);
  std::string Path = std::string(CAJETA_TEST_SCRATCH_DIR) + "/test.cjx";
  std::string Error;
  ASSERT_TRUE(bundle::BundleWriter::writeFile(makeTestProgram(), Path, Error)) << Error;
  Program A = Program::load(Path);
  Program B = loadTestProgram();
  EXPECT_FALSE(A.fromCache());
  KernelBuffer<float> X(4), Y(4);
  Y.upload(std::vector<float>(4, 1.0f));
  X.upload(std::vector<float>(4, 1.0f));
  KernelStream S;
  A.kernel("K.saxpy").launch(S, grid(1), block(4))(Y, X, 1.0f, 4u);
  B.kernel("K.saxpy").launch(S, grid(1), block(4))(Y, X, 1.0f, 4u);
  S.sync();
  std::vector<float> R;
  Y.download(R);
  EXPECT_EQ(R, std::vector<float>(4, 3.0f));
  EXPECT_TRUE(
      contains(messageOf<BundleError>([&] { Program::load(Path + ".missing"); }), ".missing"));
}

TEST(Program, KernelKeepsItsProgramLoaded) {
  std::optional<Kernel> K;
  {
    Program P = loadTestProgram();
    K = P.kernel("K.saxpy");
  }
  KernelBuffer<float> X(2), Y(2);
  X.upload(std::vector<float>{1, 2});
  Y.upload(std::vector<float>{0, 0});
  KernelStream S;
  K->launch(S, grid(1), block(2))(Y, X, 2.0f, 2u);
  S.sync();
  std::vector<float> R;
  Y.download(R);
  EXPECT_EQ(R, (std::vector<float>{2, 4}));
}

TEST(Dispatch, DevicesListTheCpu) {
  std::vector<Device> All = devices();
  ASSERT_FALSE(All.empty());
  EXPECT_EQ(All.back().backend(), "cpu");
  EXPECT_GE(All.back().computeUnits(), 1u);
  EXPECT_EQ(All.back().maxWorkgroupSize(), 1024u);
  EXPECT_FALSE(All.back().name().empty());
  EXPECT_EQ(defaultDevice().backend(), "cpu");
}

TEST(Dispatch, UnknownForcedBackendIsUnavailable) {
  EnvGuard G("CAJETA_XPU_BACKEND", "nonsense");
  std::string M = messageOf<BackendUnavailable>([] { defaultDevice(); });
  EXPECT_TRUE(contains(M, "CAJETA_XPU_BACKEND='nonsense' is not a backend"));
  EXPECT_TRUE(contains(M, "cuda, hip, vulkan, cpu"));
  EXPECT_THROW(loadTestProgram(), BackendUnavailable);
  EXPECT_THROW(KernelBuffer<float>(4), BackendUnavailable);
}

TEST(Dispatch, ForcedBackendThatIsAbsentIsUnavailable) {
  // No HIP backend is built yet, so forcing it fails on every machine (the GPU machine has cuda).
  EnvGuard G("CAJETA_XPU_BACKEND", "hip");
  std::string M = messageOf<BackendUnavailable>([] { defaultDevice(); });
  EXPECT_TRUE(contains(M, "the hip backend is not available here: not built yet (present: ")) << M;
  EXPECT_TRUE(contains(M, "cpu")) << M;
}

TEST(Dispatch, ForcingCpuWorks) {
  EnvGuard G("CAJETA_XPU_BACKEND", "cpu");
  EXPECT_EQ(loadTestProgram().device().backend(), "cpu");
}

TEST(Dispatch, ProgramWithoutAUsablePayloadIsUnavailable) {
  bundle::Program P = makeTestProgram();
  P.Payloads[0].Target = "spirv";
  for (bundle::KernelInfo& K : P.Kernels)
    K.Targets["spirv"] = K.Targets["cpu-x86_64"];
  std::vector<uint8_t> Bytes = bundle::BundleWriter::write(P);
  std::string M =
      messageOf<BackendUnavailable>([&] { Program::loadMemory(Bytes.data(), Bytes.size()); });
  EXPECT_TRUE(contains(M, "no available backend can run the program (payloads: spirv"));
}

namespace cajeta::xpu::test {
namespace {

// Program::load(path, device): the same bundle on a chosen device, or a clear error when the
// bundle has no payload for that device's backend.
TEST(Dispatch, LoadOnAChosenDevice) {
  std::vector<uint8_t> Bytes = testBundleBytes();
  std::string Path = ::testing::TempDir() + "cajeta_load_on.cjx";
  {
    std::FILE* F = std::fopen(Path.c_str(), "wb");
    ASSERT_NE(F, nullptr);
    ASSERT_EQ(std::fwrite(Bytes.data(), 1, Bytes.size(), F), Bytes.size());
    std::fclose(F);
  }
  for (const Device& D : devices()) {
    if (D.backend() == "cpu") {
      Program P = Program::load(Path, D);
      EXPECT_TRUE(P.device() == D);
      continue;
    }
    // The test bundle carries only a CPU payload.
    std::string M = messageOf<BackendUnavailable>([&] { Program::load(Path, D); });
    EXPECT_TRUE(contains(M, "has no payload the " + D.backend() + " device")) << M;
  }
  std::remove(Path.c_str());
}

} // namespace
} // namespace cajeta::xpu::test

TEST(Program, CpuPayloadsAreLoadedFromFilesInTheProfilingFolderWhereAsked) {
  // CAJETA_XPU_PROFILE_DIR: the payload is written there, named by its contents, and loaded from
  // that file (a profiler can then read the kernels' symbols); a folder that cannot be written is
  // a bundle error naming it.
  namespace fs = std::filesystem;
  fs::path Dir = fs::temp_directory_path() / ("cajeta-profile-" + std::to_string(::getpid()));
  fs::remove_all(Dir);
  fs::create_directories(Dir);
  ::setenv("CAJETA_XPU_PROFILE_DIR", Dir.c_str(), 1);
  std::vector<uint8_t> Bytes = testBundleBytes();
  {
    Program A = Program::loadMemory(Bytes.data(), Bytes.size());
    Program B = Program::loadMemory(Bytes.data(), Bytes.size()); // the same file again
    EXPECT_EQ(A.kernel("K.saxpy").name(), "K.saxpy");
    std::vector<fs::path> Files;
    for (const auto& E : fs::directory_iterator(Dir))
      Files.push_back(E.path());
    ASSERT_EQ(Files.size(), 1u);
    EXPECT_EQ(Files[0].extension(), ".so");
    EXPECT_TRUE(contains(Files[0].filename().string(), "cajeta-cpu-x86_64-"))
        << Files[0].filename();
    bundle::Program P = makeTestProgram();
    EXPECT_EQ(fs::file_size(Files[0]), P.Payloads[0].Bytes.size());
  }
  ::setenv("CAJETA_XPU_PROFILE_DIR", (Dir / "no" / "such" / "folder").c_str(), 1);
  std::string M = messageOf<BundleError>([&] { Program::loadMemory(Bytes.data(), Bytes.size()); });
  EXPECT_TRUE(contains(M, "CAJETA_XPU_PROFILE_DIR: cannot write")) << M;
  ::unsetenv("CAJETA_XPU_PROFILE_DIR");
  fs::remove_all(Dir);
}
