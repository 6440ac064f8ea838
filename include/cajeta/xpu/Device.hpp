// Devices of the backends present, and the one the dispatcher picks.
#pragma once

#include "cajeta/xpu/Errors.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace cajeta::xpu {

/// Optional device features: Device::supports answers from what the backend
/// really offers.
enum class Capability : uint32_t {
  WaveOps = CAJETA_XPU_CAP_WAVE_OPS,
  Float16 = CAJETA_XPU_CAP_FLOAT16,
  Float64 = CAJETA_XPU_CAP_FLOAT64,
  Int64Atomics = CAJETA_XPU_CAP_INT64_ATOMICS,
  FloatAtomics = CAJETA_XPU_CAP_FLOAT_ATOMICS,
  SharedMemory = CAJETA_XPU_CAP_SHARED_MEMORY,
  DynamicSharedMemory = CAJETA_XPU_CAP_DYNAMIC_SHARED_MEMORY,
  CooperativeMatrix = CAJETA_XPU_CAP_COOPERATIVE_MATRIX,
  Textures = CAJETA_XPU_CAP_TEXTURES,
  RayQuery = CAJETA_XPU_CAP_RAY_QUERY,
  CorrectlyRoundedFma = CAJETA_XPU_CAP_CORRECTLY_ROUNDED_FMA,
  PreciseTranscendentals = CAJETA_XPU_CAP_PRECISE_TRANSCENDENTALS,
  Float32Denormals = CAJETA_XPU_CAP_FLOAT32_DENORMALS,
};

/// Every capability, in enum order.
inline std::vector<Capability> allCapabilities() {
  std::vector<Capability> All;
  for (uint32_t I = 0; I != CAJETA_XPU_CAP_COUNT; ++I)
    All.push_back(static_cast<Capability>(I));
  return All;
}

/// "wave-ops", "float16", ...
inline std::string capabilityName(Capability C) {
  return cajeta_xpu_capability_name(static_cast<cajeta_xpu_capability>(C));
}

class Device {
public:
  explicit Device(cajeta_xpu_device* Handle) : H(Handle) {}

  std::string name() const { return cajeta_xpu_device_name(H); }
  std::string backend() const { return cajeta_xpu_device_backend(H); } // "cpu"
  unsigned computeUnits() const { return cajeta_xpu_device_compute_units(H); }
  unsigned maxWorkgroupSize() const { return cajeta_xpu_device_max_workgroup_size(H); }
  /// Lanes per wave (Wave.width()); 0 where the device has no wave operations.
  unsigned waveWidth() const { return cajeta_xpu_device_wave_width(H); }
  /// The matrix products the native tile tier multiplies here ("16x16x16:f16:f16:f32:f32":
  /// M x N x K, then the a, b, c and result component types); empty where tiles are only
  /// portable (supports(Capability::CooperativeMatrix) is false exactly then).
  std::vector<std::string> matrixShapes() const {
    std::vector<std::string> Out;
    std::string All = cajeta_xpu_device_matrix_shapes(H);
    for (size_t At = 0; At < All.size();) {
      size_t End = All.find(',', At);
      End = End == std::string::npos ? All.size() : End;
      Out.push_back(All.substr(At, End - At));
      At = End + 1;
    }
    return Out;
  }
  /// Whether its code runs on the host's CPU cores (the cpu backend, lavapipe) rather than on
  /// an accelerator.
  bool runsOnHostCpu() const { return cajeta_xpu_device_runs_on_host_cpu(H) != 0; }
  /// Whether launches on two streams may run at the same time here (false: one after the
  /// other, e.g. a Vulkan device with a single compute queue).
  bool concurrentStreams() const { return cajeta_xpu_device_concurrent_streams(H) != 0; }
  /// Reserves compute units for latency and frameBudget submissions (the others run on the
  /// rest), rounded up to what the device partitions; returns the units reserved, 0 where the
  /// device cannot reserve. The first latency-class submission does this by itself; this does it
  /// ahead (a green context costs milliseconds to make) or remakes it at another size (0
  /// releases it: no submission makes one again until the next call). Throws Error when the
  /// driver refuses.
  unsigned reserve(unsigned Units) {
    unsigned Got = 0;
    detail::check(cajeta_xpu_device_reserve(H, Units, &Got));
    return Got;
  }
  /// The compute units reserved for latency-class submissions; 0 when none.
  unsigned reservedComputeUnits() const { return cajeta_xpu_device_reserved_compute_units(H); }
  /// The most iterations the driver lets one loop run (it ends the loop there, silently); 0 where
  /// there is no such limit.
  uint64_t maxLoopIterations() const { return cajeta_xpu_device_max_loop_iterations(H); }
  bool supports(Capability C) const {
    return cajeta_xpu_device_supports(H, static_cast<cajeta_xpu_capability>(C)) != 0;
  }
  /// The most dynamic shared memory one launch may ask for, in bytes.
  uint64_t maxDynamicSharedBytes() const { return cajeta_xpu_device_max_dynamic_shared_bytes(H); }
  /// Bytes of buffer memory allocated on the device now.
  uint64_t allocatedBytes() const { return cajeta_xpu_device_allocated_bytes(H); }
  cajeta_xpu_device* handle() const { return H; }

  friend bool operator==(const Device& A, const Device& B) { return A.H == B.H; }

private:
  cajeta_xpu_device* H;
};

/// Every device of every backend present.
inline std::vector<Device> devices() {
  std::vector<Device> All;
  for (size_t I = 0, N = cajeta_xpu_device_count(); I != N; ++I)
    All.emplace_back(cajeta_xpu_device_get(I));
  return All;
}

/// Why backend ("cuda", "hip", "vulkan") has no device here; "" when it has one.
inline std::string unavailableReason(const std::string& Backend) {
  const char* Why = cajeta_xpu_backend_unavailable_reason(Backend.c_str());
  return Why ? Why : "";
}

/// What the dispatcher picks (CAJETA_XPU_BACKEND=cpu|cuda|hip|vulkan forces one); throws
/// BackendUnavailable when the forced backend is unknown or absent.
inline Device defaultDevice() {
  cajeta_xpu_device* D = nullptr;
  detail::check(cajeta_xpu_device_default(&D));
  return Device(D);
}

} // namespace cajeta::xpu
