// The CPU target: the CajetaCpuKernelFn entry, its parameter loads, shared arrays on the stack,
// the workgroup and work-item loops (marked parallel so that the x loops vectorize), the
// work-item loops of barrier fission, and --check-bounds reports.
#include "compiler/lowering/llvm/CpuTarget.h"
#include "compiler/lowering/llvm/LoopIds.h"

#include "compiler/lowering/llvm/CpuAmxDot.h"
#include "compiler/lowering/llvm/CpuBf16Dot.h"
#include "compiler/lowering/llvm/CpuF32Dot.h"
#include "compiler/lowering/llvm/CpuInt8Dot.h"

#include "compiler/lowering/llvm/BoundsCheckVersioning.h"

#include <llvm/IR/InlineAsm.h>
#include <llvm/IR/IntrinsicsX86.h>
#include <llvm/MC/MCSubtargetInfo.h>
#include <llvm/Support/MathExtras.h>

#include "cajeta/xpu/cajeta_xpu.h"

#include "bundle/CpuKernelAbi.h"
#include "compiler/kir/GroupShapeIndependence.h"
#include "compiler/kir/transforms/WaveSteps.h"
#include "compiler/lowering/llvm/KernelLowering.h"

#include <llvm/IR/Module.h>
#include <llvm/Target/TargetMachine.h>

#include <cstddef>

namespace cajeta::lowering {
namespace {

// The LLVM view of CajetaCpuLaunch: {[3 x i32] GridDim, [3 x i32] BlockDim, i32 Failed,
// i32 FailedParam, i64 FailedIndex, i64 FailedLength, i32 DynamicSharedBytes, i32 Reserved}.
enum LaunchField : unsigned {
  GridDimField,
  BlockDimField,
  FailedField,
  FailedParamField,
  FailedIndexField,
  FailedLengthField,
  DynamicSharedBytesField
};
static_assert(offsetof(CajetaCpuLaunch, BlockDim) == 12);
static_assert(offsetof(CajetaCpuLaunch, Failed) == 24);
static_assert(offsetof(CajetaCpuLaunch, FailedParam) == 28);
static_assert(offsetof(CajetaCpuLaunch, FailedIndex) == 32);
static_assert(offsetof(CajetaCpuLaunch, FailedLength) == 40);
static_assert(offsetof(CajetaCpuLaunch, DynamicSharedBytes) == 48);
static_assert(sizeof(CajetaCpuLaunch) == 56);
static_assert(sizeof(CajetaCpuArg) == 16 && offsetof(CajetaCpuArg, Length) == 8);

// WorkItemContext::Values on the CPU: the work-item's coordinates, the launch shape and the
// launch record, in this order. Helpers receive the same values as hidden arguments.
enum WorkItemSlot : unsigned {
  LocalSlot = 0,    // lx, ly, lz
  GroupSlot = 3,    // gx, gy, gz
  GroupDimSlot = 6, // BlockDim x, y, z
  GridDimSlot = 9,  // GridDim x, y, z
  LaunchSlot = 12,  // CajetaCpuLaunch*
  SlotCount = 13,
};

class CpuTarget final : public LoweringTarget {
public:
  CpuTarget(llvm::TargetMachine& TM, const CpuTargetOptions& O) : TM(TM), Opts(O) {}

  llvm::TargetMachine& targetMachine() override { return TM; }
  bool workgroupRunsOnOneThread() const override { return true; }
  llvm::Value* waveWidth(llvm::IRBuilder<>& B, const WorkItemContext&) override {
    return B.getInt32(Opts.WaveWidth);
  }
  /// A wave is one vector of the work-item loop: kir::WaveSteps, lowered by the fission
  /// (KernelLowering::emitWaveStep).
  ImplTier tierFor(Feature F) const override {
    return F == Feature::WaveOps ? ImplTier::Native : ImplTier::Portable;
  }
  kir::WavePrimitives wavePrimitives() const override {
    return kir::WaveSteps::primitives(Opts.WaveWidth);
  }
  llvm::Value* permuteLanes(llvm::IRBuilder<>& B, llvm::Value* Value, llvm::Value* Index) override {
    // vpermd: LLVM leaves a permute by variable indices to the stack otherwise.
    unsigned Lanes =
        unsigned(llvm::cast<llvm::FixedVectorType>(Value->getType())->getNumElements());
    if (Lanes == 16 && has("+avx512f"))
      return B.CreateIntrinsic(llvm::Intrinsic::x86_avx512_permvar_si_512, {}, {Value, Index});
    if (Lanes == 8 && has("+avx2"))
      return B.CreateIntrinsic(llvm::Intrinsic::x86_avx2_permd, {}, {Value, Index});
    return nullptr;
  }
  std::vector<int8_t> capabilities(ImplTier) const override {
    // The CPU backend's answers (runtime CpuBackend): everything but cooperative matrices,
    // textures and ray query.
    // Cooperative matrices as the device answers (CpuBackend): AVX512-BF16 or AVX512-VNNI on
    // the CPU the payload is built for, whichever tier this program's tiles took.
    std::vector<int8_t> C(CAJETA_XPU_CAP_COUNT, 1);
    C[CAJETA_XPU_CAP_COOPERATIVE_MATRIX] = has("+avx512bf16") || has("+avx512vnni");
    C[CAJETA_XPU_CAP_TEXTURES] = 0;
    C[CAJETA_XPU_CAP_RAY_QUERY] = 0;
    return C;
  }
  kir::TileLoweringConfig tileLowering(ImplTier Chosen) const override {
    // The portable tile; a group's shared arrays live in host memory, so the scratch holds the
    // largest group (1024 work-items) within a 4 MiB budget. A wave's lanes are one thread
    // here, so its first lane runs each tile op as rows of vector instructions.
    kir::TileLoweringConfig C;
    C.MaxWaves = 1024 / Opts.WaveWidth;
    C.SharedBudget = 4u << 20;
    C.OnFirstLane = true;
    // The driver chose the native tier where the program's products are among these.
    C.CpuDotBf16 = Chosen == ImplTier::Native && has("+avx512bf16");
    C.CpuDotInt8 = Chosen == ImplTier::Native && has("+avx512vnni");
    // Float32 products in registers where 512-bit vectors hold RegisterBlockedDot's blocks.
    C.CpuDotF32 = has("+avx512f") && cpuF32DotAllowed();
    return C;
  }
  bool emitTileDot(llvm::IRBuilder<>& B, llvm::Value* C, llvm::Value* A, llvm::Value* Bm,
                   unsigned M, unsigned N, unsigned K, kir::MmaInput In) override {
    if (In == kir::MmaInput::F32)
      emitCpuF32Dot(B, C, A, Bm, M, N, K);
    else if (useAmx(In) && cpuAmxDotFits(M, N, K, In))
      emitCpuAmxDot(B, C, A, Bm, M, N, K, In);
    else if (In == kir::MmaInput::BF16 && has("+avx512bf16"))
      emitCpuBf16Dot(B, C, A, Bm, M, N, K);
    else if ((In == kir::MmaInput::S8 || In == kir::MmaInput::U8) && has("+avx512vnni"))
      emitCpuInt8Dot(B, C, A, Bm, M, N, K, In);
    else
      return false;
    return true;
  }
  /// One prefetch per 64-byte line of [Addr, Addr + Bytes), into every cache level.
  void emitPrefetch(llvm::IRBuilder<>& B, llvm::Value* Addr, llvm::Value* Bytes,
                    bool Write) override;
  /// Whether the product takes AMX's tiles: the target has them for In's inputs, and
  /// CAJETA_CPU_AMX allows them.
  bool useAmx(kir::MmaInput In) const {
    if (!cpuAmxAllowed() || !has("+amx-tile"))
      return false;
    return has(In == kir::MmaInput::BF16 ? "+amx-bf16" : "+amx-int8");
  }
  /// Whether the target machine has Feature ("+avx512bf16"): its subtarget's bits, which a
  /// named CPU implies (the feature string lists only the host's, for --cpu=native).
  bool has(const char* Feature) const { return TM.getMCSubtargetInfo()->checkFeatures(Feature); }

