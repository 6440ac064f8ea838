// The C entry point of libcajeta_compiler (include/cajeta/compiler.h), used by the runtime's JIT.
#include "cajeta/compiler.h"

#include "bundle/BundleWriter.h"
#include "compiler/driver/Compiler.h"

#include <cstdlib>
#include <cstring>
#include <exception>

using namespace cajeta;

static char* copyString(const std::string& S) {
  char* P = static_cast<char*>(std::malloc(S.size() + 1));
  if (P)
    std::memcpy(P, S.c_str(), S.size() + 1);
  return P;
}

extern "C" int cajeta_compile_to_bundle(const cajeta_compile_request* Req, void** BundleBytes,
                                        size_t* BundleSize, char** Diagnostics) {
  if (BundleBytes)
    *BundleBytes = nullptr;
  if (BundleSize)
    *BundleSize = 0;
  if (Diagnostics)
    *Diagnostics = nullptr;
  if (!Req || !BundleBytes || !BundleSize || !Diagnostics)
    return 1;
  if (Req->abi_version != 1 && Req->abi_version != CAJETA_COMPILER_ABI_VERSION) {
    *Diagnostics = copyString("error: compiler ABI mismatch: runtime speaks version " +
                              std::to_string(Req->abi_version) + ", compiler speaks " +
                              std::to_string(CAJETA_COMPILER_ABI_VERSION) + "\n");
    return 1;
  }
  try {
    driver::CompileOptions O;
    O.HostPayload = false; // the JIT's programs have C++ (or C) host code: only kernels run
    O.CheckBounds = Req->check_bounds != 0;
    if (Req->cpu && *Req->cpu)
      O.Cpu = Req->cpu;
    if (Req->abi_version >= 2 && Req->gpu_archs) { // version 1 requests end before the field
      std::string List = Req->gpu_archs;
      for (size_t At = 0; At < List.size();) {
        size_t End = List.find(',', At);
        if (End == std::string::npos)
          End = List.size();
        if (End > At)
          O.GpuArchs.push_back(List.substr(At, End - At));
        At = End + 1;
      }
    }
    std::string Source(Req->source ? Req->source : "", Req->source ? Req->source_length : 0);
    driver::CompileResult R =
        driver::Compiler::compile(Req->file_name ? Req->file_name : "<source>", Source, O);
    if (!R.Diagnostics.empty())
      *Diagnostics = copyString(R.Diagnostics);
    if (!R.Ok)
      return 1;
    std::vector<uint8_t> Bytes = bundle::BundleWriter::write(R.Program);
    void* Out = std::malloc(Bytes.size());
    if (!Out)
      return 1;
    std::memcpy(Out, Bytes.data(), Bytes.size());
    *BundleBytes = Out;
    *BundleSize = Bytes.size();
    return 0;
  } catch (const std::exception& E) {
    std::free(*Diagnostics);
    *Diagnostics = copyString(std::string("error: internal compiler error: ") + E.what() + "\n");
    return 1;
  }
}

extern "C" void cajeta_compiler_free(void* P) {
  std::free(P);
}

extern "C" const char* cajeta_compiler_version(void) {
  return driver::Compiler::version();
}
