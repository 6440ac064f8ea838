// Locating the compiler library: environment override, the runtime's own directory, dlopen.
#include "runtime/CompilerLibrary.h"

#include "runtime/LibraryDirectory.h"
#include "runtime/RuntimeError.h"

#include <cstdlib>
#include <dlfcn.h>
#include <fmt/format.h>

namespace cajeta::xpu::rt {

static const char* LibName = "libcajeta_compiler.so";

static std::string besideThisLibrary() {
  std::string Dir = libraryDirectory();
  return Dir.empty() ? "" : Dir + LibName;
}

static void* tryOpen(const std::string& Path, std::string& Tried) {
  // Handles stay open for the life of the process: compiled code does not depend on them, but
  // the cost of reloading LLVM on every compile would.
  void* H = ::dlopen(Path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (H)
    return H;
  const char* Why = ::dlerror();
  // dlerror's text starts with the path it tried.
  Tried += "\n  " + (Why ? std::string(Why) : Path + ": cannot be loaded");
  return nullptr;
}

CompilerLibrary CompilerLibrary::open() {
  std::string Tried;
  void* Handle = nullptr;
  std::string Path;
  const char* Env = std::getenv("CAJETA_COMPILER_LIB");
  if (Env && *Env) {
    Path = Env;
    Handle = tryOpen(Path, Tried);
  } else {
    Path = besideThisLibrary();
    if (!Path.empty())
      Handle = tryOpen(Path, Tried);
    if (!Handle) {
      Path = LibName;
      Handle = tryOpen(Path, Tried);
    }
  }
  if (!Handle)
    fail(CAJETA_XPU_ERROR,
         fmt::format("JIT compilation needs the Cajeta compiler library ({}), which could not "
                     "be loaded:{}\nSet CAJETA_COMPILER_LIB to its path, or compile ahead of "
                     "time with `cajeta build file.cj -o file.cjx` and load the bundle with "
                     "Program::load (cajeta_xpu_program_load_file), which needs no compiler.",
                     LibName, Tried));
  CompilerLibrary L;
  L.Path = Path;
  L.Compile = reinterpret_cast<decltype(Compile)>(::dlsym(Handle, "cajeta_compile_to_bundle"));
  L.Free = reinterpret_cast<decltype(Free)>(::dlsym(Handle, "cajeta_compiler_free"));
  L.Version = reinterpret_cast<decltype(Version)>(::dlsym(Handle, "cajeta_compiler_version"));
  if (!L.Compile || !L.Free || !L.Version)
    fail(CAJETA_XPU_ERROR, fmt::format("{} is not a Cajeta compiler library: it lacks "
                                       "cajeta_compile_to_bundle, cajeta_compiler_free or "
                                       "cajeta_compiler_version",
                                       Path));
  return L;
}

} // namespace cajeta::xpu::rt
