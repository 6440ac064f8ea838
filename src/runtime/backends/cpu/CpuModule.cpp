// Loading CPU payloads without touching the file system: memfd_create + dlopen(/proc/self/fd/N).
#include "runtime/backends/cpu/CpuModule.h"
#include <cstdlib>

#include "runtime/RuntimeError.h"
#include "runtime/backends/cpu/CpuFeatures.h"
#include "runtime/backends/cpu/ElfCheck.h"

#include <cerrno>
#include <cstring>
#include <dlfcn.h>
#include <fmt/format.h>
#include <sys/mman.h>
#include <unistd.h>

namespace cajeta::xpu::rt {

static void bundleError(const std::string& Message) {
  fail(CAJETA_XPU_BUNDLE_ERROR, "cpu payload: " + Message);
}

static bool writeAll(int Fd, const uint8_t* Data, size_t Size) {
  while (Size) {
    ssize_t N = ::write(Fd, Data, Size);
    if (N < 0 && errno == EINTR)
      continue;
    if (N <= 0)
      return false;
    Data += N;
    Size -= size_t(N);
  }
  return true;
}

std::unique_ptr<CpuModule> CpuModule::load(const bundle::Payload& Payload) {
  if (Payload.Format != "elf-shared-object")
    bundleError(fmt::format("target '{}' has format '{}', expected 'elf-shared-object'",
                            Payload.Target, Payload.Format));
  auto Features = Payload.Attributes.find("features");
  if (Features != Payload.Attributes.end()) {
    std::string Missing = firstMissingCpuFeature(Features->second);
    if (!Missing.empty())
      bundleError(fmt::format("compiled for CPU feature '{}', which this host lacks (payload "
                              "features: {}); rebuild for this machine, e.g. with --cpu=native",
                              Missing, Features->second));
  }
  uint32_t WaveWidth = 0; // payloads from before wave ops have no attribute (and no wave ops)
  if (auto W = Payload.Attributes.find("wave_width"); W != Payload.Attributes.end()) {
    WaveWidth = uint32_t(std::strtoul(W->second.c_str(), nullptr, 10));
    if (WaveWidth < 1 || WaveWidth > 64 || (WaveWidth & (WaveWidth - 1)))
      bundleError(fmt::format("target '{}': wave_width '{}' is not a power of two in 1..64",
                              Payload.Target, W->second));
  }
  std::string Bad = checkElfSharedObject(Payload.Bytes.data(), Payload.Bytes.size());
  if (!Bad.empty())
    bundleError(fmt::format("target '{}': {}", Payload.Target, Bad));
  int Fd = ::memfd_create("cajeta-cpu-payload", MFD_CLOEXEC);
  if (Fd < 0)
    bundleError(fmt::format("memfd_create failed: {}", std::strerror(errno)));
  if (!writeAll(Fd, Payload.Bytes.data(), Payload.Bytes.size())) {
    int Err = errno;
    ::close(Fd);
    bundleError(fmt::format("writing {} bytes to a memfd failed: {}", Payload.Bytes.size(),
                            std::strerror(Err)));
  }
  std::string Path = fmt::format("/proc/self/fd/{}", Fd);
  void* Handle = ::dlopen(Path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!Handle) {
    const char* Why = ::dlerror();
    ::close(Fd);
    bundleError(fmt::format("dlopen of the shared object failed: {}", Why ? Why : "unknown"));
  }
  return std::unique_ptr<CpuModule>(new CpuModule(Fd, Handle, WaveWidth));
}

CpuModule::~CpuModule() {
  ::dlclose(Handle);
  ::close(Fd);
}

const void* CpuModule::findKernel(const std::string& Symbol) const {
  return ::dlsym(Handle, Symbol.c_str());
}

} // namespace cajeta::xpu::rt
