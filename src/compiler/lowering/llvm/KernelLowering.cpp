// The shared KIR -> LLVM body walk (see KernelLowering.h); semantics follow Kir.h's comments.
#include "compiler/lowering/llvm/KernelLowering.h"

#include "compiler/lowering/llvm/LoopIds.h"

#include "compiler/kir/Clone.h"
#include "compiler/kir/Walk.h"
#include "compiler/kir/transforms/GridStrideInterchange.h"
#include "compiler/kir/transforms/KirInliner.h"
#include "compiler/kir/transforms/PortableWave.h"
#include "compiler/kir/transforms/WorkItemQuads.h"

#include <llvm/IR/Intrinsics.h>
#include <llvm/Support/ErrorHandling.h>

#include <cassert>

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
  if (T.isBuffer() || T.isShared() || T.isPod() || T.isHostValue())
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
  C.ImplicitLoopBarriers = T.hasNativeBarrier() ? kir::LoopBarriers::None : O.ImplicitLoopBarriers;
  C.LoopJam = C.ImplicitLoopBarriers != kir::LoopBarriers::None && O.LoopJam;
  C.WaveTier = portableWaves(T, O) ? ImplTier::Portable : ImplTier::Native;
  C.Polyfill = kir::PolyfillConfig::llvm();
  C.Wave = T.wavePrimitives();
  C.WaveSteps = !T.hasNativeBarrier() && C.WaveTier == ImplTier::Native && C.Wave.Available;
  C.Tiles = T.tileLowering(O.TileTier);
  C.NativeAsyncCopy = T.hasAsyncCopy();
  C.TmaBlockCopies = T.hasTensorMemoryAccelerator();
  C.RayChildrenAtParent = T.rayChildrenAtParent();
  C.Capabilities = T.capabilities(O.TileTier);
  C.MaxStaticSharedBytes = T.maxStaticSharedBytes();
  return C;
}

// ---------------------------------------------------------------------------------------------
// Functions

bool KernelLowering::emitModule(std::string& Err) {
  Helpers.assign(KM.Functions.size(), nullptr);
  Entries.assign(KM.Functions.size(), nullptr);
  auto Wanted = [&](const kir::Function& F) {
    return Opts.Backend.empty() || kir::availableOn(F, Opts.Backend);
  };
  // Without a native barrier, helpers with barriers or wave ops are always inlined into their
  // kernels (the fission runs both), and so are helpers with wave ops in the portable wave tier.
  auto Declared = [&](const kir::Function& F) {
    return Wanted(F) && !F.IsKernel && (Target.hasNativeBarrier() || !F.HasBarrier) &&
           !(F.UsesWave && (portableWaves() || !Target.hasNativeBarrier()));
  };
  for (size_t I = 0; I < KM.Functions.size(); ++I)
    if (Declared(*KM.Functions[I]))
      declareHelper(I);
  for (size_t I = 0; I < KM.Functions.size() && Error.empty(); ++I) {
    const kir::Function& F = *KM.Functions[I];
    if (F.IsKernel && Wanted(F))
      emitKernelEntries(I);
    else if (Declared(F))
      emitHelperBody(I);
  }
  Err = Error;
  return Error.empty();
}

void KernelLowering::declareHelper(size_t I) {
  const kir::Function& KF = *KM.Functions[I];
  std::vector<llvm::Type*> Params = Target.helperHiddenParams(Ctx);
  for (const kir::Param& P : KF.Params) {
    assert(!P.Ty.isVoid() && !P.Ty.isShared() && "verified KIR: no void or shared parameters");
    if (!P.Ty.isBuffer()) {
      Params.push_back(valueType(Ctx, P.Ty)); // a POD: a pointer to its bytes
      continue;
    }
    Params.push_back(llvm::PointerType::get(Ctx, Target.bufferAddressSpace()));
    Params.push_back(B.getInt64Ty());
    if (Opts.CheckBounds)
      Params.push_back(B.getInt32Ty());
  }
  assert((KF.ReturnType.isVoid() || KF.ReturnType.isScalar() || KF.ReturnType.isHostValue()) &&
         "verified KIR: only a scalar (in host code, a host value) can be returned");
  auto* FT = llvm::FunctionType::get(valueType(Ctx, KF.ReturnType), Params, false);
  std::string Name = KF.Symbol.empty() ? "cj_helper_" + std::to_string(I) : KF.Symbol;
  // Host methods are the program's entry points: external, and left to the inliner's judgement.
  auto* F = llvm::Function::Create(
      FT, KM.IsHost ? llvm::GlobalValue::ExternalLinkage : llvm::GlobalValue::InternalLinkage, Name,
      LM);
  if (!KM.IsHost)
    F->addFnAttr(llvm::Attribute::AlwaysInline);
  F->addFnAttr(llvm::Attribute::NoUnwind);
  Helpers[I] = F;
}

