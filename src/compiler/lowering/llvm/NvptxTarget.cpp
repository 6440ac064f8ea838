// The NVPTX target: GpuKernelAbi.h entries, coordinates from PTX special registers, global (1) and
// shared (3) address spaces, bar.sync barriers, status-record bounds reports, libdevice math.
#include "compiler/lowering/llvm/NvptxTarget.h"
#include "compiler/lowering/llvm/NvptxPayloadBuilder.h"
#include "compiler/lowering/llvm/NvptxSharedLayout.h"
#include "compiler/lowering/llvm/NvptxWgmmaDescriptor.h"

#include "bundle/GpuKernelAbi.h"
#include "cajeta/xpu/cajeta_xpu.h"
#include "compiler/lowering/llvm/KernelLowering.h"

#include <llvm/IR/InlineAsm.h>
#include <llvm/IR/IntrinsicsNVPTX.h>
#include <llvm/IR/MDBuilder.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Operator.h>
#include <llvm/Target/TargetMachine.h>

#include <cstddef>

namespace cajeta::lowering {
namespace {

using kir::IntrinsicOp;

constexpr unsigned GlobalAS = 1;
constexpr unsigned SharedAS = 3;

static_assert(offsetof(CajetaGpuStatus, FailedParam) == 4);
static_assert(offsetof(CajetaGpuStatus, FailedIndex) == 8);
static_assert(offsetof(CajetaGpuStatus, FailedLength) == 16);

/// The name of the one `.extern .shared` array every kernel's dynamic shared array aliases.
constexpr const char* DynamicSharedName = "cj_dynamic_shared";

class NvptxTarget final : public LoweringTarget {
public:
  NvptxTarget(llvm::TargetMachine& TM, const NvptxTargetOptions& O) : TM(TM), Opts(O) {}

  llvm::TargetMachine& targetMachine() override { return TM; }
  unsigned bufferAddressSpace() const override { return GlobalAS; }
  unsigned sharedAddressSpace() const override { return SharedAS; }

  llvm::Function* emitKernel(llvm::Module& LM, const kir::Function& KF, BodyEmitter EmitBody,
                             std::string& Error) override;

  /// Helpers get the status record pointer (global) as their one hidden parameter.
  std::vector<llvm::Type*> helperHiddenParams(llvm::LLVMContext& C) const override {
    return {llvm::PointerType::get(C, GlobalAS)};
  }

