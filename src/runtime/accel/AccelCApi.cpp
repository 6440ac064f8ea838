// The C ABI of acceleration structures: building one from a description, its getters, and the
// buffer handle a launch passes as an accel argument.
#include "cajeta/xpu/cajeta_xpu.h"

#include "runtime/Dispatcher.h"
#include "runtime/Handles.h"
#include "runtime/LastError.h"
#include "runtime/accel/AccelerationStructure.h"

#include <fmt/format.h>

using namespace cajeta::xpu::rt;

struct cajeta_xpu_accel {
  std::unique_ptr<AccelerationStructure> Impl;
  cajeta_xpu_buffer Buffer; // the BVH's buffer, as launches take it
};

namespace {

template <class T> void require(const T* Ptr, const char* What, const char* Fn) {
  if (!Ptr)
    fail(CAJETA_XPU_ERROR, fmt::format("{}: {} must not be null", Fn, What));
}

BvhBuilder::Scene sceneOf(const cajeta_xpu_accel_desc& D, const char* Fn) {
  if (D.vertex_count)
    require(D.vertices, "desc->vertices", Fn);
  if (D.aabb_count)
    require(D.aabbs, "desc->aabbs", Fn);
  constexpr uint32_t Known = CAJETA_XPU_ACCEL_NON_OPAQUE_TRIANGLES | CAJETA_XPU_ACCEL_FAST_BUILD;
  if (D.flags & ~Known)
    fail(CAJETA_XPU_ERROR, fmt::format("{}: unknown flags {:#x}", Fn, D.flags & ~Known));
  BvhBuilder::Scene S;
  S.Vertices = {D.vertices, D.vertex_count * 3};
  if (D.indices)
    S.Indices = {D.indices, D.triangle_count * 3};
  S.TriangleCount = D.triangle_count;
  S.Aabbs = {D.aabbs, D.aabb_count * 6};
  S.MaxLeafSize = D.max_leaf_size;
  S.OpaqueTriangles = !(D.flags & CAJETA_XPU_ACCEL_NON_OPAQUE_TRIANGLES);
  S.OnDevice = (D.flags & CAJETA_XPU_ACCEL_FAST_BUILD) != 0;
  return S;
}

} // namespace

extern "C" {

int cajeta_xpu_accel_build(cajeta_xpu_device* D, const cajeta_xpu_accel_desc* Desc,
                           cajeta_xpu_as_impl Impl, cajeta_xpu_accel** Out) {
  return guarded([&] {
    require(Out, "out", __func__);
    require(Desc, "desc", __func__);
    BackendDevice& Device = D ? *fromHandle(D) : Dispatcher::defaultDevice();
    auto As = std::make_unique<AccelerationStructure>(Device, sceneOf(*Desc, __func__), Impl);
    std::shared_ptr<Buffer> Words = As->buffer();
    *Out = new cajeta_xpu_accel{std::move(As), cajeta_xpu_buffer{std::move(Words)}};
  });
}

void cajeta_xpu_accel_destroy(cajeta_xpu_accel* A) {
  delete A;
}

cajeta_xpu_as_impl cajeta_xpu_accel_impl(const cajeta_xpu_accel* A) {
  return A ? A->Impl->impl() : CAJETA_XPU_AS_IMPL_AUTO;
}

const char* cajeta_xpu_as_impl_name(cajeta_xpu_as_impl Impl) {
  switch (Impl) {
  case CAJETA_XPU_AS_IMPL_AUTO:
    return "auto";
  case CAJETA_XPU_AS_IMPL_NATIVE:
    return "native";
  case CAJETA_XPU_AS_IMPL_SOFTWARE:
    return "software";
  case CAJETA_XPU_AS_IMPL_MAX_ENUM:
    break;
  }
  return "";
}

cajeta_xpu_device* cajeta_xpu_accel_device(const cajeta_xpu_accel* A) {
  return A ? toHandle(&A->Impl->device()) : nullptr;
}
size_t cajeta_xpu_accel_triangle_count(const cajeta_xpu_accel* A) {
  return A ? A->Impl->stats().Triangles : 0;
}
size_t cajeta_xpu_accel_aabb_count(const cajeta_xpu_accel* A) {
  return A ? A->Impl->stats().Aabbs : 0;
}
size_t cajeta_xpu_accel_skipped_count(const cajeta_xpu_accel* A) {
  return A ? A->Impl->stats().Skipped : 0;
}
size_t cajeta_xpu_accel_node_count(const cajeta_xpu_accel* A) {
  return A ? A->Impl->stats().Nodes : 0;
}
uint64_t cajeta_xpu_accel_bytes(const cajeta_xpu_accel* A) {
  return A ? A->Impl->bytes() : 0;
}
double cajeta_xpu_accel_build_ms(const cajeta_xpu_accel* A) {
  return A ? A->Impl->buildMillis() : 0;
}
cajeta_xpu_buffer* cajeta_xpu_accel_buffer(const cajeta_xpu_accel* A) {
  return A ? const_cast<cajeta_xpu_buffer*>(&A->Buffer) : nullptr;
}

} // extern "C"
