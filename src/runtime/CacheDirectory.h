// Where the JIT cache lives: $XDG_CACHE_HOME/cajeta, else $HOME/.cache/cajeta; never /tmp.
#pragma once

#include <string>

namespace cajeta::xpu::rt {

/// The cache directory the environment names now, or "" when neither variable gives an absolute
/// path. Does not touch the file system.
std::string jitCacheDirectory();

/// jitCacheDirectory(), created if missing; "" when there is none or it cannot be created (then
/// Problem says why; it stays empty when the environment names no directory).
std::string ensureJitCacheDirectory(std::string& Problem);

} // namespace cajeta::xpu::rt