  llvm::Value* coordinate(llvm::IRBuilder<>& B, const WorkItemContext& W, IntrinsicOp Op,
                          unsigned Dim) override;
  void emitBoundsFailure(llvm::IRBuilder<>& B, const WorkItemContext& W, llvm::Value* ParamIndex,
                         llvm::Value* Index, llvm::Value* Length) override;
  llvm::Value* emitHasFailed(llvm::IRBuilder<>& B, const WorkItemContext& W) override;
  /// PTX min.f32 / max.f32 (NaN-ignoring, as llvm.minnum): compare-and-select stays selp.
  llvm::Value* emitMinNum(llvm::IRBuilder<>& B, llvm::Value* A, llvm::Value* C, bool Max) override {
    return Max ? B.CreateMaxNum(A, C) : B.CreateMinNum(A, C);
  }
  llvm::Value* emitMath(llvm::IRBuilder<>& B, IntrinsicOp Op, llvm::ArrayRef<llvm::Value*> Ops,
                        kir::Type Ty) override;
  BufferValue sharedArray(llvm::IRBuilder<>& B, const WorkItemContext& W, const kir::Function& KF,
                          unsigned Index) override;
  bool hasNativeBarrier() const override { return true; }
  void emitBarrier(llvm::IRBuilder<>& B, const WorkItemContext& W) override {
    B.CreateIntrinsic(llvm::Intrinsic::nvvm_barrier0, {}, {});
  }
  std::vector<int8_t> capabilities(ImplTier TileTier) const override {
    // The CUDA backend's answers for this architecture (runtime CudaBackend), the tile tier as
    // the driver chose it for this program.
    std::vector<int8_t> C(CAJETA_XPU_CAP_COUNT, 1);
    C[CAJETA_XPU_CAP_FLOAT16] = smVersion() >= 53;
    C[CAJETA_XPU_CAP_COOPERATIVE_MATRIX] = TileTier == ImplTier::Native && smVersion() >= 80;
    C[CAJETA_XPU_CAP_TEXTURES] = 0;
    C[CAJETA_XPU_CAP_RAY_QUERY] = 0;
    return C;
  }
  kir::TileLoweringConfig tileLowering(ImplTier Chosen) const override {
    kir::TileLoweringConfig C; // portable: 32 warps of scratch within the 48 KiB static limit
    C.MaxWaves = 32;
    C.SharedBudget = 48 * 1024;
    if (Chosen == ImplTier::Native && smVersion() >= 80)
      C.F = kir::TileLoweringConfig::Form::MmaSync;
    C.Wgmma = archSpecific();
    C.WgmmaMaxAtoms = NvptxPayloadBuilder::wgmmaAtoms();
    C.WgmmaAcrossSteps = NvptxPayloadBuilder::wgmmaAcrossSteps();
    C.PairStores = NvptxPayloadBuilder::tilePairStores();
    C.Notes = Opts.Notes;
    return C;
  }
  llvm::Value* emitMmaSync(llvm::IRBuilder<>& B, llvm::ArrayRef<llvm::Value*> Ops, unsigned Dim,
                           kir::MmaInput In) override;
  llvm::Value* emitLdMatrix(llvm::IRBuilder<>& B, llvm::Value* Ptr, unsigned Count, bool Transposed,
                            unsigned Dim) override;
  llvm::Value* emitWgmmaReady(llvm::IRBuilder<>& B, llvm::Value* Array, llvm::Value* Elem,
                              uint32_t Block, uint32_t KMajorDepth) override;
  bool emitWgmma(llvm::IRBuilder<>& B, llvm::Value* BTile, llvm::ArrayRef<llvm::Value*> A,
                 uint32_t ABlock, std::vector<llvm::Value*>& C, kir::MmaInput In) override;
  bool emitWgmmaFence(llvm::IRBuilder<>& B) override {
    if (!archSpecific())
      return false;
    asmStatement(B, "wgmma.fence.sync.aligned;");
    return true;
  }
  bool emitWgmmaCommit(llvm::IRBuilder<>& B) override {
    if (!archSpecific())
      return false;
    asmStatement(B, "wgmma.commit_group.sync.aligned;");
    return true;
  }
  bool emitWgmmaWait(llvm::IRBuilder<>& B, std::vector<llvm::Value*>& C, unsigned Pending,
                     bool Commit) override;
  bool emitProxyFence(llvm::IRBuilder<>& B) override {
    if (!archSpecific())
      return false;
    asmStatement(B, "fence.proxy.async.shared::cta;");
    return true;
  }
  bool hasTensorMemoryAccelerator() const override { return archSpecific(); }
  bool emitMbarrierInit(llvm::IRBuilder<>& B, llvm::Value* Bar, llvm::Value* Count) override {
    // The init, then its release to the other threads (after the barrier that follows) and to
    // the accelerator.
    asmCall(B, "mbarrier.init.shared::cta.b64 [$0], $1;\n\tfence.mbarrier_init.release.cluster;",
            "r,r,~{memory}", {sharedAddress(B, Bar), Count});
    return true;
  }
  /// PTX declaring predicate p: true in one thread, an elected lane of the warp whose thread
  /// `$Operand` is non-zero in (the operand true in one thread). A per-lane predicate on a
  /// uniform-datapath instruction (the TMA's, the barrier's arrival) makes ptxas issue it in a
  /// loop over the lanes that hold it; a warp-uniform vote and elect.sync do not.
  static std::string electedIssuer(int Operand) {
    return ".reg .pred p, q;\n\t.reg .b32 m;\n\tsetp.ne.b32 p, $" + std::to_string(Operand) +
           ", 0;\n\tactivemask.b32 m;\n\tvote.sync.any.pred p, p, m;\n\telect.sync _|q, m;\n\t"
           "and.pred p, p, q;\n\t";
  }
  // The issuing thread's instructions predicated, not branched to: no branch for one thread
  // among wgmma products (kir::TileLowering commits their group before the copies, so ptxas
  // need not serialize them: C7520).
  bool emitTmaLoad(llvm::IRBuilder<>& B, llvm::Value* Dst, llvm::Value* Map,
                   llvm::ArrayRef<llvm::Value*> Coords, llvm::Value* Bar, uint32_t Bytes,
                   llvm::Value* Issue) override {
    // Operands: $0 dst, $1 map, $2 barrier, $3 bytes, $4 issue, then the coordinates.
    std::string Dims = std::to_string(Coords.size()), List;
    for (size_t I = 0; I < Coords.size(); ++I)
      List += (I ? ", $" : "$") + std::to_string(5 + I);
    std::string Text = "{\n\t" + electedIssuer(4) +
                       "@p mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [$2], $3;\n\t"
                       "@p cp.async.bulk.tensor." +
                       Dims +
                       "d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [$0], [$1, {" +
                       List + "}], [$2];\n\t}";
    std::string Constraints = "r,l,r,r,r";
    std::vector<llvm::Value*> Args = {sharedAddress(B, Dst), Map, sharedAddress(B, Bar),
                                      B.getInt32(Bytes), B.CreateZExt(Issue, B.getInt32Ty())};
    for (llvm::Value* C : Coords) {
      Constraints += ",r";
      Args.push_back(C);
    }
    asmCall(B, Text.c_str(), (Constraints + ",~{memory}").c_str(), Args);
    return true;
  }
  bool emitMbarrierArrive(llvm::IRBuilder<>& B, llvm::Value* Bar, llvm::Value* Arrive,
                          bool PerWave) override {
    if (PerWave) {
      // elect.sync over the warp's lanes (fewer than 32 in a group's last, partial warp) waits
      // for them all and picks one: one shared-memory arrival a warp, not 32 in a row.
      asmCall(B,
              "{\n\t.reg .pred q;\n\telect.sync _|q, $1;\n\t"
              "@q mbarrier.arrive.shared::cta.b64 _, [$0];\n\t}",
              "r,r,~{memory}", {sharedAddress(B, Bar), warpLanes(B)});
      return true;
    }
    if (auto* C = llvm::dyn_cast<llvm::ConstantInt>(Arrive); C && C->isOne()) {
      asmCall(B, "mbarrier.arrive.shared::cta.b64 _, [$0];", "r,~{memory}",
              {sharedAddress(B, Bar)});
      return true;
    }
    const std::string Text =
        "{\n\t" + electedIssuer(1) + "@p mbarrier.arrive.shared::cta.b64 _, [$0];\n\t}";
    asmCall(B, Text.c_str(), "r,r,~{memory}",
            {sharedAddress(B, Bar), B.CreateZExt(Arrive, B.getInt32Ty())});
    return true;
  }
  bool emitMbarrierWait(llvm::IRBuilder<>& B, llvm::Value* Bar, llvm::Value* Parity) override {
    // try_wait suspends the thread for a while in hardware; the loop retries until the phase
    // has completed (acquire: the accelerator's writes counted in it are then visible).
    asmCall(B,
            "{\n\t.reg .pred p;\n\tcj_mbar_wait_${:uid}:\n\t"
            "mbarrier.try_wait.parity.shared::cta.b64 p, [$0], $1;\n\t"
            "@!p bra cj_mbar_wait_${:uid};\n\t}",
            "r,r,~{memory}", {sharedAddress(B, Bar), Parity});
    return true;
  }
  bool rayChildrenAtParent() const override { return true; } // 11 % on the H200's primary rays
  bool hasAsyncCopy() const override { return smVersion() >= 80; }
  // PTX takes 48 KiB of `.shared` arrays; larger ones go to the dynamic window
  // (NvptxSharedLayout), up to the most a workgroup has on sm_90 (227 KiB).
  uint64_t maxStaticSharedBytes() const override { return 227 * 1024; }
  uint32_t dynamicSharedPrefix(const kir::Function& KF) const override;
  void emitAsyncCopies(llvm::IRBuilder<>& B, llvm::ArrayRef<AsyncCopyArgs> Copies) override;
  std::function<void()>
  emitAsyncCopiesInLine(llvm::IRBuilder<>& B, llvm::ArrayRef<AsyncCopyArgs> Copies,
                        std::function<std::vector<AsyncCopyArgs>()> Again) override;
  /// Whether a copy of Copies' run takes the in-line path: aligned, and whole or empty.
  static llvm::Value* takesInLine(llvm::IRBuilder<>& B, const AsyncCopyArgs& A);
  /// Copy A element by element: the valid elements read, the rest zero.
  static void emitPlainCopy(llvm::IRBuilder<>& B, const AsyncCopyArgs& A);
  static bool asyncCopiesInLine() { return NvptxPayloadBuilder::asyncCopiesInLine(); }
  llvm::Value* opaqueCopy(llvm::IRBuilder<>& B, llvm::Value* V) override {
    const unsigned Bits = V->getType()->isIntegerTy() ? V->getType()->getIntegerBitWidth() : 0;
    if (Bits != 32 && Bits != 64)
      return V;
    auto* Ty = llvm::FunctionType::get(V->getType(), {V->getType()}, false);
    const char* Text = Bits == 32 ? "mov.b32 $0, $1;" : "mov.b64 $0, $1;";
    const char* Constraints = Bits == 32 ? "=r,r" : "=l,l";
    return B.CreateCall(Ty, llvm::InlineAsm::get(Ty, Text, Constraints, /*hasSideEffects=*/true),
                        {V});
  }
  void emitAsyncCommit(llvm::IRBuilder<>& B) override {
    B.CreateIntrinsic(llvm::Intrinsic::nvvm_cp_async_commit_group, {}, {});
  }
  void emitAsyncWait(llvm::IRBuilder<>& B, unsigned Pending) override {
    B.CreateIntrinsic(llvm::Intrinsic::nvvm_cp_async_wait_group, {}, {B.getInt32(Pending)});
  }
  /// "sm_90" and "sm_90a" -> 90.
  unsigned smVersion() const {
    llvm::StringRef Cpu = TM.getTargetCPU();
    unsigned Sm = 0;
    if (!Cpu.consume_front("sm_"))
      return 0;
    Cpu.consume_back("a");
    if (!Cpu.getAsInteger(10, Sm))
      return Sm;
    return 0;
  }
  /// An architecture-specific target (sm_90a): its code runs on that exact architecture, and has
  /// its instructions (wgmma, setmaxnreg).
  bool archSpecific() const { return TM.getTargetCPU().ends_with("a") && smVersion() >= 90; }
  ImplTier tierFor(Feature F) const override {
    return F == Feature::FloatAtomics || F == Feature::WaveOps ? ImplTier::Native
                                                               : ImplTier::Portable;
  }

