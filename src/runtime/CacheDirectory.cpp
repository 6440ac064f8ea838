// JIT cache directory choice from the environment, following the XDG base directory rules.
#include "runtime/CacheDirectory.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <sys/stat.h>
#include <system_error>
#include <unistd.h>

namespace cajeta::xpu::rt {

static bool absolute(const char* Path) {
  return Path && Path[0] == '/';
}

std::string jitCacheDirectory() {
  // XDG: a relative XDG_CACHE_HOME is invalid and ignored.
  const char* Xdg = std::getenv("XDG_CACHE_HOME");
  if (absolute(Xdg))
    return std::string(Xdg) + "/cajeta";
  const char* Home = std::getenv("HOME");
  if (absolute(Home))
    return std::string(Home) + "/.cache/cajeta";
  return "";
}

std::string ensureJitCacheDirectory(std::string& Problem) {
  std::string Dir = jitCacheDirectory();
  if (Dir.empty())
    return "";
  // The parents with the user's defaults, the cache itself owner-only: its entries are code.
  std::error_code Ec;
  std::filesystem::create_directories(std::filesystem::path(Dir).parent_path(), Ec);
  if (!Ec && ::mkdir(Dir.c_str(), 0700) != 0 && errno != EEXIST)
    Ec = std::error_code(errno, std::generic_category());
  if (Ec) {
    Problem = "cannot create '" + Dir + "': " + Ec.message();
    return "";
  }
  if (!std::filesystem::is_directory(Dir, Ec)) {
    Problem = "'" + Dir + "' is not a directory";
    return "";
  }
  return Dir;
}

bool userPrivateDirectory(const std::string& Dir, std::string& Why) {
  struct stat St;
  if (::stat(Dir.c_str(), &St) != 0) {
    Why = "not examinable: " + std::string(std::strerror(errno));
    return false;
  }
  char Mode[8];
  std::snprintf(Mode, sizeof(Mode), "%04o", unsigned(St.st_mode & 07777));
  if (St.st_uid != ::geteuid())
    Why = "owned by user id " + std::to_string(St.st_uid) + ", not by this user";
  else if (St.st_mode & S_IWOTH)
    Why = std::string("writable by other users (mode ") + Mode + ")";
  else if (St.st_mode & S_IWGRP)
    Why = std::string("writable by its group (mode ") + Mode + ")";
  else
    return true;
  return false;
}

} // namespace cajeta::xpu::rt
