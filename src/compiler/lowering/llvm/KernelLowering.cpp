// The shared KIR -> LLVM body walk (see KernelLowering.h); semantics follow Kir.h's comments.
#include "compiler/lowering/llvm/KernelLowering.h"

#include "compiler/kir/transforms/GridStrideInterchange.h"
#include "compiler/kir/transforms/KirInliner.h"
#include "compiler/kir/transforms/PortableWave.h"

#include <llvm/IR/Intrinsics.h>

namespace cajeta::lowering {

using kir::BinaryOp;
using kir::Expr;
using kir::IntrinsicOp;
using kir::Stmt;
using kir::Type;
using kir::UnaryOp;

KernelLowering::KernelLowering(const kir::Module& KM, llvm::Module& LM, LoweringTarget& T,
                               const LoweringOptions& O)
    : KM(KM), LM(LM), Ctx(LM.getContext()), Target(T), Opts(O), B(LM.getContext()) {}

llvm::Type* KernelLowering::valueType(llvm::LLVMContext& C, Type T) {
  if (T.isVoid())
    return llvm::Type::getVoidTy(C);
  if (T.isBuffer() || T.isShared() || T.isPod())
    return llvm::PointerType::get(C, 0);
  switch (T.Elem) {
  case kir::ScalarType::Bool:
    return llvm::Type::getInt1Ty(C);
  case kir::ScalarType::F16:
    return llvm::Type::getHalfTy(C);
  case kir::ScalarType::F32:
    return llvm::Type::getFloatTy(C);
  case kir::ScalarType::F64:
    return llvm::Type::getDoubleTy(C);
  default:
    return llvm::Type::getIntNTy(C, T.bits());
  }
}

llvm::Type* KernelLowering::memoryType(llvm::LLVMContext& C, Type T) {
  if (T.isBool() || (T.isArray() && T.Elem == kir::ScalarType::Bool))
    return llvm::Type::getInt8Ty(C);
  if (T.isArray())
    return valueType(C, Type::scalar(T.Elem));
  return valueType(C, T);
}

kir::PipelineConfig KernelLowering::pipelineConfig(const LoweringTarget& T,
                                                   const LoweringOptions& O) {
  kir::PipelineConfig C;
  C.Backend = O.Backend;
  C.InlineBarrierHelpers = !T.hasNativeBarrier();
  C.WaveTier = portableWaves(T, O) ? ImplTier::Portable : ImplTier::Native;
  C.Wave = T.wavePrimitives();
  return C;
}

// ---------------------------------------------------------------------------------------------
// Functions

bool KernelLowering::lowerModule(std::string& Err) {
  Helpers.assign(KM.Functions.size(), nullptr);
  Entries.assign(KM.Functions.size(), nullptr);
  auto Wanted = [&](const kir::Function& F) {
    return Opts.Backend.empty() || kir::availableOn(F, Opts.Backend);
  };
  // Without a native barrier, helpers with barriers are always inlined into their kernels, and
  // so are helpers with wave ops in the portable wave tier.
  auto Declared = [&](const kir::Function& F) {
    return Wanted(F) && !F.IsKernel && (Target.hasNativeBarrier() || !F.HasBarrier) &&
           !(F.UsesWave && portableWaves());
  };
  for (size_t I = 0; I < KM.Functions.size(); ++I)
    if (Declared(*KM.Functions[I]))
      declareHelper(I);
  for (size_t I = 0; I < KM.Functions.size() && Error.empty(); ++I) {
    const kir::Function& F = *KM.Functions[I];
    if (F.IsKernel && Wanted(F))
      lowerKernel(I);
    else if (Declared(F))
      lowerHelperBody(I);
  }
  Err = Error;
  return Error.empty();
}

void KernelLowering::declareHelper(size_t I) {
  const kir::Function& KF = *KM.Functions[I];
  std::vector<llvm::Type*> Params = Target.helperHiddenParams(Ctx);
  for (const kir::Param& P : KF.Params) {
    if (P.Ty.isVoid()) {
      Error = "function '" + KF.Name + "': parameter '" + P.Name + "' has type void";
      return;
    }
    if (P.Ty.isShared()) {
      Error = "function '" + KF.Name + "': parameter '" + P.Name +
              "': shared arrays cannot be passed to helpers";
      return;
    }
    if (!P.Ty.isBuffer()) {
      Params.push_back(valueType(Ctx, P.Ty)); // a POD: a pointer to its bytes
      continue;
    }
    Params.push_back(llvm::PointerType::get(Ctx, Target.bufferAddressSpace()));
    Params.push_back(B.getInt64Ty());
    if (Opts.CheckBounds)
      Params.push_back(B.getInt32Ty());
  }
  if (!KF.ReturnType.isVoid() && !KF.ReturnType.isScalar()) {
    Error = "function '" + KF.Name + "': only a scalar can be returned";
    return;
  }
  auto* FT = llvm::FunctionType::get(valueType(Ctx, KF.ReturnType), Params, false);
  std::string Name = KF.Symbol.empty() ? "cj_helper_" + std::to_string(I) : KF.Symbol;
  auto* F = llvm::Function::Create(FT, llvm::GlobalValue::InternalLinkage, Name, LM);
  F->addFnAttr(llvm::Attribute::AlwaysInline);
  F->addFnAttr(llvm::Attribute::NoUnwind);
  Helpers[I] = F;
}

void KernelLowering::lowerHelperBody(size_t I) {
  const kir::Function& KF = *KM.Functions[I];
  llvm::Function* F = Helpers[I];
  if (!F)
    return;
  FunctionState FS;
  FS.KF = &KF;
  FS.F = F;
  llvm::BasicBlock* Entry = llvm::BasicBlock::Create(Ctx, "entry", F);
  B.SetInsertPoint(Entry);
  auto ArgIt = F->arg_begin();
  size_t Hidden = Target.helperHiddenParams(Ctx).size();
  for (size_t H = 0; H < Hidden; ++H)
    FS.WorkItem.Values.push_back(&*ArgIt++);
  for (const kir::Param& P : KF.Params) {
    ArgValue A;
    if (P.Ty.isBuffer()) {
      A.Buffer.Ptr = &*ArgIt++;
      A.Buffer.Length = &*ArgIt++;
      if (Opts.CheckBounds)
        A.Buffer.ParamIndex = &*ArgIt++;
    } else {
      A.Scalar = &*ArgIt++;
    }
    FS.Args.push_back(A);
  }
  if (Opts.CheckBounds) {
    // A failure inside a helper returns at once; the caller sees the launch's flag and leaves.
    FS.FailBlock = llvm::BasicBlock::Create(Ctx, "bounds.fail", F);
    llvm::IRBuilder<> FB(FS.FailBlock);
    if (KF.ReturnType.isVoid())
      FB.CreateRetVoid();
    else
      FB.CreateRet(llvm::Constant::getNullValue(F->getReturnType()));
  }
  Cur = &FS;
  emitBody(FS);
  if (!B.GetInsertBlock()->getTerminator()) {
    // Sema guarantees a return on every path of a non-void helper; falling off the end can only
    // be reached through dead code, where a zero keeps the IR well-formed.
    if (KF.ReturnType.isVoid())
      B.CreateRetVoid();
    else
      B.CreateRet(llvm::Constant::getNullValue(F->getReturnType()));
  }
  Cur = nullptr;
}

void KernelLowering::lowerKernel(size_t I) {
  const kir::Function& KF = *KM.Functions[I];
  if (!KF.ReturnType.isVoid()) {
    Error = "kernel '" + KF.Name + "' must return void";
    return;
  }
  // The pipeline (kir/transforms/Pipeline.h) has already inlined barrier helpers and, in the
  // portable tier, rewritten the wave ops: KM is the target's prepared module.
  const kir::Function* Lowered = &KF;
  bundle::TargetManifest& TMan = KernelManifests[KF.Name];
  for (const kir::SharedArray& SA : Lowered->SharedArrays) // the dynamic one is sized at launch
    TMan.StaticSharedBytes += SA.Count * bundle::scalarTypeSize(SA.Elem);
  if (KF.UsesWave)
    TMan.WaveTier = portableWaves() ? "portable" : "native";
  Entries[I] = emitEntry(KF, *Lowered);
  // CPU: a second entry with the grid-stride loop run a step at a time for the whole group; the
  // runtime takes it when the loop's count exceeds the launch's work-items.
  int CountParam = Opts.InterchangeGridStride && !Target.hasNativeBarrier() &&
                           kir::GridStrideInterchange::applies(*Lowered)
                       ? kir::GridStrideInterchange::countParam(*Lowered)
                       : -1;
  if (CountParam < 0 || !Error.empty())
    return;
  std::unique_ptr<kir::Function> Steps =
      kir::KirInliner::inlineBarrierCalls(KM, *Lowered, Scratch, Error); // a copy to rewrite
  if (!Steps)
    return;
  Steps->Symbol += "_steps";
  kir::GridStrideInterchange::rewrite(*Steps, Scratch);
  if (emitEntry(KF, *Steps)) {
    TMan.StepSymbol = Steps->Symbol;
    TMan.StepCountParam = CountParam;
  }
  Inlined.push_back(std::move(Steps));
}

llvm::Function* KernelLowering::emitEntry(const kir::Function& KF, const kir::Function& Lowered) {
  FunctionState FS;
  FS.KF = &Lowered;
  FS.Fission = Lowered.HasBarrier && !Target.hasNativeBarrier();
  std::string TargetError;
  auto Emit = [&](llvm::IRBuilder<>& TB, KernelFrame& Frame) {
    FS.F = TB.GetInsertBlock()->getParent();
    // A target may emit the body more than once (the CPU's 1D fast path and its loop nest):
    // each emission gets its own locals and shared-array views.
    FS.Locals.clear();
    FS.Shared.clear();
    FS.Args = Frame.Args;
    for (size_t P = 0; P < FS.Args.size(); ++P)
      if (!FS.Args[P].Buffer.ParamIndex)
        FS.Args[P].Buffer.ParamIndex = B.getInt32(P);
    FS.WorkItem = Frame.WorkItem;
    FS.ReturnBlock = Frame.ReturnBlock;
    FS.FailBlock = Frame.FailBlock;
    FS.GroupSize = Frame.GroupSize;
    FS.Group = Frame.WorkItem;
    B.SetInsertPoint(TB.GetInsertBlock(), TB.GetInsertPoint());
    Cur = &FS;
    if (FS.Fission && !FS.GroupSize)
      Error = "kernel '" + KF.Name + "': the target gave no workgroup size for barrier fission";
    else if (FS.Fission)
      emitFissionBody(FS);
    else
      emitBody(FS);
    if (!B.GetInsertBlock()->getTerminator())
      B.CreateBr(FS.ReturnBlock);
    Cur = nullptr;
    TB.SetInsertPoint(B.GetInsertBlock());
  };
  llvm::Function* F = Target.emitKernel(LM, Lowered, Emit, TargetError);
  if (!F && Error.empty())
    Error = "kernel '" + KF.Name + "': " + TargetError;
  return F;
}

void KernelLowering::createLocals(FunctionState& FS) {
  llvm::BasicBlock& Entry = FS.F->getEntryBlock();
  llvm::IRBuilder<> AB(&Entry, Entry.getFirstInsertionPt());
  for (const kir::Local& L : FS.KF->Locals) {
    if (!L.Ty.isScalar()) {
      FS.Locals.push_back(nullptr);
      Error = "function '" + FS.KF->Name + "': local '" + L.Name + "' must have a scalar type";
      continue;
    }
    FS.Locals.push_back(AB.CreateAlloca(valueType(Ctx, L.Ty), nullptr, L.Name));
  }
}

void KernelLowering::emitBody(FunctionState& FS) {
  if (!FS.Fission)
    createLocals(FS);
  if (FS.KF->IsKernel) {
    for (unsigned I = 0; I < FS.KF->SharedArrays.size(); ++I) {
      BufferValue SB = Target.sharedArray(B, FS.WorkItem, *FS.KF, I);
      if (!SB.Ptr || !SB.Length) {
        Error = "kernel '" + FS.KF->Name + "': the target has no shared memory for '" +
                FS.KF->SharedArrays[I].Name + "'";
        return;
      }
      if (!SB.ParamIndex)
        SB.ParamIndex = B.getInt32(0x80000000u | I);
      FS.Shared.push_back(SB);
    }
  } else if (!FS.KF->SharedArrays.empty()) {
    Error = "helper '" + FS.KF->Name + "' declares shared arrays (only kernels may)";
    return;
  }
  llvm::FastMathFlags FMF;
  if (FS.KF->FastMath)
    FMF.setAllowContract(true); // @FastMath: contraction only
  B.setFastMathFlags(FMF);
  if (!FS.KF->Body) {
    Error = "function '" + FS.KF->Name + "' has no body";
    return;
  }
  if (FS.Fission)
    lowerGroupStmt(FS.KF->Body);
  else
    lowerStmt(FS.KF->Body);
}

// ---------------------------------------------------------------------------------------------
// Helpers of the walk

llvm::BasicBlock* KernelLowering::newBlock(const char* Name) {
  return llvm::BasicBlock::Create(Ctx, Name, Cur->F);
}

void KernelLowering::branchTo(llvm::BasicBlock* To) {
  if (!B.GetInsertBlock()->getTerminator())
    B.CreateBr(To);
}

void KernelLowering::startDeadBlock() {
  B.SetInsertPoint(newBlock("dead"));
}

static std::string where(const kir::SourceLoc& L) {
  return std::to_string(L.Line) + ":" + std::to_string(L.Col);
}

llvm::Value* KernelLowering::poisonOf(Type T) {
  if (T.isVoid())
    return nullptr;
  return llvm::PoisonValue::get(valueType(Ctx, T));
}

llvm::Value* KernelLowering::fail(const Expr* E, const std::string& Message) {
  if (Error.empty())
    Error = "function '" + Cur->KF->Name + "' at " + (E ? where(E->Loc) : "?") +
            ": malformed KIR: " + Message;
  return E ? poisonOf(E->Ty) : nullptr;
}

void KernelLowering::failStmt(const Stmt* S, const std::string& Message) {
  if (Error.empty())
    Error = "function '" + Cur->KF->Name + "' at " + where(S->Loc) + ": malformed KIR: " + Message;
}

bool KernelLowering::checkOps(const Expr* E, size_t N) {
  if (E->Ops.size() != N) {
    fail(E, "expected " + std::to_string(N) + " operands, got " + std::to_string(E->Ops.size()));
    return false;
  }
  for (const Expr* Op : E->Ops)
    if (!Op) {
      fail(E, "null operand");
      return false;
    }
  return true;
}

// ---------------------------------------------------------------------------------------------
// Statements

void KernelLowering::lowerStmt(const Stmt* S) {
  if (!S || !Error.empty())
    return;
  switch (S->K) {
  case Stmt::Kind::Block:
    for (const Stmt* C : S->Body)
      lowerStmt(C);
    return;
  case Stmt::Kind::Eval:
    if (!S->E)
      return failStmt(S, "eval without an expression");
    lowerExpr(S->E);
    return;
  case Stmt::Kind::If: {
    if (!S->E || !S->Then)
      return failStmt(S, "if without a condition or a then-branch");
    if (!S->E->Ty.isBool())
      return failStmt(S, "if condition is not bool");
    llvm::Value* C = lowerExpr(S->E);
    llvm::BasicBlock* Then = newBlock("if.then");
    llvm::BasicBlock* Else = S->Else ? newBlock("if.else") : nullptr;
    llvm::BasicBlock* Merge = newBlock("if.end");
    B.CreateCondBr(C, Then, Else ? Else : Merge);
    B.SetInsertPoint(Then);
    lowerStmt(S->Then);
    branchTo(Merge);
    if (Else) {
      B.SetInsertPoint(Else);
      lowerStmt(S->Else);
      branchTo(Merge);
    }
    B.SetInsertPoint(Merge);
    return;
  }
  case Stmt::Kind::Loop:
    return lowerLoop(S);
  case Stmt::Kind::Break:
  case Stmt::Kind::Continue:
    return lowerJump(S);
  case Stmt::Kind::Return:
    return lowerReturn(S);
  case Stmt::Kind::Barrier:
    if (!Target.hasNativeBarrier())
      return failStmt(S, "barrier outside a kernel marked HasBarrier");
    Target.emitBarrier(B, Cur->WorkItem);
    return;
  }
  failStmt(S, "unknown statement kind");
}

void KernelLowering::lowerJump(const Stmt* S) {
  auto It = Cur->Loops.find(S->LoopId);
  if (It != Cur->Loops.end()) {
    B.CreateBr(S->K == Stmt::Kind::Break ? It->second.Break : It->second.Continue);
    startDeadBlock();
    return;
  }
  // Fission: a jump out of this region to a loop with barriers parks the work-item until that
  // loop's exit (break) or step (continue).
  auto G = Cur->GroupLoops.find(S->LoopId);
  if (!Cur->Fission || !Cur->NextItem || G == Cur->GroupLoops.end() || !Cur->Park)
    return failStmt(S, "break/continue outside loop " + std::to_string(S->LoopId));
  park(2 * G->second + (S->K == Stmt::Kind::Continue ? 1 : 0));
  B.CreateBr(Cur->NextItem);
  startDeadBlock();
}

void KernelLowering::lowerReturn(const Stmt* S) {
  {
    bool IsKernel = Cur->KF->IsKernel;
    if (IsKernel || Cur->KF->ReturnType.isVoid()) {
      if (S->E)
        return failStmt(S, "return with a value in a void function");
      if (IsKernel && Cur->Fission) {
        if (!Cur->Park || !Cur->NextItem)
          return failStmt(S, "return outside a work-item region");
        park(1); // this work-item is done; later regions skip it
        B.CreateBr(Cur->NextItem);
      } else if (IsKernel) {
        B.CreateBr(Cur->ReturnBlock); // ends this work-item only
      } else
        B.CreateRetVoid();
      startDeadBlock();
      return;
    }
    if (!S->E || S->E->Ty != Cur->KF->ReturnType)
      return failStmt(S, "return value missing or of the wrong type");
    llvm::Value* V = lowerExpr(S->E);
    if (!Error.empty())
      return;
    B.CreateRet(V);
    startDeadBlock();
  }
}

void KernelLowering::lowerLoop(const Stmt* S) {
  if (S->E && !S->E->Ty.isBool())
    return failStmt(S, "loop condition is not bool");
  if (Cur->Loops.count(S->LoopId))
    return failStmt(S, "loop id " + std::to_string(S->LoopId) + " is not unique");
  llvm::BasicBlock* Body = newBlock("loop.body");
  llvm::BasicBlock* Step = newBlock("loop.step");
  llvm::BasicBlock* Test = newBlock("loop.test");
  llvm::BasicBlock* Exit = newBlock("loop.exit");
  Cur->Loops[S->LoopId] = {Step, Exit};

  B.CreateBr(S->TestAtEnd ? Body : Test);
  B.SetInsertPoint(Body);
  lowerStmt(S->LoopBody);
  branchTo(Step);
  B.SetInsertPoint(Step);
  lowerStmt(S->Step);
  branchTo(Test);
  B.SetInsertPoint(Test);
  if (S->E)
    B.CreateCondBr(lowerExpr(S->E), Body, Exit);
  else
    B.CreateBr(Body);
  B.SetInsertPoint(Exit);
  Cur->Loops.erase(S->LoopId);
}

// ---------------------------------------------------------------------------------------------
// Expressions

llvm::Value* KernelLowering::lowerExpr(const Expr* E) {
  if (!E)
    return fail(nullptr, "null expression");
  if (!Error.empty())
    return poisonOf(E->Ty);
  switch (E->K) {
  case Expr::Kind::Const:
    if (!E->Ty.isScalar())
      return fail(E, "constant of non-scalar type");
    if (E->Ty.isFloat())
      return llvm::ConstantFP::get(valueType(Ctx, E->Ty), E->FloatValue);
    if (E->Ty.isBool())
      return B.getInt1(E->IntValue != 0);
    return llvm::ConstantInt::get(valueType(Ctx, E->Ty), E->IntValue);
  case Expr::Kind::Local: {
    if (E->Index >= Cur->Locals.size() || !Cur->Locals[E->Index])
      return fail(E, "no local " + std::to_string(E->Index));
    if (E->Ty != Cur->KF->Locals[E->Index].Ty)
      return fail(E, "local read with the wrong type");
    return B.CreateLoad(valueType(Ctx, E->Ty), localAddress(E->Index));
  }
  case Expr::Kind::Param:
    if (E->Index >= Cur->Args.size())
      return fail(E, "no parameter " + std::to_string(E->Index));
    if (!Cur->Args[E->Index].Scalar || !E->Ty.isScalar())
      return fail(E, "a buffer or POD parameter used as a value");
    if (E->Ty != Cur->KF->Params[E->Index].Ty)
      return fail(E, "parameter read with the wrong type");
    return Cur->Args[E->Index].Scalar;
  case Expr::Kind::Unary:
    return lowerUnary(E);
  case Expr::Kind::Binary:
    return lowerBinary(E);
  case Expr::Kind::Cast:
    return lowerCast(E);
  case Expr::Kind::Select:
    return lowerSelect(E);
  case Expr::Kind::Load:
    return lowerLoad(E);
  case Expr::Kind::Store:
    return lowerStore(E);
  case Expr::Kind::Assign: {
    if (!checkOps(E, 1))
      return poisonOf(E->Ty);
    if (E->Index >= Cur->Locals.size() || !Cur->Locals[E->Index])
      return fail(E, "no local " + std::to_string(E->Index));
    if (E->Ops[0]->Ty != Cur->KF->Locals[E->Index].Ty || E->Ty != E->Ops[0]->Ty)
      return fail(E, "assignment of the wrong type");
    llvm::Value* V = lowerExpr(E->Ops[0]);
    B.CreateStore(V, localAddress(E->Index));
    return V;
  }
  case Expr::Kind::Seq: {
    llvm::Value* Last = nullptr;
    for (const Expr* Op : E->Ops) {
      if (!Op)
        return fail(E, "null operand");
      Last = lowerExpr(Op);
    }
    if (E->Ops.empty() ? !E->Ty.isVoid() : E->Ty != E->Ops.back()->Ty)
      return fail(E, "sequence type differs from its last operand");
    return Last;
  }
  case Expr::Kind::Call:
    return lowerCall(E);
  case Expr::Kind::Intrinsic:
    return lowerIntrinsic(E);
  case Expr::Kind::SharedRef:
    return fail(E, "a shared array used as a value");
  case Expr::Kind::Atomic:
    return lowerAtomic(E);
  case Expr::Kind::Field:
    return lowerField(E);
  case Expr::Kind::Dispatch:
    return lowerDispatch(E);
  case Expr::Kind::Wave:
    return lowerWave(E);
  }
  return fail(E, "unknown expression kind");
}

llvm::Value* KernelLowering::lowerUnary(const Expr* E) {
  if (!checkOps(E, 1))
    return poisonOf(E->Ty);
  if (E->Ops[0]->Ty != E->Ty)
    return fail(E, "unary operand type differs from the result");
  llvm::Value* V = lowerExpr(E->Ops[0]);
  switch (E->UOp) {
  case UnaryOp::Neg:
    if (E->Ty.isFloat())
      return B.CreateFNeg(V);
    if (E->Ty.isInteger())
      return B.CreateNeg(V); // wraps: no nsw
    break;
  case UnaryOp::Not:
    if (E->Ty.isBool())
      return B.CreateNot(V);
    break;
  case UnaryOp::BitNot:
    if (E->Ty.isInteger())
      return B.CreateNot(V);
    break;
  }
  return fail(E, std::string("'") + kir::unaryOpName(E->UOp) + "' on " + E->Ty.str());
}

static bool isComparison(BinaryOp Op) {
  return Op == BinaryOp::Eq || Op == BinaryOp::Ne || Op == BinaryOp::Lt || Op == BinaryOp::Le ||
         Op == BinaryOp::Gt || Op == BinaryOp::Ge;
}

llvm::Value* KernelLowering::lowerBinary(const Expr* E) {
  if (!checkOps(E, 2))
    return poisonOf(E->Ty);
  if (E->BOp == BinaryOp::LogicalAnd || E->BOp == BinaryOp::LogicalOr)
    return lowerLogical(E);
  Type OpTy = E->Ops[0]->Ty;
  if (OpTy != E->Ops[1]->Ty || !OpTy.isScalar())
    return fail(E, "binary operands of different or non-scalar types");
  if (isComparison(E->BOp) ? !E->Ty.isBool() : E->Ty != OpTy)
    return fail(E, "binary result type is wrong");
  // Left to right.
  llvm::Value* L = lowerExpr(E->Ops[0]);
  llvm::Value* R = lowerExpr(E->Ops[1]);
  if (isComparison(E->BOp))
    return lowerCompare(E, L, R);
  bool F = OpTy.isFloat(), I = OpTy.isInteger();
  switch (E->BOp) {
  case BinaryOp::Add:
    if (F)
      return B.CreateFAdd(L, R);
    if (I)
      return B.CreateAdd(L, R);
    break;
  case BinaryOp::Sub:
    if (F)
      return B.CreateFSub(L, R);
    if (I)
      return B.CreateSub(L, R);
    break;
  case BinaryOp::Mul:
    if (F)
      return B.CreateFMul(L, R);
    if (I)
      return B.CreateMul(L, R);
    break;
  case BinaryOp::Div:
    if (F)
      return B.CreateFDiv(L, R);
    if (I)
      return lowerIntDivRem(E, L, R);
    break;
  case BinaryOp::Rem:
    if (F)
      return B.CreateFRem(L, R);
    if (I)
      return lowerIntDivRem(E, L, R);
    break;
  case BinaryOp::Shl:
  case BinaryOp::Shr:
  case BinaryOp::UShr:
    if (I)
      return lowerShift(E, L, R);
    break;
  case BinaryOp::And:
    if (!F)
      return B.CreateAnd(L, R);
    break;
  case BinaryOp::Or:
    if (!F)
      return B.CreateOr(L, R);
    break;
  case BinaryOp::Xor:
    if (!F)
      return B.CreateXor(L, R);
    break;
  default:
    break;
  }
  return fail(E, std::string("'") + kir::binaryOpName(E->BOp) + "' on " + OpTy.str());
}

llvm::Value* KernelLowering::lowerIntDivRem(const Expr* E, llvm::Value* L, llvm::Value* R) {
  // No UB, no trap: divide by a safe divisor, then fix the result.
  //   x / 0 == 0, x % 0 == 0, MIN / -1 == MIN (= -MIN wrapped), MIN % -1 == 0.
  llvm::Type* T = L->getType();
  bool Signed = E->Ty.isSigned();
  bool IsDiv = E->BOp == BinaryOp::Div;
  llvm::Value* Zero = llvm::ConstantInt::get(T, 0);
  llvm::Value* One = llvm::ConstantInt::get(T, 1);
  llvm::Value* IsZero = B.CreateICmpEQ(R, Zero);
  if (!Signed) {
    llvm::Value* D = B.CreateSelect(IsZero, One, R);
    if (!IsDiv)
      return B.CreateURem(L, D); // x % 1 == 0
    return B.CreateSelect(IsZero, Zero, B.CreateUDiv(L, D));
  }
  llvm::Value* IsMinusOne = B.CreateICmpEQ(R, llvm::ConstantInt::getSigned(T, -1));
  llvm::Value* D = B.CreateSelect(B.CreateOr(IsZero, IsMinusOne), One, R);
  if (!IsDiv)
    return B.CreateSRem(L, D); // x % 1 == 0 covers both % 0 and % -1
  llvm::Value* Q = B.CreateSDiv(L, D);
  Q = B.CreateSelect(IsMinusOne, B.CreateNeg(L), Q); // x / -1 == -x, wrapping at MIN
  return B.CreateSelect(IsZero, Zero, Q);
}

llvm::Value* KernelLowering::lowerShift(const Expr* E, llvm::Value* L, llvm::Value* R) {
  unsigned Bits = E->Ty.bits();
  llvm::Value* Count = B.CreateAnd(R, llvm::ConstantInt::get(R->getType(), Bits - 1));
  switch (E->BOp) {
  case BinaryOp::Shl:
    return B.CreateShl(L, Count);
  case BinaryOp::Shr:
    return E->Ty.isSigned() ? B.CreateAShr(L, Count) : B.CreateLShr(L, Count);
  default:
    return B.CreateLShr(L, Count);
  }
}

llvm::Value* KernelLowering::lowerCompare(const Expr* E, llvm::Value* L, llvm::Value* R) {
  Type OpTy = E->Ops[0]->Ty;
  if (OpTy.isFloat()) {
    // Ordered comparisons: NaN compares false, except != which is true.
    static const llvm::CmpInst::Predicate P[] = {llvm::CmpInst::FCMP_OEQ, llvm::CmpInst::FCMP_UNE,
                                                 llvm::CmpInst::FCMP_OLT, llvm::CmpInst::FCMP_OLE,
                                                 llvm::CmpInst::FCMP_OGT, llvm::CmpInst::FCMP_OGE};
    return B.CreateFCmp(P[unsigned(E->BOp) - unsigned(BinaryOp::Eq)], L, R);
  }
  static const llvm::CmpInst::Predicate S[] = {llvm::CmpInst::ICMP_EQ,  llvm::CmpInst::ICMP_NE,
                                               llvm::CmpInst::ICMP_SLT, llvm::CmpInst::ICMP_SLE,
                                               llvm::CmpInst::ICMP_SGT, llvm::CmpInst::ICMP_SGE};
  static const llvm::CmpInst::Predicate U[] = {llvm::CmpInst::ICMP_EQ,  llvm::CmpInst::ICMP_NE,
                                               llvm::CmpInst::ICMP_ULT, llvm::CmpInst::ICMP_ULE,
                                               llvm::CmpInst::ICMP_UGT, llvm::CmpInst::ICMP_UGE};
  unsigned Idx = unsigned(E->BOp) - unsigned(BinaryOp::Eq);
  return B.CreateICmp(OpTy.isSigned() ? S[Idx] : U[Idx], L, R);
}

llvm::Value* KernelLowering::lowerLogical(const Expr* E) {
  if (!E->Ty.isBool() || !E->Ops[0]->Ty.isBool() || !E->Ops[1]->Ty.isBool())
    return fail(E, "logical operator on non-bool operands");
  bool IsAnd = E->BOp == BinaryOp::LogicalAnd;
  llvm::Value* L = lowerExpr(E->Ops[0]);
  llvm::BasicBlock* LEnd = B.GetInsertBlock();
  llvm::BasicBlock* Rhs = newBlock(IsAnd ? "and.rhs" : "or.rhs");
  llvm::BasicBlock* Merge = newBlock(IsAnd ? "and.end" : "or.end");
  if (IsAnd)
    B.CreateCondBr(L, Rhs, Merge);
  else
    B.CreateCondBr(L, Merge, Rhs);
  B.SetInsertPoint(Rhs);
  llvm::Value* R = lowerExpr(E->Ops[1]);
  llvm::BasicBlock* REnd = B.GetInsertBlock();
  B.CreateBr(Merge);
  B.SetInsertPoint(Merge);
  llvm::PHINode* Phi = B.CreatePHI(B.getInt1Ty(), 2);
  Phi->addIncoming(B.getInt1(!IsAnd), LEnd);
  Phi->addIncoming(R, REnd);
  return Phi;
}

llvm::Value* KernelLowering::lowerCast(const Expr* E) {
  if (!checkOps(E, 1))
    return poisonOf(E->Ty);
  Type From = E->Ops[0]->Ty, To = E->Ty;
  if (!From.isScalar() || !To.isScalar())
    return fail(E, "cast between non-scalar types");
  llvm::Value* V = lowerExpr(E->Ops[0]);
  llvm::Type* T = valueType(Ctx, To);
  if (From == To)
    return V;
  if (To.isBool()) { // number -> bool: != 0 (a NaN is != 0)
    if (From.isFloat())
      return B.CreateFCmpUNE(V, llvm::ConstantFP::get(V->getType(), 0.0));
    return B.CreateICmpNE(V, llvm::ConstantInt::get(V->getType(), 0));
  }
  if (From.isBool()) // bool -> number: 0/1
    return To.isFloat() ? B.CreateUIToFP(V, T) : B.CreateZExt(V, T);
  if (From.isInteger() && To.isInteger())
    return B.CreateIntCast(V, T, From.isSigned());
  if (From.isInteger()) // int -> float: round to nearest
    return From.isSigned() ? B.CreateSIToFP(V, T) : B.CreateUIToFP(V, T);
  if (To.isInteger()) { // float -> int: toward zero, saturating, NaN -> 0
    auto Id = To.isSigned() ? llvm::Intrinsic::fptosi_sat : llvm::Intrinsic::fptoui_sat;
    return B.CreateIntrinsic(Id, {T, V->getType()}, {V});
  }
  return B.CreateFPCast(V, T); // float -> float: round to nearest
}

llvm::Value* KernelLowering::lowerSelect(const Expr* E) {
  if (!checkOps(E, 3))
    return poisonOf(E->Ty);
  if (!E->Ops[0]->Ty.isBool() || E->Ops[1]->Ty != E->Ty || E->Ops[2]->Ty != E->Ty)
    return fail(E, "select with a non-bool condition or arms of the wrong type");
  llvm::Value* C = lowerExpr(E->Ops[0]);
  llvm::BasicBlock* Then = newBlock("sel.then");
  llvm::BasicBlock* Else = newBlock("sel.else");
  llvm::BasicBlock* Merge = newBlock("sel.end");
  B.CreateCondBr(C, Then, Else);
  B.SetInsertPoint(Then); // only the chosen arm is evaluated
  llvm::Value* TV = lowerExpr(E->Ops[1]);
  llvm::BasicBlock* TEnd = B.GetInsertBlock();
  B.CreateBr(Merge);
  B.SetInsertPoint(Else);
  llvm::Value* EV = lowerExpr(E->Ops[2]);
  llvm::BasicBlock* EEnd = B.GetInsertBlock();
  B.CreateBr(Merge);
  B.SetInsertPoint(Merge);
  if (E->Ty.isVoid())
    return nullptr;
  llvm::PHINode* Phi = B.CreatePHI(valueType(Ctx, E->Ty), 2);
  Phi->addIncoming(TV, TEnd);
  Phi->addIncoming(EV, EEnd);
  return Phi;
}

const BufferValue* KernelLowering::bufferOf(const Expr* E) {
  if (E->K == Expr::Kind::SharedRef) {
    if (!E->Ty.isShared() || E->Index >= Cur->Shared.size() ||
        Cur->KF->SharedArrays[E->Index].Elem != E->Ty.Elem) {
      fail(E, "expected a shared array of this kernel");
      return nullptr;
    }
    return &Cur->Shared[E->Index];
  }
  if (E->K != Expr::Kind::Param || !E->Ty.isBuffer() || E->Index >= Cur->Args.size() ||
      Cur->Args[E->Index].Scalar || Cur->KF->Params[E->Index].Ty != E->Ty) {
    fail(E, "expected a buffer parameter or a shared array");
    return nullptr;
  }
  return &Cur->Args[E->Index].Buffer;
}

llvm::Value* KernelLowering::elementAddress(const BufferValue& Buf, const Expr* IndexExpr,
                                            Type ElemTy) {
  if (!IndexExpr->Ty.isInteger())
    return fail(IndexExpr, "buffer index is not an integer");
  llvm::Value* Index = lowerExpr(IndexExpr);
  Index = B.CreateIntCast(Index, B.getInt64Ty(), IndexExpr->Ty.isSigned());
  if (Opts.CheckBounds) {
    // A negative signed index is a huge unsigned one: out of range too.
    llvm::Value* InRange = B.CreateICmpULT(Index, Buf.Length);
    llvm::BasicBlock* Ok = newBlock("bounds.ok");
    llvm::BasicBlock* Bad = newBlock("bounds.bad");
    B.CreateCondBr(InRange, Ok, Bad);
    B.SetInsertPoint(Bad);
    Target.emitBoundsFailure(B, Cur->WorkItem, Buf.ParamIndex, Index, Buf.Length);
    B.CreateBr(Cur->FailBlock);
    B.SetInsertPoint(Ok);
  }
  return B.CreateInBoundsGEP(memoryType(Ctx, ElemTy), Buf.Ptr, Index);
}

llvm::Value* KernelLowering::lowerLoad(const Expr* E) {
  if (!checkOps(E, 2))
    return poisonOf(E->Ty);
  const BufferValue* Buf = bufferOf(E->Ops[0]);
  if (!Buf)
    return poisonOf(E->Ty);
  Type Elem = Type::scalar(E->Ops[0]->Ty.Elem);
  if (E->Ty != Elem)
    return fail(E, "load type differs from the buffer's element type");
  llvm::Value* Addr = elementAddress(*Buf, E->Ops[1], Elem);
  llvm::Value* V = B.CreateLoad(memoryType(Ctx, Elem), Addr);
  if (Elem.isBool()) // bool in memory is a byte; any non-zero byte reads as true
    return B.CreateICmpNE(V, B.getInt8(0));
  return V;
}

llvm::Value* KernelLowering::lowerStore(const Expr* E) {
  if (!checkOps(E, 3))
    return poisonOf(E->Ty);
  const BufferValue* Buf = bufferOf(E->Ops[0]);
  if (!Buf)
    return poisonOf(E->Ty);
  Type Elem = Type::scalar(E->Ops[0]->Ty.Elem);
  if (E->Ty != Elem || E->Ops[2]->Ty != Elem)
    return fail(E, "stored value type differs from the buffer's element type");
  // Left to right: the index, then the value; the bounds check happens before the value is
  // computed only if the index comes first, which it does.
  llvm::Value* Addr = elementAddress(*Buf, E->Ops[1], Elem);
  llvm::Value* V = lowerExpr(E->Ops[2]);
  llvm::Value* Mem = Elem.isBool() ? B.CreateZExt(V, B.getInt8Ty()) : V;
  B.CreateStore(Mem, Addr);
  return V;
}

llvm::Value* KernelLowering::lowerCall(const Expr* E) {
  std::vector<const Expr*> ArgExprs(E->Ops.begin(), E->Ops.end());
  std::vector<llvm::Value*> Args;
  if (!lowerCallArgs(E, E->Index, ArgExprs, Args))
    return poisonOf(E->Ty);
  return emitCall(E, E->Index, Args);
}

bool KernelLowering::lowerCallArgs(const Expr* E, uint32_t Callee,
                                   llvm::ArrayRef<const Expr*> ArgExprs,
                                   std::vector<llvm::Value*>& Args) {
  if (Callee >= KM.Functions.size() || !Helpers[Callee]) {
    std::string Why = Callee < KM.Functions.size() && KM.Functions[Callee]->HasBarrier
                          ? " (a helper with a barrier that was not inlined)"
                      : Callee < KM.Functions.size() && KM.Functions[Callee]->IsKernel
                          ? " (a kernel)"
                          : " (not lowered for this backend)";
    fail(E, "call of function " + std::to_string(Callee) + ", which is not a helper" + Why);
    return false;
  }
  const kir::Function& F = *KM.Functions[Callee];
  if (ArgExprs.size() != F.Params.size()) {
    fail(E, "call of '" + F.Name + "' with the wrong number of arguments");
    return false;
  }
  if (E->Ty != F.ReturnType) {
    fail(E, "call type differs from the return type of '" + F.Name + "'");
    return false;
  }
  Args = Cur->WorkItem.Values;
  for (size_t I = 0; I < ArgExprs.size(); ++I) {
    const Expr* A = ArgExprs[I];
    if (!A || A->Ty != F.Params[I].Ty) {
      fail(E, "argument " + std::to_string(I) + " of '" + F.Name +
                  "' is missing or of the wrong type");
      return false;
    }
    if (A->Ty.isPod()) { // the caller's pointer to the POD's bytes
      if (A->K != Expr::Kind::Param || A->Index >= Cur->Args.size() ||
          !Cur->Args[A->Index].Scalar) {
        fail(E, "a POD argument must be a POD parameter");
        return false;
      }
      llvm::Value* P = Cur->Args[A->Index].Scalar;
      Args.push_back(B.CreateAddrSpaceCast(P, llvm::PointerType::get(Ctx, 0)));
      continue;
    }
    if (!A->Ty.isBuffer()) {
      Args.push_back(lowerExpr(A));
      continue;
    }
    const BufferValue* Buf = bufferOf(A);
    if (!Buf)
      return false;
    Args.push_back(Buf->Ptr);
    Args.push_back(Buf->Length);
    if (Opts.CheckBounds)
      Args.push_back(Buf->ParamIndex);
  }
  if (Args.size() != Helpers[Callee]->arg_size()) {
    fail(E, "hidden arguments of '" + F.Name + "' do not match");
    return false;
  }
  return Error.empty();
}

llvm::Value* KernelLowering::emitCall(const Expr* E, uint32_t Callee,
                                      llvm::ArrayRef<llvm::Value*> Args) {
  llvm::CallInst* Call = B.CreateCall(Helpers[Callee], Args);
  if (Opts.CheckBounds) {
    // A bounds failure inside the helper ends this function too.
    llvm::BasicBlock* Ok = newBlock("call.ok");
    B.CreateCondBr(Target.emitHasFailed(B, Cur->WorkItem), Cur->FailBlock, Ok);
    B.SetInsertPoint(Ok);
  }
  return E->Ty.isVoid() ? nullptr : Call;
}

llvm::Value* KernelLowering::lowerField(const Expr* E) {
  if (!checkOps(E, 1))
    return poisonOf(E->Ty);
  const Expr* P = E->Ops[0];
  if (P->K != Expr::Kind::Param || !P->Ty.isPod() || P->Index >= Cur->Args.size() ||
      !Cur->Args[P->Index].Scalar || Cur->KF->Params[P->Index].Ty != P->Ty)
    return fail(E, "field read of something other than a POD parameter");
  if (P->Ty.PodIndex >= KM.Pods.size())
    return fail(E, "POD type " + std::to_string(P->Ty.PodIndex) + " does not exist");
  const kir::PodType& Pod = KM.Pods[P->Ty.PodIndex];
  if (E->Index >= Pod.Fields.size())
    return fail(E, "POD '" + Pod.Name + "' has no field " + std::to_string(E->Index));
  const kir::PodField& F = Pod.Fields[E->Index];
  Type FT = Type::scalar(F.Type);
  if (E->Ty != FT || F.Offset + bundle::scalarTypeSize(F.Type) > Pod.Size)
    return fail(E, "field '" + F.Name + "' of '" + Pod.Name +
                       "' read with the wrong type or "
                       "outside the POD");
  llvm::Value* Addr =
      B.CreateConstInBoundsGEP1_64(B.getInt8Ty(), Cur->Args[P->Index].Scalar, F.Offset);
  llvm::LoadInst* V = B.CreateLoad(memoryType(Ctx, FT), Addr);
  V->setAlignment(llvm::Align(bundle::scalarTypeSize(F.Type)));
  if (FT.isBool())
    return B.CreateICmpNE(V, B.getInt8(0));
  return V;
}

llvm::Value* KernelLowering::lowerDispatch(const Expr* E) {
  if (E->Ops.empty() || !E->Ops[0] || E->Ops[0]->Ty != Type::scalar(kir::ScalarType::U32))
    return fail(E, "dispatch without a uint32 tag");
  for (const Expr* Op : E->Ops)
    if (!Op)
      return fail(E, "null operand");
  llvm::Value* Tag = lowerExpr(E->Ops[0]);
  std::vector<const Expr*> ArgExprs(E->Ops.begin() + 1, E->Ops.end());
  std::vector<llvm::Value*> Args;
  // Arguments are evaluated once, before the call, whichever function the tag picks.
  if (!E->Targets.empty() && !lowerCallArgs(E, E->Targets[0], ArgExprs, Args))
    return poisonOf(E->Ty);
  if (E->Targets.empty())
    for (const Expr* A : ArgExprs)
      if (!A->Ty.isArray() && !A->Ty.isPod())
        lowerExpr(A);
  llvm::BasicBlock* Merge = newBlock("dispatch.end");
  llvm::BasicBlock* Default = newBlock("dispatch.none");
  llvm::SwitchInst* Switch = B.CreateSwitch(Tag, Default, unsigned(E->Targets.size()));
  llvm::PHINode* Phi = nullptr;
  if (!E->Ty.isVoid()) {
    llvm::IRBuilder<>::InsertPointGuard Guard(B);
    B.SetInsertPoint(Merge);
    Phi = B.CreatePHI(valueType(Ctx, E->Ty), unsigned(E->Targets.size()) + 1);
  }
  for (size_t T = 0; T < E->Targets.size() && Error.empty(); ++T) {
    uint32_t Callee = E->Targets[T];
    if (Callee >= KM.Functions.size() || !Helpers[Callee] ||
        Helpers[Callee]->getFunctionType() != Helpers[E->Targets[0]]->getFunctionType() ||
        KM.Functions[Callee]->ReturnType != E->Ty)
      return fail(E, "dispatch target " + std::to_string(T) + " is not a helper of the same type");
    llvm::BasicBlock* Case = newBlock("dispatch.case");
    Switch->addCase(B.getInt32(uint32_t(T)), Case);
    B.SetInsertPoint(Case);
    llvm::Value* V = emitCall(E, Callee, Args);
    if (Phi)
      Phi->addIncoming(V, B.GetInsertBlock());
    B.CreateBr(Merge);
  }
  B.SetInsertPoint(Default); // an out-of-range tag: no call, the zero value
  if (Phi)
    Phi->addIncoming(llvm::Constant::getNullValue(Phi->getType()), Default);
  B.CreateBr(Merge);
  B.SetInsertPoint(Merge);
  return Phi;
}

static unsigned mathArity(IntrinsicOp Op) {
  switch (Op) {
  case IntrinsicOp::Pow:
  case IntrinsicOp::Min:
  case IntrinsicOp::Max:
    return 2;
  case IntrinsicOp::Fma:
    return 3;
  default:
    return 1;
  }
}

llvm::Value* KernelLowering::lowerIntrinsic(const Expr* E) {
  IntrinsicOp Op = E->IOp;
  switch (Op) {
  case IntrinsicOp::LocalId:
  case IntrinsicOp::GlobalId:
  case IntrinsicOp::GroupId:
  case IntrinsicOp::GroupDim:
  case IntrinsicOp::GridDim:
  case IntrinsicOp::GlobalSize: {
    if (E->Dim > 2)
      return fail(E, "geometry dimension " + std::to_string(E->Dim) + " is not 0..2");
    if (!E->Ops.empty() || E->Ty != Type::scalar(kir::ScalarType::U32))
      return fail(E, "geometry builtins take no operands and yield uint32");
    const WorkItemContext& W = Cur->WorkItem;
    if (Op == IntrinsicOp::GlobalId)
      return B.CreateAdd(B.CreateMul(Target.coordinate(B, W, IntrinsicOp::GroupId, E->Dim),
                                     Target.coordinate(B, W, IntrinsicOp::GroupDim, E->Dim)),
                         Target.coordinate(B, W, IntrinsicOp::LocalId, E->Dim));
    if (Op == IntrinsicOp::GlobalSize)
      return B.CreateMul(Target.coordinate(B, W, IntrinsicOp::GridDim, E->Dim),
                         Target.coordinate(B, W, IntrinsicOp::GroupDim, E->Dim));
    return Target.coordinate(B, W, Op, E->Dim);
  }
  case IntrinsicOp::BufferLength: {
    if (!checkOps(E, 1))
      return poisonOf(E->Ty);
    if (E->Ty != Type::scalar(kir::ScalarType::U64))
      return fail(E, "buffer length yields uint64");
    const BufferValue* Buf = bufferOf(E->Ops[0]);
    return Buf ? Buf->Length : poisonOf(E->Ty);
  }
  case IntrinsicOp::Bitcast: { // numbers of one width (Kir.h)
    if (!checkOps(E, 1))
      return poisonOf(E->Ty);
    Type From = E->Ops[0]->Ty;
    if (!From.isScalar() || !E->Ty.isScalar() || From.isBool() || E->Ty.isBool() ||
        From.bits() != E->Ty.bits())
      return fail(E, "bitcast from " + From.str() + " to " + E->Ty.str());
    return B.CreateBitCast(lowerExpr(E->Ops[0]), valueType(Ctx, E->Ty));
  }
  default:
    break;
  }
  if (!checkOps(E, mathArity(Op)))
    return poisonOf(E->Ty);
  std::vector<llvm::Value*> Vals;
  for (const Expr* A : E->Ops) {
    if (A->Ty != E->Ty)
      return fail(E, std::string("operand of '") + kir::intrinsicName(Op) + "' has the wrong type");
    Vals.push_back(lowerExpr(A));
  }
  bool FloatOnly = Op != IntrinsicOp::Abs && Op != IntrinsicOp::Min && Op != IntrinsicOp::Max;
  if ((FloatOnly && !E->Ty.isFloat()) || !(E->Ty.isFloat() || E->Ty.isInteger()))
    return fail(E, std::string("'") + kir::intrinsicName(Op) + "' on " + E->Ty.str());
  llvm::Value* V = Target.emitMath(B, Op, Vals, E->Ty);
  if (!V)
    return fail(E, std::string("the target cannot lower '") + kir::intrinsicName(Op) + "' on " +
                       E->Ty.str());
  return V;
}

} // namespace cajeta::lowering
