// The process's calibration set: records held in memory per device, read from and written to
// one CalibrationStore. A device is measured at most once per process unless asked anew.
#pragma once

#include "runtime/calibration/CalibrationRecord.h"
#include "runtime/calibration/CalibrationStore.h"
#include "runtime/calibration/DeviceProbe.h"

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace cajeta::xpu::rt {

class BackendDevice;
class Kernel;

/// A record as the set holds it: never freed, so handles to it stay valid.
struct CalibrationEntry {
  CalibrationRecord Record;
  std::string Source; // "measured now", "the user cache /home/me/.cache/cajeta/calibration"
  std::string Text;   // the record as a store holds it
};

class CalibrationSet {
public:
  static CalibrationSet& get();

  /// The device's record: in memory, else the store's when its key is the live one and its
  /// checksum holds, else measured now (and stored where the store is writable).
  const CalibrationEntry& current(BackendDevice& Device, const DeviceProbe::Progress& Progress);
  /// Measures the device anew, replacing its record in memory and in the store.
  const CalibrationEntry& measure(BackendDevice& Device, const DeviceProbe::Progress& Progress);
  /// The record in memory, or nullptr: never measures and never reads the store.
  const CalibrationEntry* inMemory(const BackendDevice& Device);
  /// The record in memory, else the store's (looked for once per device and process), or
  /// nullptr: never measures. Loads the calibration kernels the first time (their key part).
  const CalibrationEntry* known(BackendDevice& Device);
  /// known(), unless another thread is measuring or loading a record: then Busy is set and
  /// nullptr returned at once (a launch must not wait seconds for a measurement).
  const CalibrationEntry* knownWithoutWaiting(BackendDevice& Device, bool& Busy);

  /// A kernel's record on its program's device (its solo measurements: `cajeta calibrate
  /// <program>`): built into a loaded bundle, else in the store; nullptr when there is none.
  const CalibrationEntry* kernelRecord(const Kernel& K);
  /// Records built into a bundle (its manifest's "calibration"), served before the store's and
  /// only where their key is the live one. Origin names the bundle in their source.
  void addBuiltIn(const std::vector<std::string>& Texts, const std::string& Origin);

  /// The key of a device's record, and of a kernel's on its program's device.
  static CalibrationKey deviceKey(BackendDevice& Device, const std::string& MadeBy);
  static CalibrationKey kernelKey(const Kernel& K);

  /// Changes whenever a device's record in memory does (a measurement, a record loaded or
  /// served): what has read one can tell, without a lock, that it may be stale.
  static uint64_t generation() { return get().Generation.load(std::memory_order_acquire); }

  /// Replaces the store (nullptr: none, records stay in memory). Throws RuntimeError once a
  /// record has been read: records already served came from the old one.
  void setStore(std::unique_ptr<CalibrationStore> Store);
  /// Whether the store can keep records ("read-only" otherwise).
  bool storeWritable();
  std::string describeStore();

private:
  CalibrationSet();
  std::atomic<uint64_t> Generation{0};
  const CalibrationEntry* knownLocked(BackendDevice& Device);
  const CalibrationEntry& keep(CalibrationRecord Record, std::string Source);
  const CalibrationEntry& measureLocked(BackendDevice& Device, const CalibrationKey& Key,
                                        std::shared_ptr<class LoadedProgram> Kernels,
                                        const DeviceProbe::Progress& Progress, std::string Why);
  /// A built-in record of Key, or nullptr.
  const CalibrationEntry* builtIn(const CalibrationKey& Key) const;
  /// The store's record under Key when it is whole and of Key; otherwise nullptr, with Why
  /// saying what was ignored (for the source of a record measured instead).
  const CalibrationEntry* fromStore(BackendDevice& Device, const CalibrationKey& Key,
                                    std::string& Why);
  /// Runs a store operation; a store that throws is reported once and disabled.
  template <class Fn> bool guardStore(const char* What, Fn&& Op);

  std::mutex Mutex;
  std::unique_ptr<CalibrationStore> Store;
  bool StoreDisabled = false;
  bool Served = false; // a record has been read: the store can no longer be replaced
  std::map<const BackendDevice*, const CalibrationEntry*> ByDevice;
  std::map<const BackendDevice*, bool> LookedUp;          // known() asked the store already
  std::map<std::string, const CalibrationEntry*> BuiltIn; // by key digest
  std::map<std::string, const CalibrationEntry*> Kernels; // by key digest; null: none found
  std::vector<std::unique_ptr<CalibrationEntry>> Kept;
};

} // namespace cajeta::xpu::rt
