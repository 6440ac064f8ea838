// Test harness: build, memfd + dlopen("/proc/self/fd/N"), dlsym, run on the calling thread.
#include "LoadedPayload.h"

#include <dlfcn.h>
#include <sys/mman.h>
#include <unistd.h>

namespace cajeta::test {

LoadedPayload::~LoadedPayload() {
  if (Handle)
    dlclose(Handle);
  if (Fd >= 0)
    close(Fd);
}

std::unique_ptr<LoadedPayload> LoadedPayload::build(const kir::Module& M, std::string& Error,
                                                    bool CheckBounds) {
  auto P = std::unique_ptr<LoadedPayload>(new LoadedPayload());
  lowering::CpuBuildOptions O;
  O.CheckBounds = CheckBounds;
  P->Result = lowering::CpuPayloadBuilder::build(M, O);
  if (!P->Result.Ok) {
    Error = P->Result.Error;
    return nullptr;
  }
  // The fd stays open while the library is loaded: a reused /proc/self/fd/N name must never
  // match a library that is still loaded.
  P->Fd = memfd_create("lowering-test.so", MFD_CLOEXEC);
  const auto& Bytes = P->Result.Payload.Bytes;
  if (P->Fd < 0 || write(P->Fd, Bytes.data(), Bytes.size()) != ssize_t(Bytes.size())) {
    Error = "memfd write failed";
    return nullptr;
  }
  std::string Path = "/proc/self/fd/" + std::to_string(P->Fd);
  P->Handle = dlopen(Path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!P->Handle) {
    Error = std::string("dlopen: ") + dlerror();
    return nullptr;
  }
  return P;
}

CajetaCpuKernelFn LoadedPayload::kernel(const std::string& Symbol) const {
  return reinterpret_cast<CajetaCpuKernelFn>(dlsym(Handle, Symbol.c_str()));
}

CajetaCpuLaunch LoadedPayload::run(const std::string& Symbol, const std::vector<CajetaCpuArg>& Args,
                                   uint32_t GX, uint32_t BX, uint32_t GY, uint32_t BY, uint32_t GZ,
                                   uint32_t BZ) const {
  CajetaCpuLaunch L{};
  L.GridDim[0] = GX;
  L.GridDim[1] = GY;
  L.GridDim[2] = GZ;
  L.BlockDim[0] = BX;
  L.BlockDim[1] = BY;
  L.BlockDim[2] = BZ;
  return launch(Symbol, Args, L);
}

CajetaCpuLaunch LoadedPayload::launch(const std::string& Symbol,
                                      const std::vector<CajetaCpuArg>& Args,
                                      CajetaCpuLaunch L) const {
  CajetaCpuKernelFn Fn = kernel(Symbol);
  if (Fn)
    Fn(Args.data(), &L, 0, uint64_t(L.GridDim[0]) * L.GridDim[1] * L.GridDim[2]);
  return L;
}

} // namespace cajeta::test
