// JIT through a stand-in compiler library: cache misses, hits, corrupt entries, errors, cache dir.
#include "TestProgram.h"

#include <atomic>
#include <csignal>
#include <cstring>
#include <dlfcn.h>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <memory>
#include <sys/resource.h>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>
#include <utility>
#include <vector>

using namespace cajeta::xpu;
using namespace cajeta::xpu::test;
namespace fs = std::filesystem;

namespace {

int compilerCalls() {
  void* H = dlopen(CAJETA_FAKE_COMPILER_PATH, RTLD_NOW | RTLD_NOLOAD);
  if (!H)
    return 0; // not loaded yet: no calls
  auto Fn = reinterpret_cast<int (*)()>(dlsym(H, "fake_compiler_calls"));
  int N = Fn ? Fn() : -1;
  dlclose(H);
  return N;
}

/// A fresh scratch directory for one test.
std::string scratch(const std::string& Name) {
  std::string Dir = std::string(CAJETA_TEST_SCRATCH_DIR) + "/" + Name;
  fs::remove_all(Dir);
  fs::create_directories(Dir);
  return Dir;
}

/// The cached bundles (the directory also holds the compiler-version record).
std::vector<fs::path> cacheFiles(const std::string& Dir) {
  std::vector<fs::path> Files;
  if (fs::is_directory(Dir))
    for (const fs::directory_entry& E : fs::directory_iterator(Dir))
      if (E.path().filename() != "compiler-version")
        Files.push_back(E.path());
  return Files;
}

size_t occurrences(const std::string& Text, const std::string& Part) {
  size_t N = 0;
  for (size_t At = Text.find(Part); At != std::string::npos; At = Text.find(Part, At + 1))
    ++N;
  return N;
}

/// While alive, every file this process writes past Bytes fails with EFBIG, as writes to a full
/// disk fail with ENOSPC (RLIMIT_FSIZE, with SIGXFSZ ignored so that the write returns).
class FileSizeLimit {
public:
  explicit FileSizeLimit(rlim_t Bytes) {
    getrlimit(RLIMIT_FSIZE, &Old);
    OldHandler = std::signal(SIGXFSZ, SIG_IGN);
    rlimit Small{Bytes, Old.rlim_max};
    setrlimit(RLIMIT_FSIZE, &Small);
  }
  ~FileSizeLimit() {
    setrlimit(RLIMIT_FSIZE, &Old);
    std::signal(SIGXFSZ, OldHandler);
  }

private:
  rlimit Old{};
  void (*OldHandler)(int) = nullptr;
};

} // namespace

TEST(Jit, WithoutACompilerLibraryTheErrorSaysWhatToDo) {
  std::string Dir = scratch("jit-nocompiler");
  EnvGuard Lib("CAJETA_COMPILER_LIB", "/nonexistent/libcajeta_compiler.so");
  EnvGuard Cache("XDG_CACHE_HOME", Dir.c_str());
  std::string Source = Dir + "/k.cj";
  std::ofstream(Source) << "class K {}\n";
  try {
    Program::compileFile(Source);
    FAIL() << "compileFile succeeded without a compiler";
  } catch (const CompileError&) {
    FAIL() << "a missing compiler is not a compile error";
  } catch (const Error& E) {
    std::string M = E.what();
    EXPECT_TRUE(contains(M, "JIT compilation needs the Cajeta compiler library "
                            "(libcajeta_compiler.so)"));
    EXPECT_TRUE(contains(M, "/nonexistent/libcajeta_compiler.so"));
    EXPECT_TRUE(contains(M, "Program::load"));
  }
  EXPECT_TRUE(contains(messageOf<NotFound>([&] { Program::compileFile(Dir + "/absent.cj"); }),
                       "absent.cj' does not exist"));
  // A FIFO as the source is refused at once (opening it for reading would wait for a writer).
  std::string Fifo = Dir + "/pipe.cj";
  ASSERT_EQ(::mkfifo(Fifo.c_str(), 0600), 0);
  EXPECT_TRUE(contains(messageOf<Error>([&] { Program::compileFile(Fifo); }),
                       "a FIFO, not a regular file"));
}

