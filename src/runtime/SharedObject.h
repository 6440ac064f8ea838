// A shared object loaded from bytes in memory, without touching the file system: memfd_create,
// then dlopen("/proc/self/fd/N"). The CPU backend's kernel payloads (CpuModule) and a bundle's
// host code (cajeta_host_run_program) are loaded this way. With CAJETA_XPU_PROFILE_DIR set, each
// object is written there instead (cajeta-<target>-<content hash>.so) and loaded from that file,
// so that a profiler (perf) can name the kernels of the running process.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace cajeta::xpu::rt {

class SharedObject {
public:
  /// Checks [Data, Data + Size) is an x86-64 ELF shared object whose headers lie inside it
  /// (checkElfSharedObject: dlopen crashes on truncated files), then loads it with RTLD_NOW |
  /// RTLD_LOCAL: every undefined symbol is resolved at once, against the process's global scope
  /// (libm, libcajeta_xpu.so's C ABI), and a missing one fails the load naming it. Throws
  /// RuntimeError (bundle error) "<What>: <what failed>", the ELF check's message as "<What>:
  /// target '<Target>': ..." (What names the payload: "cpu payload").
  static std::unique_ptr<SharedObject> load(const uint8_t* Data, size_t Size,
                                            const std::string& What, const std::string& Target);
  ~SharedObject();
  SharedObject(const SharedObject&) = delete;
  SharedObject& operator=(const SharedObject&) = delete;

  /// The address of the global symbol Name defined by the object, or null.
  void* symbol(const std::string& Name) const;

private:
  SharedObject(int Fd, void* Handle) : Fd(Fd), Handle(Handle) {}

  // The fd stays open while the library is loaded so that its /proc/self/fd/N path, which the
  // dynamic loader matches by name, is never reused for another object (-1: loaded from a file).
  int Fd;
  void* Handle;
};

} // namespace cajeta::xpu::rt
