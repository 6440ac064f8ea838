#include "runtime/calibration/CalibrationStore.h"

#include "runtime/CacheDirectory.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <sys/stat.h>
#include <unistd.h>

namespace cajeta::xpu::rt {

UserCacheCalibrationStore::UserCacheCalibrationStore() {
  std::string Cache = jitCacheDirectory();
  if (!Cache.empty())
    Dir = Cache + "/calibration";
}

std::optional<std::string> UserCacheCalibrationStore::load(const std::string& Digest) {
  if (Dir.empty())
    return std::nullopt;
  std::ifstream In(Dir + "/" + Digest + ".json", std::ios::binary);
  if (!In)
    return std::nullopt;
  std::ostringstream Text;
  Text << In.rdbuf();
  return Text.str();
}

bool UserCacheCalibrationStore::writable() {
  if (Dir.empty())
    return false;
  std::string Cache = ensureJitCacheDirectory(Problem);
  if (Cache.empty())
    return false;
  if (::mkdir(Dir.c_str(), 0700) != 0 && errno != EEXIST) {
    Problem = "cannot create '" + Dir + "': " + std::strerror(errno);
    return false;
  }
  return ::access(Dir.c_str(), W_OK | X_OK) == 0;
}

void UserCacheCalibrationStore::store(const std::string& Digest, const std::string& Text) {
  if (!writable())
    throw std::runtime_error(Problem.empty() ? describe() + " is not writable" : Problem);
  // A whole file or none: written beside, then renamed over the old one.
  std::string Path = Dir + "/" + Digest + ".json";
  std::string Temp = Path + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream Out(Temp, std::ios::binary | std::ios::trunc);
    Out << Text;
    Out.flush();
    if (!Out) {
      std::remove(Temp.c_str());
      throw std::runtime_error("cannot write '" + Temp + "'");
    }
  }
  std::error_code Ec;
  std::filesystem::rename(Temp, Path, Ec);
  if (Ec) {
    std::remove(Temp.c_str());
    throw std::runtime_error("cannot replace '" + Path + "': " + Ec.message());
  }
}

std::string UserCacheCalibrationStore::describe() const {
  return Dir.empty() ? std::string("the user cache (neither XDG_CACHE_HOME nor HOME is set)")
                     : "the user cache " + Dir;
}

} // namespace cajeta::xpu::rt