TEST(Jit, CacheDirectoryFollowsXdgThenHome) {
  {
    EnvGuard X("XDG_CACHE_HOME", "/some/xdg");
    EnvGuard H("HOME", "/some/home");
    EXPECT_EQ(jitCacheDirectory(), "/some/xdg/cajeta");
  }
  {
    EnvGuard X("XDG_CACHE_HOME", "relative/is/ignored");
    EnvGuard H("HOME", "/some/home");
    EXPECT_EQ(jitCacheDirectory(), "/some/home/.cache/cajeta");
  }
  {
    EnvGuard X("XDG_CACHE_HOME", nullptr);
    EnvGuard H("HOME", nullptr);
    EXPECT_EQ(jitCacheDirectory(), "");
  }
}

TEST(Jit, MissCompilesAndWritesTheCacheThenHitSkipsTheCompiler) {
  std::string Dir = scratch("jit-cache");
  EnvGuard Lib("CAJETA_COMPILER_LIB", CAJETA_FAKE_COMPILER_PATH);
  EnvGuard Cache("XDG_CACHE_HOME", Dir.c_str());
  int Before = compilerCalls();
  Program First = Program::compileSource("class K { /* one */ }", "one.cj");
  EXPECT_FALSE(First.fromCache());
  EXPECT_EQ(compilerCalls(), Before + 1);
  expectSaxpyRuns(First);
  std::vector<fs::path> Files = cacheFiles(Dir + "/cajeta");
  ASSERT_EQ(Files.size(), 1u);
  EXPECT_EQ(Files[0].extension(), ".cjx");
  EXPECT_EQ(Files[0].stem().string().size(), 32u); // hash128Hex

  Program Second = Program::compileSource("class K { /* one */ }", "one.cj");
  EXPECT_TRUE(Second.fromCache());
  EXPECT_EQ(compilerCalls(), Before + 1);
  expectSaxpyRuns(Second);

  // Another source or other options are other keys.
  EXPECT_FALSE(Program::compileSource("class K { /* two */ }", "one.cj").fromCache());
  CompileOptions Checked;
  Checked.checkBounds = true;
  EXPECT_FALSE(Program::compileSource("class K { /* one */ }", "one.cj", Checked).fromCache());
  EXPECT_EQ(cacheFiles(Dir + "/cajeta").size(), 3u);
}

TEST(Jit, TheCCompileOptionsCarryTheirSize) {
  std::string Dir = scratch("jit-options-size");
  EnvGuard Lib("CAJETA_COMPILER_LIB", CAJETA_FAKE_COMPILER_PATH);
  EnvGuard Cache("XDG_CACHE_HOME", Dir.c_str());
  const char* Source = "class K { /* sized */ }";
  cajeta_xpu_program* P = nullptr;
  // Left 0 (an older caller's struct, or one not filled in): refused, nothing compiled.
  cajeta_xpu_compile_options O{};
  O.use_cache = 1;
  int Before = compilerCalls();
  EXPECT_EQ(cajeta_xpu_program_compile_source(Source, std::strlen(Source), "sized.cj", &O, &P),
            CAJETA_XPU_ERROR);
  EXPECT_TRUE(contains(cajeta_xpu_last_error(), "sizeof(cajeta_xpu_compile_options)"))
      << cajeta_xpu_last_error();
  EXPECT_EQ(P, nullptr);
  EXPECT_EQ(compilerCalls(), Before);
  O.size = sizeof(O);
  ASSERT_EQ(cajeta_xpu_program_compile_source(Source, std::strlen(Source), "sized.cj", &O, &P),
            CAJETA_XPU_SUCCESS)
      << cajeta_xpu_last_error();
  EXPECT_EQ(compilerCalls(), Before + 1);
  cajeta_xpu_program_release(P);
}

