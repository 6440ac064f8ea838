// Calibration (spec 17.8): what a device measures, recorded once and kept in a store, never a
// declared number. DeviceCalibration::current(device) measures a device the first time (a few
// seconds) and serves the stored record after that, on this device, driver, measuring code and
// power mode only.
#pragma once

#include "cajeta/xpu/Device.hpp"
#include "cajeta/xpu/Program.hpp"

#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace cajeta::xpu {

class DeviceCalibration {
public:
  /// Called between steps with the fraction done (0 to 1) and the next step's name.
  using Progress = std::function<void(double Fraction, const std::string& Step)>;

  /// The device's record: held in memory, else the store's, else measured now and stored.
  static DeviceCalibration current(const Device& D, const Progress& P = {}) {
    return get(D.handle(), false, P);
  }
  static DeviceCalibration current() { return current(defaultDevice()); }
  /// Measures the device now, replacing what memory and the store hold.
  static DeviceCalibration measure(const Device& D, const Progress& P = {}) {
    return get(D.handle(), true, P);
  }

  /// A kernel's solo measurements on its program's device (`cajeta calibrate <program>`: facts
  /// launches, solo-seconds, achieved-bandwidth, achieved-flops, intensity), built into its
  /// bundle or in the store; nullopt when there are none. Never measures.
  static std::optional<DeviceCalibration> ofKernel(const Kernel& K) {
    const cajeta_xpu_calibration* Out = nullptr;
    int Status = cajeta_xpu_kernel_calibration(K.handle(), &Out);
    if (Status == CAJETA_XPU_NOT_FOUND)
      return std::nullopt;
    detail::check(Status);
    return DeviceCalibration(Out);
  }

  /// Every fact a record names ("fp32-fma-flops", "copy-bandwidth", ...), measured or absent.
  std::vector<std::string> factNames() const {
    std::vector<std::string> Names;
    for (size_t I = 0, N = cajeta_xpu_calibration_fact_count(C); I != N; ++I)
      Names.emplace_back(cajeta_xpu_calibration_fact_name(C, I));
    return Names;
  }
  /// A fact's value; nullopt when it is absent (absentReason says why). Throws NotFound for a
  /// name no record has.
  std::optional<double> fact(const std::string& Name) const {
    if (!cajeta_xpu_calibration_fact_unit(C, Name.c_str()))
      throw NotFound("no calibration fact is called '" + Name + "'");
    double Value = 0;
    if (cajeta_xpu_calibration_fact(C, Name.c_str(), &Value) != CAJETA_XPU_SUCCESS)
      return std::nullopt;
    return Value;
  }
  std::string unit(const std::string& Name) const {
    return text(cajeta_xpu_calibration_fact_unit, Name);
  }
  std::string absentReason(const std::string& Name) const {
    return text(cajeta_xpu_calibration_fact_absent, Name);
  }
  std::string note(const std::string& Name) const {
    return text(cajeta_xpu_calibration_fact_note, Name);
  }

  /// FLOP/s of float32 fused multiply-adds (2 operations each).
  std::optional<double> fp32Flops() const { return fact("fp32-fma-flops"); }
  /// Bytes per second read, written, and read plus written by a copy.
  std::optional<double> readBandwidth() const { return fact("read-bandwidth"); }
  std::optional<double> writeBandwidth() const { return fact("write-bandwidth"); }
  std::optional<double> copyBandwidth() const { return fact("copy-bandwidth"); }
  /// Seconds of one dependent load from device memory, and the bytes in flight that take to
  /// reach the read bandwidth.
  std::optional<double> memoryLatency() const { return fact("memory-latency"); }
  std::optional<double> bytesInFlight() const { return fact("bytes-in-flight"); }
  /// Seconds: the host's issue of one launch; an empty launch and its sync; recording an
  /// event; what ordering after another stream adds; an empty launch beside a kernel that holds
  /// the device.
  std::optional<double> launchCost() const { return fact("launch-cost"); }
  std::optional<double> launchRoundTrip() const { return fact("launch-round-trip"); }
  std::optional<double> eventCost() const { return fact("event-cost"); }
  std::optional<double> interQueueCost() const { return fact("inter-queue-cost"); }
  std::optional<double> schedulingDelay() const { return fact("scheduling-delay"); }
  /// Workgroups of 256 work-items resident at once (the occupancy probe).
  std::optional<double> residentWorkgroups() const { return fact("resident-workgroups"); }
  /// FLOP per byte read above which a kernel is compute-bound on this device.
  std::optional<double> ridge() const { return fact("ridge"); }

