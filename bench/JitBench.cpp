// JIT compile times of saxpy.cj: first compile in the process, cold compiles (cache off) and
// cache hits, all against a private, initially empty cache folder.
#include "Timing.h"
#include "Workloads.h"

#include <cajeta/xpu.hpp>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>

namespace cajeta::bench {

namespace xpu = cajeta::xpu;

namespace {

/// Points XDG_CACHE_HOME at a fresh folder for its lifetime, then restores it and removes the
/// folder.
class PrivateCacheHome {
public:
  PrivateCacheHome() {
    if (const char* Old = std::getenv("XDG_CACHE_HOME"))
      Saved = Old;
    std::string Pattern =
        (std::filesystem::temp_directory_path() / "cajeta-bench-cache-XXXXXX").string();
    if (!mkdtemp(Pattern.data()))
      throw std::runtime_error("cannot create a private cache folder from " + Pattern);
    Dir = Pattern;
    setenv("XDG_CACHE_HOME", Dir.c_str(), 1);
  }
  ~PrivateCacheHome() {
    if (Saved)
      setenv("XDG_CACHE_HOME", Saved->c_str(), 1);
    else
      unsetenv("XDG_CACHE_HOME");
    std::error_code Ignored;
    std::filesystem::remove_all(Dir, Ignored);
  }
  const std::string& dir() const { return Dir; }

private:
  std::optional<std::string> Saved;
  std::string Dir;
};

} // namespace

void runJitTiming(const BenchConfig& Config) {
  PrivateCacheHome Cache;
  const std::string Path = Config.KernelDir + "/saxpy.cj";
  xpu::CompileOptions NoCache;
  NoCache.useCache = false;
  xpu::CompileOptions WithCache;

  double FirstMs = timeOnceMs([&] { xpu::Program::compileFile(Path, NoCache); });
  const unsigned Reps = Config.Smoke ? 1 : 5;
  double ColdMs = medianMs(0, Reps, [&] { xpu::Program::compileFile(Path, NoCache); });

  bool StoreHit = true, AllHits = true;
  double StoreMs =
      timeOnceMs([&] { StoreHit = xpu::Program::compileFile(Path, WithCache).fromCache(); });
  double HitMs = medianMs(0, Config.Smoke ? 1 : 10, [&] {
    AllHits = xpu::Program::compileFile(Path, WithCache).fromCache() && AllHits;
  });

  std::printf("JIT of saxpy.cj (cache folder %s, empty at start):\n", Cache.dir().c_str());
  std::printf("  first compile in the process (loads libcajeta_compiler): %8.2f ms\n", FirstMs);
  std::printf("  cold compile, cache off (median of %u):                  %8.2f ms\n", Reps,
              ColdMs);
  std::printf("  compile + store into the empty cache:                    %8.2f ms%s\n", StoreMs,
              StoreHit ? "  (unexpected: reported a hit)" : "");
  std::printf("  cache hit (median of %u):                                %8.3f ms%s\n",
              Config.Smoke ? 1u : 10u, HitMs, AllHits ? "" : "  (unexpected: some missed)");
  if (StoreHit || !AllHits)
    throw std::runtime_error("the JIT cache did not behave: a miss expected first, then hits");
}

} // namespace cajeta::bench