TEST(Jit, CompilerEnvironmentOverridesAreKeys) {
  // Variables the compiler reads change the code it makes: each value is its own cache entry.
  std::string Dir = scratch("jit-env");
  EnvGuard Lib("CAJETA_COMPILER_LIB", CAJETA_FAKE_COMPILER_PATH);
  EnvGuard Cache("XDG_CACHE_HOME", Dir.c_str());
  const char* Source = "class K { /* env */ }";
  const std::pair<const char*, const char*> Overrides[] = {
      {"CAJETA_KIR_LEGALIZE", "vulkan"},
      {"CAJETA_GPU_WAVE_IMPL", "software"},
      {"CAJETA_GPU_COOPMATRIX_IMPL", "software"},
      {"CAJETA_GPU_WGMMA_WIDE", "1"},
      {"CAJETA_CPU_GRID_STRIDE", "0"},
      {"CAJETA_CPU_LOOP_BARRIERS", "0"},
      {"CAJETA_CPU_SPANS", "0"},
      {"CAJETA_CPU_GUARD_SPLIT", "0"},
      {"CAJETA_CPU_JAM", "0"},
      {"CAJETA_CPU_ROW_TRANSPOSE", "0"},
      {"CAJETA_CPU_COLUMN_CACHE", "0"},
      {"CAJETA_CPU_ROW_PREFETCH", "0"},
      {"CAJETA_CPU_LOOP_JAM", "0"},
      {"CAJETA_CPU_RERUN_LAST_VECTOR", "0"},
      {"CAJETA_GPU_WGMMA_CARRY", "0"},
      {"CAJETA_GPU_TMA_WAVE_ARRIVALS", "0"},
      {"CAJETA_GPU_TILE_PAIR_STORES", "0"},
      {"CAJETA_GPU_ASYNC_COPY_INLINE", "1"},
      {"CAJETA_GPU_VULKAN_SHARED_POOL", "all"},
      {"CAJETA_CPU_AMX", "0"},
      {"CAJETA_CPU_TILE_F32_DOT", "0"}};
  std::vector<std::unique_ptr<EnvGuard>> Unset;
  for (const auto& [Variable, Value] : Overrides)
    Unset.push_back(std::make_unique<EnvGuard>(Variable, nullptr));
  EXPECT_FALSE(Program::compileSource(Source, "env.cj").fromCache());
  for (const auto& [Variable, Value] : Overrides) {
    EnvGuard Set(Variable, Value);
    EXPECT_FALSE(Program::compileSource(Source, "env.cj").fromCache()) << Variable;
    EXPECT_TRUE(Program::compileSource(Source, "env.cj").fromCache()) << Variable;
  }
  EXPECT_TRUE(Program::compileSource(Source, "env.cj").fromCache());
  EXPECT_EQ(cacheFiles(Dir + "/cajeta").size(), 1u + std::size(Overrides));
}

TEST(Jit, CorruptCacheEntryIsRecompiledAndReplaced) {
  std::string Dir = scratch("jit-corrupt");
  EnvGuard Lib("CAJETA_COMPILER_LIB", CAJETA_FAKE_COMPILER_PATH);
  EnvGuard Cache("XDG_CACHE_HOME", Dir.c_str());
  Program::compileSource("class K {}", "k.cj");
  std::vector<fs::path> Files = cacheFiles(Dir + "/cajeta");
  ASSERT_EQ(Files.size(), 1u);
  {
    std::fstream F(Files[0], std::ios::in | std::ios::out | std::ios::binary);
    F.seekp(std::streamoff(fs::file_size(Files[0]) / 2));
    F.put('\x7f');
    F.put('\x00');
    F.put('\x55');
  }
  int Before = compilerCalls();
  testing::internal::CaptureStderr();
  Program Again = Program::compileSource("class K {}", "k.cj");
  std::string Warning = testing::internal::GetCapturedStderr();
  EXPECT_FALSE(Again.fromCache());
  EXPECT_EQ(compilerCalls(), Before + 1);
  EXPECT_TRUE(contains(Warning, "ignoring corrupt JIT cache entry"));
  expectSaxpyRuns(Again);
  EXPECT_TRUE(Program::compileSource("class K {}", "k.cj").fromCache());
}

TEST(Jit, AnEntryStoredUnderAnotherNameIsNotServed) {
  // Two valid entries; one copied over the other's name must not be served for the other's
  // source (it would run the wrong program): it is recompiled and replaced.
  std::string Dir = scratch("jit-swapped");
  EnvGuard Lib("CAJETA_COMPILER_LIB", CAJETA_FAKE_COMPILER_PATH);
  EnvGuard Cache("XDG_CACHE_HOME", Dir.c_str());
  Program::compileSource("class K { /* a */ }", "a.cj");
  std::vector<fs::path> First = cacheFiles(Dir + "/cajeta");
  ASSERT_EQ(First.size(), 1u);
  Program::compileSource("class K { /* b */ }", "b.cj");
  std::vector<fs::path> Both = cacheFiles(Dir + "/cajeta");
  ASSERT_EQ(Both.size(), 2u);
  fs::path Second = Both[0] == First[0] ? Both[1] : Both[0];
  fs::copy_file(Second, First[0], fs::copy_options::overwrite_existing);
  int Before = compilerCalls();
  testing::internal::CaptureStderr();
  Program Again = Program::compileSource("class K { /* a */ }", "a.cj");
  std::string Warning = testing::internal::GetCapturedStderr();
  EXPECT_FALSE(Again.fromCache());
  EXPECT_EQ(compilerCalls(), Before + 1);
  EXPECT_TRUE(contains(Warning, "it was stored under key " + Second.stem().string())) << Warning;
  EXPECT_TRUE(Program::compileSource("class K { /* a */ }", "a.cj").fromCache());
}

