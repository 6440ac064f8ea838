// The host part's JIT (HostJit.h).
#include "compiler/lowering/llvm/HostJit.h"

#include "compiler/lowering/llvm/HostModuleBuilder.h"
#include "compiler/lowering/llvm/LlvmPipeline.h"

#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include <mutex>

namespace cajeta::lowering {

namespace {

void initializeNativeOnce() {
  static std::once_flag Once;
  std::call_once(Once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    llvm::InitializeNativeTargetAsmParser();
  });
}

std::string message(llvm::Error E) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  OS << E;
  return OS.str();
}

} // namespace

HostJit::HostJit() = default;
HostJit::~HostJit() = default;

bool HostJit::compile(const kir::Module& KM, const std::vector<HostSymbol>& Runtime,
                      std::string& Error) {
  initializeNativeOnce();
  auto JTMB = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!JTMB) {
    Error = "cannot target this machine: " + message(JTMB.takeError());
    return false;
  }
  JTMB->getOptions().AllowFPOpFusion = llvm::FPOpFusion::Strict; // as in kernels: no contraction
  auto TM = JTMB->createTargetMachine();
  if (!TM) {
    Error = "cannot target this machine: " + message(TM.takeError());
    return false;
  }
  auto Ctx = std::make_unique<llvm::LLVMContext>();
  LlvmErrors.clear();
  Ctx->setDiagnosticHandler(LlvmPipeline::quietDiagnostics(LlvmErrors));
  std::unique_ptr<llvm::Module> M = HostModuleBuilder(**TM).build(KM, *Ctx, Error);
  if (!M)
    return false;
  Ir.clear();
  llvm::raw_string_ostream IrOS(Ir);
  M->print(IrOS, nullptr);

  auto J = llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(std::move(*JTMB)).create();
  if (!J) {
    Error = "cannot start the JIT: " + message(J.takeError());
    return false;
  }
  Jit = std::move(*J);
  llvm::orc::JITDylib& Main = Jit->getMainJITDylib();
  llvm::orc::SymbolMap Symbols;
  for (const HostSymbol& S : Runtime)
    Symbols[Jit->mangleAndIntern(S.Name)] = {llvm::orc::ExecutorAddr::fromPtr(S.Address),
                                             llvm::JITSymbolFlags::Exported};
  if (auto E = Main.define(llvm::orc::absoluteSymbols(std::move(Symbols)))) {
    Error = "cannot define the host support functions: " + message(std::move(E));
    return false;
  }
  // libm and libc (what LLVM turns math into) from the process.
  auto Process = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
      Jit->getDataLayout().getGlobalPrefix());
  if (!Process) {
    Error = "cannot search the process's symbols: " + message(Process.takeError());
    return false;
  }
  Main.addGenerator(std::move(*Process));
  if (auto E = Jit->addIRModule(llvm::orc::ThreadSafeModule(std::move(M), std::move(Ctx)))) {
    Error = "cannot add the host code to the JIT: " + message(std::move(E));
    return false;
  }
  return true;
}

void* HostJit::lookup(const std::string& Symbol, std::string& Error) {
  if (!Jit) {
    Error = "nothing compiled";
    return nullptr;
  }
  auto Addr = Jit->lookup(Symbol);
  if (!Addr) {
    Error = "cannot compile '" + Symbol + "': " + message(Addr.takeError());
    return nullptr;
  }
  return Addr->toPtr<void*>();
}

} // namespace cajeta::lowering
