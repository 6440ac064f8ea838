// The C ABI of calibration: a device's record and its facts, and the store records go through.
#include "cajeta/xpu/cajeta_xpu.h"

#include "runtime/Dispatcher.h"
#include "runtime/Handles.h"
#include "runtime/Kernel.h"
#include "runtime/LastError.h"
#include "runtime/calibration/CalibrationSet.h"

#include <fmt/format.h>

#include <cstdlib>
#include <stdexcept>

using namespace cajeta::xpu::rt;

namespace {

const CalibrationEntry* entryOf(const cajeta_xpu_calibration* C) {
  return reinterpret_cast<const CalibrationEntry*>(C);
}

const CalibrationFact* factOf(const cajeta_xpu_calibration* C, const char* Name) {
  return C && Name ? entryOf(C)->Record.fact(Name) : nullptr;
}

/// A store made of a C caller's callbacks.
class CallbackStore : public CalibrationStore {
public:
  explicit CallbackStore(const cajeta_xpu_calibration_store& S) : S(S) {}
  ~CallbackStore() override {
    if (S.release)
      S.release(S.user);
  }
  std::optional<std::string> load(const std::string& Digest) override {
    if (!S.load)
      return std::nullopt;
    char* Text = nullptr;
    int R = S.load(S.user, Digest.c_str(), &Text);
    if (R < 0)
      throw std::runtime_error(why("load"));
    if (R > 0 || !Text)
      return std::nullopt;
    std::string Out(Text);
    std::free(Text);
    return Out;
  }
  void store(const std::string& Digest, const std::string& Text) override {
    if (!S.store || S.store(S.user, Digest.c_str(), Text.c_str()) < 0)
      throw std::runtime_error(why("store"));
  }
  bool writable() override {
    if (!S.writable || !S.store)
      return false;
    int R = S.writable(S.user);
    if (R < 0)
      throw std::runtime_error(why("writable"));
    return R > 0;
  }
  std::string describe() const override { return "the program's calibration store"; }

private:
  std::string why(const char* Callback) const {
    const char* Text = S.last_error ? S.last_error(S.user) : nullptr;
    return fmt::format("its {} callback failed{}{}", Callback, Text ? ": " : "", Text ? Text : "");
  }
  cajeta_xpu_calibration_store S;
};

void progressTo(cajeta_xpu_progress_fn Fn, void* User, double Fraction, const std::string& Step) {
  if (Fn)
    Fn(User, Fraction, Step.c_str());
}

} // namespace

extern "C" {

int cajeta_xpu_device_calibration(cajeta_xpu_device* D, int MeasureAnew,
                                  cajeta_xpu_progress_fn Progress, void* User,
                                  const cajeta_xpu_calibration** Out) {
  return guarded([&] {
    if (!Out)
      fail(CAJETA_XPU_ERROR, "cajeta_xpu_device_calibration: out must not be null");
    BackendDevice& Device = D ? *fromHandle(D) : Dispatcher::defaultDevice();
    DeviceProbe::Progress P;
    if (Progress)
      P = [=](double F, const std::string& Step) { progressTo(Progress, User, F, Step); };
    CalibrationSet& Set = CalibrationSet::get();
    const CalibrationEntry& E = MeasureAnew ? Set.measure(Device, P) : Set.current(Device, P);
    *Out = reinterpret_cast<const cajeta_xpu_calibration*>(&E);
  });
}

int cajeta_xpu_kernel_calibration(cajeta_xpu_kernel* K, const cajeta_xpu_calibration** Out) {
  return guarded([&] {
    if (!K || !Out)
      fail(CAJETA_XPU_ERROR, "cajeta_xpu_kernel_calibration: kernel and out must not be null");
    const Kernel& Kern = *fromHandle(K);
    const CalibrationEntry* E = CalibrationSet::get().kernelRecord(Kern);
    if (!E)
      fail(CAJETA_XPU_NOT_FOUND,
           fmt::format("{} has no calibration record on {} device '{}' (cajeta calibrate "
                       "<program> measures its launches)",
                       Kern.name(), Kern.program().device().backendName(),
                       Kern.program().device().name()));
    *Out = reinterpret_cast<const cajeta_xpu_calibration*>(E);
  });
}

size_t cajeta_xpu_calibration_fact_count(const cajeta_xpu_calibration* C) {
  return C ? entryOf(C)->Record.Facts.size() : 0;
}

const char* cajeta_xpu_calibration_fact_name(const cajeta_xpu_calibration* C, size_t Index) {
  if (!C || Index >= entryOf(C)->Record.Facts.size())
    return nullptr;
  return entryOf(C)->Record.Facts[Index].Name.c_str();
}

int cajeta_xpu_calibration_fact(const cajeta_xpu_calibration* C, const char* Name, double* Value) {
  return guarded([&] {
    if (!C || !Name || !Value)
      fail(CAJETA_XPU_ERROR, "cajeta_xpu_calibration_fact: calibration, name and value must "
                             "not be null");
    const CalibrationFact* F = factOf(C, Name);
    if (!F)
      fail(CAJETA_XPU_NOT_FOUND, fmt::format("no calibration fact is called '{}'", Name));
    if (!F->Value)
      fail(CAJETA_XPU_NOT_FOUND, fmt::format("{} is absent: {}", Name, F->Absent));
    *Value = *F->Value;
  });
}

const char* cajeta_xpu_calibration_fact_unit(const cajeta_xpu_calibration* C, const char* Name) {
  const CalibrationFact* F = factOf(C, Name);
  return F ? F->Unit.c_str() : nullptr;
}

const char* cajeta_xpu_calibration_fact_absent(const cajeta_xpu_calibration* C, const char* Name) {
  const CalibrationFact* F = factOf(C, Name);
  return F ? F->Absent.c_str() : nullptr;
}

const char* cajeta_xpu_calibration_fact_note(const cajeta_xpu_calibration* C, const char* Name) {
  const CalibrationFact* F = factOf(C, Name);
  return F ? F->Note.c_str() : nullptr;
}

const char* cajeta_xpu_calibration_source(const cajeta_xpu_calibration* C) {
  return C ? entryOf(C)->Source.c_str() : nullptr;
}

const char* cajeta_xpu_calibration_text(const cajeta_xpu_calibration* C) {
  return C ? entryOf(C)->Text.c_str() : nullptr;
}

double cajeta_xpu_calibration_measuring_seconds(const cajeta_xpu_calibration* C) {
  return C ? entryOf(C)->Record.MeasuringSeconds : 0.0;
}

int cajeta_xpu_scheduler_set_calibration_store(const cajeta_xpu_calibration_store* S) {
  return guarded(
      [&] { CalibrationSet::get().setStore(S ? std::make_unique<CallbackStore>(*S) : nullptr); });
}

int cajeta_xpu_calibration_store_writable(void) {
  return CalibrationSet::get().storeWritable() ? 1 : 0;
}

} // extern "C"
