// cajeta_host_run_program (cajeta_host.h): a bundle's host payload loaded from memory and run,
// with no compiler. The payload's attributes (the compiler's Compiler.cpp, addHostPayload) name
// its entry points: "methods" ("Class.method=symbol,..."), "returns_int" (those returning int32),
// "entry" (the default's symbol, or empty), "static_init" and "source_file".
#include "cajeta/xpu/cajeta_host.h"

#include "runtime/Handles.h"
#include "runtime/LastError.h"
#include "runtime/SharedObject.h"
#include "runtime/backends/cpu/CpuFeatures.h"
#include "runtime/host/HostSession.h"

#include <dlfcn.h>
#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

using namespace cajeta;
using namespace cajeta::xpu::rt;

namespace {

constexpr const char* What = "host payload";

struct HostMethod {
  std::string Name;   // "Class.method"
  std::string Symbol; // its function in the shared object
  bool ReturnsInt = false;
};

std::string attribute(const bundle::Payload& P, const char* Key) {
  auto It = P.Attributes.find(Key);
  return It == P.Attributes.end() ? std::string() : It->second;
}

std::vector<HostMethod> methodsOf(const bundle::Payload& P) {
  std::vector<std::string> Ints = bundle::splitAttributeList(attribute(P, "returns_int"));
  std::vector<HostMethod> Methods;
  for (const std::string& Item : bundle::splitAttributeList(attribute(P, "methods"))) {
    size_t Eq = Item.find('=');
    if (Eq == 0 || Eq == std::string::npos || Eq + 1 == Item.size())
      fail(CAJETA_XPU_BUNDLE_ERROR,
           fmt::format("{}: attribute 'methods': '{}' is not Class.method=symbol", What, Item));
    HostMethod M;
    M.Name = Item.substr(0, Eq);
    M.Symbol = Item.substr(Eq + 1);
    M.ReturnsInt = std::find(Ints.begin(), Ints.end(), M.Name) != Ints.end();
    Methods.push_back(std::move(M));
  }
  return Methods;
}

std::string names(const std::vector<HostMethod>& Methods) {
  std::string List;
  for (const HostMethod& M : Methods)
    List += (List.empty() ? "" : ", ") + M.Name;
  return List.empty() ? "none" : List;
}

/// The entry point: Wanted by name, else the payload's default.
HostMethod pickEntry(const bundle::Payload& P, const char* Wanted) {
  std::vector<HostMethod> Methods = methodsOf(P);
  if (Wanted && *Wanted) {
    for (const HostMethod& M : Methods)
      if (M.Name == Wanted)
        return M;
    fail(CAJETA_XPU_NOT_FOUND,
         fmt::format("no runnable host method '{}' in the bundle (an entry point is a static "
                     "method without parameters returning void or int32; the bundle's: {})",
                     Wanted, names(Methods)));
  }
  std::string Default = attribute(P, "entry");
  if (Default.empty()) {
    if (Methods.empty())
      fail(CAJETA_XPU_ERROR,
           "the bundle's host code has no method that can be an entry point (a static method "
           "without parameters returning void or int32)");
    fail(CAJETA_XPU_ERROR,
         fmt::format("the bundle's host code has no default entry point (no main, and not exactly "
                     "one parameterless static method): name one of {} (`cajeta run --main "
                     "Class.method`)",
                     names(Methods)));
  }
  for (const HostMethod& M : Methods)
    if (M.Symbol == Default)
      return M;
  fail(CAJETA_XPU_BUNDLE_ERROR, fmt::format("{}: its entry '{}' is none of its methods ({})", What,
                                            Default, names(Methods)));
}

/// The host payload's calls of the host ABI bind, as it is loaded, to the libcajeta_xpu.so of
/// this process, found in the global scope: where the library itself was dlopened with
/// RTLD_LOCAL (a Python or plug-in host), it is made global first.
void makeRuntimeGlobal() {
  static std::once_flag Once;
  std::call_once(Once, [] {
    Dl_info Info{};
    if (::dladdr(reinterpret_cast<void*>(&cajeta_host_run_program), &Info) && Info.dli_fname)
      (void)::dlopen(Info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_GLOBAL); // kept: never closed
  });
}

/// What a run needs, loaded and checked before the session begins.
struct PreparedRun {
  std::unique_ptr<SharedObject> Code;
  void* Entry = nullptr;
  bool ReturnsInt = false;
  void* StaticInit = nullptr;
  std::string File;
};

PreparedRun prepare(cajeta_xpu_program* Program, const char* Entry, const char* File) {
  if (!Program || !Program->Impl)
    fail(CAJETA_XPU_ERROR, "cajeta_host_run_program: program must not be null");
  const bundle::Program& Desc = Program->Impl->description();
  const bundle::Payload* P = Desc.findPayload("host");
  if (!P)
    fail(CAJETA_XPU_BUNDLE_ERROR,
         "the bundle has no host code: it was built from a file without host methods, or by "
         "the JIT");
  if (P->Format != "elf-shared-object")
    fail(CAJETA_XPU_BUNDLE_ERROR,
         fmt::format("{}: target '{}' has format '{}', expected 'elf-shared-object'", What,
                     P->Target, P->Format));
  requireCpuFeatures(attribute(*P, "features"), What);
  HostMethod Picked = pickEntry(*P, Entry);
  makeRuntimeGlobal();
  PreparedRun R;
  R.Code = SharedObject::load(P->Bytes.data(), P->Bytes.size(), What, P->Target);
  auto Lookup = [&](const std::string& Symbol, const std::string& Of) {
    void* Address = R.Code->symbol(Symbol);
    if (!Address)
      fail(CAJETA_XPU_BUNDLE_ERROR,
           fmt::format("{}: symbol '{}' ({}) is missing from the shared object", What, Symbol, Of));
    return Address;
  };
  R.Entry = Lookup(Picked.Symbol, Picked.Name);
  R.ReturnsInt = Picked.ReturnsInt;
  if (std::string Init = attribute(*P, "static_init"); !Init.empty())
    R.StaticInit = Lookup(Init, "the static initialiser");
  R.File = File && *File ? File : attribute(*P, "source_file");
  return R;
}

} // namespace

extern "C" int cajeta_host_run_program(cajeta_xpu_program* Program, const char* Entry,
                                       const char* File, int32_t* Status) {
  PreparedRun Run;
  int Rc = guarded([&] {
    if (!Status)
      fail(CAJETA_XPU_ERROR, "cajeta_host_run_program: status must not be null");
    Run = prepare(Program, Entry, File);
    HostSession::get().begin(Run.File.c_str(), Program);
  });
  if (Rc != CAJETA_XPU_SUCCESS)
    return Rc;
  // The static fields first (they may allocate: inside the session); an exception there leaves
  // the entry point unrun, as a failed class initialisation does in Java.
  if (Run.StaticInit)
    reinterpret_cast<void (*)()>(Run.StaticInit)();
  int32_t Result = 0;
  if (!Run.StaticInit || !cajeta_host_pending()) {
    if (Run.ReturnsInt)
      Result = reinterpret_cast<int32_t (*)()>(Run.Entry)();
    else
      reinterpret_cast<void (*)()>(Run.Entry)();
  }
  // An uncaught exception (or a failure of unsynced work) that the end reports makes it 1.
  *Status = cajeta_host_end() != 0 ? 1 : Result;
  return CAJETA_XPU_SUCCESS; // Run.Code is unloaded now, after the session that used it
}