  llvm::Function* emitKernel(llvm::Module& LM, const kir::Function& KF, BodyEmitter EmitBody,
                             std::string& Error) override;

  std::vector<llvm::Type*> helperHiddenParams(llvm::LLVMContext& C) const override {
    std::vector<llvm::Type*> Types(LaunchSlot, llvm::Type::getInt32Ty(C));
    Types.push_back(llvm::PointerType::get(C, 0));
    return Types;
  }

  llvm::Value* coordinate(llvm::IRBuilder<>& B, const WorkItemContext& W, kir::IntrinsicOp Op,
                          unsigned Dim) override;
  void emitBoundsFailure(llvm::IRBuilder<>& B, const WorkItemContext& W, llvm::Value* ParamIndex,
                         llvm::Value* Index, llvm::Value* Length) override;
  llvm::Value* emitHasFailed(llvm::IRBuilder<>& B, const WorkItemContext& W) override;
  bool defersBoundsFailures() const override { return Opts.CheckBounds; }
  BufferValue sharedArray(llvm::IRBuilder<>& B, const WorkItemContext& W, const kir::Function& KF,
                          unsigned Index) override {
    return Index < Shared.size() ? Shared[Index] : BufferValue{};
  }
  void emitWorkItemLoop(llvm::IRBuilder<>& B, const WorkItemContext& Group, RegionEmitter Region,
                        unsigned LaneWidth) override;
  WorkItemContext workItemAt(llvm::IRBuilder<>& B, const WorkItemContext& Group,
                             llvm::Value* ItemIndex) override;

private:
  /// Allocates the kernel's shared arrays in the entry block (reused by each workgroup).
  void allocateShared(llvm::IRBuilder<>& B, const kir::Function& KF, llvm::Value* Launch);
  /// A shared array's length as its bounds checks compare with it: under --check-bounds an
  /// opaque copy marked as a length (BoundsCheckVersioning), so InstCombine cannot narrow the
  /// compares into ones that no longer name a length; else Length itself.
  llvm::Value* checkedLength(llvm::IRBuilder<>& B, llvm::Value* Length, const std::string& Name);
  /// The chunk's work-items as rows of global x, each across the chunk's workgroups of one
  /// (y, z) row (GroupStart: the first group's gx, gy, gz).
  void emitFlatPath(llvm::IRBuilder<>& B, llvm::Function* F, BodyEmitter EmitBody,
                    KernelFrame Frame, llvm::Value* const* Dims, llvm::Value* const* GroupStart,
                    llvm::Value* GroupBegin, llvm::Value* GroupEnd, llvm::Value* Launch,
                    llvm::BasicBlock* Exit);
  llvm::StructType* launchType(llvm::LLVMContext& C) const;
  /// An i1: Launch->Failed != 0 (a relaxed atomic read; other workgroups may be writing it).
  llvm::Value* hasFailed(llvm::IRBuilder<>& B, llvm::Value* Launch) const;
  llvm::Value* launchField(llvm::IRBuilder<>& B, llvm::Value* Launch, unsigned Field,
                           unsigned Element = ~0u) const;