  // Waves are PTX warps: 32 lanes, every one active (full mask) where the walk calls these.
  kir::WavePrimitives wavePrimitives() const override;
  llvm::Value* waveWidth(llvm::IRBuilder<>& B, const WorkItemContext& W) override {
    return B.getInt32(32);
  }
  llvm::Value* waveLaneId(llvm::IRBuilder<>& B, const WorkItemContext& W) override {
    return B.CreateIntrinsic(llvm::Intrinsic::nvvm_read_ptx_sreg_laneid, {}, {});
  }
  llvm::Value* waveShuffle(llvm::IRBuilder<>& B, const WorkItemContext& W, llvm::Value* Value,
                           llvm::Value* SrcLane) override {
    // shfl.sync.idx.b32 with c = 0x1f: one segment of 32 lanes, source lane SrcLane[4:0].
    return B.CreateIntrinsic(llvm::Intrinsic::nvvm_shfl_sync_idx_i32, {},
                             {fullMask(B), Value, SrcLane, B.getInt32(0x1f)});
  }
  llvm::Value* waveBallot(llvm::IRBuilder<>& B, const WorkItemContext& W,
                          llvm::Value* Pred) override {
    llvm::Value* Bits =
        B.CreateIntrinsic(llvm::Intrinsic::nvvm_vote_ballot_sync, {}, {fullMask(B), Pred});
    return B.CreateZExt(Bits, B.getInt64Ty());
  }
  llvm::Value* waveVote(llvm::IRBuilder<>& B, const WorkItemContext& W, bool All,
                        llvm::Value* Pred) override {
    return B.CreateIntrinsic(All ? llvm::Intrinsic::nvvm_vote_all_sync
                                 : llvm::Intrinsic::nvvm_vote_any_sync,
                             {}, {fullMask(B), Pred});
  }
  llvm::Value* waveReduceNative(llvm::IRBuilder<>& B, const WorkItemContext& W, kir::WaveOp Op,
                                kir::Type Ty, llvm::Value* V) override;

private:
  static llvm::Value* fullMask(llvm::IRBuilder<>& B) { return B.getInt32(0xffffffffu); }
  /// An instruction LLVM has no intrinsic for, ordered with every memory access and volatile.
  /// A side-effecting inline asm statement over Args.
  static void asmCall(llvm::IRBuilder<>& B, const char* Text, const char* Constraints,
                      llvm::ArrayRef<llvm::Value*> Args) {
    std::vector<llvm::Type*> Types;
    for (llvm::Value* A : Args)
      Types.push_back(A->getType());
    auto* Ty = llvm::FunctionType::get(B.getVoidTy(), Types, false);
    // Convergent: some (vote.sync, elect.sync) need their warp together, so no pass may move
    // them into a branch.
    B.CreateCall(Ty, llvm::InlineAsm::get(Ty, Text, Constraints, /*hasSideEffects=*/true), Args)
        ->addFnAttr(llvm::Attribute::Convergent);
  }
  /// A shared-memory pointer as the 32-bit address PTX's .shared::cta operands take.
  static llvm::Value* sharedAddress(llvm::IRBuilder<>& B, llvm::Value* Ptr) {
    return B.CreateTrunc(B.CreatePtrToInt(Ptr, B.getInt64Ty()), B.getInt32Ty());
  }
  /// The mask of the thread's warp's lanes: warps are runs of 32 linear thread ids (x first),
  /// the group's last one shorter where the group is not a multiple of 32.
  static llvm::Value* warpLanes(llvm::IRBuilder<>& B) {
    using namespace llvm::Intrinsic;
    auto Read = [&](ID Id) { return B.CreateIntrinsic(Id, {}, {}); };
    llvm::Value* NX = Read(nvvm_read_ptx_sreg_ntid_x);
    llvm::Value* NY = Read(nvvm_read_ptx_sreg_ntid_y);
    llvm::Value* Linear =
        B.CreateAdd(Read(nvvm_read_ptx_sreg_tid_x),
                    B.CreateMul(NX, B.CreateAdd(Read(nvvm_read_ptx_sreg_tid_y),
                                                B.CreateMul(NY, Read(nvvm_read_ptx_sreg_tid_z)))));
    llvm::Value* Group = B.CreateMul(B.CreateMul(NX, NY), Read(nvvm_read_ptx_sreg_ntid_z));
    llvm::Value* Lanes = B.CreateBinaryIntrinsic(
        umin, B.CreateSub(Group, B.CreateAnd(Linear, B.getInt32(~31u))), B.getInt32(32));
    return B.CreateLShr(B.getInt32(~0u), B.CreateSub(B.getInt32(32), Lanes));
  }
  static void asmStatement(llvm::IRBuilder<>& B, const char* Text) {
    auto* Ty = llvm::FunctionType::get(B.getVoidTy(), false);
    B.CreateCall(Ty, llvm::InlineAsm::get(Ty, Text, "~{memory}", /*hasSideEffects=*/true));
  }
  llvm::Value* statusField(llvm::IRBuilder<>& B, llvm::Value* Status, unsigned Offset) const {
    return B.CreateConstInBoundsGEP1_64(B.getInt8Ty(), Status, Offset);
  }
  llvm::Value* loadFailed(llvm::IRBuilder<>& B, llvm::Value* Status) const;
  llvm::Value* libdeviceCall(llvm::IRBuilder<>& B, IntrinsicOp Op, llvm::ArrayRef<llvm::Value*> X);
  llvm::Value* approxCall(llvm::IRBuilder<>& B, IntrinsicOp Op, llvm::ArrayRef<llvm::Value*> X);
  void noteApproximation();

