#include "runtime/BuiltinKernels.h"

#include "bundle/BundleReader.h"
#include "runtime/CompilerLibrary.h"
#include "runtime/JitCompiler.h"
#include "runtime/LibraryDirectory.h"
#include "runtime/LoadedProgram.h"
#include "runtime/RuntimeError.h"

#include <fmt/format.h>

#include <fstream>
#include <iterator>
#include <vector>

namespace cajeta::xpu::rt {

namespace {

constexpr const char* JitSuffix = ", compiled for this device";

std::string bundlePath(const BuiltinKernels& K) {
  std::string Dir = libraryDirectory();
  return Dir.empty() ? "" : Dir + K.BundleName;
}

std::vector<char> readBundle(const BuiltinKernels& K, const std::string& Path,
                             const std::string& JitProblem) {
  std::ifstream In(Path, std::ios::binary);
  if (Path.empty() || !In)
    fail(CAJETA_XPU_NOT_FOUND,
         fmt::format("{} are not available: the JIT cannot compile them ({}), and there is no {} "
                     "beside libcajeta_xpu.so",
                     K.What, JitProblem, Path.empty() ? K.BundleName : Path));
  return std::vector<char>((std::istreambuf_iterator<char>(In)), std::istreambuf_iterator<char>());
}

} // namespace

std::string BuiltinKernels::madeBy() const {
  std::string JitProblem;
  try {
    return std::string(CompilerLibrary::open().Version()) + JitSuffix;
  } catch (const RuntimeError& E) {
    JitProblem = E.what();
  }
  std::string Path = bundlePath(*this);
  std::vector<char> Bytes = readBundle(*this, Path, JitProblem);
  bundle::BundleReadResult R =
      bundle::BundleReader::read(reinterpret_cast<const uint8_t*>(Bytes.data()), Bytes.size());
  if (!R.Ok)
    fail(CAJETA_XPU_BUNDLE_ERROR, fmt::format("{}: {}", Path, R.Error));
  return R.Value.CompilerVersion + ", " + BundleName;
}

BuiltinKernels::Loaded BuiltinKernels::load(BackendDevice& Device) const {
  std::string JitProblem;
  try {
    CompilerLibrary Compiler = CompilerLibrary::open(); // throws, saying why, where there is none
    JitOptions O;
    O.Device = &Device;
    Loaded K;
    K.Program = JitCompiler::compile(Source, FileName, O);
    K.MadeBy = std::string(Compiler.Version()) + JitSuffix;
    return K;
  } catch (const RuntimeError& E) {
    JitProblem = E.what();
  }
  std::string Path = bundlePath(*this);
  std::vector<char> Bytes = readBundle(*this, Path, JitProblem);
  Loaded K;
  // Installed with the runtime library itself, so trusted as it is.
  K.Program = LoadedProgram::fromMemory(Bytes.data(), Bytes.size(), Path, &Device,
                                        /*Verify=*/false);
  K.MadeBy = K.Program->description().CompilerVersion + ", " + BundleName;
  return K;
}

} // namespace cajeta::xpu::rt
