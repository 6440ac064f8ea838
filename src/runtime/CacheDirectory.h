// Where the JIT cache lives: $XDG_CACHE_HOME/cajeta, else $HOME/.cache/cajeta; never /tmp.
#pragma once

#include <string>

namespace cajeta::xpu::rt {

/// The cache directory the environment names now, or "" when neither variable gives an absolute
/// path. Does not touch the file system.
std::string jitCacheDirectory();

/// jitCacheDirectory(), created if missing (its last component owner-only, mode 0700: its
/// entries are code this process loads as its own); "" when there is none or it cannot be
/// created (then Problem says why; it stays empty when the environment names no directory).
std::string ensureJitCacheDirectory(std::string& Problem);

/// Whether only this user can put files into \p Dir: owned by the effective user and writable
/// by neither group nor others. False with \p Why ("writable by its group (mode 0775)")
/// otherwise.
bool userPrivateDirectory(const std::string& Dir, std::string& Why);

} // namespace cajeta::xpu::rt
