// A counted loop emitted straight into LLVM IR, for the target leaves that expand into loops of
// their own (the CPU tile tier's products).
#pragma once

#include <llvm/IR/IRBuilder.h>

#include <string>

namespace cajeta::lowering {

/// for (Iv = 0; Iv < Trip; Iv += Step) { ... }: a loop whose body the caller emits between the
/// constructor and end(); Trip > 0.
class CountedLoop {
public:
  CountedLoop(llvm::IRBuilder<>& B, const char* Name, uint64_t Trip, uint64_t Step = 1)
      : B(B), Trip(Trip), Step(Step) {
    llvm::Function* F = B.GetInsertBlock()->getParent();
    llvm::BasicBlock* Pre = B.GetInsertBlock();
    Body = llvm::BasicBlock::Create(B.getContext(), Name, F);
    B.CreateBr(Body);
    B.SetInsertPoint(Body);
    Iv = B.CreatePHI(B.getInt64Ty(), 2, std::string(Name) + ".i");
    Iv->addIncoming(B.getInt64(0), Pre);
  }
  llvm::PHINode* iv() const { return Iv; }
  llvm::BasicBlock* body() const { return Body; }
  /// Closes the loop at the current block; afterwards B inserts after it.
  void end() {
    llvm::Value* Next = B.CreateAdd(Iv, B.getInt64(Step), "", /*HasNUW=*/true);
    Iv->addIncoming(Next, B.GetInsertBlock());
    llvm::BasicBlock* Exit =
        llvm::BasicBlock::Create(B.getContext(), Body->getName() + ".end", Body->getParent());
    B.CreateCondBr(B.CreateICmpULT(Next, B.getInt64(Trip)), Body, Exit);
    B.SetInsertPoint(Exit);
  }

private:
  llvm::IRBuilder<>& B;
  uint64_t Trip, Step;
  llvm::BasicBlock* Body = nullptr;
  llvm::PHINode* Iv = nullptr;
};

} // namespace cajeta::lowering
