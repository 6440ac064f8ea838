// Loading a shared object from memory: memfd_create + dlopen(/proc/self/fd/N), or a file in
// CAJETA_XPU_PROFILE_DIR (SharedObject.h).
#include "runtime/SharedObject.h"

#include "bundle/Hash.h"
#include "bundle/RegularFile.h"

#include "runtime/ElfCheck.h"
#include "runtime/RuntimeError.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <fcntl.h>
#include <filesystem>
#include <fmt/format.h>
#include <sys/mman.h>
#include <unistd.h>

namespace cajeta::xpu::rt {

namespace {

/// Writes the object to Dir, named by its contents (a whole file or none: written beside, then
/// renamed), and returns its path; a message naming what failed otherwise.
std::string writeForProfiling(const std::string& Dir, const uint8_t* Data, size_t Size,
                              const std::string& Target, std::string& Problem) {
  std::string Path = fmt::format("{}/cajeta-{}-{}.so", Dir, Target.empty() ? "shared" : Target,
                                 bundle::hash128Hex(Data, Size).substr(0, 16));
  std::string Temp = fmt::format("{}.tmp.{}", Path, ::getpid());
  int Fd = ::open(Temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (Fd < 0) {
    Problem =
        fmt::format("CAJETA_XPU_PROFILE_DIR: cannot write '{}': {}", Temp, std::strerror(errno));
    return "";
  }
  bool Written = bundle::writeAll(Fd, Data, Size);
  int Err = errno;
  ::close(Fd);
  std::error_code Ec;
  if (Written)
    std::filesystem::rename(Temp, Path, Ec);
  if (!Written || Ec) {
    std::remove(Temp.c_str());
    Problem = fmt::format("CAJETA_XPU_PROFILE_DIR: cannot write '{}': {}", Path,
                          Written ? Ec.message() : std::strerror(Err));
    return "";
  }
  return Path;
}

} // namespace

std::unique_ptr<SharedObject> SharedObject::load(const uint8_t* Data, size_t Size,
                                                 const std::string& What,
                                                 const std::string& Target) {
  auto Fail = [&](const std::string& Message) {
    fail(CAJETA_XPU_BUNDLE_ERROR, fmt::format("{}: {}", What, Message));
  };
  std::string Bad = checkElfSharedObject(Data, Size);
  if (!Bad.empty())
    Fail(fmt::format("target '{}': {}", Target, Bad));
  // A profiler names the kernels of objects it can read back from the file system (perf cannot
  // read a memfd's after the fact).
  if (const char* Dir = std::getenv("CAJETA_XPU_PROFILE_DIR"); Dir && *Dir) {
    std::string Problem;
    std::string Path = writeForProfiling(Dir, Data, Size, Target, Problem);
    if (Path.empty())
      Fail(Problem);
    void* Handle = ::dlopen(Path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!Handle) {
      const char* Why = ::dlerror();
      Fail(fmt::format("dlopen of '{}' failed: {}", Path, Why ? Why : "unknown"));
    }
    return std::unique_ptr<SharedObject>(new SharedObject(-1, Handle));
  }
  std::string MemfdName = fmt::format("cajeta-{}-payload", Target.empty() ? "shared" : Target);
  int Fd = ::memfd_create(MemfdName.c_str(), MFD_CLOEXEC);
  if (Fd < 0)
    Fail(fmt::format("memfd_create failed: {}", std::strerror(errno)));
  if (!bundle::writeAll(Fd, Data, Size)) {
    int Err = errno;
    ::close(Fd);
    Fail(fmt::format("writing {} bytes to a memfd failed: {}", Size, std::strerror(Err)));
  }
  std::string Path = fmt::format("/proc/self/fd/{}", Fd);
  void* Handle = ::dlopen(Path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!Handle) {
    const char* Why = ::dlerror();
    ::close(Fd);
    Fail(fmt::format("dlopen of the shared object failed: {}", Why ? Why : "unknown"));
  }
  return std::unique_ptr<SharedObject>(new SharedObject(Fd, Handle));
}

SharedObject::~SharedObject() {
  ::dlclose(Handle);
  if (Fd >= 0)
    ::close(Fd);
}

void* SharedObject::symbol(const std::string& Name) const {
  return ::dlsym(Handle, Name.c_str());
}

} // namespace cajeta::xpu::rt
