// CUTLASS's sm80 GEMMs (CutlassPeers.h), instantiated as a CUTLASS user writes them.
#include "CutlassPeers.h"

#include <stdexcept>

#ifdef CAJETA_HAVE_CUTLASS
#include <cutlass/bfloat16.h>
#include <cutlass/gemm/device/gemm.h>
#include <cutlass/half.h>
#include <cutlass/version.h>
#endif

namespace cajeta::gpubench {

#ifdef CAJETA_HAVE_CUTLASS
namespace {

template <class T, int BlockM, int BlockN, int BlockK, int Stages>
using Sm80Gemm = cutlass::gemm::device::Gemm<
    T, cutlass::layout::RowMajor, T, cutlass::layout::RowMajor, float, cutlass::layout::RowMajor,
    float, cutlass::arch::OpClassTensorOp, cutlass::arch::Sm80,
    cutlass::gemm::GemmShape<BlockM, BlockN, BlockK>, cutlass::gemm::GemmShape<64, 64, BlockK>,
    cutlass::gemm::GemmShape<16, 8, 16>,
    cutlass::epilogue::thread::LinearCombination<float, 4, float, float>,
    cutlass::gemm::threadblock::GemmIdentityThreadblockSwizzle<>, Stages>;

template <class Gemm>
void run(float* C, const void* A, const void* B, uint32_t M, uint32_t N, uint32_t K, void* Stream) {
  using T = typename Gemm::ElementA;
  typename Gemm::Arguments Args({int(M), int(N), int(K)}, {static_cast<const T*>(A), int(K)},
                                {static_cast<const T*>(B), int(N)}, {C, int(N)}, {C, int(N)},
                                {1.0f, 0.0f});
  Gemm G;
  cutlass::Status St = G.can_implement(Args);
  if (St == cutlass::Status::kSuccess)
    St = G(Args, nullptr, static_cast<cudaStream_t>(Stream));
  if (St != cutlass::Status::kSuccess)
    throw std::runtime_error(std::string("CUTLASS sm80 GEMM: ") + cutlassGetStatusString(St));
}

using Runner = void (*)(float*, const void*, const void*, uint32_t, uint32_t, uint32_t, void*);
struct Sm80Kernel {
  const char* Name;
  Runner Half, BFloat16;
};

// The shapes CUTLASS's profiler ranks first for large float16 GEMMs on sm80 (64 x 64 warps), and
// ours (128 x 128 x 64, three stages).
template <int BlockM, int BlockN, int BlockK, int Stages>
constexpr Sm80Kernel kernel(const char* Name) {
  return {Name, run<Sm80Gemm<cutlass::half_t, BlockM, BlockN, BlockK, Stages>>,
          run<Sm80Gemm<cutlass::bfloat16_t, BlockM, BlockN, BlockK, Stages>>};
}
const Sm80Kernel Kernels[] = {
    kernel<128, 256, 32, 3>("128x256x32, warps 64x64, 3 stages"),
    kernel<256, 128, 32, 3>("256x128x32, warps 64x64, 3 stages"),
    kernel<128, 128, 32, 4>("128x128x32, warps 64x64, 4 stages"),
    kernel<128, 128, 64, 3>("128x128x64, warps 64x64, 3 stages"),
};

} // namespace

const std::vector<std::string>& cutlassSm80Kernels() {
  static const std::vector<std::string> Names = [] {
    std::vector<std::string> V;
    for (const Sm80Kernel& Kn : Kernels)
      V.push_back(Kn.Name);
    return V;
  }();
  return Names;
}

std::string cutlassVersion() {
  return "CUTLASS " + std::to_string(CUTLASS_MAJOR) + "." + std::to_string(CUTLASS_MINOR) + "." +
         std::to_string(CUTLASS_PATCH);
}

void cutlassSm80Gemm(size_t Kernel, bool BFloat16, float* C, const void* A, const void* B,
                     uint32_t M, uint32_t N, uint32_t K, void* Stream) {
  if (Kernel >= std::size(Kernels))
    throw std::runtime_error("CUTLASS sm80 GEMM: no kernel " + std::to_string(Kernel));
  (BFloat16 ? Kernels[Kernel].BFloat16 : Kernels[Kernel].Half)(C, A, B, M, N, K, Stream);
}

#else

const std::vector<std::string>& cutlassSm80Kernels() {
  static const std::vector<std::string> None;
  return None;
}

std::string cutlassVersion() {
  return "";
}

void cutlassSm80Gemm(size_t, bool, float*, const void*, const void*, uint32_t, uint32_t, uint32_t,
                     void*) {
  throw std::runtime_error("CUTLASS sm80 GEMM: this bench was built without CUTLASS's headers "
                           "(scripts/fetch-cutlass.sh)");
}

#endif

} // namespace cajeta::gpubench