  /// Where the record came from ("measured now, stored in the user cache ...").
  std::string source() const { return cajeta_xpu_calibration_source(C); }
  /// The record as a store holds it: JSON with its key and checksum.
  std::string recordText() const { return cajeta_xpu_calibration_text(C); }
  double measuringSeconds() const { return cajeta_xpu_calibration_measuring_seconds(C); }

private:
  explicit DeviceCalibration(const cajeta_xpu_calibration* C) : C(C) {}
  static void progressTrampoline(void* User, double Fraction, const char* Step) {
    (*static_cast<const Progress*>(User))(Fraction, Step);
  }
  static DeviceCalibration get(cajeta_xpu_device* D, bool Anew, const Progress& P) {
    const cajeta_xpu_calibration* Out = nullptr;
    detail::check(cajeta_xpu_device_calibration(D, Anew ? 1 : 0, P ? &progressTrampoline : nullptr,
                                                const_cast<Progress*>(&P), &Out));
    return DeviceCalibration(Out);
  }
  std::string text(const char* (*Get)(const cajeta_xpu_calibration*, const char*),
                   const std::string& Name) const {
    const char* T = Get(C, Name.c_str());
    return T ? T : "";
  }

  const cajeta_xpu_calibration* C;
};

/// Where calibration records go between processes (Scheduler::calibrationStore). Each member
/// may throw: the runtime then reports the store once and disables it for the process.
class CalibrationStore {
public:
  virtual ~CalibrationStore() = default;
  /// The text stored under Digest, or nullopt.
  virtual std::optional<std::string> load(const std::string& Digest) = 0;
  virtual void store(const std::string& Digest, const std::string& Text) = 0;
  virtual bool writable() = 0;
};

namespace detail {

/// A CalibrationStore behind the C callbacks.
struct CalibrationStoreAdapter {
  std::shared_ptr<CalibrationStore> Store;
  std::string LastError;

  template <class Fn> static int guard(void* User, Fn&& Body) {
    auto* A = static_cast<CalibrationStoreAdapter*>(User);
    try {
      return Body(*A->Store);
    } catch (const std::exception& E) {
      A->LastError = E.what();
    } catch (...) {
      A->LastError = "an exception that is not a std::exception";
    }
    return -1;
  }
  static cajeta_xpu_calibration_store make(std::shared_ptr<CalibrationStore> S) {
    cajeta_xpu_calibration_store C{};
    C.user = new CalibrationStoreAdapter{std::move(S), {}};
    C.load = [](void* U, const char* Digest, char** Text) {
      return guard(U, [&](CalibrationStore& S) {
        std::optional<std::string> T = S.load(Digest);
        if (!T)
          return 1;
        *Text = static_cast<char*>(std::malloc(T->size() + 1));
        if (!*Text)
          return -1;
        std::memcpy(*Text, T->c_str(), T->size() + 1);
        return 0;
      });
    };
    C.store = [](void* U, const char* Digest, const char* Text) {
      return guard(U, [&](CalibrationStore& S) {
        S.store(Digest, Text);
        return 0;
      });
    };
    C.writable = [](void* U) {
      return guard(U, [](CalibrationStore& S) { return S.writable() ? 1 : 0; });
    };
    C.last_error = [](void* U) {
      return static_cast<CalibrationStoreAdapter*>(U)->LastError.c_str();
    };
    C.release = [](void* U) { delete static_cast<CalibrationStoreAdapter*>(U); };
    return C;
  }
};

} // namespace detail
} // namespace cajeta::xpu
