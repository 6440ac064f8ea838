// Test harness: builds a KIR module into a CPU payload, loads it with memfd + dlopen, runs kernels.
#pragma once

#include "bundle/CpuKernelAbi.h"
#include "compiler/lowering/llvm/CpuPayloadBuilder.h"

#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace cajeta::test {

class LoadedPayload {
public:
  ~LoadedPayload();
  /// Builds M; on failure returns null and sets Error.
  static std::unique_ptr<LoadedPayload> build(const kir::Module& M, std::string& Error,
                                              bool CheckBounds = false);

  CajetaCpuKernelFn kernel(const std::string& Symbol) const;
  const lowering::CpuBuildResult& result() const { return Result; }

  /// Runs every workgroup of the launch on this thread; returns the launch record.
  CajetaCpuLaunch run(const std::string& Symbol, const std::vector<CajetaCpuArg>& Args, uint32_t GX,
                      uint32_t BX, uint32_t GY = 1, uint32_t BY = 1, uint32_t GZ = 1,
                      uint32_t BZ = 1) const;

  /// Runs every workgroup of the launch L describes (geometry, DynamicSharedBytes) on this
  /// thread; returns the launch record after the run.
  CajetaCpuLaunch launch(const std::string& Symbol, const std::vector<CajetaCpuArg>& Args,
                         CajetaCpuLaunch L) const;

private:
  lowering::CpuBuildResult Result;
  int Fd = -1;
  void* Handle = nullptr;
};

template <typename T> CajetaCpuArg bufferArg(std::vector<T>& V, uint64_t Length = ~0ull) {
  CajetaCpuArg A{};
  A.Ptr = V.data();
  A.Length = Length == ~0ull ? V.size() : Length;
  return A;
}

template <typename T> CajetaCpuArg scalarArg(T V) {
  CajetaCpuArg A{};
  A.Bits = 0;
  std::memcpy(&A.Bits, &V, sizeof(T));
  return A;
}

} // namespace cajeta::test