  llvm::TargetMachine& TM;
  NvptxTargetOptions Opts;
  bool NotedApprox = false;
};

/// The kernel entry's PTX parameter for one KIR scalar: its memory type, float16 as its bits.
llvm::Type* scalarParamType(llvm::LLVMContext& C, kir::Type T) {
  if (T.Elem == kir::ScalarType::F16)
    return llvm::Type::getInt16Ty(C);
  return KernelLowering::memoryType(C, T);
}

void markKernel(llvm::Module& LM, llvm::Function* F) {
  F->setCallingConv(llvm::CallingConv::PTX_Kernel);
  llvm::LLVMContext& C = LM.getContext();
  llvm::Metadata* Ops[] = {
      llvm::ValueAsMetadata::get(F), llvm::MDString::get(C, "kernel"),
      llvm::ConstantAsMetadata::get(llvm::ConstantInt::get(llvm::Type::getInt32Ty(C), 1))};
  LM.getOrInsertNamedMetadata("nvvm.annotations")->addOperand(llvm::MDNode::get(C, Ops));
}

llvm::Function* NvptxTarget::emitKernel(llvm::Module& LM, const kir::Function& KF,
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
  llvm::Type* GlobalPtr = llvm::PointerType::get(C, GlobalAS);
  llvm::Type* I64 = llvm::Type::getInt64Ty(C);
  std::vector<llvm::Type*> Types;
  std::vector<std::pair<unsigned, const kir::PodType*>> ByVal; // PTX param index, layout
  std::vector<unsigned> AccelPtrs; // PTX param indices of acceleration structures' words
  for (const kir::Param& P : KF.Params) {
    if (P.Ty.isBuffer()) {
      if (P.IsAccel)
        AccelPtrs.push_back(unsigned(Types.size()));
      Types.push_back(GlobalPtr);
      Types.push_back(I64);
    } else if (P.Ty.isScalar()) {
      Types.push_back(scalarParamType(C, P.Ty));
    } else if (P.Ty.isPod()) {
      if (!Opts.Module || P.Ty.PodIndex >= Opts.Module->Pods.size()) {
        Error = "parameter '" + P.Name + "' names an unknown POD type";
        return nullptr;
      }
      ByVal.push_back({unsigned(Types.size()), &Opts.Module->Pods[P.Ty.PodIndex]});
      Types.push_back(llvm::PointerType::get(C, 0));
    } else {
      Error = "parameter '" + P.Name + "' has type " + P.Ty.str() + ", which a kernel cannot take";
      return nullptr;
    }
  }
  Types.push_back(GlobalPtr); // the CajetaGpuStatus record
  const unsigned FirstMap = unsigned(Types.size());
  for (size_t I = 0; I < KF.TensorMaps.size(); ++I) // a TMA entry's maps, by value
    Types.push_back(llvm::PointerType::get(C, 0));
  auto* FT = llvm::FunctionType::get(llvm::Type::getVoidTy(C), Types, false);
  auto* F = llvm::Function::Create(FT, llvm::GlobalValue::ExternalLinkage, KF.Symbol, LM);
  F->addFnAttr(llvm::Attribute::NoUnwind);
  for (auto [Index, Pod] : ByVal) {
    // `.param .align A .b8 p[N]`: the POD's bytes by value.
    llvm::Type* Bytes = llvm::ArrayType::get(llvm::Type::getInt8Ty(C), Pod->Size);
    F->addParamAttr(Index, llvm::Attribute::getWithByValType(C, Bytes));
    F->addParamAttr(Index, llvm::Attribute::getWithAlignment(C, llvm::Align(Pod->Align)));
  }
  // An acceleration structure is a whole device allocation (at least 256-byte aligned), so
  // its nodes' and primitives' words load as vectors (bundle/AccelLayout.h). (Every buffer is
  // one too, but only the quad entries are told so: NvptxQuadVectorizer.)
  for (unsigned Index : AccelPtrs)
    F->addParamAttr(Index, llvm::Attribute::getWithAlignment(C, llvm::Align(32)));
  markKernel(LM, F);
  if (!KF.TensorMaps.empty()) {
    // `.param .align 64 .b8 p[128]` (a CUtensorMap), grid constants: read where they are
    // through their generic address (cvta.param), as cp.async.bulk.tensor asks.
    llvm::Type* Map = llvm::ArrayType::get(llvm::Type::getInt8Ty(C), 128);
    std::vector<llvm::Metadata*> Indices;
    for (unsigned I = FirstMap; I < Types.size(); ++I) {
      F->addParamAttr(I, llvm::Attribute::getWithByValType(C, Map));
      F->addParamAttr(I, llvm::Attribute::getWithAlignment(C, llvm::Align(64)));
      Indices.push_back(llvm::ConstantAsMetadata::get(
          llvm::ConstantInt::get(llvm::Type::getInt32Ty(C), I + 1))); // 1-based
    }
    llvm::Metadata* Ops[] = {llvm::ValueAsMetadata::get(F), llvm::MDString::get(C, "grid_constant"),
                             llvm::MDNode::get(C, Indices)};
    LM.getOrInsertNamedMetadata("nvvm.annotations")->addOperand(llvm::MDNode::get(C, Ops));
  }
  llvm::Value* Status = F->getArg(FirstMap - 1);
  Status->setName("status");

  llvm::BasicBlock* Entry = llvm::BasicBlock::Create(C, "entry", F);
  llvm::BasicBlock* Exit = llvm::BasicBlock::Create(C, "exit", F);
  llvm::IRBuilder<> B(Entry);
  if (Opts.CheckBounds) {
    // A launch whose record already holds a failure does no work.
    llvm::BasicBlock* Run = llvm::BasicBlock::Create(C, "run", F);
    B.CreateCondBr(B.CreateICmpNE(loadFailed(B, Status), B.getInt32(0)), Exit, Run);
    B.SetInsertPoint(Run);
  }
  KernelFrame Frame;
  unsigned Arg = 0;
  for (const kir::Param& P : KF.Params) {
    ArgValue A;
    if (P.Ty.isBuffer()) {
      A.Buffer.Ptr = F->getArg(Arg++);
      A.Buffer.Length = F->getArg(Arg++);
      A.Buffer.Ptr->setName(P.Name + ".ptr");
      A.Buffer.Length->setName(P.Name + ".len");
    } else if (P.Ty.isPod()) {
      A.Scalar = F->getArg(Arg++); // a pointer to the POD's bytes
      A.Scalar->setName(P.Name);
    } else {
      llvm::Value* V = F->getArg(Arg++);
      V->setName(P.Name);
      if (P.Ty.isBool())
        V = B.CreateICmpNE(V, B.getInt8(0));
      else if (P.Ty.Elem == kir::ScalarType::F16)
        V = B.CreateBitCast(V, B.getHalfTy());
      A.Scalar = V;
    }
    Frame.Args.push_back(A);
  }
  Frame.WorkItem.Values = {Status};
  for (unsigned I = FirstMap; I < Types.size(); ++I)
    Frame.TensorMaps.push_back(B.CreatePtrToInt(F->getArg(I), B.getInt64Ty()));
  Frame.ReturnBlock = Exit; // `return` ends this thread
  Frame.FailBlock = Exit;
  EmitBody(B, Frame);
  if (!B.GetInsertBlock()->getTerminator())
    B.CreateBr(Exit);
  B.SetInsertPoint(Exit);
  B.CreateRetVoid();
  return F;
}

llvm::Value* NvptxTarget::coordinate(llvm::IRBuilder<>& B, const WorkItemContext& W, IntrinsicOp Op,
                                     unsigned Dim) {
  using namespace llvm::Intrinsic;
  static const ID Tid[] = {nvvm_read_ptx_sreg_tid_x, nvvm_read_ptx_sreg_tid_y,
                           nvvm_read_ptx_sreg_tid_z};
  static const ID Ctaid[] = {nvvm_read_ptx_sreg_ctaid_x, nvvm_read_ptx_sreg_ctaid_y,
                             nvvm_read_ptx_sreg_ctaid_z};
  static const ID Ntid[] = {nvvm_read_ptx_sreg_ntid_x, nvvm_read_ptx_sreg_ntid_y,
                            nvvm_read_ptx_sreg_ntid_z};
  static const ID Nctaid[] = {nvvm_read_ptx_sreg_nctaid_x, nvvm_read_ptx_sreg_nctaid_y,
                              nvvm_read_ptx_sreg_nctaid_z};
  if (Dim > 2)
    return llvm::PoisonValue::get(B.getInt32Ty());
  switch (Op) {
  case IntrinsicOp::LocalId:
    return B.CreateIntrinsic(Tid[Dim], {}, {});
  case IntrinsicOp::GroupId:
    return B.CreateIntrinsic(Ctaid[Dim], {}, {});
  case IntrinsicOp::GroupDim:
    return B.CreateIntrinsic(Ntid[Dim], {}, {});
  case IntrinsicOp::GridDim:
    return B.CreateIntrinsic(Nctaid[Dim], {}, {});
  default:
    return llvm::PoisonValue::get(B.getInt32Ty());
  }
}

llvm::Value* NvptxTarget::loadFailed(llvm::IRBuilder<>& B, llvm::Value* Status) const {
  // Other threads may write it: a volatile read (ld.volatile.global) sees their stores.
  llvm::LoadInst* Failed = B.CreateLoad(B.getInt32Ty(), statusField(B, Status, 0));
  Failed->setVolatile(true);
  Failed->setAlignment(llvm::Align(4));
  return Failed;
}

void NvptxTarget::emitBoundsFailure(llvm::IRBuilder<>& B, const WorkItemContext& W,
                                    llvm::Value* ParamIndex, llvm::Value* Index,
                                    llvm::Value* Length) {
  llvm::Value* Status = W.Values[0];
  // The first failure wins: Failed 0 -> 1 by atom.global.cas, then the winner fills the record.
  llvm::Value* Pair = B.CreateAtomicCmpXchg(statusField(B, Status, 0), B.getInt32(0), B.getInt32(1),
                                            llvm::MaybeAlign(4), llvm::AtomicOrdering::Monotonic,
                                            llvm::AtomicOrdering::Monotonic);
  llvm::Value* Won = B.CreateExtractValue(Pair, 1);
  llvm::Function* F = B.GetInsertBlock()->getParent();
  llvm::BasicBlock* Record = llvm::BasicBlock::Create(B.getContext(), "bounds.record", F);
  llvm::BasicBlock* Done = llvm::BasicBlock::Create(B.getContext(), "bounds.done", F);
  B.CreateCondBr(Won, Record, Done);
  B.SetInsertPoint(Record);
  auto Store = [&](llvm::Value* V, unsigned Offset) {
    B.CreateAlignedStore(V, statusField(B, Status, Offset),
                         llvm::Align(V->getType()->getPrimitiveSizeInBits() / 8))
        ->setVolatile(true);
  };
  Store(ParamIndex, offsetof(CajetaGpuStatus, FailedParam));
  Store(Index, offsetof(CajetaGpuStatus, FailedIndex));
  Store(Length, offsetof(CajetaGpuStatus, FailedLength));
  B.CreateBr(Done);
  B.SetInsertPoint(Done);
}

llvm::Value* NvptxTarget::emitHasFailed(llvm::IRBuilder<>& B, const WorkItemContext& W) {
  return B.CreateICmpNE(loadFailed(B, W.Values[0]), B.getInt32(0));
}

/// The one `.extern .shared` array every kernel's dynamic window starts at.
llvm::GlobalVariable* dynamicWindow(llvm::Module& M) {
  if (llvm::GlobalVariable* G = M.getNamedGlobal(DynamicSharedName))
    return G;
  auto* T = llvm::ArrayType::get(llvm::Type::getInt8Ty(M.getContext()), 0);
  auto* G = new llvm::GlobalVariable(M, T, false, llvm::GlobalValue::ExternalLinkage, nullptr,
                                     DynamicSharedName, nullptr, llvm::GlobalValue::NotThreadLocal,
                                     SharedAS);
  G->setAlignment(llvm::Align(16));
  return G;
}

/// Raises window G's alignment to Align (every kernel's dynamic array starts there: the
/// alignment is the largest any asks).
void alignWindow(llvm::GlobalVariable* G, uint64_t Align) {
  if (G->getAlign().valueOrOne().value() < Align)
    G->setAlignment(llvm::Align(Align));
}

BufferValue NvptxTarget::sharedArray(llvm::IRBuilder<>& B, const WorkItemContext& W,
                                     const kir::Function& KF, unsigned Index) {
  BufferValue R;
  if (Index >= KF.SharedArrays.size())
    return R;
  const kir::SharedArray& SA = KF.SharedArrays[Index];
  llvm::Module* M = B.GetInsertBlock()->getModule();
  llvm::LLVMContext& C = M->getContext();
  llvm::Type* Elem = KernelLowering::memoryType(C, kir::Type::scalar(SA.Elem));
  R.ParamIndex = B.getInt32(CAJETA_GPU_SHARED_PARAM_BIT | Index);
  const NvptxSharedLayout Layout(KF);
  if (SA.Count > 0 && Layout.placed(Index)) {
    // A static array in the dynamic window (NvptxSharedLayout). A launch with fewer dynamic
    // bytes than the placed arrays take (a runtime that does not read the manifest's prefix)
    // traps instead of running over other memory.
    llvm::GlobalVariable* G = dynamicWindow(*M);
    alignWindow(G, 1024);
    auto* TrapTy = llvm::FunctionType::get(B.getVoidTy(), false);
    const std::string Check = "{\n\t.reg .pred p;\n\t.reg .b32 s;\n\tmov.u32 s, "
                              "%dynamic_smem_size;\n\tsetp.lt.u32 p, s, " +
                              std::to_string(Layout.prefix()) + ";\n\t@p trap;\n\t}";
    B.CreateCall(TrapTy, llvm::InlineAsm::get(TrapTy, Check, "", /*hasSideEffects=*/true));
    R.Ptr = B.CreateConstInBoundsGEP1_64(B.getInt8Ty(), G, Layout.offsetOf(Index));
    R.Length = B.getInt64(SA.Count);
    return R;
  }
  if (SA.Count > 0) {
    // A static array: one `.shared` array per kernel and declaration.
    std::string Name = KF.Symbol + ".shared." + std::to_string(Index);
    llvm::GlobalVariable* G = M->getNamedGlobal(Name);
    if (!G) {
      // A swizzled array starts at a multiple of the swizzle's 1024-byte period and takes whole
      // 128-byte rows (a swizzled element stays in its row), or whole blocks of 8 rows where
      // its rows are several atoms wide (an element stays in its block).
      const uint64_t Size = bundle::scalarTypeSize(SA.Elem);
      auto* T = llvm::ArrayType::get(Elem, NvptxSharedLayout::bytesOf(SA) / Size);
      G = new llvm::GlobalVariable(*M, T, false, llvm::GlobalValue::InternalLinkage,
                                   llvm::UndefValue::get(T), Name, nullptr,
                                   llvm::GlobalValue::NotThreadLocal, SharedAS);
      G->setAlignment(llvm::Align(NvptxSharedLayout::alignmentOf(SA)));
    }
    R.Ptr = G;
    R.Length = B.getInt64(SA.Count);
    return R;
  }
  // The dynamic array: the launch's sharedMemBytes past the placed arrays.
  llvm::GlobalVariable* G = dynamicWindow(*M);
  if (SA.Swizzle128)
    alignWindow(G, 1024);
  else if (SA.BulkCopied)
    alignWindow(G, 128);
  // LLVM 19 has no intrinsic for %dynamic_smem_size; a pure inline asm read (CSE-able).
  auto* AsmTy = llvm::FunctionType::get(B.getInt32Ty(), false);
  auto* Asm = llvm::InlineAsm::get(AsmTy, "mov.u32 $0, %dynamic_smem_size;", "=r", false);
  llvm::CallInst* Bytes = B.CreateCall(AsmTy, Asm, {});
  Bytes->setDoesNotAccessMemory();
  unsigned Size = bundle::scalarTypeSize(SA.Elem);
  const uint32_t Prefix = Layout.prefix();
  R.Ptr = Prefix ? B.CreateConstInBoundsGEP1_64(B.getInt8Ty(), G, Prefix) : G;
  R.Length = B.CreateUDiv(B.CreateZExt(B.CreateSub(Bytes, B.getInt32(Prefix)), B.getInt64Ty()),
                          B.getInt64(Size));
  return R;
}

uint32_t NvptxTarget::dynamicSharedPrefix(const kir::Function& KF) const {
  return NvptxSharedLayout(KF).prefix();
}

// ---------------------------------------------------------------------------------------------
// Waves

/// The architecture's number: "sm_90" -> 90 ("sm_90a" -> 90); 0 when the CPU is not sm_NN.
unsigned smNumber(const llvm::TargetMachine& TM) {
  llvm::StringRef Cpu = TM.getTargetCPU();
  if (!Cpu.consume_front("sm_"))
    return 0;
  unsigned V = 0;
  for (char C : Cpu) {
    if (C < '0' || C > '9' || V > 10000)
      break;
    V = V * 10 + unsigned(C - '0');
  }
  return V;
}

kir::WavePrimitives NvptxTarget::wavePrimitives() const {
  kir::WavePrimitives P;
  P.Available = true;
  P.ConstantWidth = 32;               // the butterfly and scan steps unroll in KIR
  P.ReduceInt32 = smNumber(TM) >= 80; // redux.sync
  return P;
}

llvm::Value* NvptxTarget::waveReduceNative(llvm::IRBuilder<>& B, const WorkItemContext& W,
                                           kir::WaveOp Op, kir::Type Ty, llvm::Value* V) {
  using namespace llvm::Intrinsic;
  // redux.sync (sm_80+) covers 32-bit integers only; the rest take the walk's butterfly.
  if (smNumber(TM) < 80 || !Ty.isInteger() || Ty.bits() != 32)
    return nullptr;
  bool Signed = Ty.isSigned();
  ID Id;
  switch (Op) {
  case kir::WaveOp::ReduceSum:
    Id = nvvm_redux_sync_add;
    break;
  case kir::WaveOp::ReduceMin:
    Id = Signed ? nvvm_redux_sync_min : nvvm_redux_sync_umin;
    break;
  case kir::WaveOp::ReduceMax:
    Id = Signed ? nvvm_redux_sync_max : nvvm_redux_sync_umax;
    break;
  case kir::WaveOp::ReduceAnd:
    Id = nvvm_redux_sync_and;
    break;
  case kir::WaveOp::ReduceOr:
    Id = nvvm_redux_sync_or;
    break;
  case kir::WaveOp::ReduceXor:
    Id = nvvm_redux_sync_xor;
    break;
  default:
    return nullptr;
  }
  return B.CreateIntrinsic(Id, {}, {V, fullMask(B)});
}

// ---------------------------------------------------------------------------------------------
// Math

bool isTranscendental(IntrinsicOp Op) {
  switch (Op) {
  case IntrinsicOp::Exp:
  case IntrinsicOp::Log:
  case IntrinsicOp::Pow:
  case IntrinsicOp::Sin:
  case IntrinsicOp::Cos:
  case IntrinsicOp::Tanh:
  case IntrinsicOp::Rsqrt:
    return true;
  default:
    return false;
  }
}

const char* libdeviceBase(IntrinsicOp Op) {
  switch (Op) {
  case IntrinsicOp::Exp:
    return "__nv_exp";
  case IntrinsicOp::Log:
    return "__nv_log";
  case IntrinsicOp::Pow:
    return "__nv_pow";
  case IntrinsicOp::Sin:
    return "__nv_sin";
  case IntrinsicOp::Cos:
    return "__nv_cos";
  case IntrinsicOp::Tanh:
    return "__nv_tanh";
  case IntrinsicOp::Rsqrt:
    return "__nv_rsqrt";
  default:
    return nullptr;
  }
}

llvm::Value* NvptxTarget::libdeviceCall(llvm::IRBuilder<>& B, IntrinsicOp Op,
                                        llvm::ArrayRef<llvm::Value*> X) {
  llvm::Type* T = X[0]->getType();
  std::string Name = libdeviceBase(Op);
  if (T->isFloatTy())
    Name += "f";
  std::vector<llvm::Type*> Params(X.size(), T);
  llvm::Module* M = B.GetInsertBlock()->getModule();
  llvm::FunctionCallee F = M->getOrInsertFunction(Name, llvm::FunctionType::get(T, Params, false));
  if (auto* Fn = llvm::dyn_cast<llvm::Function>(F.getCallee())) {
    Fn->setDoesNotThrow();
    Fn->setDoesNotAccessMemory();
    Fn->addFnAttr(llvm::Attribute::WillReturn);
  }
  return B.CreateCall(F, X);
}

void NvptxTarget::noteApproximation() {
  if (NotedApprox || !Opts.Notes)
    return;
  NotedApprox = true;
  // Measured on an H200 (sm_90) over x in [0.01, 20] against libm in long double
  // (tests/unit/nvptx/device): the bounds below are what that run found.
  Opts.Notes->push_back(
      "[nvptx-math] libdevice not found: Math.exp/log/pow/sin/cos/tanh/rsqrt use approximate PTX "
      "(ex2.approx, lg2.approx, sin.approx, cos.approx, rsqrt.approx). Measured float32 error on "
      "[0.01, 20]: exp 15 ulp, pow 11 ulp, tanh 110 ulp, rsqrt 1 ulp; log, sin and cos are "
      "accurate to about 2^-21 absolute, so near their zeros the ulp error is large (log 331, cos "
      "6163, sin 68788 ulp); float64 results are only float32-accurate. Set CAJETA_LIBDEVICE to "
      "CUDA's nvvm/libdevice/libdevice.10.bc for 1-2 ulp math");
}

llvm::Value* NvptxTarget::approxCall(llvm::IRBuilder<>& B, IntrinsicOp Op,
                                     llvm::ArrayRef<llvm::Value*> Xs) {
  using namespace llvm::Intrinsic;
  noteApproximation();
  // Everything in float32 (PTX has approximate transcendentals only there), then back.
  llvm::Type* T = Xs[0]->getType();
  llvm::Type* F32 = B.getFloatTy();
  auto Narrow = [&](llvm::Value* V) { return T->isFloatTy() ? V : B.CreateFPCast(V, F32); };
  llvm::Value* X = Narrow(Xs[0]);
  auto Ex2 = [&](llvm::Value* V) { return B.CreateIntrinsic(nvvm_ex2_approx_f, {}, {V}); };
  auto Lg2 = [&](llvm::Value* V) { return B.CreateIntrinsic(nvvm_lg2_approx_f, {}, {V}); };
  auto K = [&](double V) { return llvm::ConstantFP::get(F32, V); };
  llvm::Value* R = nullptr;
  switch (Op) {
  case IntrinsicOp::Exp:
    R = Ex2(B.CreateFMul(X, K(1.4426950408889634)));
    break;
  case IntrinsicOp::Log:
    R = B.CreateFMul(Lg2(X), K(0.6931471805599453));
    break;
  case IntrinsicOp::Pow: {
    // x^y = 2^(y log2 x) for x > 0; x <= 0 and the special cases as powf has them are not
    // reproduced here beyond what ex2/lg2 give (NaN for x < 0, 0 for x == 0 and y > 0).
    llvm::Value* Y = Narrow(Xs[1]);
    R = Ex2(B.CreateFMul(Y, Lg2(X)));
    break;
  }
  case IntrinsicOp::Sin:
    R = B.CreateIntrinsic(nvvm_sin_approx_f, {}, {X});
    break;
  case IntrinsicOp::Cos:
    R = B.CreateIntrinsic(nvvm_cos_approx_f, {}, {X});
    break;
  case IntrinsicOp::Tanh: {
    // tanh x = sign(x) (1 - 2 / (2^(2|x| log2 e) + 1)), saturating to +-1 for large |x|.
    llvm::Value* A = B.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, X);
    llvm::Value* E = Ex2(B.CreateFMul(A, K(2.8853900817779268)));
    llvm::Value* M = B.CreateFSub(K(1.0), B.CreateFDiv(K(2.0), B.CreateFAdd(E, K(1.0))));
    R = B.CreateBinaryIntrinsic(llvm::Intrinsic::copysign, M, X);
    break;
  }
  case IntrinsicOp::Rsqrt:
    R = B.CreateIntrinsic(nvvm_rsqrt_approx_f, {}, {X});
    break;
  default:
    return nullptr;
  }
  return T->isFloatTy() ? R : B.CreateFPCast(R, T);
}

llvm::Value* NvptxTarget::emitMath(llvm::IRBuilder<>& B, IntrinsicOp Op,
                                   llvm::ArrayRef<llvm::Value*> Ops, kir::Type Ty) {
  if (Ops.empty() || !Ty.isFloat() || !isTranscendental(Op))
    return LoweringTarget::emitMath(B, Op, Ops, Ty); // sqrt.rn, fma.rn, cvt.rmi, min/max...
  if (!Opts.Libdevice)
    return approxCall(B, Op, Ops);
  // float16: libdevice has float32 functions only; compute there and round back.
  bool Half = Ty.Elem == kir::ScalarType::F16;
  std::vector<llvm::Value*> X(Ops.begin(), Ops.end());
  if (Half)
    for (llvm::Value*& V : X)
      V = B.CreateFPExt(V, B.getFloatTy());
  llvm::Value* R = libdeviceCall(B, Op, X);
  return Half ? B.CreateFPTrunc(R, B.getHalfTy()) : R;
}

} // namespace

