// KernelBuffer<T>: RAII device memory with copies ordered on streams.
#pragma once

#include "cajeta/xpu/BFloat16.hpp"
#include "cajeta/xpu/Float16.hpp"
#include "cajeta/xpu/Stream.hpp"

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

namespace cajeta::xpu {

namespace detail {

template <class T>
inline constexpr bool IsKernelScalar =
    std::is_arithmetic_v<T> || std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>;

/// The kernel-language scalar type of a C++ arithmetic type, xpu::float16 or xpu::bfloat16.
template <class T> constexpr cajeta_xpu_scalar_type scalarTypeOf() {
  static_assert(IsKernelScalar<T>,
                "kernel scalars are bool, integers, float16, bfloat16, float and double");
  if constexpr (std::is_same_v<T, float16>)
    return CAJETA_XPU_FLOAT16;
  else if constexpr (std::is_same_v<T, bfloat16>)
    return CAJETA_XPU_BFLOAT16;
  else if constexpr (std::is_same_v<T, bool>)
    return CAJETA_XPU_BOOL;
  else if constexpr (std::is_floating_point_v<T>) {
    static_assert(sizeof(T) == 4 || sizeof(T) == 8, "long double has no kernel type");
    return sizeof(T) == 4 ? CAJETA_XPU_FLOAT32 : CAJETA_XPU_FLOAT64;
  } else if constexpr (std::is_signed_v<T>) {
    return sizeof(T) == 1   ? CAJETA_XPU_INT8
           : sizeof(T) == 2 ? CAJETA_XPU_INT16
           : sizeof(T) == 4 ? CAJETA_XPU_INT32
                            : CAJETA_XPU_INT64;
  } else {
    return sizeof(T) == 1   ? CAJETA_XPU_UINT8
           : sizeof(T) == 2 ? CAJETA_XPU_UINT16
           : sizeof(T) == 4 ? CAJETA_XPU_UINT32
                            : CAJETA_XPU_UINT64;
  }
}

} // namespace detail

template <class T> class KernelBuffer {
public:
  /// n elements on defaultDevice(); OutOfDeviceMemory naming the size when it cannot.
  explicit KernelBuffer(size_t N) {
    detail::check(cajeta_xpu_buffer_create(nullptr, detail::scalarTypeOf<T>(), N, &H));
  }
  KernelBuffer(const Device& D, size_t N) {
    detail::check(cajeta_xpu_buffer_create(D.handle(), detail::scalarTypeOf<T>(), N, &H));
  }
  /// A buffer still borrowed by a running kernel is released when that kernel completes.
  ~KernelBuffer() { cajeta_xpu_buffer_destroy(H); }
  KernelBuffer(const KernelBuffer&) = delete;
  KernelBuffer& operator=(const KernelBuffer&) = delete;
  KernelBuffer(KernelBuffer&& O) noexcept : H(std::exchange(O.H, nullptr)) {}
  KernelBuffer& operator=(KernelBuffer&& O) noexcept {
    if (this != &O) {
      cajeta_xpu_buffer_destroy(H);
      H = std::exchange(O.H, nullptr);
    }
    return *this;
  }

  size_t size() const { return cajeta_xpu_buffer_count(H); }
  Device device() const { return Device(cajeta_xpu_buffer_device(H)); }

  /// Copies on KernelStream::current() and waits. BorrowError if a kernel on another stream
  /// still borrows the buffer.
  void upload(const T* Src, size_t N) {
    detail::check(cajeta_xpu_buffer_write(H, nullptr, Src, N));
  }
  void upload(const std::vector<T>& Src) requires(!std::is_same_v<T, bool>) {
    upload(Src.data(), Src.size());
  }
  void download(T* Dst, size_t N) { detail::check(cajeta_xpu_buffer_read(H, nullptr, Dst, N)); }
  /// Resizes Dst to size() and fills it.
  void download(std::vector<T>& Dst) requires(!std::is_same_v<T, bool>) {
    Dst.resize(size());
    download(Dst.data(), Dst.size());
  }
  /// Ordered on S; returns without waiting for the device. Src is read before it returns (the
  /// bytes go through staging on every backend), so it may be reused at once.
  void uploadAsync(KernelStream& S, const T* Src, size_t N) {
    detail::check(cajeta_xpu_buffer_write_async(H, S.handle(), Src, N));
  }
  /// Ordered on S; Dst is filled when S reaches the copy and must stay valid until S is synced.
  void downloadAsync(KernelStream& S, T* Dst, size_t N) {
    detail::check(cajeta_xpu_buffer_read_async(H, S.handle(), Dst, N));
  }
  /// Keeps the first min(size(), N) elements; ordered on KernelStream::current().
  void resize(size_t N) { detail::check(cajeta_xpu_buffer_resize(H, N)); }

  cajeta_xpu_buffer* handle() const { return H; }

private:
  cajeta_xpu_buffer* H = nullptr;
};

} // namespace cajeta::xpu