void KernelLowering::emitHelperBody(size_t I) {
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

void KernelLowering::emitKernelEntries(size_t I) {
  const kir::Function& KF = *KM.Functions[I];
  assert(KF.ReturnType.isVoid() && "verified KIR: kernels return void");
  if (!KF.TmaEntryOf.empty())
    return emitTmaEntry(KF);
  // The pipeline (kir/transforms/Pipeline.h) has already inlined barrier helpers and, in the
  // portable tier, rewritten the wave ops: KM is the target's prepared module.
  const kir::Function* Lowered = &KF;
  bundle::TargetManifest& TMan = KernelManifests[KF.Name];
  for (const kir::SharedArray& SA : Lowered->SharedArrays) { // the dynamic one is sized at launch
    TMan.StaticSharedBytes += SA.Count * bundle::scalarTypeSize(SA.Elem);
    if (SA.Count == 0 && SA.Swizzle128)
      TMan.DynamicSharedGranule = SA.RowAtoms > 1 ? 1024u * SA.RowAtoms : 128u;
    TMan.TileWgmma |= SA.Swizzle128; // swizzled for wgmma's b tiles alone
  }
  TMan.DynamicSharedPrefix = Target.dynamicSharedPrefix(*Lowered);
  if (KF.UsesWave)
    TMan.WaveTier = portableWaves() ? "portable" : "native";
  if (KF.UsesTiles) {
    // The LLVM targets choose one form for the whole program: the driver's tier.
    TMan.TileTier = Opts.TileTier == ImplTier::Native ? "native" : "portable";
    TMan.TileWaves = KF.TileWaves;
  }
  Entries[I] = emitEntry(KF, *Lowered);
  TMan.GroupShapeFree = !Target.hasNativeBarrier() && KF.GroupShapeFree;
  // A group-shape-free kernel has no barrier of its own: any it has now are the implicit loop
  // barriers, around which the fission runs its loops once per group.
  TMan.GroupLoops = TMan.GroupShapeFree && Lowered->HasBarrier;
  if (Opts.QuadWorkItems && Target.hasNativeBarrier())
    emitQuadEntry(KF, *Lowered, TMan);
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
  // And a third with the loop run once per work-item, for launches whose count the grid covers
  // in x: vectorized across work-items like the `if (i < n)` form, which the plain entry's loop
  // of unknown trip count is not.
  if (TMan.StepSymbol.empty() || !Error.empty())
    return;
  std::unique_ptr<kir::Function> Once =
      kir::KirInliner::inlineBarrierCalls(KM, *Lowered, Scratch, Error);
  if (!Once)
    return;
  Once->Symbol += "_once";
  bool AnyGrid = kir::GridStrideInterchange::stepsIndependent(*Lowered);
  if (kir::GridStrideInterchange::rewriteOnce(*Once, Scratch) && emitEntry(KF, *Once)) {
    TMan.OnceSymbol = Once->Symbol;
    TMan.OnceAnyGrid = AnyGrid;
  }
  Inlined.push_back(std::move(Once));
}

void KernelLowering::emitTmaEntry(const kir::Function& KF) {
  // The kernel it belongs to comes first in the module (the pipeline appends TMA entries).
  auto It = KernelManifests.find(KF.TmaEntryOf);
  // The launch passes one prefix of placed arrays for both entries: the TMA entry only where
  // its own is the same (its barriers are small enough to stay `.shared`).
  if (It == KernelManifests.end() ||
      Target.dynamicSharedPrefix(KF) != It->second.DynamicSharedPrefix)
    return;
  if (emitEntry(KF, KF)) {
    It->second.TmaSymbol = KF.Symbol;
    It->second.TensorMaps = KF.TensorMaps;
  }
}

void KernelLowering::emitQuadEntry(const kir::Function& KF, const kir::Function& Lowered,
                                   bundle::TargetManifest& TMan) {
  int Count = kir::WorkItemQuads::countParam(Lowered);
  if (Count < 0 || !Error.empty())
    return;
  std::unique_ptr<kir::Function> Quads = kir::cloneFunction(Lowered, Scratch);
  Quads->Symbol += "_quads";
  if (!kir::WorkItemQuads::rewrite(*Quads, Scratch)) {
    Inlined.push_back(std::move(Quads));
    return;
  }
  if (llvm::Function* F = emitEntry(KF, *Quads)) {
    F->addFnAttr(QuadEntryAttribute);
    TMan.QuadSymbol = Quads->Symbol;
    TMan.QuadCountParam = Count;
    TMan.QuadAnyGrid = kir::WorkItemQuads::anyGrid(Lowered);
  }
  Inlined.push_back(std::move(Quads));
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
    FS.TensorMaps = Frame.TensorMaps;
    FS.Group = Frame.WorkItem;
    B.SetInsertPoint(TB.GetInsertBlock(), TB.GetInsertPoint());
    Cur = &FS;
    FS.Deferred.clear();
    FS.FailedSite = FS.ItemFailedSite = nullptr;
    FS.DeferChecks = !FS.Fission && defersChecksIn(Lowered.Body);
    FS.ItemStart = FS.DeferChecks ? TB.GetInsertBlock() : nullptr;
    FS.ItemLatch = FS.DeferChecks ? Frame.ReturnBlock : nullptr;
    if (FS.DeferChecks)
      Frame.AfterWorkItems = [this, &FS](llvm::IRBuilder<>& AB) {
        FunctionState* Outer = Cur;
        Cur = &FS;
        B.SetInsertPoint(AB.GetInsertBlock(), AB.GetInsertPoint());
        emitDeferredChecks();
        AB.SetInsertPoint(B.GetInsertBlock());
        Cur = Outer;
      };
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
    assert((L.Ty.isScalar() || L.Ty.isHostValue()) &&
           "verified KIR: locals are scalars (and, in host code, host values)");
    FS.Locals.push_back(AB.CreateAlloca(valueType(Ctx, L.Ty), nullptr, L.Name));
  }
  // Private arrays: allocas too (NVPTX local memory, the CPU's stack); never bounds-checked.
  for (const kir::PrivateArray& P : FS.KF->PrivateArrays) {
    BufferValue V;
    V.Ptr = AB.CreateAlloca(
        llvm::ArrayType::get(memoryType(Ctx, kir::Type::scalar(P.Elem)), P.Count), nullptr, P.Name);
    V.Length = AB.getInt64(P.Count);
    V.Private = true;
    FS.Private.push_back(V);
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
      SB.Swizzle128 = FS.KF->SharedArrays[I].Swizzle128;
      SB.RowAtoms = FS.KF->SharedArrays[I].RowAtoms;
      FS.Shared.push_back(SB);
    }
  }
  assert((FS.KF->IsKernel || FS.KF->SharedArrays.empty()) &&
         "verified KIR: only kernels declare shared arrays");
  llvm::FastMathFlags FMF;
  if (FS.KF->FastMath)
    FMF.setAllowContract(true); // @FastMath: contraction only
  B.setFastMathFlags(FMF);
  assert(FS.KF->Body && "verified KIR: every function has a body");
  if (FS.Fission)
    emitGroupStmt(FS.KF->Body);
  else
    emitStmt(FS.KF->Body);
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