TEST(Jit, AMissingSourceFileIsNotFound) {
  std::string M =
      messageOf<NotFound>([&] { Program::compileFile(scratch("jit-missing") + "/no-such.cj"); });
  EXPECT_TRUE(contains(M, "no-such.cj' does not exist")) << M;
}

TEST(Jit, CompileErrorCarriesTheDiagnostics) {
  std::string Dir = scratch("jit-error");
  EnvGuard Lib("CAJETA_COMPILER_LIB", CAJETA_FAKE_COMPILER_PATH);
  EnvGuard Cache("XDG_CACHE_HOME", Dir.c_str());
  try {
    Program::compileSource("an error here", "bad.cj");
    FAIL() << "no CompileError";
  } catch (const CompileError& E) {
    EXPECT_TRUE(
        contains(E.diagnostics(), "bad.cj:1:1: error: the fake compiler was asked to fail"));
    EXPECT_TRUE(contains(E.what(), "bad.cj:1:1: error:"));
  }
  EXPECT_TRUE(cacheFiles(Dir + "/cajeta").empty());
}

TEST(Jit, NoCacheWhenDisabledOrNowhereToPutIt) {
  std::string Dir = scratch("jit-nocache");
  EnvGuard Lib("CAJETA_COMPILER_LIB", CAJETA_FAKE_COMPILER_PATH);
  {
    EnvGuard Cache("XDG_CACHE_HOME", Dir.c_str());
    CompileOptions Off;
    Off.useCache = false;
    EXPECT_FALSE(Program::compileSource("class K {}", "k.cj", Off).fromCache());
    EXPECT_FALSE(Program::compileSource("class K {}", "k.cj", Off).fromCache());
    EXPECT_TRUE(cacheFiles(Dir + "/cajeta").empty());
  }
  EnvGuard X("XDG_CACHE_HOME", nullptr);
  EnvGuard H("HOME", nullptr);
  Program P = Program::compileSource("class K {}", "k.cj");
  EXPECT_FALSE(P.fromCache());
  expectSaxpyRuns(P);
  EXPECT_FALSE(Program::compileSource("class K {}", "k.cj").fromCache());
}

TEST(Jit, CacheServesWithoutTheCompilerLibrary) {
  // The GPU machine has no LLVM: a cache filled here (with its compiler-version record) is used
  // there as is, and a miss says what is missing.
  std::string Dir = scratch("jit-cache-only");
  EnvGuard Cache("XDG_CACHE_HOME", Dir.c_str());
  {
    EnvGuard Lib("CAJETA_COMPILER_LIB", CAJETA_FAKE_COMPILER_PATH);
    EXPECT_FALSE(Program::compileSource("class K { /* filled */ }", "filled.cj").fromCache());
  }
  std::ifstream Version(Dir + "/cajeta/compiler-version");
  std::string Line;
  ASSERT_TRUE(std::getline(Version, Line));
  EXPECT_FALSE(Line.empty());
  EnvGuard Lib("CAJETA_COMPILER_LIB", "/nonexistent/libcajeta_compiler.so");
  Program Hit = Program::compileSource("class K { /* filled */ }", "filled.cj");
  EXPECT_TRUE(Hit.fromCache());
  expectSaxpyRuns(Hit);
  std::string M =
      messageOf<Error>([] { Program::compileSource("class K { /* new */ }", "new.cj"); });
  EXPECT_TRUE(contains(M, "new.cj is not in the JIT cache " + Dir +
                              "/cajeta (filled by compiler '" + Line +
                              "') and JIT needs the compiler: "));
  EXPECT_TRUE(contains(M, "/nonexistent/libcajeta_compiler.so"));
}

