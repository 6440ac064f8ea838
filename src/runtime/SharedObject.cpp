// Loading a shared object from memory: memfd_create + dlopen(/proc/self/fd/N) (SharedObject.h).
#include "runtime/SharedObject.h"

#include "bundle/RegularFile.h"

#include "runtime/ElfCheck.h"
#include "runtime/RuntimeError.h"

#include <cerrno>
#include <cstring>
#include <dlfcn.h>
#include <fmt/format.h>
#include <sys/mman.h>
#include <unistd.h>

namespace cajeta::xpu::rt {

std::unique_ptr<SharedObject> SharedObject::load(const uint8_t* Data, size_t Size,
                                                 const std::string& What,
                                                 const std::string& Target) {
  auto Fail = [&](const std::string& Message) {
    fail(CAJETA_XPU_BUNDLE_ERROR, fmt::format("{}: {}", What, Message));
  };
  std::string Bad = checkElfSharedObject(Data, Size);
  if (!Bad.empty())
    Fail(fmt::format("target '{}': {}", Target, Bad));
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
  ::close(Fd);
}

void* SharedObject::symbol(const std::string& Name) const {
  return ::dlsym(Handle, Name.c_str());
}

} // namespace cajeta::xpu::rt
