// The C ABI's opaque handle types, as the runtime defines them.
#pragma once

#include "cajeta/xpu/cajeta_xpu.h"
#include "runtime/Buffer.h"
#include "runtime/Event.h"
#include "runtime/LoadedProgram.h"

#include <atomic>
#include <memory>

struct cajeta_xpu_buffer {
  std::shared_ptr<cajeta::xpu::rt::Buffer> Impl;
};

struct cajeta_xpu_event {
  std::shared_ptr<cajeta::xpu::rt::Event> Impl;
};

struct cajeta_xpu_program {
  std::atomic<int> Refs{1};
  std::shared_ptr<cajeta::xpu::rt::LoadedProgram> Impl;
};

namespace cajeta::xpu::rt {

inline BackendDevice* fromHandle(cajeta_xpu_device* D) {
  return reinterpret_cast<BackendDevice*>(D);
}
inline const BackendDevice* fromHandle(const cajeta_xpu_device* D) {
  return reinterpret_cast<const BackendDevice*>(D);
}
inline cajeta_xpu_device* toHandle(BackendDevice* D) {
  return reinterpret_cast<cajeta_xpu_device*>(D);
}
inline Stream* fromHandle(cajeta_xpu_stream* S) {
  return reinterpret_cast<Stream*>(S);
}
inline const Stream* fromHandle(const cajeta_xpu_stream* S) {
  return reinterpret_cast<const Stream*>(S);
}
inline cajeta_xpu_stream* toHandle(Stream* S) {
  return reinterpret_cast<cajeta_xpu_stream*>(S);
}
inline const Kernel* fromHandle(const cajeta_xpu_kernel* K) {
  return reinterpret_cast<const Kernel*>(K);
}
inline cajeta_xpu_kernel* toHandle(const Kernel* K) {
  return reinterpret_cast<cajeta_xpu_kernel*>(const_cast<Kernel*>(K));
}

} // namespace cajeta::xpu::rt
