// libdevice linking: a lazily read bitcode module, LinkOnlyNeeded, __nvvm_reflect folded here.
#include "compiler/lowering/llvm/NvptxLibdevice.h"

#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/GlobalVariable.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Module.h>
#include <llvm/Linker/Linker.h>
#include <llvm/Support/MemoryBuffer.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <mutex>

namespace cajeta::lowering {
namespace {

/// The bytes of each libdevice file read so far (read once, shared by every build).
bool readOnce(const std::string& Path, llvm::MemoryBufferRef& Ref, std::string& Error) {
  static std::mutex Lock;
  static std::map<std::string, std::unique_ptr<llvm::MemoryBuffer>> Files;
  std::lock_guard<std::mutex> G(Lock);
  auto It = Files.find(Path);
  if (It == Files.end()) {
    auto Buf = llvm::MemoryBuffer::getFile(Path);
    if (!Buf) {
      Error = "cannot read libdevice '" + Path + "': " + Buf.getError().message();
      return false;
    }
    It = Files.emplace(Path, std::move(*Buf)).first;
  }
  Ref = It->second->getMemBufferRef();
  return true;
}

/// The string a __nvvm_reflect call asks about ("__CUDA_FTZ"), or empty.
std::string reflectName(llvm::CallInst* Call) {
  if (Call->arg_size() != 1)
    return {};
  auto* G = llvm::dyn_cast<llvm::GlobalVariable>(Call->getArgOperand(0)->stripPointerCasts());
  if (!G || !G->hasInitializer())
    return {};
  auto* Data = llvm::dyn_cast<llvm::ConstantDataSequential>(G->getInitializer());
  if (!Data || !Data->isCString())
    return {};
  return Data->getAsCString().str();
}

int reflectValue(const std::string& Name, unsigned SmVersion) {
  if (Name == "__CUDA_ARCH")
    return int(SmVersion * 10);
  if (Name == "__CUDA_PREC_DIV" || Name == "__CUDA_PREC_SQRT")
    return 1;
  return 0; // __CUDA_FTZ and anything unknown: no flush-to-zero, the precise path
}

void resolveReflect(llvm::Module& M, unsigned SmVersion) {
  for (const char* Name : {"__nvvm_reflect", "llvm.nvvm.reflect"}) {
    llvm::Function* F = M.getFunction(Name);
    if (!F)
      continue;
    std::vector<llvm::CallInst*> Calls;
    for (llvm::User* U : F->users())
      if (auto* Call = llvm::dyn_cast<llvm::CallInst>(U))
        Calls.push_back(Call);
    for (llvm::CallInst* Call : Calls) {
      int V = reflectValue(reflectName(Call), SmVersion);
      Call->replaceAllUsesWith(llvm::ConstantInt::get(Call->getType(), V));
      Call->eraseFromParent();
    }
    if (F->use_empty())
      F->eraseFromParent();
  }
}

} // namespace

std::string NvptxLibdevice::findPath() {
  if (const char* Env = std::getenv("CAJETA_LIBDEVICE"))
    return std::filesystem::is_regular_file(Env) ? std::string(Env) : std::string();
  std::vector<std::string> Candidates;
  if (const char* Cuda = std::getenv("CUDA_HOME"))
    Candidates.push_back(std::string(Cuda) + "/nvvm/libdevice/libdevice.10.bc");
  Candidates.push_back("/usr/local/cuda/nvvm/libdevice/libdevice.10.bc");
  std::error_code EC;
  for (const std::string& C : Candidates)
    if (std::filesystem::is_regular_file(C, EC))
      return C;
  return {};
}

bool NvptxLibdevice::isNeeded(const llvm::Module& M) {
  for (const llvm::Function& F : M)
    if (F.isDeclaration() && F.getName().starts_with("__nv_"))
      return true;
  return false;
}

bool NvptxLibdevice::link(llvm::Module& M, const std::string& Path, unsigned SmVersion,
                          std::string& Error) {
  llvm::MemoryBufferRef Ref;
  if (!readOnce(Path, Ref, Error))
    return false;
  llvm::Expected<std::unique_ptr<llvm::Module>> Lib =
      llvm::getLazyBitcodeModule(Ref, M.getContext());
  if (!Lib) {
    Error = "libdevice '" + Path + "' is not valid bitcode: " + llvm::toString(Lib.takeError());
    return false;
  }
  (*Lib)->setTargetTriple(M.getTargetTriple());
  (*Lib)->setDataLayout(M.getDataLayout());
  // Names defined here before linking stay as they are; the rest came from libdevice.
  std::vector<std::string> Ours;
  for (const llvm::GlobalValue& G : M.global_values())
    if (!G.isDeclaration())
      Ours.push_back(G.getName().str());
  if (llvm::Linker::linkModules(M, std::move(*Lib), llvm::Linker::Flags::LinkOnlyNeeded)) {
    Error = "linking libdevice '" + Path + "' failed";
    return false;
  }
  auto IsOurs = [&](const llvm::GlobalValue& G) {
    return std::find(Ours.begin(), Ours.end(), G.getName().str()) != Ours.end();
  };
  for (llvm::Function& F : M)
    if (!F.isDeclaration() && !IsOurs(F))
      F.setLinkage(llvm::GlobalValue::InternalLinkage);
  for (llvm::GlobalVariable& G : M.globals())
    if (!G.isDeclaration() && !IsOurs(G))
      G.setLinkage(llvm::GlobalValue::InternalLinkage);
  resolveReflect(M, SmVersion);
  for (const llvm::Function& F : M)
    if (F.isDeclaration() && !F.use_empty() && F.getName().starts_with("__nv_")) {
      Error = "libdevice '" + Path + "' does not define '" + F.getName().str() + "'";
      return false;
    }
  return true;
}

} // namespace cajeta::lowering