  llvm::TargetMachine& TM;
  CpuTargetOptions Opts;
  std::vector<BufferValue> Shared;     // the kernel being emitted
  llvm::MDNode* AccessGroup = nullptr; // the kernel being emitted: its parallel accesses
};

llvm::StructType* CpuTarget::launchType(llvm::LLVMContext& C) const {
  llvm::Type* I32 = llvm::Type::getInt32Ty(C);
  llvm::Type* I64 = llvm::Type::getInt64Ty(C);
  llvm::Type* Dim3 = llvm::ArrayType::get(I32, 3);
  return llvm::StructType::get(C, {Dim3, Dim3, I32, I32, I64, I64, I32, I32});
}

llvm::Value* CpuTarget::launchField(llvm::IRBuilder<>& B, llvm::Value* Launch, unsigned Field,
                                    unsigned Element) const {
  llvm::StructType* T = launchType(B.getContext());
  if (Element == ~0u)
    return B.CreateStructGEP(T, Launch, Field);
  return B.CreateInBoundsGEP(T, Launch, {B.getInt32(0), B.getInt32(Field), B.getInt32(Element)});
}

/// Marks every plain memory access of the work-item bodies with the access group the x loops
/// declare parallel: between two barriers work-items are independent (a race on shared or global
/// memory there is the program's error), so accesses of different iterations never depend on
/// each other, whatever the buffers alias. Code outside the x loops is in no parallel loop.
void markParallelAccesses(llvm::Function& F, llvm::MDNode* AccessGroup) {
  for (llvm::BasicBlock& BB : F) {
    if (&BB == &F.getEntryBlock())
      continue;
    for (llvm::Instruction& I : BB) {
      if (!I.mayReadOrWriteMemory() || I.isAtomic())
        continue;
      if (llvm::isa<llvm::LoadInst>(I) || llvm::isa<llvm::StoreInst>(I) ||
          llvm::isa<llvm::CallBase>(I))
        I.setMetadata(llvm::LLVMContext::MD_access_group, AccessGroup);
    }
  }
}

/// The loop id of the x loop: parallel accesses, vectorize.
llvm::MDNode* parallelLoopId(llvm::LLVMContext& C, llvm::MDNode* AccessGroup) {
  llvm::Metadata* Parallel[] = {llvm::MDString::get(C, "llvm.loop.parallel_accesses"), AccessGroup};
  llvm::Metadata* Vectorize[] = {llvm::MDString::get(C, "llvm.loop.vectorize.enable"),
                                 llvm::ConstantAsMetadata::get(llvm::ConstantInt::getTrue(C))};
  // A work-item loop runs the group's x extent (32-256 work-items): interleaving vector
  // iterations would leave a 32-wide row to the scalar remainder.
  llvm::Metadata* Interleave[] = {
      llvm::MDString::get(C, "llvm.loop.interleave.count"),
      llvm::ConstantAsMetadata::get(llvm::ConstantInt::get(llvm::Type::getInt32Ty(C), 1))};
  return newLoopId(C, {llvm::MDNode::get(C, Parallel), llvm::MDNode::get(C, Vectorize),
                       llvm::MDNode::get(C, Interleave)});
}

/// The loop id of a loop over a wave's lanes: parallel, one vector of Lanes, never unrolled
/// (fully unrolled, its 16 iterations would leave the loop over waves innermost, and the
/// vectorizer would run that one across waves with gathers).
llvm::MDNode* laneLoopId(llvm::LLVMContext& C, llvm::MDNode* AccessGroup, unsigned Lanes) {
  llvm::Type* I32 = llvm::Type::getInt32Ty(C);
  llvm::Metadata* Parallel[] = {llvm::MDString::get(C, "llvm.loop.parallel_accesses"), AccessGroup};
  llvm::Metadata* Vectorize[] = {llvm::MDString::get(C, "llvm.loop.vectorize.enable"),
                                 llvm::ConstantAsMetadata::get(llvm::ConstantInt::getTrue(C))};
  llvm::Metadata* Width[] = {llvm::MDString::get(C, "llvm.loop.vectorize.width"),
                             llvm::ConstantAsMetadata::get(llvm::ConstantInt::get(I32, Lanes))};
  llvm::Metadata* Interleave[] = {llvm::MDString::get(C, "llvm.loop.interleave.count"),
                                  llvm::ConstantAsMetadata::get(llvm::ConstantInt::get(I32, 1))};
  llvm::Metadata* NoUnroll[] = {llvm::MDString::get(C, "llvm.loop.unroll.disable")};
  return newLoopId(C, {llvm::MDNode::get(C, Parallel), llvm::MDNode::get(C, Vectorize),
                       llvm::MDNode::get(C, Width), llvm::MDNode::get(C, Interleave),
                       llvm::MDNode::get(C, NoUnroll)});
}

/// One counted loop `for (V = 0; V < N; ++V)` in rotated form, entered only when N > 0 (the
/// caller guards). Body is where the loop's code begins; Latch increments and tests.
struct CountedLoop {
  llvm::BasicBlock* Body = nullptr;
  llvm::BasicBlock* Latch = nullptr;
  llvm::PHINode* Var = nullptr;
};

CountedLoop beginLoop(llvm::IRBuilder<>& B, llvm::Function* F, const char* Name,
                      llvm::BasicBlock* Preheader) {
  CountedLoop L;
  llvm::LLVMContext& C = F->getContext();
  L.Body = llvm::BasicBlock::Create(C, std::string(Name) + ".body", F);
  L.Latch = llvm::BasicBlock::Create(C, std::string(Name) + ".latch", F);
  B.CreateBr(L.Body);
  B.SetInsertPoint(L.Body);
  L.Var = B.CreatePHI(B.getInt32Ty(), 2, Name);
  L.Var->addIncoming(B.getInt32(0), Preheader);
  return L;
}

llvm::BranchInst* endLoop(llvm::IRBuilder<>& B, CountedLoop& L, llvm::Value* N,
                          llvm::BasicBlock* Exit) {
  B.SetInsertPoint(L.Latch);
  // V + 1 cannot wrap: V < N <= UINT32_MAX.
  llvm::Value* Next = B.CreateAdd(L.Var, B.getInt32(1), "", /*HasNUW=*/true);
  L.Var->addIncoming(Next, L.Latch);
  return B.CreateCondBr(B.CreateICmpULT(Next, N), L.Body, Exit);
}

llvm::Function* CpuTarget::emitKernel(llvm::Module& LM, const kir::Function& KF,
                                      BodyEmitter EmitBody, std::string& Error) {
  llvm::LLVMContext& C = LM.getContext();
  if (KF.Symbol.empty()) {
    Error = "kernel has no symbol";
    return nullptr;
  }
  if (LM.getNamedValue(KF.Symbol)) {
    Error = "symbol '" + KF.Symbol + "' is defined twice";
    return nullptr;
  }
  llvm::Type* Ptr = llvm::PointerType::get(C, 0);
  llvm::Type* I64 = llvm::Type::getInt64Ty(C);
  auto* FT = llvm::FunctionType::get(llvm::Type::getVoidTy(C), {Ptr, Ptr, I64, I64}, false);
  auto* F = llvm::Function::Create(FT, llvm::GlobalValue::ExternalLinkage, KF.Symbol, LM);
  F->setVisibility(llvm::GlobalValue::DefaultVisibility);
  F->addFnAttr(llvm::Attribute::NoUnwind);
  llvm::Value* Args = F->getArg(0);
  llvm::Value* Launch = F->getArg(1);
  llvm::Value* GroupBegin = F->getArg(2);
  llvm::Value* GroupEnd = F->getArg(3);
  Args->setName("args");
  Launch->setName("launch");
  GroupBegin->setName("group.begin");
  GroupEnd->setName("group.end");
  F->addParamAttr(0, llvm::Attribute::NoAlias);
  F->addParamAttr(0, llvm::Attribute::ReadOnly);

  llvm::BasicBlock* Entry = llvm::BasicBlock::Create(C, "entry", F);
  llvm::BasicBlock* Exit = llvm::BasicBlock::Create(C, "exit", F);
  llvm::IRBuilder<> B(Entry);

  // Each parameter is loaded once, here. The runtime fills every field it reads, so the scalars,
  // lengths and launch sizes are noundef (BoundsCheckVersioning relies on coordinates never
  // being undef when it looks through the freezes InstCombine puts on them).
  auto Defined = [&](llvm::LoadInst* L) {
    L->setMetadata(llvm::LLVMContext::MD_noundef, llvm::MDNode::get(C, {}));
    return L;
  };
  KernelFrame Frame;
  for (size_t I = 0; I < KF.Params.size(); ++I) {
    const kir::Param& P = KF.Params[I];
    llvm::Value* Slot = B.CreateConstInBoundsGEP1_64(B.getInt8Ty(), Args, I * sizeof(CajetaCpuArg));
    ArgValue A;
    if (P.Ty.isBuffer()) {
      A.Buffer.Ptr = B.CreateLoad(Ptr, Slot, P.Name + ".ptr");
      llvm::Value* LenSlot = B.CreateConstInBoundsGEP1_64(B.getInt8Ty(), Slot, 8);
      auto* Length = Defined(B.CreateLoad(I64, LenSlot, P.Name + ".len"));
      BoundsCheckVersioning::markLength(*Length);
      A.Buffer.Length = Length;
    } else if (P.Ty.isPod()) {
      A.Scalar = B.CreateLoad(Ptr, Slot, P.Name + ".pod"); // its bytes, in C layout
    } else if (P.Ty.isScalar()) {
      // The low bytes of Bits, little-endian; a bool is one byte, non-zero = true.
      llvm::Value* V = Defined(B.CreateLoad(KernelLowering::memoryType(C, P.Ty), Slot, P.Name));
      A.Scalar = P.Ty.isBool() ? B.CreateICmpNE(V, B.getInt8(0)) : V;
    } else {
      Error = "parameter '" + P.Name + "' has type " + P.Ty.str();
      F->eraseFromParent();
      return nullptr;
    }
    Frame.Args.push_back(A);
  }
  llvm::Value* Dims[6];
  for (unsigned D = 0; D < 3; ++D) {
    Dims[D] = Defined(B.CreateLoad(B.getInt32Ty(), launchField(B, Launch, GridDimField, D)));
    Dims[3 + D] = Defined(B.CreateLoad(B.getInt32Ty(), launchField(B, Launch, BlockDimField, D)));
  }
  llvm::Value* BX = Dims[3];
  llvm::Value* BY = Dims[4];
  llvm::Value* BZ = Dims[5];
  allocateShared(B, KF, Launch);
  AccessGroup = llvm::MDNode::getDistinct(C, {});
  bool Fission = KF.HasBarrier;
  llvm::Value* GroupSize = nullptr;
  if (Fission)
    GroupSize = B.CreateMul(B.CreateMul(B.CreateZExt(BX, I64), B.CreateZExt(BY, I64)),
                            B.CreateZExt(BZ, I64), "group.size", /*HasNUW=*/true);

  // (gx, gy, gz) of GroupBegin, from g = x + GridDim[0] * (y + GridDim[1] * z), computed once;
  // each next group steps x and carries into y and z, so the group loop does no division (it
  // ran once per workgroup, which costs as much as a small workgroup's work). A zero dimension
  // (no groups at all, so never reached with a well-formed launch) divides by one instead.
  auto NonZero64 = [&](llvm::Value* V) {
    llvm::Value* W = B.CreateZExt(V, I64);
    return B.CreateSelect(B.CreateICmpEQ(W, B.getInt64(0)), B.getInt64(1), W);
  };
  llvm::Value* GX64 = NonZero64(Dims[0]);
  llvm::Value* GY64 = NonZero64(Dims[1]);
  llvm::Value* Gx0 = B.CreateTrunc(B.CreateURem(GroupBegin, GX64), B.getInt32Ty(), "gx0");
  llvm::Value* Rest0 = B.CreateUDiv(GroupBegin, GX64);
  llvm::Value* Gy0 = B.CreateTrunc(B.CreateURem(Rest0, GY64), B.getInt32Ty(), "gy0");
  llvm::Value* Gz0 = B.CreateTrunc(B.CreateUDiv(Rest0, GY64), B.getInt32Ty(), "gz0");

  if (!Fission && kir::GroupShapeIndependence::readsOnlyGlobalCoordinates(KF)) {
    llvm::Value* GroupStart[3] = {Gx0, Gy0, Gz0};
    llvm::BasicBlock* Nest = nullptr;
    if (!Opts.RowSpans) {
      // Only a 1D launch (one span per chunk) takes the flat path.
      llvm::Value* One = B.getInt32(1);
      llvm::Value* Is1D =
          B.CreateAnd(B.CreateAnd(B.CreateICmpEQ(Dims[1], One), B.CreateICmpEQ(Dims[2], One)),
                      B.CreateAnd(B.CreateICmpEQ(Dims[4], One), B.CreateICmpEQ(Dims[5], One)));
      llvm::BasicBlock* Flat = llvm::BasicBlock::Create(C, "flat.entry", F);
      Nest = llvm::BasicBlock::Create(C, "nest.entry", F);
      B.CreateCondBr(Is1D, Flat, Nest);
      B.SetInsertPoint(Flat);
    }
    emitFlatPath(B, F, EmitBody, Frame, Dims, GroupStart, GroupBegin, GroupEnd, Launch, Exit);
    if (!Nest) {
      B.SetInsertPoint(Exit);
      B.CreateRetVoid();
      markParallelAccesses(*F, AccessGroup);
      Shared.clear();
      return F;
    }
    B.SetInsertPoint(Nest);
  }

  // for g in [GroupBegin, GroupEnd)
  llvm::BasicBlock* GroupBody = llvm::BasicBlock::Create(C, "group.body", F);
  llvm::BasicBlock* GroupLatch = llvm::BasicBlock::Create(C, "group.latch", F);
  llvm::BasicBlock* Pre = B.GetInsertBlock();
  B.CreateCondBr(B.CreateICmpULT(GroupBegin, GroupEnd), GroupBody, Exit);
  B.SetInsertPoint(GroupBody);
  llvm::PHINode* G = B.CreatePHI(I64, 2, "g");
  G->addIncoming(GroupBegin, Pre);
  llvm::PHINode* Gx = B.CreatePHI(B.getInt32Ty(), 2, "gx");
  llvm::PHINode* Gy = B.CreatePHI(B.getInt32Ty(), 2, "gy");
  llvm::PHINode* Gz = B.CreatePHI(B.getInt32Ty(), 2, "gz");
  Gx->addIncoming(Gx0, Pre);
  Gy->addIncoming(Gy0, Pre);
  Gz->addIncoming(Gz0, Pre);
  if (Opts.CheckBounds) {
    // Stop starting workgroups once a work-item anywhere has failed.
    llvm::BasicBlock* Run = llvm::BasicBlock::Create(C, "group.run", F);
    B.CreateCondBr(hasFailed(B, Launch), Exit, Run);
    B.SetInsertPoint(Run);
  }
  llvm::Value* AnyItems =
      B.CreateAnd(B.CreateAnd(B.CreateICmpNE(BX, B.getInt32(0)), B.CreateICmpNE(BY, B.getInt32(0))),
                  B.CreateICmpNE(BZ, B.getInt32(0)));
  llvm::BasicBlock* Items = llvm::BasicBlock::Create(C, "items", F);
  B.CreateCondBr(AnyItems, Items, GroupLatch);
  B.SetInsertPoint(Items);

  if (Fission) {
    // The walk emits one work-item loop per region (emitWorkItemLoop); the group's context is
    // that of work-item 0.
    llvm::Value* Zero = B.getInt32(0);
    Frame.WorkItem.Values = {Zero, Zero, Zero,    Gx,      Gy,      Gz,    BX,
                             BY,   BZ,   Dims[0], Dims[1], Dims[2], Launch};
    Frame.ReturnBlock = GroupLatch;
    Frame.FailBlock = Exit;
    Frame.GroupSize = GroupSize;
    EmitBody(B, Frame);
    if (!B.GetInsertBlock()->getTerminator())
      B.CreateBr(GroupLatch);
  } else {
    // for lz: for ly: for lx: body
    CountedLoop LZ = beginLoop(B, F, "lz", Items);
    CountedLoop LY = beginLoop(B, F, "ly", LZ.Body);
    CountedLoop LX = beginLoop(B, F, "lx", LY.Body);

    Frame.WorkItem.Values = {LX.Var, LY.Var, LZ.Var,  Gx,      Gy,      Gz,    BX,
                             BY,     BZ,     Dims[0], Dims[1], Dims[2], Launch};
    Frame.ReturnBlock = LX.Latch; // `return` ends this work-item
    Frame.FailBlock = Exit;       // a recorded bounds failure ends the whole entry
    EmitBody(B, Frame);
    if (!B.GetInsertBlock()->getTerminator())
      B.CreateBr(LX.Latch);

    llvm::BranchInst* XBack = endLoop(B, LX, BX, LY.Latch);
    endLoop(B, LY, BY, LZ.Latch)->setMetadata(llvm::LLVMContext::MD_loop, groupRowsLoopId(C));
    endLoop(B, LZ, BZ, GroupLatch);
    XBack->setMetadata(llvm::LLVMContext::MD_loop, parallelLoopId(C, AccessGroup));
  }

  B.SetInsertPoint(GroupLatch);
  if (Frame.AfterWorkItems)
    Frame.AfterWorkItems(B); // the group's deferred bounds failures
  llvm::BasicBlock* Latch = B.GetInsertBlock();
  llvm::Value* GNext = B.CreateAdd(G, B.getInt64(1), "g.next", /*HasNUW=*/true);
  G->addIncoming(GNext, Latch);
  // Step x; at the end of a row carry into y, at the end of a plane into z.
  llvm::Value* XNext = B.CreateAdd(Gx, B.getInt32(1), "gx.next");
  llvm::Value* XWrap = B.CreateICmpUGE(XNext, Dims[0]);
  llvm::Value* YStep = B.CreateAdd(Gy, B.CreateZExt(XWrap, B.getInt32Ty()), "gy.step");
  llvm::Value* YWrap = B.CreateICmpUGE(YStep, Dims[1]);
  Gx->addIncoming(B.CreateSelect(XWrap, B.getInt32(0), XNext), Latch);
  Gy->addIncoming(B.CreateSelect(YWrap, B.getInt32(0), YStep), Latch);
  Gz->addIncoming(B.CreateAdd(Gz, B.CreateZExt(YWrap, B.getInt32Ty()), "gz.next"), Latch);
  B.CreateCondBr(B.CreateICmpULT(GNext, GroupEnd), GroupBody, Exit);
  B.SetInsertPoint(Exit);
  B.CreateRetVoid();

  markParallelAccesses(*F, AccessGroup);
  Shared.clear();
  return F;
}

llvm::Value* CpuTarget::checkedLength(llvm::IRBuilder<>& B, llvm::Value* Length,
                                      const std::string& Name) {
  if (!Opts.CheckBounds)
    return Length;
  // An empty asm that returns its operand: no instruction, and nothing the optimizer sees into.
  auto* Type = llvm::FunctionType::get(B.getInt64Ty(), {B.getInt64Ty()}, false);
  auto* Asm = llvm::InlineAsm::get(Type, "", "=r,0", /*hasSideEffects=*/false);
  llvm::CallInst* Copy = B.CreateCall(Type, Asm, {Length}, Name);
  Copy->setDoesNotAccessMemory();
  Copy->setDoesNotThrow();
  Copy->setMetadata(llvm::LLVMContext::MD_noundef, llvm::MDNode::get(B.getContext(), {}));
  BoundsCheckVersioning::markLength(*Copy);
  return Copy;
}

void CpuTarget::allocateShared(llvm::IRBuilder<>& B, const kir::Function& KF, llvm::Value* Launch) {
  Shared.clear();
  llvm::LLVMContext& C = B.getContext();
  for (unsigned I = 0; I < KF.SharedArrays.size(); ++I) {
    const kir::SharedArray& SA = KF.SharedArrays[I];
    llvm::Type* Elem = KernelLowering::memoryType(C, kir::Type::scalar(SA.Elem));
    uint64_t Size = bundle::scalarTypeSize(SA.Elem);
    BufferValue V;
    V.ParamIndex = B.getInt32(CAJETA_CPU_SHARED_PARAM_BIT | I);
    if (SA.Count > 0) {
      auto* A = B.CreateAlloca(llvm::ArrayType::get(Elem, SA.Count), nullptr, SA.Name);
      A->setAlignment(llvm::Align(64));
      V.Ptr = A;
      V.Length = checkedLength(B, B.getInt64(SA.Count), SA.Name + ".len");
    } else {
      // The dynamic array: DynamicSharedBytes bytes, Length = bytes / element size.
      llvm::Value* Bytes = B.CreateZExt(
          B.CreateLoad(B.getInt32Ty(), launchField(B, Launch, DynamicSharedBytesField)),
          B.getInt64Ty(), SA.Name + ".bytes");
      auto* A = B.CreateAlloca(B.getInt8Ty(), Bytes, SA.Name);
      A->setAlignment(llvm::Align(64));
      V.Ptr = A;
      V.Length = checkedLength(B, B.CreateUDiv(Bytes, B.getInt64(Size)), SA.Name + ".len");
    }
    Shared.push_back(V);
  }
}

void CpuTarget::emitWorkItemLoop(llvm::IRBuilder<>& B, const WorkItemContext& Group,
                                 RegionEmitter Region, unsigned LaneWidth) {
  if (Group.Values.size() != SlotCount)
    return;
  llvm::Function* F = B.GetInsertBlock()->getParent();
  llvm::LLVMContext& C = F->getContext();
  llvm::Value* BX = Group.Values[GroupDimSlot];
  llvm::Value* BY = Group.Values[GroupDimSlot + 1];
  llvm::Value* BZ = Group.Values[GroupDimSlot + 2];
  llvm::Type* I64 = B.getInt64Ty();
  llvm::BasicBlock* End = llvm::BasicBlock::Create(C, "region.end", F);
  // for rz: for ry: Row(the first work-item of the row, the x loop's exit)
  auto Rows = [&](const char* Name, auto Row) {
    // The workgroup has at least one work-item (checked before the body).
    CountedLoop LZ = beginLoop(B, F, (std::string(Name) + "z").c_str(), B.GetInsertBlock());
    CountedLoop LY = beginLoop(B, F, (std::string(Name) + "y").c_str(), LZ.Body);
    WorkItemContext W = Group;
    W.Values[LocalSlot + 1] = LY.Var;
    W.Values[LocalSlot + 2] = LZ.Var;
    llvm::Value* RowStart =
        B.CreateMul(B.CreateAdd(B.CreateMul(B.CreateZExt(LZ.Var, I64), B.CreateZExt(BY, I64)),
                                B.CreateZExt(LY.Var, I64)),
                    B.CreateZExt(BX, I64));
    Row(W, RowStart, LY);
    endLoop(B, LY, BY, LZ.Latch)->setMetadata(llvm::LLVMContext::MD_loop, groupRowsLoopId(C));
    endLoop(B, LZ, BZ, End);
  };
  auto Flat = [&] {
    Rows("r", [&](WorkItemContext W, llvm::Value* RowStart, CountedLoop& LY) {
      CountedLoop LX = beginLoop(B, F, "rx", B.GetInsertBlock());
      W.Values[LocalSlot] = LX.Var;
      llvm::Value* Item = B.CreateAdd(RowStart, B.CreateZExt(LX.Var, I64), "item");
      Region(B, W, Item, nullptr, LX.Latch);
      if (!B.GetInsertBlock()->getTerminator())
        B.CreateBr(LX.Latch);
      llvm::BranchInst* XBack = endLoop(B, LX, BX, LY.Latch);
      XBack->setMetadata(llvm::LLVMContext::MD_loop, parallelLoopId(C, AccessGroup));
      B.SetInsertPoint(LY.Latch);
    });
  };
  if (!LaneWidth) {
    Flat();
    B.SetInsertPoint(End);
    return;
  }
  // Waves of lanes where each row of x holds whole waves: for each wave of the row, a loop of
  // LaneWidth lanes, its index the lane. Elsewhere (a wave spans rows) the flat loop.
  llvm::BasicBlock* LanesBlock = llvm::BasicBlock::Create(C, "region.lanes", F);
  llvm::BasicBlock* FlatBlock = llvm::BasicBlock::Create(C, "region.flat", F);
  B.CreateCondBr(B.CreateICmpEQ(B.CreateAnd(BX, B.getInt32(LaneWidth - 1)), B.getInt32(0)),
                 LanesBlock, FlatBlock);
  B.SetInsertPoint(FlatBlock);
  Flat();
  B.SetInsertPoint(LanesBlock);
  Rows("w", [&](WorkItemContext W, llvm::Value* RowStart, CountedLoop& LY) {
    llvm::Value* Waves = B.CreateLShr(BX, B.getInt32(llvm::Log2_32(LaneWidth)));
    CountedLoop LW = beginLoop(B, F, "wx", B.GetInsertBlock());
    CountedLoop LL = beginLoop(B, F, "lane", LW.Body);
    llvm::Value* X =
        B.CreateAdd(B.CreateShl(LW.Var, B.getInt32(llvm::Log2_32(LaneWidth)), "", true, true),
                    LL.Var, "", true, true);
    W.Values[LocalSlot] = X;
    llvm::Value* Item = B.CreateAdd(RowStart, B.CreateZExt(X, I64), "item");
    Region(B, W, Item, LL.Var, LL.Latch);
    if (!B.GetInsertBlock()->getTerminator())
      B.CreateBr(LL.Latch);
    llvm::BranchInst* LaneBack = endLoop(B, LL, B.getInt32(LaneWidth), LW.Latch);
    LaneBack->setMetadata(llvm::LLVMContext::MD_loop, laneLoopId(C, AccessGroup, LaneWidth));
    endLoop(B, LW, Waves, LY.Latch);
    B.SetInsertPoint(LY.Latch);
  });
  B.SetInsertPoint(End);
}

WorkItemContext CpuTarget::workItemAt(llvm::IRBuilder<>& B, const WorkItemContext& Group,
                                      llvm::Value* ItemIndex) {
  if (Group.Values.size() != SlotCount)
    return Group;
  llvm::Type* I64 = B.getInt64Ty();
  llvm::Value* BX = B.CreateZExt(Group.Values[GroupDimSlot], I64);
  llvm::Value* BY = B.CreateZExt(Group.Values[GroupDimSlot + 1], I64);
  llvm::Value* Rest = B.CreateUDiv(ItemIndex, BX);
  WorkItemContext W = Group;
  W.Values[LocalSlot] = B.CreateTrunc(B.CreateURem(ItemIndex, BX), B.getInt32Ty());
  W.Values[LocalSlot + 1] = B.CreateTrunc(B.CreateURem(Rest, BY), B.getInt32Ty());
  W.Values[LocalSlot + 2] = B.CreateTrunc(B.CreateUDiv(Rest, BY), B.getInt32Ty());
  return W;
}

void CpuTarget::emitFlatPath(llvm::IRBuilder<>& B, llvm::Function* F, BodyEmitter EmitBody,
                             KernelFrame Frame, llvm::Value* const* Dims,
                             llvm::Value* const* GroupStart, llvm::Value* GroupBegin,
                             llvm::Value* GroupEnd, llvm::Value* Launch, llvm::BasicBlock* Exit) {
  // A kernel that only reads global coordinates runs its work-items in any order, so the chunk's
  // workgroups of one (gy, gz) row are one span, and each (z, y) line of the span one loop over
  // global x across all of them: [gx * bx, (gx + n) * bx). A workgroup-wide x loop of 32 items
  // paid its setup for two vector iterations; a span's runs the row's whole width (a 1D launch is
  // one span: the chunk's global ids in one loop). The work-item is local (x, ly, lz) in group
  // (0, gy, gz), which gives every global coordinate its value.
  llvm::LLVMContext& C = F->getContext();
  llvm::Type* I32 = B.getInt32Ty();
  llvm::Type* I64 = B.getInt64Ty();
  llvm::Value* BX = Dims[3];
  llvm::Value* BY = Dims[4];
  llvm::Value* BZ = Dims[5];
  llvm::Value* BX64 = B.CreateZExt(BX, I64);
  llvm::Value* GX64 = B.CreateZExt(Dims[0], I64);
  llvm::Value* AnyItems =
      B.CreateAnd(B.CreateAnd(B.CreateICmpNE(BX, B.getInt32(0)), B.CreateICmpNE(BY, B.getInt32(0))),
                  B.CreateICmpNE(BZ, B.getInt32(0)));
  llvm::BasicBlock* Pre = B.GetInsertBlock();
  llvm::BasicBlock* SpanBody = llvm::BasicBlock::Create(C, "span.body", F);
  llvm::BasicBlock* SpanItems = llvm::BasicBlock::Create(C, "span.items", F);
  llvm::BasicBlock* SpanLatch = llvm::BasicBlock::Create(C, "span.latch", F);
  llvm::BasicBlock* Done = llvm::BasicBlock::Create(C, "span.done", F);
  B.CreateCondBr(B.CreateAnd(AnyItems, B.CreateICmpULT(GroupBegin, GroupEnd)), SpanBody, Exit);

  B.SetInsertPoint(SpanBody);
  llvm::PHINode* G = B.CreatePHI(I64, 2, "span.g");
  llvm::PHINode* Gx = B.CreatePHI(I32, 2, "span.gx");
  llvm::PHINode* Gy = B.CreatePHI(I32, 2, "span.gy");
  llvm::PHINode* Gz = B.CreatePHI(I32, 2, "span.gz");
  G->addIncoming(GroupBegin, Pre);
  Gx->addIncoming(GroupStart[0], Pre);
  Gy->addIncoming(GroupStart[1], Pre);
  Gz->addIncoming(GroupStart[2], Pre);
  // The span: from g to the end of its row of groups or of the chunk, whichever comes first.
  llvm::Value* Gx64 = B.CreateZExt(Gx, I64);
  llvm::Value* RowEnd = B.CreateAdd(G, B.CreateSub(GX64, Gx64), "span.rowEnd", /*HasNUW=*/true);
  llvm::Value* SpanEnd =
      B.CreateSelect(B.CreateICmpULT(RowEnd, GroupEnd), RowEnd, GroupEnd, "span.end");
  llvm::Value* XBegin = B.CreateMul(Gx64, BX64, "span.xBegin", /*HasNUW=*/true);
  llvm::Value* XEnd =
      B.CreateMul(B.CreateAdd(Gx64, B.CreateSub(SpanEnd, G)), BX64, "span.xEnd", /*HasNUW=*/true);
  if (Opts.CheckBounds)
    B.CreateCondBr(hasFailed(B, Launch), Exit, SpanItems);
  else
    B.CreateBr(SpanItems);

  B.SetInsertPoint(SpanItems);
  CountedLoop LZ = beginLoop(B, F, "span.lz", SpanItems);
  CountedLoop LY = beginLoop(B, F, "span.ly", LZ.Body);
  llvm::BasicBlock* XBody = llvm::BasicBlock::Create(C, "span.x.body", F);
  llvm::BasicBlock* XLatch = llvm::BasicBlock::Create(C, "span.x.latch", F);
  llvm::BasicBlock* LinePre = B.GetInsertBlock();
  B.CreateBr(XBody);
  B.SetInsertPoint(XBody);
  llvm::PHINode* Id = B.CreatePHI(I64, 2, "span.x");
  Id->addIncoming(XBegin, LinePre);
  // Global x as every uint32 global id is: truncated.
  llvm::Value* Lx = B.CreateTrunc(Id, I32, "span.lx");
  Frame.WorkItem.Values = {Lx, LY.Var, LZ.Var,  B.getInt32(0), Gy,      Gz,    BX,
                           BY, BZ,     Dims[0], Dims[1],       Dims[2], Launch};
  Frame.ReturnBlock = XLatch; // `return` ends this work-item
  Frame.FailBlock = Exit;     // a recorded bounds failure ends the whole entry
  EmitBody(B, Frame);
  if (!B.GetInsertBlock()->getTerminator())
    B.CreateBr(XLatch);
  B.SetInsertPoint(XLatch);
  llvm::Value* Next = B.CreateAdd(Id, B.getInt64(1), "span.x.next", /*HasNUW=*/true);
  Id->addIncoming(Next, XLatch);
  llvm::BranchInst* Back = B.CreateCondBr(B.CreateICmpULT(Next, XEnd), XBody, LY.Latch);
  Back->setMetadata(llvm::LLVMContext::MD_loop, parallelLoopId(C, AccessGroup));
  endLoop(B, LY, BY, LZ.Latch)->setMetadata(llvm::LLVMContext::MD_loop, groupRowsLoopId(C));
  endLoop(B, LZ, BZ, SpanLatch);

  // The next span starts a row: gx 0, gy + 1 (carrying into gz).
  B.SetInsertPoint(SpanLatch);
  llvm::Value* YNext = B.CreateAdd(Gy, B.getInt32(1), "span.gy.next");
  llvm::Value* YWrap = B.CreateICmpUGE(YNext, Dims[1]);
  G->addIncoming(SpanEnd, SpanLatch);
  Gx->addIncoming(B.getInt32(0), SpanLatch);
  Gy->addIncoming(B.CreateSelect(YWrap, B.getInt32(0), YNext), SpanLatch);
  Gz->addIncoming(B.CreateAdd(Gz, B.CreateZExt(YWrap, I32), "span.gz.next"), SpanLatch);
  B.CreateCondBr(B.CreateICmpULT(SpanEnd, GroupEnd), SpanBody, Done);
  B.SetInsertPoint(Done);
  if (Frame.AfterWorkItems)
    Frame.AfterWorkItems(B); // the chunk's deferred bounds failures
  B.CreateBr(Exit);
}

llvm::Value* CpuTarget::coordinate(llvm::IRBuilder<>& B, const WorkItemContext& W,
                                   kir::IntrinsicOp Op, unsigned Dim) {
  if (W.Values.size() != SlotCount || Dim > 2)
    return llvm::PoisonValue::get(B.getInt32Ty());
  switch (Op) {
  case kir::IntrinsicOp::LocalId:
    return W.Values[LocalSlot + Dim];
  case kir::IntrinsicOp::GroupId:
    return W.Values[GroupSlot + Dim];
  case kir::IntrinsicOp::GroupDim:
    return W.Values[GroupDimSlot + Dim];
  case kir::IntrinsicOp::GridDim:
    return W.Values[GridDimSlot + Dim];
  default:
    return llvm::PoisonValue::get(B.getInt32Ty());
  }
}

void CpuTarget::emitBoundsFailure(llvm::IRBuilder<>& B, const WorkItemContext& W,
                                  llvm::Value* ParamIndex, llvm::Value* Index,
                                  llvm::Value* Length) {
  llvm::Value* Launch = W.Values[LaunchSlot];
  // The first failure wins: Failed 0 -> 1 by compare-exchange, then the winner fills the report.
  llvm::Value* Pair = B.CreateAtomicCmpXchg(
      launchField(B, Launch, FailedField), B.getInt32(0), B.getInt32(1), llvm::MaybeAlign(4),
      llvm::AtomicOrdering::AcquireRelease, llvm::AtomicOrdering::Monotonic);
  llvm::Value* Won = B.CreateExtractValue(Pair, 1);
  llvm::Function* F = B.GetInsertBlock()->getParent();
  llvm::BasicBlock* Record = llvm::BasicBlock::Create(B.getContext(), "bounds.record", F);
  llvm::BasicBlock* Done = llvm::BasicBlock::Create(B.getContext(), "bounds.done", F);
  B.CreateCondBr(Won, Record, Done);
  B.SetInsertPoint(Record);
  B.CreateStore(ParamIndex, launchField(B, Launch, FailedParamField));
  B.CreateStore(Index, launchField(B, Launch, FailedIndexField));
  B.CreateStore(Length, launchField(B, Launch, FailedLengthField));
  B.CreateBr(Done);
  B.SetInsertPoint(Done);
}

void CpuTarget::emitPrefetch(llvm::IRBuilder<>& B, llvm::Value* Addr, llvm::Value* Bytes,
                             bool Write) {
  // for (Line = Addr & ~63; Line < Addr + Bytes; Line += 64) prefetch(Line): every line the
  // range touches, in a loop of its own, locality 3 (every cache level), data cache.
  llvm::Function* F = B.GetInsertBlock()->getParent();
  llvm::LLVMContext& C = B.getContext();
  llvm::Value* Start = B.CreatePtrToInt(Addr, B.getInt64Ty());
  llvm::Value* First = B.CreateAnd(Start, B.getInt64(~uint64_t(63)));
  llvm::Value* End = B.CreateAdd(Start, Bytes);
  llvm::BasicBlock* Before = B.GetInsertBlock();
  llvm::BasicBlock* Body = llvm::BasicBlock::Create(C, "prefetch.line", F);
  llvm::BasicBlock* Done = llvm::BasicBlock::Create(C, "prefetch.done", F);
  B.CreateCondBr(B.CreateICmpEQ(Bytes, B.getInt64(0)), Done, Body);
  B.SetInsertPoint(Body);
  llvm::PHINode* Off = B.CreatePHI(B.getInt64Ty(), 2, "prefetch.off");
  Off->addIncoming(B.getInt64(0), Before);
  // The line as Addr's pointer moved back to its line and on: no integer-made pointer.
  llvm::Value* Line = B.CreateGEP(B.getInt8Ty(), Addr, B.CreateAdd(B.CreateSub(First, Start), Off));
  B.CreateIntrinsic(llvm::Intrinsic::prefetch, {Line->getType()},
                    {Line, B.getInt32(Write ? 1 : 0), B.getInt32(3), B.getInt32(1)});
  llvm::Value* Next = B.CreateAdd(Off, B.getInt64(64));
  Off->addIncoming(Next, B.GetInsertBlock());
  B.CreateCondBr(B.CreateICmpULT(B.CreateAdd(First, Next), End), Body, Done);
  B.SetInsertPoint(Done);
}

llvm::Value* CpuTarget::emitHasFailed(llvm::IRBuilder<>& B, const WorkItemContext& W) {
  return hasFailed(B, W.Values[LaunchSlot]);
}

llvm::Value* CpuTarget::hasFailed(llvm::IRBuilder<>& B, llvm::Value* Launch) const {
  llvm::LoadInst* Failed = B.CreateLoad(B.getInt32Ty(), launchField(B, Launch, FailedField));
  Failed->setAtomic(llvm::AtomicOrdering::Monotonic);
  Failed->setAlignment(llvm::Align(4));
  return B.CreateICmpNE(Failed, B.getInt32(0));
}

} // namespace

unsigned waveWidthFor(const std::string& EnabledFeatures) {
  auto Has = [&](const char* F) {
    std::string Key = std::string("+") + F;
    size_t At = EnabledFeatures.find(Key);
    while (At != std::string::npos) {
      size_t End = At + Key.size();
      if (End == EnabledFeatures.size() || EnabledFeatures[End] == ',')
        return true;
      At = EnabledFeatures.find(Key, End);
    }
    return false;
  };
  if (Has("avx512f"))
    return 16;
  return Has("avx") ? 8 : 4;
}

std::unique_ptr<LoweringTarget> createCpuTarget(llvm::TargetMachine& TM,
                                                const CpuTargetOptions& O) {
  return std::make_unique<CpuTarget>(TM, O);
}

} // namespace cajeta::lowering
