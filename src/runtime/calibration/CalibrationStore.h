// Where calibration records live between processes. The runtime holds records in memory; they
// leave it, and come back, only through a store.
#pragma once

#include "runtime/calibration/CalibrationRecord.h"

#include <optional>
#include <string>

namespace cajeta::xpu::rt {

class CalibrationStore {
public:
  virtual ~CalibrationStore() = default;
  /// The text stored under Digest (CalibrationKey::digest), or nullopt when there is none.
  /// Throws on a failure of the store itself.
  virtual std::optional<std::string> load(const std::string& Digest) = 0;
  /// Stores Text under Digest, replacing what was there. Throws on failure.
  virtual void store(const std::string& Digest, const std::string& Text) = 0;
  /// Whether store() can succeed; a read-only store only serves.
  virtual bool writable() = 0;
  /// For messages: "the user cache /home/me/.cache/cajeta/calibration".
  virtual std::string describe() const = 0;
};

/// The default store's writable part: $XDG_CACHE_HOME/cajeta/calibration, else
/// $HOME/.cache/cajeta/calibration; never /tmp. Read-only when neither variable names a
/// directory or it cannot be made.
class UserCacheCalibrationStore : public CalibrationStore {
public:
  UserCacheCalibrationStore();
  std::optional<std::string> load(const std::string& Digest) override;
  void store(const std::string& Digest, const std::string& Text) override;
  bool writable() override;
  std::string describe() const override;

private:
  std::string Dir;     // "" when there is none
  std::string Problem; // why there is none, when the environment named one
};

} // namespace cajeta::xpu::rt
