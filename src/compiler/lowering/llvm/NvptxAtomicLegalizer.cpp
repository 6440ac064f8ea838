// Ordered atomics and fences -> monotonic atomics bracketed by PTX fences (inline asm).
#include "compiler/lowering/llvm/NvptxAtomicLegalizer.h"

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/InlineAsm.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Module.h>

#include <vector>

namespace cajeta::lowering {
namespace {

using llvm::AtomicOrdering;

constexpr unsigned SharedAS = 3;

bool isBlockScope(llvm::LLVMContext& C, llvm::SyncScope::ID Id) {
  if (Id == llvm::SyncScope::System)
    return false;
  if (Id == llvm::SyncScope::SingleThread)
    return true;
  llvm::SmallVector<llvm::StringRef, 8> Names;
  C.getSyncScopeNames(Names);
  if (Id >= Names.size())
    return false;
  return Names[Id] == "block" || Names[Id] == "workgroup" || Names[Id] == "cta";
}

void emitFence(llvm::IRBuilder<>& B, bool SeqCst, bool Cta) {
  std::string Text =
      std::string(SeqCst ? "fence.sc." : "fence.acq_rel.") + (Cta ? "cta" : "gpu") + ";";
  auto* T = llvm::FunctionType::get(B.getVoidTy(), false);
  B.CreateCall(T, llvm::InlineAsm::get(T, Text, "~{memory}", /*hasSideEffects=*/true));
}

bool isRelease(AtomicOrdering O) {
  return O == AtomicOrdering::Release || O == AtomicOrdering::AcquireRelease ||
         O == AtomicOrdering::SequentiallyConsistent;
}
bool isAcquire(AtomicOrdering O) {
  return O == AtomicOrdering::Acquire || O == AtomicOrdering::AcquireRelease ||
         O == AtomicOrdering::SequentiallyConsistent;
}

/// Brackets I with the fences of ordering O (scope from Ptr's address space and Scope).
void bracket(llvm::Instruction* I, AtomicOrdering O, llvm::Value* Ptr, llvm::SyncScope::ID Scope) {
  llvm::LLVMContext& C = I->getContext();
  bool Cta =
      (Ptr && Ptr->getType()->getPointerAddressSpace() == SharedAS) || isBlockScope(C, Scope);
  bool SeqCst = O == AtomicOrdering::SequentiallyConsistent;
  if (isRelease(O)) {
    llvm::IRBuilder<> B(I);
    emitFence(B, SeqCst, Cta);
  }
  if (isAcquire(O)) {
    llvm::IRBuilder<> B(I->getNextNode());
    emitFence(B, false, Cta);
  }
}

bool stronger(AtomicOrdering O) {
  return O != AtomicOrdering::NotAtomic && O != AtomicOrdering::Unordered &&
         O != AtomicOrdering::Monotonic;
}

} // namespace

void NvptxAtomicLegalizer::run(llvm::Module& M) {
  std::vector<llvm::Instruction*> Work;
  for (llvm::Function& F : M)
    for (llvm::BasicBlock& BB : F)
      for (llvm::Instruction& I : BB)
        if (I.isAtomic())
          Work.push_back(&I);
  for (llvm::Instruction* I : Work) {
    if (auto* L = llvm::dyn_cast<llvm::LoadInst>(I)) {
      if (!stronger(L->getOrdering()))
        continue;
      bracket(L, L->getOrdering(), L->getPointerOperand(), L->getSyncScopeID());
      L->setAtomic(AtomicOrdering::Monotonic, llvm::SyncScope::System);
    } else if (auto* S = llvm::dyn_cast<llvm::StoreInst>(I)) {
      if (!stronger(S->getOrdering()))
        continue;
      bracket(S, S->getOrdering(), S->getPointerOperand(), S->getSyncScopeID());
      S->setAtomic(AtomicOrdering::Monotonic, llvm::SyncScope::System);
    } else if (auto* R = llvm::dyn_cast<llvm::AtomicRMWInst>(I)) {
      if (stronger(R->getOrdering()))
        bracket(R, R->getOrdering(), R->getPointerOperand(), R->getSyncScopeID());
      R->setOrdering(AtomicOrdering::Monotonic);
      R->setSyncScopeID(llvm::SyncScope::System);
    } else if (auto* X = llvm::dyn_cast<llvm::AtomicCmpXchgInst>(I)) {
      if (stronger(X->getSuccessOrdering()))
        bracket(X, X->getSuccessOrdering(), X->getPointerOperand(), X->getSyncScopeID());
      X->setSuccessOrdering(AtomicOrdering::Monotonic);
      X->setFailureOrdering(AtomicOrdering::Monotonic);
      X->setSyncScopeID(llvm::SyncScope::System);
    } else if (auto* Fe = llvm::dyn_cast<llvm::FenceInst>(I)) {
      llvm::IRBuilder<> B(Fe);
      emitFence(B, Fe->getOrdering() == AtomicOrdering::SequentiallyConsistent,
                isBlockScope(Fe->getContext(), Fe->getSyncScopeID()));
      Fe->eraseFromParent();
    }
  }
}

} // namespace cajeta::lowering
