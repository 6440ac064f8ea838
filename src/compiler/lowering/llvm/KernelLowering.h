// The one shared KIR -> LLVM body walk: every Expr/Stmt kind of Kir.h, for every backend, with
// the backend-specific leaves delegated to a LoweringTarget.
#pragma once

#include "compiler/kir/Kir.h"
#include "compiler/lowering/LoweringTarget.h"

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>

#include <map>
#include <string>
#include <vector>

namespace cajeta::lowering {

struct LoweringOptions {
  bool CheckBounds = false; // every Load/Store checks index < length and reports a failure
};

class KernelLowering {
public:
  KernelLowering(const kir::Module& KM, llvm::Module& LM, LoweringTarget& T,
                 const LoweringOptions& O);

  /// Lowers every function of KM into LM: helpers as internal always-inline functions, kernels
  /// through LoweringTarget::emitKernel. Returns false with Error set on malformed KIR.
  bool lowerModule(std::string& Error);

  /// The entry function made for the kernel KM.Functions[I] (null for helpers).
  llvm::Function* kernelEntry(size_t I) const { return I < Entries.size() ? Entries[I] : nullptr; }

  /// The LLVM type of a KIR scalar as a value (bool = i1) and in memory (bool = i8).
  static llvm::Type* valueType(llvm::LLVMContext& C, kir::Type T);
  static llvm::Type* memoryType(llvm::LLVMContext& C, kir::Type T);

private:
  struct LoopTargets {
    llvm::BasicBlock* Continue = nullptr;
    llvm::BasicBlock* Break = nullptr;
  };
  /// The state of the function being lowered.
  struct FunctionState {
    const kir::Function* KF = nullptr;
    llvm::Function* F = nullptr;
    std::vector<ArgValue> Args;
    std::vector<llvm::AllocaInst*> Locals;
    WorkItemContext WorkItem;
    std::map<uint32_t, LoopTargets> Loops;
    llvm::BasicBlock* ReturnBlock = nullptr; // kernels: end of this work-item
    llvm::BasicBlock* FailBlock = nullptr;   // --check-bounds failure exit
  };

  void declareHelper(size_t I);
  void lowerHelperBody(size_t I);
  void lowerKernel(size_t I);
  void emitBody(FunctionState& FS);
  void createLocals(FunctionState& FS);

  void lowerStmt(const kir::Stmt* S);
  void lowerLoop(const kir::Stmt* S);
  llvm::Value* lowerExpr(const kir::Expr* E);
  llvm::Value* lowerUnary(const kir::Expr* E);
  llvm::Value* lowerBinary(const kir::Expr* E);
  llvm::Value* lowerIntDivRem(const kir::Expr* E, llvm::Value* L, llvm::Value* R);
  llvm::Value* lowerShift(const kir::Expr* E, llvm::Value* L, llvm::Value* R);
  llvm::Value* lowerCompare(const kir::Expr* E, llvm::Value* L, llvm::Value* R);
  llvm::Value* lowerLogical(const kir::Expr* E);
  llvm::Value* lowerCast(const kir::Expr* E);
  llvm::Value* lowerSelect(const kir::Expr* E);
  llvm::Value* lowerLoad(const kir::Expr* E);
  llvm::Value* lowerStore(const kir::Expr* E);
  llvm::Value* lowerCall(const kir::Expr* E);
  llvm::Value* lowerIntrinsic(const kir::Expr* E);

  /// The buffer an expression names (a buffer Param), or null after reporting an error.
  const BufferValue* bufferOf(const kir::Expr* E);
  /// The element address for Buf[Index] (Index any KIR integer), with the --check-bounds test.
  llvm::Value* elementAddress(const BufferValue& Buf, const kir::Expr* IndexExpr, kir::Type ElemTy);
  /// Continues emission in a fresh block after a terminator (the code there is unreachable).
  void startDeadBlock();
  /// Terminates the current block with a branch to To unless it is already terminated.
  void branchTo(llvm::BasicBlock* To);
  llvm::BasicBlock* newBlock(const char* Name);

  /// Records the first error and returns a placeholder value of type Ty (poison).
  llvm::Value* fail(const kir::Expr* E, const std::string& Message);
  void failStmt(const kir::Stmt* S, const std::string& Message);
  bool checkOps(const kir::Expr* E, size_t N);
  llvm::Value* poisonOf(kir::Type T);

  const kir::Module& KM;
  llvm::Module& LM;
  llvm::LLVMContext& Ctx;
  LoweringTarget& Target;
  LoweringOptions Opts;
  llvm::IRBuilder<> B;
  std::vector<llvm::Function*> Helpers; // index: KM.Functions
  std::vector<llvm::Function*> Entries; // index: KM.Functions
  FunctionState* Cur = nullptr;
  std::string Error;
};

} // namespace cajeta::lowering
