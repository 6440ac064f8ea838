// Compiles a program's host part (a host KIR module) for the machine it runs on with LLVM's
// ORC JIT, and runs its entry point. The host support ABI (cajeta/xpu/cajeta_host.h) is not
// linked here: the caller, which has the runtime, passes each function's address.
#pragma once

#include "compiler/kir/Kir.h"

#include <memory>
#include <string>
#include <vector>

namespace llvm::orc {
class LLJIT;
} // namespace llvm::orc

namespace cajeta::lowering {

/// A function the host code calls, by name.
struct HostSymbol {
  std::string Name;
  void* Address = nullptr;
};

class HostJit {
public:
  HostJit();
  ~HostJit();

  /// Lowers KM (kir::Module::IsHost), optimises it and adds it to a JIT whose undefined symbols
  /// resolve to Runtime (and libm). False with Error set.
  bool compile(const kir::Module& KM, const std::vector<HostSymbol>& Runtime, std::string& Error);

  /// The code address of host method Symbol (kir::Function::Symbol); null with Error set.
  void* lookup(const std::string& Symbol, std::string& Error);

  /// The optimised LLVM IR of the last compile (`cajeta emit --target=host`).
  const std::string& llvmIr() const { return Ir; }

private:
  // The context's diagnostic handler appends here; the JIT generates code lazily (at lookup), so
  // this outlives the context the JIT owns (members are destroyed in reverse order).
  std::string LlvmErrors;
  std::unique_ptr<llvm::orc::LLJIT> Jit;
  std::string Ir;
};

} // namespace cajeta::lowering