llvm::Value* KernelLowering::unsupported(const Expr* E, const std::string& Message) {
  if (Error.empty())
    Error = "function '" + Cur->KF->Name + "' at " + where(E->Loc) + ": " + Message;
  return poisonOf(E->Ty);
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

bool KernelLowering::isAsyncCopy(const Stmt* S) const {
  return S && S->K == Stmt::Kind::Eval && S->E && S->E->K == Expr::Kind::Intrinsic &&
         S->E->IOp == IntrinsicOp::AsyncCopy;
}

LoweringTarget::AsyncCopyArgs KernelLowering::asyncCopyArgs(const Expr* E) {
  Type Elem = Type::scalar(E->Ops[0]->Ty.Elem);
  llvm::Value* Dst = elementAddress(*bufferOf(E->Ops[0]), E->Ops[1], Elem);
  llvm::Value* Src = elementAddress(*bufferOf(E->Ops[2]), E->Ops[3], Elem);
  LoweringTarget::AsyncCopyArgs A{Dst, Src, memoryType(Ctx, Elem), E->Index, emitExpr(E->Ops[4])};
  const BufferValue& To = *bufferOf(E->Ops[0]);
  if (To.Swizzle128) {
    llvm::Value* First = B.CreateZExt(emitExpr(E->Ops[1]), B.getInt64Ty());
    for (unsigned J = 0; J < E->Index; ++J)
      A.DstElems.push_back(elementPointer(To, A.Elem, B.CreateAdd(First, B.getInt64(J))));
  }
  return A;
}

/// Whether E can be evaluated again later to the same value while the locals it reads keep
/// theirs: no memory read, no call, no effect.
static bool reevaluable(const Expr* E) {
  bool Pure = true;
  kir::forEachExpr(E, [&](const Expr* X) {
    switch (X->K) {
    case Expr::Kind::Const:
    case Expr::Kind::Local:
    case Expr::Kind::Param:
    case Expr::Kind::Unary:
    case Expr::Kind::Binary:
    case Expr::Kind::Cast:
    case Expr::Kind::Select:
    case Expr::Kind::Field:
    case Expr::Kind::SharedRef:
      return;
    case Expr::Kind::Intrinsic:
      if ((X->IOp >= IntrinsicOp::LocalId && X->IOp <= IntrinsicOp::GlobalSize) ||
          X->IOp == IntrinsicOp::Abs || X->IOp == IntrinsicOp::Min || X->IOp == IntrinsicOp::Max ||
          X->IOp == IntrinsicOp::BufferLength ||
          (X->IOp >= IntrinsicOp::DivTrunc && X->IOp <= IntrinsicOp::ShiftRight) ||
          X->IOp == IntrinsicOp::AsyncCopy)
        return;
      Pure = false;
      return;
    default:
      Pure = false;
    }
  });
  return Pure;
}

std::function<void()> KernelLowering::emitAsyncCopies(llvm::ArrayRef<const Stmt*> Run,
                                                      std::set<uint32_t>& Reads) {
  std::vector<LoweringTarget::AsyncCopyArgs> Copies;
  bool Again = true;
  for (const Stmt* S : Run) {
    Copies.push_back(asyncCopyArgs(S->E));
    if (!Error.empty())
      return {};
    Again = Again && reevaluable(S->E);
  }
  if (!Again) { // operands that could change: the whole run here, nothing left
    Target.emitAsyncCopies(B, Copies);
    return {};
  }
  for (const Stmt* S : Run)
    kir::forEachExpr(S->E, [&](const Expr* X) {
      if (X->K == Expr::Kind::Local)
        Reads.insert(X->Index);
    });
  return Target.emitAsyncCopiesInLine(B, Copies, [this, Run] {
    // The locals' values through opaque copies: the optimizer must not reuse the run's own
    // operands here, which would keep them live from the run to this point.
    std::vector<LoweringTarget::AsyncCopyArgs> Args;
    LaunderLocals = true;
    for (const Stmt* S : Run)
      Args.push_back(asyncCopyArgs(S->E));
    LaunderLocals = false;
    return Args;
  });
}

void KernelLowering::finishCopies(PendingCopies& Left) {
  if (Left.Emit && Error.empty() && B.GetInsertBlock() && !B.GetInsertBlock()->getTerminator())
    Left.Emit();
  Left = PendingCopies();
}

void KernelLowering::emitBlockBody(const Stmt* S, PendingCopies& Left) {
  for (size_t I = 0; I < S->Body.size();) {
    size_t End = I;
    while (End < S->Body.size() && isAsyncCopy(S->Body[End]))
      ++End;
    if (End > I) { // a run of copies: the target decides its fast path once for all of them
      finishCopies(Left);
      Left.Emit =
          emitAsyncCopies(llvm::ArrayRef<const Stmt*>(S->Body).slice(I, End - I), Left.Reads);
      I = End;
      continue;
    }
    const Stmt* X = S->Body[I++];
    if (X && X->K == Stmt::Kind::Block) { // a block inside (an inlined helper's): one line
      emitBlockBody(X, Left);
      continue;
    }
    if (Left.Emit && mayObserveCopies(X, Left.Reads))
      finishCopies(Left);
    emitStmt(X);
  }
}

bool KernelLowering::mayObserveCopies(const Stmt* S, const std::set<uint32_t>& Reads) {
  bool Observes = false;
  kir::forEachStmt(S, [&](const Stmt* X) {
    Observes = Observes || X->K == Stmt::Kind::Barrier || X->K == Stmt::Kind::Return ||
               X->K == Stmt::Kind::Break || X->K == Stmt::Kind::Continue;
  });
  kir::forEachExprIn(S, [&](const Expr* E) {
    // Writes too: to a copy's source or destination before its wait, they would race with a
    // real asynchronous copy; the late copy keeps the program's order instead.
    Observes = Observes || E->K == Expr::Kind::Call || E->K == Expr::Kind::Dispatch ||
               E->K == Expr::Kind::Store || E->K == Expr::Kind::Atomic ||
               (E->K == Expr::Kind::Assign && Reads.count(E->Index)) ||
               (E->K == Expr::Kind::Intrinsic && E->IOp != IntrinsicOp::AsyncCommit &&
                ((E->IOp >= IntrinsicOp::AsyncCopy && E->IOp <= IntrinsicOp::AsyncCopyBlock) ||
                 (E->IOp >= IntrinsicOp::MbarrierInit && E->IOp <= IntrinsicOp::MbarrierWait) ||
                 E->IOp == IntrinsicOp::StoreWords));
  });
  return Observes;
}

void KernelLowering::emitStmt(const Stmt* S) {
  if (!S || !Error.empty())
    return;
  switch (S->K) {
  case Stmt::Kind::Block: {
    PendingCopies Left;
    emitBlockBody(S, Left);
    finishCopies(Left);
    return;
  }
  case Stmt::Kind::Eval:
    if (Cur->Uniformity && Cur->Uniformity->isRematerializedAssignment(S))
      return; // recomputed where it is read
    emitExpr(S->E);
    return;
  case Stmt::Kind::If: {
    assert(S->E && S->Then && S->E->Ty.isBool() && "verified KIR: if (bool) then [else]");
    llvm::Value* C = emitExpr(S->E);
    llvm::BasicBlock* Then = newBlock("if.then");
    llvm::BasicBlock* Else = S->Else ? newBlock("if.else") : nullptr;
    llvm::BasicBlock* Merge = newBlock("if.end");
    B.CreateCondBr(C, Then, Else ? Else : Merge);
    B.SetInsertPoint(Then);
    emitStmt(S->Then);
    branchTo(Merge);
    if (Else) {
      B.SetInsertPoint(Else);
      emitStmt(S->Else);
      branchTo(Merge);
    }
    B.SetInsertPoint(Merge);
    return;
  }
  case Stmt::Kind::Loop:
    return emitLoop(S);
  case Stmt::Kind::Break:
  case Stmt::Kind::Continue:
    return emitJump(S);
  case Stmt::Kind::Return:
    return emitReturn(S);
  case Stmt::Kind::Barrier:
    // Without a native barrier, the pipeline inlines barrier helpers and fission splits kernels
    // at their barriers: none reaches this walk.
    assert(Target.hasNativeBarrier() && "barrier outside a fission region");
    Target.emitBarrier(B, Cur->WorkItem);
    return;
  case Stmt::Kind::Try:
    return emitTry(S);
  }
  llvm_unreachable("verified KIR: unknown statement kind");
}

void KernelLowering::emitJump(const Stmt* S) {
  auto It = Cur->Loops.find(S->LoopId);
  if (It != Cur->Loops.end()) {
    B.CreateBr(S->K == Stmt::Kind::Break ? It->second.Break : It->second.Continue);
    startDeadBlock();
    return;
  }
  // Fission: a jump out of this region to a loop with barriers parks the work-item until that
  // loop's exit (break) or step (continue).
  auto G = Cur->GroupLoops.find(S->LoopId);
  assert(Cur->Fission && Cur->NextItem && G != Cur->GroupLoops.end() && Cur->Park &&
         "verified KIR: a jump targets an enclosing loop");
  park(2 * G->second + (S->K == Stmt::Kind::Continue ? 1 : 0));
  B.CreateBr(Cur->NextItem);
  startDeadBlock();
}

void KernelLowering::emitReturn(const Stmt* S) {
  {
    bool IsKernel = Cur->KF->IsKernel;
    if (IsKernel || Cur->KF->ReturnType.isVoid()) {
      assert(!S->E && "verified KIR: no value returned from a void function");
      if (IsKernel && Cur->Fission) {
        assert(Cur->Park && Cur->NextItem && "return outside a work-item region");
        park(1); // this work-item is done; later regions skip it
        B.CreateBr(Cur->NextItem);
      } else if (IsKernel) {
        B.CreateBr(Cur->ReturnBlock); // ends this work-item only
      } else
        B.CreateRetVoid();
      startDeadBlock();
      return;
    }
    assert(S->E && S->E->Ty == Cur->KF->ReturnType && "verified KIR: return typing");
    llvm::Value* V = emitExpr(S->E);
    if (!Error.empty())
      return;
    B.CreateRet(V);
    startDeadBlock();
  }
}

void KernelLowering::emitLoop(const Stmt* S) {
  assert((!S->E || S->E->Ty.isBool()) && !Cur->Loops.count(S->LoopId) &&
         "verified KIR: a bool loop condition and a unique loop id");
  llvm::BasicBlock* Body = newBlock("loop.body");
  llvm::BasicBlock* Step = newBlock("loop.step");
  llvm::BasicBlock* Test = newBlock("loop.test");
  llvm::BasicBlock* Exit = newBlock("loop.exit");
  Cur->Loops[S->LoopId] = {Step, Exit};

  B.CreateBr(S->TestAtEnd ? Body : Test);
  B.SetInsertPoint(Body);
  // A loop inside a work-item checks its accesses at once: going on with a skipped load could
  // keep it from ever ending.
  ++Cur->LoopDepth;
  emitStmt(S->LoopBody);
  branchTo(Step);
  B.SetInsertPoint(Step);
  emitStmt(S->Step);
  llvm::BasicBlock* StepLast = B.GetInsertBlock(); // the step may have blocks of its own
  branchTo(Test);
  llvm::Instruction* StepEnd = StepLast->getTerminator();
  B.SetInsertPoint(Test);
  llvm::Instruction* TestEnd = S->E ? B.CreateCondBr(emitExpr(S->E), Body, Exit) : B.CreateBr(Body);
  if (S->KeepRolled) {
    // The latch is Step's branch (a while loop) or Test's (do-while, or once rotated).
    llvm::Metadata* NoUnroll[] = {llvm::MDString::get(Ctx, "llvm.loop.unroll.disable")};
    llvm::MDNode* Id = newLoopId(Ctx, {llvm::MDNode::get(Ctx, NoUnroll)});
    for (llvm::Instruction* Br : {StepEnd, TestEnd})
      if (Br)
        Br->setMetadata(llvm::LLVMContext::MD_loop, Id);
  }
  --Cur->LoopDepth;
  B.SetInsertPoint(Exit);
  Cur->Loops.erase(S->LoopId);
}

// ---------------------------------------------------------------------------------------------
// Expressions

llvm::Value* KernelLowering::emitExpr(const Expr* E) {
  assert(E && "verified KIR: no null expression");
  if (!Error.empty())
    return poisonOf(E->Ty);
  switch (E->K) {
  case Expr::Kind::Const:
    if (E->Ty.isFloat())
      return llvm::ConstantFP::get(valueType(Ctx, E->Ty), E->FloatValue);
    if (E->Ty.isBool())
      return B.getInt1(E->IntValue != 0);
    return llvm::ConstantInt::get(valueType(Ctx, E->Ty), E->IntValue);
  case Expr::Kind::Local: {
    assert(E->Index < Cur->Locals.size() && E->Ty == Cur->KF->Locals[E->Index].Ty &&
           "verified KIR: local reads");
    if (Cur->Uniformity)
      if (const Expr* R = Cur->Uniformity->rematerialization(E->Index))
        return emitExpr(R);
    llvm::Value* V = loadLocal(E->Index);
    return LaunderLocals ? Target.opaqueCopy(B, V) : V;
  }
  case Expr::Kind::Param:
    assert(E->Index < Cur->Args.size() && Cur->Args[E->Index].Scalar &&
           (E->Ty.isScalar() || E->Ty.isHostValue()) && E->Ty == Cur->KF->Params[E->Index].Ty &&
           "verified KIR: scalar parameter reads");
    return Cur->Args[E->Index].Scalar;
  case Expr::Kind::Unary:
    return emitUnary(E);
  case Expr::Kind::Binary:
    return emitBinary(E);
  case Expr::Kind::Cast:
    return emitCast(E);
  case Expr::Kind::Select:
    return emitSelect(E);
  case Expr::Kind::Load:
    return emitLoad(E);
  case Expr::Kind::Store:
    return emitStore(E);
  case Expr::Kind::Assign: {
    assert(E->Ops.size() == 1 && E->Index < Cur->Locals.size() &&
           E->Ops[0]->Ty == Cur->KF->Locals[E->Index].Ty && E->Ty == E->Ops[0]->Ty &&
           "verified KIR: assignment typing");
    llvm::Value* V = emitExpr(E->Ops[0]);
    storeLocal(E->Index, V);
    return V;
  }
  case Expr::Kind::Seq: {
    llvm::Value* Last = nullptr;
    for (const Expr* Op : E->Ops)
      Last = emitExpr(Op);
    return Last;
  }
  case Expr::Kind::Call:
    return emitCallExpr(E);
  case Expr::Kind::Intrinsic:
    return emitIntrinsic(E);
  case Expr::Kind::SharedRef:
  case Expr::Kind::PrivateRef:
    llvm_unreachable("verified KIR: an array is only the array operand of an access");
  case Expr::Kind::Atomic:
    return emitAtomic(E);
  case Expr::Kind::Field:
    return emitField(E);
  case Expr::Kind::Dispatch:
    return emitDispatch(E);
  case Expr::Kind::Wave:
    return emitWave(E);
  case Expr::Kind::Tile:
    llvm_unreachable("the pipeline's tile-lowering pass leaves no tile op");
  case Expr::Kind::RayQuery:
    llvm_unreachable("the pipeline's ray-query pass leaves no ray query op");
  case Expr::Kind::Host:
    return emitHost(E);
  case Expr::Kind::StringConst:
    return emitStringConst(E);
  case Expr::Kind::Global:
    return B.CreateLoad(valueType(Ctx, E->Ty), global(E->Index));
  case Expr::Kind::GlobalAssign: {
    llvm::Value* V = emitExpr(E->Ops[0]);
    B.CreateStore(V, global(E->Index));
    return V;
  }
  }
  llvm_unreachable("verified KIR: unknown expression kind");
}

llvm::Value* KernelLowering::emitUnary(const Expr* E) {
  assert(E->Ops.size() == 1 && E->Ops[0]->Ty == E->Ty && "verified KIR: unary typing");
  llvm::Value* V = emitExpr(E->Ops[0]);
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
  llvm_unreachable("verified KIR: a unary operator on a type that lacks it");
}

static bool isComparison(BinaryOp Op) {
  return Op == BinaryOp::Eq || Op == BinaryOp::Ne || Op == BinaryOp::Lt || Op == BinaryOp::Le ||
         Op == BinaryOp::Gt || Op == BinaryOp::Ge;
}

llvm::Value* KernelLowering::emitBinary(const Expr* E) {
  assert(E->Ops.size() == 2 && "verified KIR: binary operand count");
  if (E->BOp == BinaryOp::LogicalAnd || E->BOp == BinaryOp::LogicalOr)
    return emitLogical(E);
  Type OpTy = E->Ops[0]->Ty;
  assert(OpTy == E->Ops[1]->Ty && OpTy.isScalar() &&
         (isComparison(E->BOp) ? E->Ty.isBool() : E->Ty == OpTy) && "verified KIR: binary typing");
  // Left to right.
  llvm::Value* L = emitExpr(E->Ops[0]);
  llvm::Value* R = emitExpr(E->Ops[1]);
  if (isComparison(E->BOp))
    return emitCompare(E, L, R);
  bool F = OpTy.isFloat(), I = OpTy.isInteger();
  switch (E->BOp) {
  case BinaryOp::Add:
    if (F)
      return B.CreateFAdd(L, R);
    if (I)
      return B.CreateAdd(L, R, "", /*HasNUW=*/E->NoWrap);
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
      return B.CreateMul(L, R, "", /*HasNUW=*/E->NoWrap);
    break;
  // Integer / % << >> >>> arrive as DivTrunc, RemTrunc, ShiftLeft, ShiftRight (the polyfill).
  case BinaryOp::Div:
    if (F)
      return B.CreateFDiv(L, R);
    break;
  case BinaryOp::Rem:
    if (F)
      return B.CreateFRem(L, R);
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
  llvm_unreachable("verified KIR: a binary operator on a type that lacks it");
}

llvm::Value* KernelLowering::emitCompare(const Expr* E, llvm::Value* L, llvm::Value* R) {
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

llvm::Value* KernelLowering::emitLogical(const Expr* E) {
  assert(E->Ty.isBool() && E->Ops[0]->Ty.isBool() && E->Ops[1]->Ty.isBool() &&
         "verified KIR: logical operators on bool");
  bool IsAnd = E->BOp == BinaryOp::LogicalAnd;
  llvm::Value* L = emitExpr(E->Ops[0]);
  llvm::BasicBlock* LEnd = B.GetInsertBlock();
  llvm::BasicBlock* Rhs = newBlock(IsAnd ? "and.rhs" : "or.rhs");
  llvm::BasicBlock* Merge = newBlock(IsAnd ? "and.end" : "or.end");
  if (IsAnd)
    B.CreateCondBr(L, Rhs, Merge);
  else
    B.CreateCondBr(L, Merge, Rhs);
  B.SetInsertPoint(Rhs);
  llvm::Value* R = emitExpr(E->Ops[1]);
  llvm::BasicBlock* REnd = B.GetInsertBlock();
  B.CreateBr(Merge);
  B.SetInsertPoint(Merge);
  llvm::PHINode* Phi = B.CreatePHI(B.getInt1Ty(), 2);
  Phi->addIncoming(B.getInt1(!IsAnd), LEnd);
  Phi->addIncoming(R, REnd);
  return Phi;
}

llvm::Value* KernelLowering::emitCast(const Expr* E) {
  if (!checkOps(E, 1))
    return poisonOf(E->Ty);
  Type From = E->Ops[0]->Ty, To = E->Ty;
  if (!From.isScalar() || !To.isScalar())
    return fail(E, "cast between non-scalar types");
  llvm::Value* V = emitExpr(E->Ops[0]);
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

llvm::Value* KernelLowering::emitSelect(const Expr* E) {
  assert(E->Ops.size() == 3 && E->Ops[0]->Ty.isBool() && E->Ops[1]->Ty == E->Ty &&
         E->Ops[2]->Ty == E->Ty && "verified KIR: select typing");
  llvm::Value* C = emitExpr(E->Ops[0]);
  llvm::BasicBlock* Then = newBlock("sel.then");
  llvm::BasicBlock* Else = newBlock("sel.else");
  llvm::BasicBlock* Merge = newBlock("sel.end");
  B.CreateCondBr(C, Then, Else);
  B.SetInsertPoint(Then); // only the chosen arm is evaluated
  llvm::Value* TV = emitExpr(E->Ops[1]);
  llvm::BasicBlock* TEnd = B.GetInsertBlock();
  B.CreateBr(Merge);
  B.SetInsertPoint(Else);
  llvm::Value* EV = emitExpr(E->Ops[2]);
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
  if (E->Ty.isHeapArray())
    return hostArrayOf(E);
  if (E->K == Expr::Kind::SharedRef) {
    assert(E->Index < Cur->Shared.size() && "verified KIR: a shared array of this kernel");
    return &Cur->Shared[E->Index];
  }
  if (E->K == Expr::Kind::PrivateRef) {
    assert(E->Index < Cur->Private.size() && "verified KIR: a private array of this function");
    return &Cur->Private[E->Index];
  }
  assert(E->K == Expr::Kind::Param && E->Ty.isBuffer() && E->Index < Cur->Args.size() &&
         !Cur->Args[E->Index].Scalar && "verified KIR: a buffer parameter or a shared array");
  return &Cur->Args[E->Index].Buffer;
}

llvm::Value* KernelLowering::emitLoad(const Expr* E) {
  assert(E->Ops.size() == 2 && "verified KIR: load operands");
  const BufferValue* Buf = bufferOf(E->Ops[0]);
  Type Elem = Type::scalar(E->Ops[0]->Ty.Elem);
  assert(E->Ty == Elem && "verified KIR: load typing");
  llvm::Value* InRange = nullptr;
  llvm::Value* Addr = elementAddress(*Buf, E->Ops[1], Elem, &InRange, /*ForLoad=*/true);
  // A deferred bounds check (KernelBounds.cpp): out of range, the load is skipped and gives 0.
  llvm::BasicBlock* Skip = InRange ? B.GetInsertBlock() : nullptr;
  llvm::BasicBlock* Merge = nullptr;
  if (InRange) {
    llvm::BasicBlock* Do = newBlock("load.in.range");
    Merge = newBlock("load.done");
    B.CreateCondBr(InRange, Do, Merge);
    B.SetInsertPoint(Do);
  }
  llvm::LoadInst* V = B.CreateLoad(memoryType(Ctx, Elem), Addr);
  // A buffer the kernel only reads does not change while it runs (the scheduler orders streams
  // that share a buffer by what their commands do to it): NVPTX then reads it through the
  // non-coherent cache (ld.global.nc), and LLVM may hoist the load out of loops.
  const kir::Function& KF = *Cur->KF;
  if (KF.IsKernel && E->Ops[0]->K == Expr::Kind::Param &&
      E->Ops[0]->Index < KF.ParamAccess.size() &&
      KF.ParamAccess[E->Ops[0]->Index] == bundle::Access::Read)
    V->setMetadata(llvm::LLVMContext::MD_invariant_load, llvm::MDNode::get(Ctx, {}));
  llvm::Value* Result = V;
  if (Merge) {
    llvm::BasicBlock* Loaded = B.GetInsertBlock();
    B.CreateBr(Merge);
    B.SetInsertPoint(Merge);
    llvm::PHINode* P = B.CreatePHI(V->getType(), 2);
    P->addIncoming(V, Loaded);
    P->addIncoming(llvm::Constant::getNullValue(V->getType()), Skip);
    Result = P;
  }
  if (Elem.isBool()) // bool in memory is a byte; any non-zero byte reads as true
    return B.CreateICmpNE(Result, B.getInt8(0));
  return Result;
}

llvm::Value* KernelLowering::emitStore(const Expr* E) {
  assert(E->Ops.size() == 3 && "verified KIR: store operands");
  const BufferValue* Buf = bufferOf(E->Ops[0]);
  Type Elem = Type::scalar(E->Ops[0]->Ty.Elem);
  assert(E->Ty == Elem && E->Ops[2]->Ty == Elem && "verified KIR: store typing");
  // Left to right: the index, then the value; the bounds check happens before the value is
  // computed only if the index comes first, which it does.
  llvm::Value* InRange = nullptr;
  llvm::Value* Addr = elementAddress(*Buf, E->Ops[1], Elem, &InRange);
  llvm::Value* V = emitExpr(E->Ops[2]);
  llvm::Value* Mem = Elem.isBool() ? B.CreateZExt(V, B.getInt8Ty()) : V;
  if (!InRange) {
    B.CreateStore(Mem, Addr);
    return V;
  }
  // A deferred bounds check (KernelBounds.cpp): out of range, the store is skipped.
  llvm::BasicBlock* Do = newBlock("store.in.range");
  llvm::BasicBlock* Done = newBlock("store.done");
  B.CreateCondBr(InRange, Do, Done);
  B.SetInsertPoint(Do);
  B.CreateStore(Mem, Addr);
  B.CreateBr(Done);
  B.SetInsertPoint(Done);
  return V;
}

llvm::Value* KernelLowering::emitCallExpr(const Expr* E) {
  std::vector<const Expr*> ArgExprs(E->Ops.begin(), E->Ops.end());
  std::vector<llvm::Value*> Args;
  if (!emitCallArgs(E, E->Index, ArgExprs, Args))
    return poisonOf(E->Ty);
  return emitCall(E, E->Index, Args);
}

bool KernelLowering::emitCallArgs(const Expr* E, uint32_t Callee,
                                  llvm::ArrayRef<const Expr*> ArgExprs,
                                  std::vector<llvm::Value*>& Args) {
  // Verified KIR calls helpers available wherever the caller is, with arguments of the
  // parameters' types.
  if (!callable(E, Callee))
    return false;
  assert(ArgExprs.size() == KM.Functions[Callee]->Params.size() &&
         E->Ty == KM.Functions[Callee]->ReturnType && "verified KIR: call signature");
  Args = Cur->WorkItem.Values;
  for (size_t I = 0; I < ArgExprs.size(); ++I) {
    const Expr* A = ArgExprs[I];
    assert(A->Ty == KM.Functions[Callee]->Params[I].Ty && "verified KIR: argument types");
    if (A->Ty.isPod()) { // the caller's pointer to the POD's bytes
      assert(A->K == Expr::Kind::Param && Cur->Args[A->Index].Scalar &&
             "verified KIR: a POD argument is a POD parameter");
      llvm::Value* P = Cur->Args[A->Index].Scalar;
      Args.push_back(B.CreateAddrSpaceCast(P, llvm::PointerType::get(Ctx, 0)));
      continue;
    }
    if (!A->Ty.isBuffer()) {
      Args.push_back(emitExpr(A));
      continue;
    }
    const BufferValue* Buf = bufferOf(A);
    Args.push_back(Buf->Ptr);
    Args.push_back(Buf->Length);
    if (Opts.CheckBounds)
      Args.push_back(Buf->ParamIndex);
  }
  assert(Args.size() == Helpers[Callee]->arg_size() && "hidden arguments do not match");
  return Error.empty();
}

bool KernelLowering::callable(const Expr* E, uint32_t Callee) {
  assert(Callee < KM.Functions.size() && "verified KIR: calls of existing functions");
  if (Helpers[Callee])
    return true;
  // Valid KIR this target cannot call: a helper it does not declare (one with a barrier or,
  // in the portable tier, wave ops) that the pipeline could not inline, e.g. through a function
  // value.
  const kir::Function& F = *KM.Functions[Callee];
  unsupported(E, "'" + F.Name + "' cannot be called here: " +
                     (F.HasBarrier ? "a helper with a barrier" : "a helper with wave operations") +
                     " is only inlined into its callers on this target");
  return false;
}

llvm::Value* KernelLowering::emitCall(const Expr* E, uint32_t Callee,
                                      llvm::ArrayRef<llvm::Value*> Args) {
  llvm::CallInst* Call = B.CreateCall(Helpers[Callee], Args);
  if (KM.IsHost) // an exception the callee did not catch goes on unwinding here
    checkPending();
  if (Opts.CheckBounds) {
    // A bounds failure inside the helper ends this function too.
    llvm::BasicBlock* Ok = newBlock("call.ok");
    B.CreateCondBr(Target.emitHasFailed(B, Cur->WorkItem), Cur->FailBlock, Ok);
    B.SetInsertPoint(Ok);
  }
  return E->Ty.isVoid() ? nullptr : Call;
}

llvm::Value* KernelLowering::emitField(const Expr* E) {
  assert(E->Ops.size() == 1 && "verified KIR: a field read has one operand");
  const Expr* P = E->Ops[0];
  assert(P->K == Expr::Kind::Param && P->Ty.isPod() && Cur->Args[P->Index].Scalar &&
         P->Ty.PodIndex < KM.Pods.size() && "verified KIR: a field of a POD parameter");
  const kir::PodType& Pod = KM.Pods[P->Ty.PodIndex];
  assert(E->Index < Pod.Fields.size() && "verified KIR: field indices");
  const kir::PodField& F = Pod.Fields[E->Index];
  Type FT = Type::scalar(F.Type);
  assert(E->Ty == FT && "verified KIR: field typing");
  llvm::Value* Addr =
      B.CreateConstInBoundsGEP1_64(B.getInt8Ty(), Cur->Args[P->Index].Scalar, F.Offset);
  llvm::LoadInst* V = B.CreateLoad(memoryType(Ctx, FT), Addr);
  V->setAlignment(llvm::Align(bundle::scalarTypeSize(F.Type)));
  if (FT.isBool())
    return B.CreateICmpNE(V, B.getInt8(0));
  return V;
}

llvm::Value* KernelLowering::emitDispatch(const Expr* E) {
  assert(!E->Ops.empty() && E->Ops[0]->Ty == Type::scalar(kir::ScalarType::U32) &&
         "verified KIR: a uint32 dispatch tag");
  llvm::Value* Tag = emitExpr(E->Ops[0]);
  std::vector<const Expr*> ArgExprs(E->Ops.begin() + 1, E->Ops.end());
  std::vector<llvm::Value*> Args;
  // Arguments are evaluated once, before the call, whichever function the tag picks.
  if (!E->Targets.empty() && !emitCallArgs(E, E->Targets[0], ArgExprs, Args))
    return poisonOf(E->Ty);
  if (E->Targets.empty())
    for (const Expr* A : ArgExprs)
      if (!A->Ty.isArray() && !A->Ty.isPod())
        emitExpr(A);
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
    if (!callable(E, Callee))
      return poisonOf(E->Ty);
    // Verified KIR: every target takes the same arguments and returns E->Ty.
    assert(Helpers[Callee]->getFunctionType() == Helpers[E->Targets[0]]->getFunctionType() &&
           "dispatch targets of one type");
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

bool KernelLowering::emitTma(const Expr* E) {
  // Barriers and boxes lie in their arrays by construction (kir::TmaBlockCopies): plain
  // addresses, a box's the first element's before any swizzle (the accelerator applies it).
  auto At = [&](size_t Array, size_t Index) {
    llvm::Type* Elem = memoryType(Ctx, Type::scalar(E->Ops[Array]->Ty.Elem));
    llvm::Value* I = B.CreateZExt(emitExpr(E->Ops[Index]), B.getInt64Ty());
    return B.CreateInBoundsGEP(Elem, bufferOf(E->Ops[Array])->Ptr, I);
  };
  switch (E->IOp) {
  case IntrinsicOp::MbarrierInit:
    return Target.emitMbarrierInit(B, At(0, 1), emitExpr(E->Ops[2]));
  case IntrinsicOp::TmaLoad: {
    if (E->Dim >= Cur->TensorMaps.size())
      return false;
    llvm::Value* Dst = At(0, 1);
    llvm::Value* Bar = At(2, 3);
    llvm::Value* Issue = emitExpr(E->Ops[4]);
    std::vector<llvm::Value*> Coords;
    for (size_t I = 5; I < E->Ops.size(); ++I)
      Coords.push_back(emitExpr(E->Ops[I]));
    return Target.emitTmaLoad(B, Dst, Cur->TensorMaps[E->Dim], Coords, Bar, E->Index, Issue);
  }
  case IntrinsicOp::MbarrierArrive: {
    llvm::Value* Bar = At(0, 1);
    return Target.emitMbarrierArrive(B, Bar, emitExpr(E->Ops[2]), /*PerWave=*/E->Dim == 1);
  }
  case IntrinsicOp::MbarrierWait:
    return Target.emitMbarrierWait(B, At(0, 1), emitExpr(E->Ops[2]));
  default:
    return false;
  }
}

llvm::Value* KernelLowering::emitRawPrimitive(const Expr* E) {
  // The verifier checks the raw primitives' operand types (Kir.h).
  IntrinsicOp Op = E->IOp;
  Type To = E->Ty;
  llvm::Value* A = emitExpr(E->Ops[0]);
  llvm::Type* T = valueType(Ctx, To);
  if (Op == IntrinsicOp::FToIUnchecked) // in range by construction
    return To.isSigned() ? B.CreateFPToSI(A, T) : B.CreateFPToUI(A, T);
  if (Op == IntrinsicOp::Bitcast)
    return B.CreateBitCast(A, T);
  llvm::Value* V = emitExpr(E->Ops[1]);
  bool S = To.isSigned();
  switch (Op) {
  case IntrinsicOp::MinNum:
  case IntrinsicOp::MaxNum:
    return Target.emitMinNum(B, A, V, Op == IntrinsicOp::MaxNum);
  case IntrinsicOp::DivTrunc:
    return S ? B.CreateSDiv(A, V) : B.CreateUDiv(A, V);
  case IntrinsicOp::RemTrunc:
    return S ? B.CreateSRem(A, V) : B.CreateURem(A, V);
  case IntrinsicOp::ShiftLeft:
    return B.CreateShl(A, V);
  default:
    return S ? B.CreateAShr(A, V) : B.CreateLShr(A, V);
  }
}

llvm::Value* KernelLowering::emitIntrinsic(const Expr* E) {
  IntrinsicOp Op = E->IOp;
  switch (Op) {
  case IntrinsicOp::LocalId:
  case IntrinsicOp::GlobalId:
  case IntrinsicOp::GroupId:
  case IntrinsicOp::GroupDim:
  case IntrinsicOp::GridDim:
  case IntrinsicOp::GlobalSize: {
    assert(E->Dim <= 2 && E->Ops.empty() && E->Ty == Type::scalar(kir::ScalarType::U32) &&
           "verified KIR: geometry builtins");
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
  case IntrinsicOp::BufferLength:
    assert(E->Ops.size() == 1 && E->Ty == Type::scalar(kir::ScalarType::U64) &&
           "verified KIR: buffer length");
    return bufferOf(E->Ops[0])->Length;
  case IntrinsicOp::DivTrunc:
  case IntrinsicOp::RemTrunc:
  case IntrinsicOp::ShiftLeft:
  case IntrinsicOp::ShiftRight:
  case IntrinsicOp::FToIUnchecked:
  case IntrinsicOp::Bitcast:
  case IntrinsicOp::MinNum:
  case IntrinsicOp::MaxNum:
    return emitRawPrimitive(E);
  case IntrinsicOp::MmaSync: {
    std::vector<llvm::Value*> Vals;
    for (const Expr* A : E->Ops)
      Vals.push_back(emitExpr(A));
    if (llvm::Value* V = Target.emitMmaSync(B, Vals, E->Dim, kir::MmaInput(E->Index)))
      return V;
    return unsupported(E, "the target has no mma.sync (kir::TileLowering's native form)");
  }
  case IntrinsicOp::AsyncCopy:
    Target.emitAsyncCopies(B, {asyncCopyArgs(E)});
    return nullptr;
  case IntrinsicOp::TileDot: {
    // Tile scratch, in range by construction (kir::TileLowering): plain addresses.
    auto At = [&](size_t Array, llvm::Type* Elem) {
      llvm::Value* Index = B.CreateZExt(emitExpr(E->Ops[Array + 1]), B.getInt64Ty());
      return B.CreateInBoundsGEP(Elem, bufferOf(E->Ops[Array])->Ptr, Index);
    };
    const kir::MmaInput In = kir::MmaInput(E->Index);
    const bool Bytes = In == kir::MmaInput::S8 || In == kir::MmaInput::U8;
    llvm::Type* InElem = Bytes                      ? B.getInt8Ty()
                         : In == kir::MmaInput::F32 ? B.getFloatTy()
                                                    : B.getInt16Ty();
    llvm::Value* C = At(0, Bytes ? B.getInt32Ty() : B.getFloatTy());
    llvm::Value* A = At(2, InElem);
    llvm::Value* Bm = At(4, InElem);
    if (Target.emitTileDot(B, C, A, Bm, unsigned(E->Ops[6]->IntValue),
                           unsigned(E->Ops[7]->IntValue), unsigned(E->Ops[8]->IntValue), In))
      return nullptr;
    return unsupported(E, "the target has no dot products of these inputs (kir::TileLowering's "
                          "CPU tier)");
  }
  case IntrinsicOp::WgmmaReady: {
    // A K-major operand (Dim: its depth) is checked where it lies: the first row of a block, so
    // the swizzle leaves it and only the array's atoms move it.
    const BufferValue& Buf = *bufferOf(E->Ops[0]);
    llvm::Type* Elem = memoryType(Ctx, Type::scalar(E->Ops[0]->Ty.Elem));
    llvm::Value* Index = B.CreateZExt(emitExpr(E->Ops[1]), B.getInt64Ty());
    llvm::Value* At =
        E->Dim ? elementPointer(Buf, Elem, Index) : B.CreateInBoundsGEP(Elem, Buf.Ptr, Index);
    if (llvm::Value* V = Target.emitWgmmaReady(B, Buf.Ptr, At, 1024u * Buf.RowAtoms, E->Dim))
      return V;
    return unsupported(E, "the target has no wgmma (kir::TileLowering's sm_90a form)");
  }
  case IntrinsicOp::Wgmma: {
    // b's descriptor takes the tile's address before the swizzle: the tensor cores apply it.
    const BufferValue& Buf = *bufferOf(E->Ops[0]);
    llvm::Type* Elem = memoryType(Ctx, Type::scalar(E->Ops[0]->Ty.Elem));
    llvm::Value* At =
        B.CreateInBoundsGEP(Elem, Buf.Ptr, B.CreateZExt(emitExpr(E->Ops[1]), B.getInt64Ty()));
    // a from shared memory: where its block starts (its first row: the swizzle leaves it, the
    // array's atoms may move it), read through a descriptor; else four registers.
    const bool SharedA = E->Ops[2]->K == Expr::Kind::SharedRef;
    const size_t FirstAcc = SharedA ? 4 : 6;
    std::vector<llvm::Value*> A, C;
    uint32_t ABlock = 0;
    if (SharedA) {
      const BufferValue& ABuf = *bufferOf(E->Ops[2]);
      A.push_back(elementPointer(ABuf, Elem, B.CreateZExt(emitExpr(E->Ops[3]), B.getInt64Ty())));
      ABlock = 1024u * ABuf.RowAtoms;
    } else {
      for (size_t I = 2; I < 6; ++I)
        A.push_back(emitExpr(E->Ops[I]));
    }
    for (size_t I = FirstAcc; I < E->Ops.size(); ++I)
      C.push_back(emitExpr(E->Ops[I]));
    if (!Target.emitWgmma(B, At, A, ABlock, C, kir::MmaInput(E->Index)))
      return unsupported(E, "the target has no wgmma (kir::TileLowering's sm_90a form)");
    for (size_t I = FirstAcc; I < E->Ops.size(); ++I)
      B.CreateStore(C[I - FirstAcc], localAddress(E->Ops[I]->Index));
    return nullptr;
  }
  case IntrinsicOp::WgmmaWait: {
    std::vector<llvm::Value*> C;
    for (const Expr* O : E->Ops)
      C.push_back(emitExpr(O));
    if (!Target.emitWgmmaWait(B, C, E->Dim, /*Commit=*/E->Index == 0))
      return unsupported(E, "the target has no wgmma (kir::TileLowering's sm_90a form)");
    for (size_t I = 0; I < E->Ops.size(); ++I)
      B.CreateStore(C[I], localAddress(E->Ops[I]->Index));
    return nullptr;
  }
  case IntrinsicOp::WgmmaCommit:
    if (!Target.emitWgmmaCommit(B))
      return unsupported(E, "the target has no wgmma (kir::TileLowering's sm_90a form)");
    return nullptr;
  case IntrinsicOp::WgmmaFence:
    if (!Target.emitWgmmaFence(B))
      return unsupported(E, "the target has no wgmma (kir::TileLowering's sm_90a form)");
    return nullptr;
  case IntrinsicOp::ProxyFence:
    if (!Target.emitProxyFence(B))
      return unsupported(E, "the target has no asynchronous proxy (kir::TileLowering's sm_90a "
                            "form)");
    return nullptr;
  case IntrinsicOp::MbarrierInit:
  case IntrinsicOp::TmaLoad:
  case IntrinsicOp::MbarrierArrive:
  case IntrinsicOp::MbarrierWait:
    if (!emitTma(E))
      return unsupported(E, "the target has no tensor memory accelerator (kir::TmaBlockCopies)");
    return nullptr;
  case IntrinsicOp::Supports: // LoweringTarget::capabilities answers every one on LLVM targets
    return unsupported(E, "Device.supports was not folded for this target");
  case IntrinsicOp::Prefetch: {
    // The elements [first, first + count) within the buffer's length, as bytes from its start.
    const BufferValue& Buf = *bufferOf(E->Ops[0]);
    llvm::Type* Elem = memoryType(Ctx, Type::scalar(E->Ops[0]->Ty.Elem));
    auto Wide = [&](const Expr* O) {
      llvm::Value* V = emitExpr(O);
      return O->Ty.isSigned() ? B.CreateSExt(V, B.getInt64Ty()) : B.CreateZExt(V, B.getInt64Ty());
    };
    llvm::Value* Length = B.CreateZExtOrTrunc(Buf.Length, B.getInt64Ty());
    llvm::Value* First = B.CreateBinaryIntrinsic(llvm::Intrinsic::umin, Wide(E->Ops[1]), Length);
    llvm::Value* End =
        B.CreateBinaryIntrinsic(llvm::Intrinsic::umin, B.CreateAdd(First, Wide(E->Ops[2])), Length);
    const uint64_t Size = LM.getDataLayout().getTypeStoreSize(Elem);
    Target.emitPrefetch(B, B.CreateGEP(Elem, Buf.Ptr, First),
                        B.CreateMul(B.CreateSub(End, First), B.getInt64(Size)), E->Dim == 1);
    return nullptr;
  }
  case IntrinsicOp::StoreWords: {
    // {buffer, chunk, words}: the buffer's elements chunk * Count .. as one aligned vector store
    // (allocations are aligned far beyond 16 bytes). The shared form is the SPIR-V emitter's.
    if (E->Ops[0]->K != Expr::Kind::Param)
      return unsupported(E, "words stored to a shared array (the SPIR-V emitter's staged copies)");
    const BufferValue& Buf = *bufferOf(E->Ops[0]);
    const unsigned Count = E->Index;
    // A chunk `c + k` whose add cannot wrap (kir::TileLowering's pairs) keeps k out of the
    // zero extension, so that the stores at constant distances share one address register.
    llvm::Value* Chunk = emitExpr(E->Ops[1]);
    uint64_t Addend = 0;
    if (auto* Add = llvm::dyn_cast<llvm::BinaryOperator>(Chunk);
        Add && Add->getOpcode() == llvm::Instruction::Add && Add->hasNoUnsignedWrap())
      if (auto* K = llvm::dyn_cast<llvm::ConstantInt>(Add->getOperand(1))) {
        Addend = K->getZExtValue();
        Chunk = Add->getOperand(0);
      }
    llvm::Value* First =
        B.CreateAdd(B.CreateMul(B.CreateZExt(Chunk, B.getInt64Ty()), B.getInt64(Count)),
                    B.getInt64(Addend * Count));
    llvm::Value* Words = llvm::PoisonValue::get(llvm::FixedVectorType::get(B.getInt32Ty(), Count));
    for (unsigned W = 0; W < Count; ++W)
      Words = B.CreateInsertElement(Words, emitExpr(E->Ops[2 + W]), uint64_t(W));
    llvm::Type* Elem = memoryType(Ctx, Type::scalar(E->Ops[0]->Ty.Elem));
    B.CreateAlignedStore(Words, runPointer(Buf, Elem, First, Count), llvm::Align(4 * Count));
    return nullptr;
  }
  case IntrinsicOp::AsyncCommit:
    Target.emitAsyncCommit(B);
    return nullptr;
  case IntrinsicOp::AsyncWait:
    Target.emitAsyncWait(B, E->Index);
    return nullptr;
  case IntrinsicOp::LdMatrix: {
    llvm::Value* Addr =
        elementAddress(*bufferOf(E->Ops[0]), E->Ops[1], Type::scalar(E->Ops[0]->Ty.Elem));
    if (llvm::Value* V = Target.emitLdMatrix(B, Addr, E->Index & 7, E->Index & 8, E->Dim))
      return V;
    return unsupported(E, "the target has no ldmatrix (kir::TileLowering's native form)");
  }
  default:
    break;
  }
  assert(E->Ops.size() == kir::mathOperandCount(Op) && "verified KIR: math operand count");
  std::vector<llvm::Value*> Vals;
  for (const Expr* A : E->Ops) {
    assert(A->Ty == E->Ty && "verified KIR: math operands of the result's type");
    Vals.push_back(emitExpr(A));
  }
  llvm::Value* V = Target.emitMath(B, Op, Vals, E->Ty);
  if (!V) // a real limit of the target (e.g. no libm function for the type)
    return unsupported(E, std::string("the target cannot lower '") + kir::intrinsicName(Op) +
                              "' on " + E->Ty.str());
  return V;
}

} // namespace cajeta::lowering