TEST(Jit, AFullCacheIsSaidOnceAndEveryProgramStillRuns) {
  std::string Dir = scratch("jit-full");
  fs::create_directories(Dir + "/cajeta");
  EnvGuard Lib("CAJETA_COMPILER_LIB", CAJETA_FAKE_COMPILER_PATH);
  EnvGuard Cache("XDG_CACHE_HOME", Dir.c_str());
  std::string Warnings;
  {
    // Room for the CPU payload itself (the loader writes it to a memfd, which the limit counts
    // but a full disk would not), not for the bundle that holds it.
    FileSizeLimit Full(makeTestProgram().Payloads[0].Bytes.size() + 256);
    testing::internal::CaptureStderr();
    for (int I = 0; I < 3; ++I) {
      Program P = Program::compileSource("class K { /* " + std::to_string(I) + " */ }", "full.cj");
      EXPECT_FALSE(P.fromCache());
      expectSaxpyRuns(P);
    }
    Warnings = testing::internal::GetCapturedStderr();
  }
  EXPECT_EQ(occurrences(Warnings, "cajeta: warning: the JIT cache is not usable"), 1u) << Warnings;
  EXPECT_TRUE(contains(Warnings, "File too large")) << Warnings;
  EXPECT_TRUE(cacheFiles(Dir + "/cajeta").empty()) << "a partial entry or temporary file is left";
}

TEST(Jit, ACacheDirectoryThatCannotBeMadeIsSaidOnceAndEveryProgramStillRuns) {
  std::string Dir = scratch("jit-unmakeable");
  std::ofstream(Dir + "/file") << "a file where the cache's parent folder should be";
  EnvGuard Lib("CAJETA_COMPILER_LIB", CAJETA_FAKE_COMPILER_PATH);
  EnvGuard Cache("XDG_CACHE_HOME", (Dir + "/file").c_str());
  testing::internal::CaptureStderr();
  for (int I = 0; I < 3; ++I) {
    Program P = Program::compileSource("class K { /* x */ }", "unmakeable.cj");
    EXPECT_FALSE(P.fromCache());
    expectSaxpyRuns(P);
  }
  std::string Warnings = testing::internal::GetCapturedStderr();
  EXPECT_EQ(occurrences(Warnings, "cajeta: warning: the JIT cache is not usable (cannot create '" +
                                      Dir + "/file/cajeta'"),
            1u)
      << Warnings;
}

TEST(Jit, AnEntryRewrittenInPlaceWhileOthersReadItNeverServesWrongCode) {
  // Another process rewriting an entry without the temporary-file-and-rename protocol (truncate,
  // then write in pieces): readers see empty, truncated and whole files in turn. Each compile
  // must serve the whole entry or recompile, and every program computes exactly.
  std::string Dir = scratch("jit-rewritten");
  EnvGuard Lib("CAJETA_COMPILER_LIB", CAJETA_FAKE_COMPILER_PATH);
  EnvGuard Cache("XDG_CACHE_HOME", Dir.c_str());
  const std::string Source = "class K { /* shared */ }";
  Program::compileSource(Source, "shared.cj");
  std::vector<fs::path> Files = cacheFiles(Dir + "/cajeta");
  ASSERT_EQ(Files.size(), 1u);
  std::vector<char> Whole(fs::file_size(Files[0]));
  std::ifstream(Files[0], std::ios::binary).read(Whole.data(), std::streamsize(Whole.size()));

  std::atomic<bool> Done{false};
  std::thread Writer([&] {
    for (size_t Round = 0; !Done; ++Round) {
      int Fd = ::open(Files[0].c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (Fd < 0)
        continue;
      size_t Cut = (Round * 7919) % Whole.size();
      (void)!::write(Fd, Whole.data(), Cut);
      std::this_thread::yield();
      (void)!::write(Fd, Whole.data() + Cut, Whole.size() - Cut);
      ::close(Fd);
    }
  });
  testing::internal::CaptureStderr();
  std::vector<std::thread> Readers;
  std::atomic<int> Runs{0};
  for (int T = 0; T < 4; ++T)
    Readers.emplace_back([&] {
      for (int I = 0; I < 25; ++I) {
        expectSaxpyRuns(Program::compileSource(Source, "shared.cj"));
        ++Runs;
      }
    });
  for (std::thread& R : Readers)
    R.join();
  Done = true;
  Writer.join();
  // One warning per corrupt read (50-75 of the 100 reads in trials on a 2-core machine).
  testing::internal::GetCapturedStderr();
  EXPECT_EQ(Runs.load(), 100);
  // Whatever the last writer left is whole again: the next compile is served from it.
  EXPECT_TRUE(Program::compileSource(Source, "shared.cj").fromCache());
}