llvm::Value* NvptxTarget::emitMmaSync(llvm::IRBuilder<>& B, llvm::ArrayRef<llvm::Value*> Ops,
                                      unsigned Dim, kir::MmaInput In) {
  // The four results of one product are one call (LLVM merges the identical calls the walk makes
  // for Dim 0..3).
  auto Result = [&](llvm::Intrinsic::ID Id, llvm::ArrayRef<llvm::Value*> Args) {
    return B.CreateExtractValue(B.CreateIntrinsic(Id, {}, Args), {Dim});
  };
  switch (In) {
  case kir::MmaInput::BF16: // m16n8k16.row.col.f32.bf16.bf16.f32: the pairs stay i32 in LLVM
    return Result(llvm::Intrinsic::nvvm_mma_m16n8k16_row_col_bf16, Ops.take_front(10));
  case kir::MmaInput::S8: // m16n8k32.row.col.s32.s8.s8.s32: four bytes per i32, wrapping sums
    return Result(llvm::Intrinsic::nvvm_mma_m16n8k32_row_col_s8, Ops.take_front(10));
  case kir::MmaInput::U8:
    return Result(llvm::Intrinsic::nvvm_mma_m16n8k32_row_col_u8, Ops.take_front(10));
  case kir::MmaInput::F16:
  case kir::MmaInput::F32: // never an mma.sync (only the CPU's TileDot takes float32)
    break;
  }
  // m16n8k16.row.col.f32.f16.f16.f32: A as four <2 x half> pairs, B as two, C as four floats;
  // the KIR pairs are uint32 (the same bits).
  llvm::Type* Pair = llvm::FixedVectorType::get(B.getHalfTy(), 2);
  std::vector<llvm::Value*> Args;
  for (unsigned I = 0; I < 6; ++I)
    Args.push_back(B.CreateBitCast(Ops[I], Pair));
  for (unsigned I = 6; I < 10; ++I)
    Args.push_back(Ops[I]);
  return Result(llvm::Intrinsic::nvvm_mma_m16n8k16_row_col_f32_f32, Args);
}

