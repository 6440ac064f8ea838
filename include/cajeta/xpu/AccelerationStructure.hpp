// AccelerationStructure: RAII scenes of triangles and boxes that kernels trace rays through,
// built from a description (AccelerationStructureDesc) as one implementation (AsImpl).
#pragma once

#include "cajeta/xpu/Device.hpp"
#include "cajeta/xpu/Errors.hpp"

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <utility>

namespace cajeta::xpu {

/// How an acceleration structure is built; CAJETA_GPU_AS_IMPL=native|software overrides it.
/// Auto and Software build the portable software BVH; Native (hardware ray query) throws
/// BackendUnavailable where no device offers it (today: everywhere).
enum class AsImpl : uint32_t {
  Auto = CAJETA_XPU_AS_IMPL_AUTO,
  Native = CAJETA_XPU_AS_IMPL_NATIVE,
  Software = CAJETA_XPU_AS_IMPL_SOFTWARE,
};

/// "auto", "native", "software".
inline std::string asImplName(AsImpl I) {
  return cajeta_xpu_as_impl_name(static_cast<cajeta_xpu_as_impl>(I));
}

/// A triangle mesh, viewed: xyz per vertex, and three indices per triangle (empty: triangle i is
/// vertices 3i, 3i+1, 3i+2).
struct TriangleMesh {
  std::span<const float> vertices;
  std::span<const uint32_t> indices = {};
};

/// What to build: triangles and/or boxes, viewed (not copied) until the build returns.
class AccelerationStructureDesc {
public:
  AccelerationStructureDesc() = default;
  AccelerationStructureDesc(const TriangleMesh& M) { triangles(M); } // NOLINT: implicit

  AccelerationStructureDesc& triangles(const TriangleMesh& M) {
    D.vertices = M.vertices.data();
    D.vertex_count = M.vertices.size() / 3;
    D.indices = M.indices.empty() ? nullptr : M.indices.data();
    D.triangle_count = M.indices.empty() ? D.vertex_count / 3 : M.indices.size() / 3;
    return *this;
  }
  /// Boxes as (min xyz, max xyz) sextuples.
  AccelerationStructureDesc& aabbs(std::span<const float> MinMax) {
    D.aabbs = MinMax.data();
    D.aabb_count = MinMax.size() / 6;
    return *this;
  }
  /// Triangles become candidates the kernel confirms, as boxes are.
  AccelerationStructureDesc& nonOpaqueTriangles(bool On = true) {
    D.flags = On ? D.flags | CAJETA_XPU_ACCEL_NON_OPAQUE_TRIANGLES
                 : D.flags & ~uint32_t(CAJETA_XPU_ACCEL_NON_OPAQUE_TRIANGLES);
    return *this;
  }
  /// Builds on the device: a linear BVH over Morton codes, faster to build, slower to trace
  /// (CAJETA_XPU_ACCEL_FAST_BUILD).
  AccelerationStructureDesc& fastBuild(bool On = true) {
    D.flags = On ? D.flags | CAJETA_XPU_ACCEL_FAST_BUILD
                 : D.flags & ~uint32_t(CAJETA_XPU_ACCEL_FAST_BUILD);
    return *this;
  }
  /// Primitives per BVH leaf at most (1..16; 0: the default, 4).
  AccelerationStructureDesc& maxLeafSize(uint32_t N) {
    D.max_leaf_size = N;
    return *this;
  }

  const cajeta_xpu_accel_desc& raw() const { return D; }

private:
  cajeta_xpu_accel_desc D{};
};

class AccelerationStructure {
public:
  /// Builds Desc on D (default: defaultDevice()) and uploads it. BackendUnavailable for a native
  /// build; Error for a bad description (an index out of range names the triangle).
  static AccelerationStructure build(const AccelerationStructureDesc& Desc,
                                     AsImpl Impl = AsImpl::Auto) {
    return AccelerationStructure(nullptr, Desc, Impl);
  }
  static AccelerationStructure build(const Device& D, const AccelerationStructureDesc& Desc,
                                     AsImpl Impl = AsImpl::Auto) {
    return AccelerationStructure(D.handle(), Desc, Impl);
  }
  /// AccelerationStructure.of(desc, impl), as the language spells it.
  static AccelerationStructure of(const AccelerationStructureDesc& Desc,
                                  AsImpl Impl = AsImpl::Auto) {
    return build(Desc, Impl);
  }

  ~AccelerationStructure() { cajeta_xpu_accel_destroy(H); }
  AccelerationStructure(const AccelerationStructure&) = delete;
  AccelerationStructure& operator=(const AccelerationStructure&) = delete;
  AccelerationStructure(AccelerationStructure&& O) noexcept : H(std::exchange(O.H, nullptr)) {}
  AccelerationStructure& operator=(AccelerationStructure&& O) noexcept {
    if (this != &O) {
      cajeta_xpu_accel_destroy(H);
      H = std::exchange(O.H, nullptr);
    }
    return *this;
  }

  /// The implementation built (the verb follows it): Software today.
  AsImpl impl() const { return static_cast<AsImpl>(cajeta_xpu_accel_impl(H)); }
  Device device() const { return Device(cajeta_xpu_accel_device(H)); }
  size_t triangleCount() const { return cajeta_xpu_accel_triangle_count(H); }
  size_t aabbCount() const { return cajeta_xpu_accel_aabb_count(H); }
  /// Primitives left out for a NaN or infinite coordinate.
  size_t skippedCount() const { return cajeta_xpu_accel_skipped_count(H); }
  size_t nodeCount() const { return cajeta_xpu_accel_node_count(H); }
  uint64_t bytes() const { return cajeta_xpu_accel_bytes(H); }
  /// The host build, without the upload.
  double buildMillis() const { return cajeta_xpu_accel_build_ms(H); }

  cajeta_xpu_accel* handle() const { return H; }

private:
  AccelerationStructure(cajeta_xpu_device* D, const AccelerationStructureDesc& Desc, AsImpl I) {
    detail::check(cajeta_xpu_accel_build(D, &Desc.raw(), static_cast<cajeta_xpu_as_impl>(I), &H));
  }
  cajeta_xpu_accel* H = nullptr;
};

namespace detail {

/// An AccelerationStructure parameter's argument.
inline cajeta_xpu_arg toArg(const AccelerationStructure& A) {
  cajeta_xpu_arg Arg{};
  Arg.kind = CAJETA_XPU_ARG_ACCEL;
  Arg.value.buffer = cajeta_xpu_accel_buffer(A.handle());
  return Arg;
}

} // namespace detail

} // namespace cajeta::xpu
