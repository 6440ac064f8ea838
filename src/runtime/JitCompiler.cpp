// JIT compile with a content-addressed cache: key = hash(compiler version, options, source).
#include "runtime/JitCompiler.h"

#include "runtime/Runtime.h"

#include "bundle/BundleReader.h"
#include "bundle/BundleWriter.h"
#include "bundle/Hash.h"
#include "bundle/RegularFile.h"
#include "runtime/CacheDirectory.h"
#include "runtime/CompilerLibrary.h"
#include "runtime/JitCacheEntry.h"
#include "runtime/RuntimeError.h"
#include "runtime/TrustedKeys.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>
#include <vector>

namespace cajeta::xpu::rt {

/// The environment variables the compiler reads that change the code it makes (overrides and
/// A/B switches): each value is its own cache entry.
constexpr const char* CompilerVariables[] = {
    "CAJETA_GPU_WAVE_IMPL",          "CAJETA_GPU_COOPMATRIX_IMPL",
    "CAJETA_GPU_WGMMA_WIDE",         "CAJETA_GPU_WGMMA_CARRY",
    "CAJETA_KIR_LEGALIZE",           "CAJETA_CPU_GRID_STRIDE",
    "CAJETA_CPU_LOOP_BARRIERS",      "CAJETA_CPU_SPANS",
    "CAJETA_CPU_GUARD_SPLIT",        "CAJETA_CPU_JAM",
    "CAJETA_CPU_ROW_TRANSPOSE",      "CAJETA_CPU_COLUMN_CACHE",
    "CAJETA_CPU_ROW_PREFETCH",       "CAJETA_GPU_TMA_WAVE_ARRIVALS",
    "CAJETA_CPU_LOOP_JAM",           "CAJETA_CPU_RERUN_LAST_VECTOR",
    "CAJETA_GPU_TILE_PAIR_STORES",   "CAJETA_GPU_ASYNC_COPY_INLINE",
    "CAJETA_GPU_VULKAN_SHARED_POOL", "CAJETA_CPU_AMX",
    "CAJETA_CPU_TILE_F32_DOT"};

static std::string cacheKey(const std::string& Version, const std::string& Source,
                            const std::string& FileName, const JitOptions& Options) {
  // The file name is part of the key because it is recorded in the manifest and diagnostics;
  // so are the extra GPU architectures asked for, and the compiler's environment.
  std::string Text =
      fmt::format("{}\ncheck-bounds={}\ncpu={}\nfile={}\ngpu-archs={}\n", Version,
                  Options.CheckBounds ? 1 : 0, Options.Cpu, FileName, Options.GpuArchs);
  for (const char* Variable : CompilerVariables) {
    const char* Value = std::getenv(Variable);
    Text += fmt::format("{}={}\n", Variable, Value ? Value : "");
  }
  Text += Source;
  return bundle::hash128Hex(Text.data(), Text.size());
}

/// What CompileError::what() says: the count of errors and the first, so that printing what()
/// and diagnostics() does not show every message twice.
static std::string compileErrorSummary(const std::string& FileName, const std::string& Diags) {
  size_t Errors = 0, At = 0;
  std::string First;
  for (size_t Line = 0; Line < Diags.size(); Line = At + 1) {
    At = Diags.find('\n', Line);
    if (At == std::string::npos)
      At = Diags.size();
    std::string Text = Diags.substr(Line, At - Line);
    if (Text.find(": error: ") == std::string::npos)
      continue;
    if (!Errors++)
      First = Text;
  }
  if (!Errors)
    return fmt::format("{}: compilation failed (see the diagnostics)", FileName);
  if (Errors == 1)
    return First;
  return fmt::format("{} (and {} more error{}; see the diagnostics)", First, Errors - 1,
                     Errors == 2 ? "" : "s");
}

static std::shared_ptr<LoadedProgram> tryCache(const std::string& Path, const std::string& Key,
                                               BackendDevice* On) {
  std::error_code Ec;
  if (!std::filesystem::exists(Path, Ec))
    return nullptr;
  std::vector<uint8_t> Bytes;
  std::string ReadError;
  if (!bundle::readRegularFile(Path, "bundle", Bytes, ReadError)) {
    std::fprintf(stderr, "cajeta: warning: ignoring corrupt JIT cache entry %s: %s\n", Path.c_str(),
                 ReadError.c_str());
    return nullptr;
  }
  JitCacheEntry R = parseJitCacheEntry(Bytes.data(), Bytes.size(), Key);
  if (!R.Ok) {
    if (R.Corrupt)
      std::fprintf(stderr, "cajeta: warning: ignoring corrupt JIT cache entry %s: %s: %s\n",
                   Path.c_str(), Path.c_str(), R.Error.c_str());
    else
      std::fprintf(stderr, "cajeta: warning: ignoring JIT cache entry %s: %s\n", Path.c_str(),
                   R.Error.c_str());
    return nullptr;
  }
  try {
    return LoadedProgram::fromProgram(std::move(R.Value), Path, true, On);
  } catch (const RuntimeError& E) {
    if (E.status() != CAJETA_XPU_BUNDLE_ERROR)
      throw;
    std::fprintf(stderr, "cajeta: warning: ignoring unusable JIT cache entry %s: %s\n",
                 Path.c_str(), E.what());
    return nullptr;
  }
}

/// The cache directory's record of the compiler that last filled it (one line), or "".
/// A cache that cannot be created or written (read-only, full, not a directory): the run goes on
/// compiling without it, and says so once per process and directory, not at every compile.
static void warnCacheUnusable(const std::string& Dir, const std::string& Why) {
  static std::mutex Mutex;
  static std::set<std::string> Warned;
  std::lock_guard<std::mutex> Lock(Mutex);
  if (Warned.insert(Dir).second)
    std::fprintf(stderr,
                 "cajeta: warning: the JIT cache is not usable (%s); programs are compiled "
                 "without it (this is said once)\n",
                 Why.c_str());
}

static const char* VersionFileName = "compiler-version";

static std::string cachedCompilerVersion(const std::string& Dir) {
  std::string Text, Error;
  if (!bundle::readRegularFile(Dir + "/" + VersionFileName, "the cache's version", Text, Error))
    return ""; // absent or not a regular file: the cache is treated as another compiler's
  return parseCacheCompilerVersion(Text);
}

/// The exact architectures of the device the program will load on (or of every device present),
/// less those every bundle has anyway (CAJETA_COMPILER_BUILTIN_GPU_ARCHS), so that a cache filled
/// on a machine without a GPU serves an H200 (sm_90) unchanged.
static std::string gpuArchsFor(BackendDevice* On) {
  std::string Archs;
  auto Add = [&](const BackendDevice* D) {
    std::string A = D->jitArch();
    auto In = [](const std::string& List, const std::string& Item) {
      return ("," + List + ",").find("," + Item + ",") != std::string::npos;
    };
    if (A.empty() || In(CAJETA_COMPILER_BUILTIN_GPU_ARCHS, A) || In(Archs, A))
      return;
    Archs += (Archs.empty() ? "" : ",") + A;
  };
  if (On)
    Add(On);
  else
    for (const BackendDevice* D : Runtime::get().devices())
      Add(D);
  return Archs;
}

std::shared_ptr<LoadedProgram> JitCompiler::compile(const std::string& Source,
                                                    const std::string& FileName,
                                                    const JitOptions& Given) {
  JitOptions Options = Given;
  if (Options.GpuArchs.empty())
    Options.GpuArchs = gpuArchsFor(Options.Device);
  // Without the compiler library (a machine without LLVM, like the GPU machine) a cache filled
  // elsewhere still serves: its recorded compiler version keys the lookup, and a miss is an error.
  std::optional<CompilerLibrary> Compiler;
  std::optional<RuntimeError> NoCompiler;
  try {
    Compiler = CompilerLibrary::open();
  } catch (const RuntimeError& E) {
    NoCompiler = E;
  }
  std::string Problem;
  std::string Dir = Options.UseCache ? ensureJitCacheDirectory(Problem) : std::string();
  // The cache's entries load unsigned, as this user's own files; where signatures are enforced,
  // a cache another user could write to would be a way around them.
  if (std::string Why;
      !Dir.empty() && !TrustedKeys::current().empty() && !userPrivateDirectory(Dir, Why)) {
    Problem = "'" + Dir + "' is " + Why +
              ", and with bundle signatures enforced only a cache of this user's own is trusted";
    Dir.clear();
  }
  if (!Problem.empty())
    warnCacheUnusable(jitCacheDirectory(), Problem);
  std::string Version = Compiler      ? Compiler->Version()
                        : Dir.empty() ? ""
                                      : cachedCompilerVersion(Dir);
  if (!Compiler && Version.empty())
    throw *NoCompiler;
  std::string CacheFile, Key;
  if (!Dir.empty()) {
    Key = cacheKey(Version, Source, FileName, Options);
    CacheFile = Dir + "/" + Key + ".cjx";
  }
  if (!CacheFile.empty())
    if (std::shared_ptr<LoadedProgram> Hit = tryCache(CacheFile, Key, Options.Device))
      return Hit;
  if (!Compiler)
    fail(CAJETA_XPU_ERROR,
         fmt::format("{} is not in the JIT cache {} (filled by compiler '{}') and JIT needs the "
                     "compiler: {}",
                     FileName, Dir, Version, NoCompiler->what()));

  cajeta_compile_request Request{};
  Request.abi_version = CAJETA_COMPILER_ABI_VERSION;
  Request.file_name = FileName.c_str();
  Request.source = Source.data();
  Request.source_length = Source.size();
  Request.check_bounds = Options.CheckBounds ? 1 : 0;
  Request.cpu = Options.Cpu.c_str();
  Request.gpu_archs = Options.GpuArchs.c_str();
  void* Bytes = nullptr;
  size_t Size = 0;
  char* Diagnostics = nullptr;
  int Rc = Compiler->Compile(&Request, &Bytes, &Size, &Diagnostics);
  std::string Diags = Diagnostics ? Diagnostics : "";
  if (Diagnostics)
    Compiler->Free(Diagnostics);
  if (Rc != 0) {
    if (Bytes)
      Compiler->Free(Bytes);
    if (Diags.empty())
      Diags = fmt::format("{}: error: compilation failed (status {}) with no diagnostics", FileName,
                          Rc);
    throw RuntimeError(CAJETA_XPU_COMPILE_ERROR, compileErrorSummary(FileName, Diags), Diags);
  }
  // Warnings reach the user; notes alone (e.g. "host method left out") are noise for a program
  // that launches from C++, so a note-only report stays quiet.
  if (Diags.find(": warning: ") != std::string::npos)
    std::fputs(Diags.c_str(), stderr);
  bundle::BundleReadResult R =
      bundle::BundleReader::read(static_cast<const uint8_t*>(Bytes), Bytes ? Size : 0);
  if (Bytes)
    Compiler->Free(Bytes);
  if (!R.Ok)
    fail(CAJETA_XPU_BUNDLE_ERROR, fmt::format("the compiler ({}) produced a bad bundle for {}: {}",
                                              Compiler->Path, FileName, R.Error));
  if (!CacheFile.empty()) {
    std::string Error;
    R.Value.CacheKey = Key;
    if (!bundle::BundleWriter::writeFile(R.Value, CacheFile, Error))
      warnCacheUnusable(Dir, Error);
    else if (cachedCompilerVersion(Dir) != Version)
      std::ofstream(Dir + "/" + VersionFileName, std::ios::trunc) << Version << "\n";
  }
  return LoadedProgram::fromProgram(std::move(R.Value), FileName, false, Options.Device);
}

std::shared_ptr<LoadedProgram> JitCompiler::compileFile(const std::string& Path,
                                                        const JitOptions& Options) {
  std::string Text, Error;
  std::error_code Ec;
  if (!std::filesystem::exists(Path, Ec))
    fail(CAJETA_XPU_NOT_FOUND, fmt::format("the source file '{}' does not exist", Path));
  if (!bundle::readRegularFile(Path, "the source file", Text, Error))
    fail(CAJETA_XPU_ERROR, Error);
  return compile(Text, Path, Options);
}

} // namespace cajeta::xpu::rt