llvm::Value* NvptxTarget::emitWgmmaReady(llvm::IRBuilder<>& B, llvm::Value* Array,
                                         llvm::Value* Elem, uint32_t Block, uint32_t KMajorDepth) {
  if (!archSpecific())
    return nullptr;
  llvm::Value* Start = B.CreatePtrToInt(Array, B.getInt64Ty());
  llvm::Value* Past = B.CreateSub(B.CreatePtrToInt(Elem, B.getInt64Ty()), Start);
  if (KMajorDepth) {
    // A K-major b: the first of a block's 8 rows (one atom each), 32-byte steps into it, its
    // depth inside the row (the descriptor's start moves along the row; the swizzle follows).
    llvm::Value* InRow = B.CreateAnd(Past, B.getInt64(127));
    return B.CreateAnd(
        B.CreateICmpEQ(B.CreateAnd(B.CreateOr(Start, B.CreateAnd(Past, B.getInt64(1023 & ~127))),
                                   B.getInt64(1023)),
                       B.getInt64(0)),
        B.CreateAnd(B.CreateICmpEQ(B.CreateAnd(InRow, B.getInt64(31)), B.getInt64(0)),
                    B.CreateICmpULE(InRow, B.getInt64(128 - KMajorDepth))));
  }
  if (Block == 1024)
    return B.CreateICmpEQ(B.CreateAnd(B.CreateOr(Start, Past), B.getInt64(1023)), B.getInt64(0));
  return B.CreateAnd(B.CreateICmpEQ(B.CreateAnd(Start, B.getInt64(1023)), B.getInt64(0)),
                     B.CreateICmpEQ(B.CreateAnd(Past, B.getInt64(Block - 1)), B.getInt64(0)));
}

