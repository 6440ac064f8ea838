#include "runtime/calibration/CalibrationSet.h"

#include "runtime/Backend.h"
#include "runtime/Kernel.h"
#include "runtime/LoadedProgram.h"
#include "runtime/RuntimeError.h"
#include "runtime/calibration/CalibrationKernels.h"
#include "runtime/scheduler/Submission.h"

#include <fmt/format.h>

#include <chrono>
#include <cstdio>

namespace cajeta::xpu::rt {

CalibrationSet::CalibrationSet() : Store(std::make_unique<UserCacheCalibrationStore>()) {}

CalibrationSet& CalibrationSet::get() {
  static CalibrationSet* Set = new CalibrationSet(); // never destroyed: handles stay valid
  return *Set;
}

namespace {

std::string deviceString(BackendDevice& Device) {
  return fmt::format("{} '{}' {}", Device.backendName(), Device.name(), Device.identity());
}

} // namespace

CalibrationKey CalibrationSet::deviceKey(BackendDevice& Device, const std::string& MadeBy) {
  return {"device", deviceString(Device), Device.driverVersion(),
          MadeBy + ", " + DeviceProbe::Version, Device.powerMode()};
}

CalibrationKey CalibrationSet::kernelKey(const Kernel& K) {
  BackendDevice& Device = K.program().device();
  uint64_t Hash = K.manifest() ? K.manifest()->CodeHash : 0;
  return {fmt::format("kernel {:016x}", Hash), deviceString(Device), Device.driverVersion(),
          K.program().description().CompilerVersion, Device.powerMode()};
}

const CalibrationEntry* CalibrationSet::builtIn(const CalibrationKey& Key) const {
  auto It = BuiltIn.find(Key.digest());
  return It != BuiltIn.end() && It->second->Record.Key == Key ? It->second : nullptr;
}

void CalibrationSet::addBuiltIn(const std::vector<std::string>& Texts, const std::string& Origin) {
  std::lock_guard<std::mutex> Lock(Mutex);
  for (const std::string& Text : Texts) {
    std::string Why;
    std::optional<CalibrationRecord> R = CalibrationRecord::parse(Text, Why);
    if (!R)
      continue; // the compiler checked them; a bundle's checksums guard the rest
    std::string Digest = R->Key.digest();
    if (!BuiltIn.count(Digest))
      BuiltIn[Digest] = &keep(std::move(*R), "built into " + Origin);
  }
}

const CalibrationEntry* CalibrationSet::kernelRecord(const Kernel& K) {
  CalibrationKey Key = kernelKey(K);
  std::lock_guard<std::mutex> Lock(Mutex);
  Served = true;
  if (const CalibrationEntry* E = builtIn(Key))
    return E;
  std::string Digest = Key.digest();
  if (auto It = Kernels.find(Digest); It != Kernels.end())
    return It->second;
  std::string Why;
  std::optional<std::string> Text;
  guardStore("load a record", [&] { Text = Store->load(Digest); });
  const CalibrationEntry* Found = nullptr;
  if (Text)
    if (std::optional<CalibrationRecord> R = CalibrationRecord::parse(*Text, Why);
        R && R->Key == Key)
      Found = &keep(std::move(*R), Store->describe());
  Kernels[Digest] = Found;
  return Found;
}

template <class Fn> bool CalibrationSet::guardStore(const char* What, Fn&& Op) {
  if (!Store || StoreDisabled)
    return false;
  try {
    Op();
    return true;
  } catch (const std::exception& E) {
    StoreDisabled = true;
    std::fprintf(stderr,
                 "cajeta: warning: the calibration store (%s) failed to %s: %s; it is disabled "
                 "for this process and calibration records stay in memory\n",
                 Store->describe().c_str(), What, E.what());
  } catch (...) {
    StoreDisabled = true;
    std::fprintf(stderr,
                 "cajeta: warning: the calibration store (%s) failed to %s; it is disabled for "
                 "this process and calibration records stay in memory\n",
                 Store->describe().c_str(), What);
  }
  return false;
}

const CalibrationEntry& CalibrationSet::keep(CalibrationRecord Record, std::string Source) {
  auto E = std::make_unique<CalibrationEntry>();
  E->Text = Record.serialize();
  E->Record = std::move(Record);
  E->Source = std::move(Source);
  Kept.push_back(std::move(E));
  return *Kept.back();
}

const CalibrationEntry& CalibrationSet::measureLocked(BackendDevice& Device,
                                                      const CalibrationKey& Key,
                                                      std::shared_ptr<LoadedProgram> Kernels,
                                                      const DeviceProbe::Progress& Progress,
                                                      std::string Why) {
  double T0 = double(monotonicNowNs()) * 1e-9;
  CalibrationRecord R;
  R.Key = Key;
  R.Facts = DeviceProbe(Device, std::move(Kernels), Progress).run();
  R.MeasuringSeconds = double(monotonicNowNs()) * 1e-9 - T0;
  R.MeasuredAtUnixSeconds = uint64_t(std::chrono::duration_cast<std::chrono::seconds>(
                                         std::chrono::system_clock::now().time_since_epoch())
                                         .count());
  std::string Source = "measured now" + Why;
  std::string Text = R.serialize();
  bool Writable = false;
  guardStore("say whether it is writable", [&] { Writable = Store->writable(); });
  if (Writable && guardStore("store a record", [&] { Store->store(Key.digest(), Text); }))
    Source += fmt::format(", stored in {}", Store->describe());
  else if (Store && !StoreDisabled)
    Source += fmt::format(", kept in memory ({} is read-only)", Store->describe());
  const CalibrationEntry& E = keep(std::move(R), std::move(Source));
  ByDevice[&Device] = &E;
  Generation.fetch_add(1, std::memory_order_release);
  return E;
}

const CalibrationEntry* CalibrationSet::fromStore(BackendDevice& Device, const CalibrationKey& Key,
                                                  std::string& Why) {
  std::optional<std::string> Text;
  guardStore("load a record", [&] { Text = Store->load(Key.digest()); });
  if (!Text)
    return nullptr;
  std::string Problem;
  std::optional<CalibrationRecord> R = CalibrationRecord::parse(*Text, Problem);
  if (R && R->Key == Key) {
    const CalibrationEntry& E = keep(std::move(*R), Store->describe());
    ByDevice[&Device] = &E;
    Generation.fetch_add(1, std::memory_order_release);
    return &E;
  }
  Why = fmt::format(" (the record in {} was ignored: {})", Store->describe(),
                    R ? "it is for another key" : Problem);
  return nullptr;
}

const CalibrationEntry& CalibrationSet::current(BackendDevice& Device,
                                                const DeviceProbe::Progress& Progress) {
  std::lock_guard<std::mutex> Lock(Mutex);
  Served = true;
  if (auto It = ByDevice.find(&Device); It != ByDevice.end())
    return *It->second;
  CalibrationKernels K = CalibrationKernels::load(Device);
  CalibrationKey Key = deviceKey(Device, K.MadeBy);
  if (const CalibrationEntry* E = builtIn(Key)) {
    ByDevice[&Device] = E;
    Generation.fetch_add(1, std::memory_order_release);
    return *E;
  }
  std::string Why;
  if (const CalibrationEntry* E = fromStore(Device, Key, Why))
    return *E;
  return measureLocked(Device, Key, K.Program, Progress, Why);
}

const CalibrationEntry* CalibrationSet::known(BackendDevice& Device) {
  std::lock_guard<std::mutex> Lock(Mutex);
  return knownLocked(Device);
}

const CalibrationEntry* CalibrationSet::knownWithoutWaiting(BackendDevice& Device, bool& Busy) {
  std::unique_lock<std::mutex> Lock(Mutex, std::try_to_lock);
  Busy = !Lock.owns_lock();
  return Busy ? nullptr : knownLocked(Device);
}

const CalibrationEntry* CalibrationSet::knownLocked(BackendDevice& Device) {
  if (auto It = ByDevice.find(&Device); It != ByDevice.end())
    return It->second;
  if (LookedUp[&Device])
    return nullptr;
  LookedUp[&Device] = true;
  Served = true;
  try {
    // The key only: compiling the measuring kernels would stall the submit that asked.
    CalibrationKey Key = deviceKey(Device, CalibrationKernels::madeBy());
    if (const CalibrationEntry* E = builtIn(Key)) {
      ByDevice[&Device] = E;
      Generation.fetch_add(1, std::memory_order_release);
      return E;
    }
    std::string Why;
    return fromStore(Device, Key, Why);
  } catch (const RuntimeError&) {
    return nullptr; // no calibration kernels: nothing can have been measured with them here
  }
}

const CalibrationEntry& CalibrationSet::measure(BackendDevice& Device,
                                                const DeviceProbe::Progress& Progress) {
  std::lock_guard<std::mutex> Lock(Mutex);
  Served = true;
  CalibrationKernels K = CalibrationKernels::load(Device);
  return measureLocked(Device, deviceKey(Device, K.MadeBy), K.Program, Progress, "");
}

const CalibrationEntry* CalibrationSet::inMemory(const BackendDevice& Device) {
  std::lock_guard<std::mutex> Lock(Mutex);
  auto It = ByDevice.find(&Device);
  return It == ByDevice.end() ? nullptr : It->second;
}

void CalibrationSet::setStore(std::unique_ptr<CalibrationStore> NewStore) {
  std::lock_guard<std::mutex> Lock(Mutex);
  if (Served)
    fail(CAJETA_XPU_ERROR, "the calibration store can be replaced only before the first "
                           "calibration record is read");
  Store = std::move(NewStore);
  StoreDisabled = false;
}

bool CalibrationSet::storeWritable() {
  std::lock_guard<std::mutex> Lock(Mutex);
  bool Writable = false;
  guardStore("say whether it is writable", [&] { Writable = Store->writable(); });
  return Writable;
}

std::string CalibrationSet::describeStore() {
  std::lock_guard<std::mutex> Lock(Mutex);
  if (!Store)
    return "none (records stay in memory)";
  return Store->describe() + (StoreDisabled ? " (disabled after a failure)" : "");
}

} // namespace cajeta::xpu::rt