bool NvptxTarget::emitWgmma(llvm::IRBuilder<>& B, llvm::Value* BTile,
                            llvm::ArrayRef<llvm::Value*> A, uint32_t ABlock,
                            std::vector<llvm::Value*>& C, kir::MmaInput In) {
  const bool Bytes = In == kir::MmaInput::S8 || In == kir::MmaInput::U8;
  if (!archSpecific() || A.size() != (ABlock ? 1u : 4u) || C.empty() || C.size() % (Bytes ? 8 : 32))
    return false;
  // b's shared-memory descriptor (PTX ISA, "Matrix Descriptor Format"; 128-byte swizzle, mode
  // 1): the start address >> 4, the leading and the stride offset. 16-bit b is N-major: the
  // leading offset steps between 64-column atoms (1024 bytes: a block's 8 rows of one atom,
  // then of the next: kir::SharedArray::RowAtoms), the stride offset between 8-row groups (the
  // block: 1024 bytes per atom). 8-bit b is K-major: 8 rows of one atom a group (1024 bytes);
  // the leading offset is unused with the swizzle (16).
  // a from shared memory is K-major as an 8-bit b: its 8-row groups ABlock bytes apart.
  const uint64_t Atoms = Bytes ? 1 : C.size() / 32, BlockBytes = 1024 * Atoms;
  const uint64_t Leading = Bytes ? 16 : 1024;
  llvm::Value* Desc = NvptxWgmmaDescriptor::emit(B, BTile, Leading, BlockBytes);
  // 16-bit: wgmma.mma_async.sync.aligned.m64nNk16.f32.T.T d, a, b-desc, scale-d, scale-a,
  // scale-b, [transpose-a,] transpose-b: d = a.b + d (scale-d 1), b transposed (stored
  // N-contiguous: row-major k x n), a (from shared memory) not (K-major). 8-bit:
  // wgmma.mma_async.sync.aligned.m64nNk32.s32.T.T d, a, b-desc, scale-d.
  const size_t N = C.size();
  const char* T = In == kir::MmaInput::BF16 ? "bf16"
                  : In == kir::MmaInput::S8 ? "s8"
                  : In == kir::MmaInput::U8 ? "u8"
                                            : "f16";
  std::string Text = "wgmma.mma_async.sync.aligned.m64n" + std::to_string(2 * N) +
                     (Bytes ? "k32.s32." : "k16.f32.") + T + "." + T + " {";
  const char* Acc = Bytes ? "=r," : "=f,";
  std::string Constraints;
  for (size_t I = 0; I < N; ++I) {
    Text += (I ? ", $" : "$") + std::to_string(I);
    Constraints += Acc;
  }
  if (ABlock) {
    Text += "}, $" + std::to_string(N) + ", $" + std::to_string(N + 1) +
            (Bytes ? ", 1;" : ", 1, 1, 1, 0, 1;");
    Constraints += "l,l";
  } else {
    Text += "}, {$" + std::to_string(N) + ", $" + std::to_string(N + 1) + ", $" +
            std::to_string(N + 2) + ", $" + std::to_string(N + 3) + "}, $" + std::to_string(N + 4) +
            (Bytes ? ", 1;" : ", 1, 1, 1, 1;");
    Constraints += "r,r,r,r,l";
  }
  for (size_t I = 0; I < N; ++I)
    Constraints += "," + std::to_string(I); // each accumulator read and written in place
  Constraints += ",~{memory}";
  llvm::Type* AccTy = Bytes ? B.getInt32Ty() : B.getFloatTy();
  std::vector<llvm::Type*> Out(N, AccTy),
      Ins(ABlock ? 1 : 4, ABlock ? B.getInt64Ty() : B.getInt32Ty());
  Ins.push_back(B.getInt64Ty());
  Ins.insert(Ins.end(), N, AccTy);
  auto* Ty = llvm::FunctionType::get(llvm::StructType::get(B.getContext(), Out), Ins, false);
  std::vector<llvm::Value*> Args;
  if (ABlock)
    Args.push_back(NvptxWgmmaDescriptor::emit(B, A[0], 16, ABlock));
  else
    Args.assign(A.begin(), A.end());
  Args.push_back(Desc);
  Args.insert(Args.end(), C.begin(), C.end());
  llvm::Value* D = B.CreateCall(Ty, llvm::InlineAsm::get(Ty, Text, Constraints, true), Args);
  for (size_t I = 0; I < N; ++I)
    C[I] = B.CreateExtractValue(D, {unsigned(I)});
  return true;
}

bool NvptxTarget::emitWgmmaWait(llvm::IRBuilder<>& B, std::vector<llvm::Value*>& C,
                                unsigned Pending, bool Commit) {
  if (!archSpecific())
    return false;
  const std::string Wait = std::string(Commit ? "wgmma.commit_group.sync.aligned;\n\t" : "") +
                           "wgmma.wait_group.sync.aligned " + std::to_string(Pending) + ";";
  asmStatement(B, Wait.c_str());
  // Each accumulator through an empty volatile asm after the wait, so that nothing reading it
  // moves above the wait (volatile asm keeps its order).
  for (llvm::Value*& V : C) {
    auto* Ty = llvm::FunctionType::get(V->getType(), {V->getType()}, false);
    const char* Pass = V->getType()->isFloatTy() ? "=f,0" : "=r,0"; // float32 or int32
    V = B.CreateCall(Ty, llvm::InlineAsm::get(Ty, "", Pass, /*hasSideEffects=*/true), {V});
  }
  return true;
}

void NvptxTarget::emitAsyncCopies(llvm::IRBuilder<>& B, llvm::ArrayRef<AsyncCopyArgs> Copies) {
  // cp.async (cg for 16 bytes: around L1, as CUTLASS does) with a source size, so the elements
  // at or past Valid are zero-filled. One test for the whole run: if every copy's pair of
  // addresses is aligned to its size, the run is its cp.asyncs in one straight line (which ptxas
  // schedules among the loop's other work); otherwise every copy takes element copies. Where
  // every copy is whole or empty (a tile's copies away from the matrix's edge), the source size
  // is a choice between the two constants: ptxas then issues each copy as one predicated
  // LDGSTS, where a size it cannot bound costs it five more instructions a copy to place the
  // bytes read.
  const llvm::DataLayout& DL = B.GetInsertBlock()->getModule()->getDataLayout();
  llvm::Function* F = B.GetInsertBlock()->getParent();
  llvm::LLVMContext& C = F->getContext();
  llvm::Value* Misaligned = B.getInt64(0);
  llvm::Value* WholeOrEmpty = B.getTrue();
  for (const AsyncCopyArgs& A : Copies) {
    uint64_t Bytes = DL.getTypeStoreSize(A.Elem) * A.Count;
    Misaligned =
        B.CreateOr(Misaligned, B.CreateAnd(B.CreateOr(B.CreatePtrToInt(A.Dst, B.getInt64Ty()),
                                                      B.CreatePtrToInt(A.Src, B.getInt64Ty())),
                                           B.getInt64(Bytes - 1)));
    WholeOrEmpty =
        B.CreateAnd(WholeOrEmpty, B.CreateOr(B.CreateICmpEQ(A.Valid, B.getInt32(0)),
                                             B.CreateICmpUGE(A.Valid, B.getInt32(A.Count))));
  }
  auto* Aligned = llvm::BasicBlock::Create(C, "async.aligned", F);
  auto* Whole = llvm::BasicBlock::Create(C, "async.whole", F);
  auto* Fast = llvm::BasicBlock::Create(C, "async.copy", F);
  auto* Slow = llvm::BasicBlock::Create(C, "async.plain", F);
  auto* Done = llvm::BasicBlock::Create(C, "async.done", F);
  // Misaligned copies are the rare case: their block goes out of line; so are partial ones.
  llvm::MDNode* Likely = llvm::MDBuilder(C).createBranchWeights(1u << 20, 1);
  B.CreateCondBr(B.CreateICmpEQ(Misaligned, B.getInt64(0)), Aligned, Slow, Likely);
  B.SetInsertPoint(Aligned);
  B.CreateCondBr(WholeOrEmpty, Whole, Fast, Likely);
  for (bool Either : {true, false}) {
    B.SetInsertPoint(Either ? Whole : Fast);
    for (const AsyncCopyArgs& A : Copies) {
      unsigned Size = unsigned(DL.getTypeStoreSize(A.Elem)), Bytes = Size * A.Count;
      llvm::Value* ValidBytes =
          Either ? B.CreateSelect(B.CreateICmpEQ(A.Valid, B.getInt32(0)), B.getInt32(0),
                                  B.getInt32(Bytes))
                 : B.CreateMul(B.CreateSelect(B.CreateICmpULT(A.Valid, B.getInt32(A.Count)),
                                              A.Valid, B.getInt32(A.Count)),
                               B.getInt32(Size));
      llvm::Intrinsic::ID Id = Bytes == 16  ? llvm::Intrinsic::nvvm_cp_async_cg_shared_global_16_s
                               : Bytes == 8 ? llvm::Intrinsic::nvvm_cp_async_ca_shared_global_8_s
                                            : llvm::Intrinsic::nvvm_cp_async_ca_shared_global_4_s;
      B.CreateIntrinsic(Id, {}, {A.Dst, A.Src, ValidBytes});
    }
    B.CreateBr(Done);
  }
  B.SetInsertPoint(Slow);
  for (const AsyncCopyArgs& A : Copies)
    emitPlainCopy(B, A);
  B.CreateBr(Done);
  B.SetInsertPoint(Done);
}

void NvptxTarget::emitPlainCopy(llvm::IRBuilder<>& B, const AsyncCopyArgs& A) {
  llvm::Function* F = B.GetInsertBlock()->getParent();
  llvm::LLVMContext& C = F->getContext();
  for (unsigned J = 0; J < A.Count; ++J) {
    // Only the valid elements are read (the rest may lie past the buffer's end).
    auto* Read = llvm::BasicBlock::Create(C, "async.read", F);
    auto* Next = llvm::BasicBlock::Create(C, "async.next", F);
    llvm::Value* To =
        A.DstElems.empty() ? B.CreateConstInBoundsGEP1_32(A.Elem, A.Dst, J) : A.DstElems[J];
    B.CreateStore(llvm::Constant::getNullValue(A.Elem), To);
    B.CreateCondBr(B.CreateICmpULT(B.getInt32(J), A.Valid), Read, Next);
    B.SetInsertPoint(Read);
    B.CreateStore(B.CreateLoad(A.Elem, B.CreateConstInBoundsGEP1_32(A.Elem, A.Src, J)), To);
    B.CreateBr(Next);
    B.SetInsertPoint(Next);
  }
}

/// Whether P is aligned to Bytes (a power of two, a multiple of Elem's size). Where P is one
/// element index from a base (a plain element address), the base and the index (in its own 32
/// bits where it was widened) are tested apart: the base's test leaves the loop, and an index's
/// addends in multiples of Bytes (a K-loop's step, a row stride times 16) fold away.
static llvm::Value* isAligned(llvm::IRBuilder<>& B, llvm::Value* P, llvm::Type* Elem,
                              uint64_t Bytes) {
  const llvm::DataLayout& DL = B.GetInsertBlock()->getModule()->getDataLayout();
  const uint64_t Size = DL.getTypeStoreSize(Elem);
  auto* Gep = llvm::dyn_cast<llvm::GEPOperator>(P);
  if (Gep && Gep->getNumIndices() == 1 && Gep->getSourceElementType() == Elem &&
      Bytes % Size == 0) {
    llvm::Value* Index = Gep->getOperand(1);
    if (auto* Wide = llvm::dyn_cast<llvm::ZExtInst>(Index))
      Index = Wide->getOperand(0);
    llvm::Value* Base = B.CreatePtrToInt(Gep->getPointerOperand(), B.getInt64Ty());
    llvm::Type* IndexTy = Index->getType();
    return B.CreateAnd(
        B.CreateICmpEQ(B.CreateAnd(Base, B.getInt64(Bytes - 1)), B.getInt64(0)),
        B.CreateICmpEQ(B.CreateAnd(Index, llvm::ConstantInt::get(IndexTy, Bytes / Size - 1)),
                       llvm::ConstantInt::get(IndexTy, 0)));
  }
  return B.CreateICmpEQ(B.CreateAnd(B.CreatePtrToInt(P, B.getInt64Ty()), B.getInt64(Bytes - 1)),
                        B.getInt64(0));
}

llvm::Value* NvptxTarget::takesInLine(llvm::IRBuilder<>& B, const AsyncCopyArgs& A) {
  const llvm::DataLayout& DL = B.GetInsertBlock()->getModule()->getDataLayout();
  const uint64_t Bytes = DL.getTypeStoreSize(A.Elem) * A.Count;
  llvm::Value* Aligned =
      B.CreateAnd(isAligned(B, A.Dst, A.Elem, Bytes), isAligned(B, A.Src, A.Elem, Bytes));
  llvm::Value* WholeOrEmpty = B.CreateOr(B.CreateICmpUGE(A.Valid, B.getInt32(A.Count)),
                                         B.CreateICmpEQ(A.Valid, B.getInt32(0)));
  return B.CreateAnd(Aligned, WholeOrEmpty);
}

std::function<void()>
NvptxTarget::emitAsyncCopiesInLine(llvm::IRBuilder<>& B, llvm::ArrayRef<AsyncCopyArgs> Copies,
                                   std::function<std::vector<AsyncCopyArgs>()> Again) {
  if (!asyncCopiesInLine()) {
    emitAsyncCopies(B, Copies);
    return {};
  }
  // Each copy that is aligned and whole or empty (a tile's copies away from the matrix's edge)
  // is its cp.async under a predicate, in line; the others are plain copies left to later in
  // the block, out of line behind one test (whether every copy went in line: one predicate kept
  // live; the rest is evaluated anew there). So the K-loop's copies, its matrix loads and its
  // products are one straight line that ptxas schedules together.
  const llvm::DataLayout& DL = B.GetInsertBlock()->getModule()->getDataLayout();
  llvm::Value* All = B.getTrue();
  for (const AsyncCopyArgs& A : Copies) {
    const uint64_t Bytes = DL.getTypeStoreSize(A.Elem) * A.Count;
    llvm::Value* Take = takesInLine(B, A);
    All = B.CreateAnd(All, Take);
    const std::string Text = std::string("@$3 cp.async.") + (Bytes == 16 ? "cg" : "ca") +
                             ".shared.global [$0], [$1], " + std::to_string(Bytes) + ", $2;";
    auto* Ty = llvm::FunctionType::get(
        B.getVoidTy(), {B.getInt64Ty(), B.getInt64Ty(), B.getInt32Ty(), B.getInt1Ty()}, false);
    llvm::Value* Size = B.CreateSelect(B.CreateICmpEQ(A.Valid, B.getInt32(0)), B.getInt32(0),
                                       B.getInt32(uint32_t(Bytes)));
    B.CreateCall(Ty, llvm::InlineAsm::get(Ty, Text, "l,l,r,b,~{memory}", /*hasSideEffects=*/true),
                 {B.CreatePtrToInt(A.Dst, B.getInt64Ty()), B.CreatePtrToInt(A.Src, B.getInt64Ty()),
                  Size, Take});
  }
  return [&B, All, Again = std::move(Again)] {
    llvm::Function* F = B.GetInsertBlock()->getParent();
    llvm::LLVMContext& C = F->getContext();
    auto* Plain = llvm::BasicBlock::Create(C, "async.left", F);
    auto* Done = llvm::BasicBlock::Create(C, "async.left.done", F);
    B.CreateCondBr(All, Done, Plain, llvm::MDBuilder(C).createBranchWeights(1u << 20, 1));
    B.SetInsertPoint(Plain);
    for (const AsyncCopyArgs& A : Again()) {
      auto* Copy = llvm::BasicBlock::Create(C, "async.plain", F);
      auto* Next = llvm::BasicBlock::Create(C, "async.plain.next", F);
      B.CreateCondBr(takesInLine(B, A), Next, Copy);
      B.SetInsertPoint(Copy);
      emitPlainCopy(B, A);
      B.CreateBr(Next);
      B.SetInsertPoint(Next);
    }
    B.CreateBr(Done);
    B.SetInsertPoint(Done);
  };
}

llvm::Value* NvptxTarget::emitLdMatrix(llvm::IRBuilder<>& B, llvm::Value* Ptr, unsigned Count,
                                       bool Transposed, unsigned Dim) {
  llvm::Intrinsic::ID Id =
      Count == 4 ? (Transposed ? llvm::Intrinsic::nvvm_ldmatrix_sync_aligned_m8n8_x4_trans_b16
                               : llvm::Intrinsic::nvvm_ldmatrix_sync_aligned_m8n8_x4_b16)
                 : (Transposed ? llvm::Intrinsic::nvvm_ldmatrix_sync_aligned_m8n8_x2_trans_b16
                               : llvm::Intrinsic::nvvm_ldmatrix_sync_aligned_m8n8_x2_b16);
  llvm::Value* Regs = B.CreateIntrinsic(Id, {Ptr->getType()}, {Ptr}); // overloaded on the pointer
  return B.CreateExtractValue(Regs, {Dim});
}

std::unique_ptr<LoweringTarget> createNvptxTarget(llvm::TargetMachine& TM,
                                                  const NvptxTargetOptions& O) {
  return std::make_unique<NvptxTarget>(TM, O);
}

} // namespace cajeta::lowering
