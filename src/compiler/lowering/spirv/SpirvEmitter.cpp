// SpirvEmitter: module setup, functions, blocks and structured statements (selection and loop
// merges; multi-level break/continue through a pending-jump variable checked at each loop exit).
#include "compiler/lowering/spirv/SpirvEmitter.h"

#include "bundle/KernelAbiRecord.h"
#include "compiler/kir/ManifestParams.h"
#include "compiler/kir/transforms/PortableWave.h"

#include <cassert>
#include <functional>

namespace cajeta::lowering::spirv {

using kir::Expr;
using kir::Stmt;
using kir::Type;

namespace {

/// The names of the capabilities this emitter can declare (VulkanKernelAbi.h lists them).
const char* capabilityName(spv::Capability C) {
  if (uint32_t(C) == 6022) // CooperativeMatrixKHR, newer than Debian 12's spirv-headers
    return "CooperativeMatrixKHR";
  if (uint32_t(C) == 5116) // SPV_KHR_bfloat16's, newer still
    return "BFloat16TypeKHR";
  if (uint32_t(C) == 5118)
    return "BFloat16CooperativeMatrixKHR";
  switch (C) {
  case spv::Capability::WorkgroupMemoryExplicitLayoutKHR:
    return "WorkgroupMemoryExplicitLayoutKHR";
  case spv::Capability::WorkgroupMemoryExplicitLayout8BitAccessKHR:
    return "WorkgroupMemoryExplicitLayout8BitAccessKHR";
  case spv::Capability::WorkgroupMemoryExplicitLayout16BitAccessKHR:
    return "WorkgroupMemoryExplicitLayout16BitAccessKHR";
  case spv::Capability::VulkanMemoryModel:
    return "VulkanMemoryModel";
  case spv::Capability::VulkanMemoryModelDeviceScope:
    return "VulkanMemoryModelDeviceScope";
  case spv::Capability::Shader:
    return "Shader";
  case spv::Capability::Int8:
    return "Int8";
  case spv::Capability::Int16:
    return "Int16";
  case spv::Capability::Int64:
    return "Int64";
  case spv::Capability::Float16:
    return "Float16";
  case spv::Capability::Float64:
    return "Float64";
  case spv::Capability::Int64Atomics:
    return "Int64Atomics";
  case spv::Capability::StorageBuffer8BitAccess:
    return "StorageBuffer8BitAccess";
  case spv::Capability::StorageBuffer16BitAccess:
    return "StorageBuffer16BitAccess";
  case spv::Capability::AtomicFloat32AddEXT:
    return "AtomicFloat32AddEXT";
  case spv::Capability::AtomicFloat64AddEXT:
    return "AtomicFloat64AddEXT";
  case spv::Capability::SignedZeroInfNanPreserve:
    return "SignedZeroInfNanPreserve";
  case spv::Capability::GroupNonUniform:
    return "GroupNonUniform";
  case spv::Capability::GroupNonUniformVote:
    return "GroupNonUniformVote";
  case spv::Capability::GroupNonUniformBallot:
    return "GroupNonUniformBallot";
  case spv::Capability::GroupNonUniformShuffle:
    return "GroupNonUniformShuffle";
  case spv::Capability::GroupNonUniformArithmetic:
    return "GroupNonUniformArithmetic";
  default:
    return "Unknown";
  }
}

/// Whether a jump inside S leaves S (targets a loop that S does not contain).
bool jumpsOut(const Stmt* S, std::vector<uint32_t>& Inner) {
  if (!S)
    return false;
  switch (S->K) {
  case Stmt::Kind::Block:
    for (const Stmt* C : S->Body)
      if (jumpsOut(C, Inner))
        return true;
    return false;
  case Stmt::Kind::If:
    return jumpsOut(S->Then, Inner) || jumpsOut(S->Else, Inner);
  case Stmt::Kind::Loop: {
    Inner.push_back(S->LoopId);
    bool Out = jumpsOut(S->LoopBody, Inner) || jumpsOut(S->Step, Inner);
    Inner.pop_back();
    return Out;
  }
  case Stmt::Kind::Break:
  case Stmt::Kind::Continue:
    for (uint32_t Id : Inner)
      if (Id == S->LoopId)
        return false;
    return true;
  default:
    return false;
  }
}

/// Pending-jump codes: 2 * loop id + 1 for break, + 2 for continue (never 0).
uint32_t jumpCode(uint32_t LoopId, bool IsContinue) {
  return 2 * LoopId + (IsContinue ? 2 : 1);
}

} // namespace

SpirvEmitter::SpirvEmitter(const kir::Module& M, const kir::Function& K, const SpirvEmitOptions& O)
    : M(M), Kernel(K), Opts(O) {
  if (O.CoopMatrixTiles) // SPV_KHR_cooperative_matrix requires it
    Mb.useVulkanMemoryModel();
}

SpirvEmitter::~SpirvEmitter() = default;

std::vector<ParamSlot> SpirvEmitter::paramBlockLayout(const kir::Module& M, const kir::Function& K,
                                                      uint32_t& Bytes) {
  std::vector<ParamSlot> Out;
  uint32_t Offset = 0;
  for (uint32_t I = 0; I < K.Params.size(); ++I) {
    const kir::Param& P = K.Params[I];
    uint32_t Size = 0, Align = 4;
    if (P.Ty.isBuffer()) {
      continue;
    } else if (P.Ty.isPod() && P.Ty.PodIndex < M.Pods.size()) {
      const kir::PodType& Pod = M.Pods[P.Ty.PodIndex];
      Size = (Pod.Size + 3) / 4 * 4;
      Align = std::max<uint32_t>(4, Pod.Align);
    } else if (P.Ty.isScalar()) {
      Size = P.Ty.bits() > 32 ? 8 : 4;
      Align = Size;
    } else {
      continue;
    }
    Offset = (Offset + Align - 1) / Align * Align;
    Out.push_back({I, Offset, Size});
    Offset += Size;
  }
  Bytes = Offset;
  return Out;
}

SpirvKernel SpirvEmitter::emitKernel(const kir::Module& M, const kir::Function& K,
                                     const SpirvEmitOptions& Options) {
  SpirvKernel Out;
  if (!K.IsKernel) {
    Out.Error = "'" + K.Name + "' is not a kernel";
    return Out;
  }
  if (!kir::availableOn(K, "vulkan")) {
    Out.Error = "kernel '" + K.Name + "' is not available on vulkan (@Backend)";
    return Out;
  }
  // M is the target's prepared module (kir::runPipeline): the portable wave tier, if chosen,
  // has already rewritten K.
  SpirvEmitter E(M, K, Options);
  Out.Ok = E.run(Out);
  if (!Out.Ok)
    Out.Error = E.Error;
  return Out;
}

bool SpirvEmitter::fail(const kir::SourceLoc& L, const std::string& Message) {
  if (Error.empty())
    Error = "function '" + (Cur && Cur->KF ? Cur->KF->Name : Kernel.Name) + "' at " +
            std::to_string(L.Line) + ":" + std::to_string(L.Col) + ": " + Message;
  return false;
}

bool SpirvEmitter::run(SpirvKernel& Out) {
  Slots = paramBlockLayout(M, Kernel, BlockBytes);
  for (const kir::SharedArray& S : Kernel.SharedArrays) {
    if (S.Count == 0)
      Out.DynamicSharedElementBytes = bundle::scalarTypeSize(S.Elem);
    else if (S.PerWave)
      Out.PerWaveSharedBytes += S.Count * bundle::scalarTypeSize(S.Elem);
    else
      Out.StaticSharedBytes += S.Count * bundle::scalarTypeSize(S.Elem);
  }
  // Shared float arrays that take atomics are held as integer bits (no aliasing in Workgroup).
  SharedBits.assign(Kernel.SharedArrays.size(), false);
  std::function<void(const Expr*)> ScanExpr = [&](const Expr* E) {
    if (!E)
      return;
    if (E->K == Expr::Kind::Atomic && !E->Ops.empty() && E->Ops[0] &&
        E->Ops[0]->K == Expr::Kind::SharedRef && E->Ops[0]->Index < SharedBits.size() &&
        Type::scalar(E->Ops[0]->Ty.Elem).isFloat())
      SharedBits[E->Ops[0]->Index] = true;
    for (const Expr* Op : E->Ops)
      ScanExpr(Op);
  };
  std::function<void(const Stmt*)> ScanStmt = [&](const Stmt* S) {
    if (!S)
      return;
    ScanExpr(S->E);
    for (const Stmt* C : S->Body)
      ScanStmt(C);
    ScanStmt(S->Then);
    ScanStmt(S->Else);
    ScanStmt(S->LoopBody);
    ScanStmt(S->Step);
  };
  ScanStmt(Kernel.Body);
  SharedPool = sharedPoolWanted();
  if (SharedPool) {
    Mb.addExtension("SPV_KHR_workgroup_memory_explicit_layout");
    Mb.addCapability(spv::Capability::WorkgroupMemoryExplicitLayoutKHR);
    for (const kir::SharedArray& S : Kernel.SharedArrays) {
      unsigned Size = bundle::scalarTypeSize(S.Elem);
      if (Size == 1)
        Mb.addCapability(spv::Capability::WorkgroupMemoryExplicitLayout8BitAccessKHR);
      else if (Size == 2)
        Mb.addCapability(spv::Capability::WorkgroupMemoryExplicitLayout16BitAccessKHR);
    }
    Out.Version = 0x00010400;
  }

  emitKernelFunction();
  if (!Error.empty())
    return false;

  Out.Module = Mb.finish(Out.Version);
  Out.EntryPoint = Kernel.Symbol.empty() ? "main" : Kernel.Symbol;
  for (spv::Capability C : Mb.capabilities())
    Out.Capabilities.push_back(capabilityName(C));
  Out.Extensions.assign(Mb.extensions().begin(), Mb.extensions().end());
  Out.Slots = Slots;
  Out.ParamBlockBytes = BlockBytes;
  Out.ParamBlockIsUniform = BlockBytes > MaxPushConstantBytes;
  Out.UsesNativeFloatAtomicAdd = UsedNativeFAdd;
  Out.CooperativeMatrixShapes.assign(MatrixShapes.begin(), MatrixShapes.end());
  Out.UsesImpreciseFma = UsedFma;
  Out.UsesImpreciseTranscendentals = UsedTranscendental;
  Out.ReadsGridCount = UsedGridCount;
  return true;
}

// ---------------------------------------------------------------------------------------------
// Functions and blocks

void SpirvEmitter::emitKernelFunction() {
  FnState FS;
  FS.KF = &Kernel;
  FS.FnId = Mb.newId();
  FS.ReturnType = Mb.typeVoid();
  uint32_t FnType = Mb.typeFunction(FS.ReturnType, {});
  SpirvModuleBuilder::inst(
      FS.Header, spv::Op::OpFunction,
      {FS.ReturnType, FS.FnId, uint32_t(spv::FunctionControlMask::MaskNone), FnType});
  Cur = &FS;
  FS.Blocks.push_back({Mb.newId(), {}});
  FS.Live = true;
  if (Opts.CheckBounds)
    FailedFlag = Mb.globalVariable(Mb.typePointer(spv::StorageClass::Private, boolTy()),
                                   spv::StorageClass::Private, Mb.constBool(false));
  // The workgroup size is specialised at launch (spec ids 0, 1, 2).
  uint32_t X = Mb.specConstU32(1, 0), Y = Mb.specConstU32(1, 1), Z = Mb.specConstU32(1, 2);
  WorkgroupSize = Mb.specConstComposite(Mb.typeVector(u32(), 3), {X, Y, Z});
  GroupSizeIds[0] = X;
  GroupSizeIds[1] = Y;
  GroupSizeIds[2] = Z;
  Mb.decorate(WorkgroupSize, spv::Decoration::BuiltIn, {uint32_t(spv::BuiltIn::WorkgroupSize)});
  Mb.addName(X, "cj_group_size_x");
  Mb.addName(Y, "cj_group_size_y");
  Mb.addName(Z, "cj_group_size_z");
  // Parameters: scalars are read once from the parameter block in the entry block.
  FS.Params.resize(Kernel.Params.size(), 0);
  for (uint32_t I = 0; I < Kernel.Params.size(); ++I) {
    const kir::Param& P = Kernel.Params[I];
    assert((P.Ty.isBuffer() || P.Ty.isPod() || P.Ty.isScalar()) &&
           "verified KIR: kernel parameters are buffers, PODs or scalars");
    if (P.Ty.isBuffer() || P.Ty.isPod())
      FS.Params[I] = I;
    else
      FS.Params[I] = scalarParam(I, P.Ty);
  }
  if (Opts.CheckBounds) {
    // A launch that has already failed ends each new work-item at once.
    uint32_t Ptr =
        op(spv::Op::OpAccessChain, Mb.typePointer(spv::StorageClass::StorageBuffer, u32()),
           {statusVar(), Mb.constU32(0), Mb.constU32(0)});
    uint32_t Failed = op(spv::Op::OpAtomicLoad, u32(), {Ptr, deviceScope(), Mb.constU32(0)});
    uint32_t Is = op(spv::Op::OpINotEqual, boolTy(), {Failed, Mb.constU32(0)});
    uint32_t Leave = Mb.newId(), Go = Mb.newId();
    opVoid(spv::Op::OpSelectionMerge, {Go, 0});
    condBranch(Is, Leave, Go);
    beginBlock(Leave);
    emitReturn(0);
    beginBlock(Go);
  }
  emitFunctionBody(FS);
  finishFunction(FS);
  Cur = nullptr;
  // SPIR-V 1.4 (the shared pool's) lists every module-scope variable; 1.3 the inputs only.
  Words Interface;
  if (SharedPool)
    Interface = Mb.globalVariables();
  else
    for (const auto& [B, Var] : Builtins)
      Interface.push_back(Var);
  Mb.addEntryPoint(spv::ExecutionModel::GLCompute, FS.FnId,
                   Kernel.Symbol.empty() ? "main" : Kernel.Symbol, Interface);
  Mb.addExecutionMode(FS.FnId, spv::ExecutionMode::LocalSize, {1, 1, 1});
  // IEEE NaN, infinity and signed-zero semantics (the language's): without this mode a Vulkan
  // driver may ignore them (NVIDIA's did: NaN compares, -0 from min/max). Denormals are kept by
  // the runtime, which adds DenormPreserve where the device supports it (VulkanKernelAbi.h).
  Mb.addExtension("SPV_KHR_float_controls");
  Mb.addCapability(spv::Capability::SignedZeroInfNanPreserve);
  const auto& Caps = Mb.capabilities();
  for (uint32_t Width : {16u, 32u, 64u})
    if (Width == 32 || (Width == 16 && Caps.count(spv::Capability::Float16)) ||
        (Width == 64 && Caps.count(spv::Capability::Float64)))
      Mb.addExecutionMode(FS.FnId, spv::ExecutionMode::SignedZeroInfNanPreserve, {Width});
  Mb.addName(FS.FnId, Kernel.Name);
  // The parameter list as the manifest marshals it, for the loader to hold the manifest against.
  Mb.addModuleProcessed("cajeta-abi " + bundle::kernelAbiRecord(kir::manifestParams(M, Kernel)));
}

uint32_t SpirvEmitter::helperFunction(uint32_t Callee, const std::vector<uint32_t>& Bindings) {
  auto Key = std::make_pair(Callee, Bindings);
  if (auto It = Helpers.find(Key); It != Helpers.end())
    return It->second;
  const kir::Function& KF = *M.Functions[Callee];
  auto FS = std::make_unique<FnState>();
  FS->KF = &KF;
  FS->FnId = Mb.newId();
  Helpers[Key] = FS->FnId;
  FS->ReturnType = KF.ReturnType.isVoid() ? Mb.typeVoid() : valueType(KF.ReturnType);
  Words ParamTypes;
  for (const kir::Param& P : KF.Params)
    if (P.Ty.isScalar())
      ParamTypes.push_back(valueType(P.Ty));
  uint32_t FnType = Mb.typeFunction(FS->ReturnType, ParamTypes);
  SpirvModuleBuilder::inst(
      FS->Header, spv::Op::OpFunction,
      {FS->ReturnType, FS->FnId, uint32_t(spv::FunctionControlMask::MaskNone), FnType});
  size_t B = 0;
  for (const kir::Param& P : KF.Params) {
    if (P.Ty.isScalar()) {
      uint32_t Id = Mb.newId();
      SpirvModuleBuilder::inst(FS->Header, spv::Op::OpFunctionParameter, {valueType(P.Ty), Id});
      FS->Params.push_back(Id);
    } else {
      FS->Params.push_back(B < Bindings.size() ? Bindings[B] : 0);
      ++B;
    }
  }
  Mb.addName(FS->FnId, KF.Name);
  FnState* Saved = Cur;
  Cur = FS.get();
  FS->Blocks.push_back({Mb.newId(), {}});
  FS->Live = true;
  emitFunctionBody(*FS);
  finishFunction(*FS);
  Cur = Saved;
  return Helpers[Key];
}

void SpirvEmitter::emitFunctionBody(FnState& FS) {
  const kir::Function& KF = *FS.KF;
  for (const kir::Local& L : KF.Locals) {
    if (L.Ty.isRayQuery()) { // the native form: an OpTypeRayQueryKHR, initialised by its calls
      uint32_t Id = Mb.newId();
      uint32_t Q = Mb.typeRayQuery();
      SpirvModuleBuilder::inst(FS.Vars, spv::Op::OpVariable,
                               {Mb.typePointer(spv::StorageClass::Function, Q), Id,
                                uint32_t(spv::StorageClass::Function)});
      FS.Locals.push_back(Id);
      continue;
    }
    if (L.Ty.isMatrix()) { // a cooperative-matrix fragment: always assigned before it is read
      uint32_t Id = Mb.newId();
      SpirvModuleBuilder::inst(FS.Vars, spv::Op::OpVariable,
                               {Mb.typePointer(spv::StorageClass::Function, matrixType(L.Ty)), Id,
                                uint32_t(spv::StorageClass::Function)});
      FS.Locals.push_back(Id);
      continue;
    }
    assert(L.Ty.isScalar() && "verified KIR: locals are scalars");
    uint32_t T = valueType(L.Ty);
    uint32_t Ptr = Mb.typePointer(spv::StorageClass::Function, T);
    uint32_t Id = Mb.newId();
    SpirvModuleBuilder::inst(FS.Vars, spv::Op::OpVariable,
                             {Ptr, Id, uint32_t(spv::StorageClass::Function), Mb.constNull(T)});
    FS.Locals.push_back(Id);
  }
  for (const kir::PrivateArray& P : KF.PrivateArrays) {
    uint32_t T = Mb.typeArray(valueType(Type::scalar(P.Elem)), Mb.constU32(P.Count));
    uint32_t Id = Mb.newId();
    SpirvModuleBuilder::inst(FS.Vars, spv::Op::OpVariable,
                             {Mb.typePointer(spv::StorageClass::Function, T), Id,
                              uint32_t(spv::StorageClass::Function)});
    Mb.addName(Id, P.Name);
    FS.Privates.push_back(Id);
  }
  assert((KF.IsKernel || KF.SharedArrays.empty()) && KF.Body &&
         "verified KIR: a body, and shared arrays only in kernels");
  emitStmt(KF.Body);
  if (FS.Live)
    emitReturn(KF.ReturnType.isVoid() ? 0 : zeroOf(KF.ReturnType));
}

void SpirvEmitter::finishFunction(FnState& FS) {
  Words W = FS.Header;
  for (size_t I = 0; I < FS.Blocks.size(); ++I) {
    SpirvModuleBuilder::inst(W, spv::Op::OpLabel, {FS.Blocks[I].Label});
    if (I == 0)
      W.insert(W.end(), FS.Vars.begin(), FS.Vars.end());
    W.insert(W.end(), FS.Blocks[I].W.begin(), FS.Blocks[I].W.end());
  }
  SpirvModuleBuilder::inst(W, spv::Op::OpFunctionEnd, {});
  Mb.addFunctionWords(W);
}

uint32_t SpirvEmitter::op(spv::Op Op, uint32_t Type, const Words& Operands) {
  uint32_t Id = Mb.newId();
  Words Ops{Type, Id};
  Ops.insert(Ops.end(), Operands.begin(), Operands.end());
  SpirvModuleBuilder::inst(Cur->Blocks.back().W, Op, Ops);
  return Id;
}

void SpirvEmitter::opVoid(spv::Op Op, const Words& Operands) {
  SpirvModuleBuilder::inst(Cur->Blocks.back().W, Op, Operands);
}

void SpirvEmitter::beginBlock(uint32_t Label) {
  Cur->Blocks.push_back({Label, {}});
  Cur->Live = Cur->HasPred.count(Label) > 0;
  if (!Cur->Live) // a merge block nothing reaches (every path returned or jumped away)
    opVoid(spv::Op::OpUnreachable, {});
}

void SpirvEmitter::branch(uint32_t Target) {
  if (!Cur->Live)
    return;
  opVoid(spv::Op::OpBranch, {Target});
  Cur->HasPred.insert(Target);
  Cur->Live = false;
}

void SpirvEmitter::condBranch(uint32_t Cond, uint32_t True, uint32_t False) {
  if (!Cur->Live)
    return;
  opVoid(spv::Op::OpBranchConditional, {Cond, True, False});
  Cur->HasPred.insert(True);
  Cur->HasPred.insert(False);
  Cur->Live = false;
}

void SpirvEmitter::emitReturn(uint32_t Value) {
  if (!Cur->Live)
    return;
  if (Value)
    opVoid(spv::Op::OpReturnValue, {Value});
  else
    opVoid(spv::Op::OpReturn, {});
  Cur->Live = false;
}

void SpirvEmitter::leaveOnFailure() {
  // After a recorded bounds failure: remember it for the callers, leave this function.
  opVoid(spv::Op::OpStore, {FailedFlag, Mb.constBool(true)});
  emitReturn(Cur->KF->ReturnType.isVoid() ? 0 : zeroOf(Cur->KF->ReturnType));
}

// ---------------------------------------------------------------------------------------------
// Statements

void SpirvEmitter::emitStmt(const Stmt* S) {
  if (!S || !Error.empty() || !Cur->Live)
    return;
  switch (S->K) {
  case Stmt::Kind::Block:
    for (const Stmt* C : S->Body)
      emitStmt(C);
    return;
  case Stmt::Kind::Eval:
    emitExpr(S->E);
    return;
  case Stmt::Kind::If:
    return emitIf(S);
  case Stmt::Kind::Loop:
    return emitLoop(S);
  case Stmt::Kind::Break:
  case Stmt::Kind::Continue:
    return emitJump(S);
  case Stmt::Kind::Return:
    return emitReturnStmt(S);
  case Stmt::Kind::Barrier: {
    // Vulkan-legal: workgroup execution and memory scope, acquire-release over workgroup and
    // buffer (uniform) memory.
    uint32_t Sem = uint32_t(spv::MemorySemanticsMask::AcquireRelease) |
                   uint32_t(spv::MemorySemanticsMask::WorkgroupMemory) |
                   uint32_t(spv::MemorySemanticsMask::UniformMemory);
    uint32_t Wg = Mb.constU32(uint32_t(spv::Scope::Workgroup));
    opVoid(spv::Op::OpControlBarrier, {Wg, Wg, Mb.constU32(withVisibility(Sem))});
    return;
  }
  case Stmt::Kind::Try:
    assert(false && "verified KIR: try only in host modules");
    return;
  }
  assert(false && "verified KIR: unknown statement kind");
}

void SpirvEmitter::emitIf(const Stmt* S) {
  assert(S->E && S->Then && S->E->Ty.isBool() && "verified KIR: if (bool) then [else]");
  uint32_t C = emitExpr(S->E);
  if (!Error.empty())
    return;
  uint32_t Then = Mb.newId(), Merge = Mb.newId();
  uint32_t Else = S->Else ? Mb.newId() : Merge;
  opVoid(spv::Op::OpSelectionMerge, {Merge, 0});
  condBranch(C, Then, Else);
  beginBlock(Then);
  emitStmt(S->Then);
  branch(Merge);
  if (S->Else) {
    beginBlock(Else);
    emitStmt(S->Else);
    branch(Merge);
  }
  beginBlock(Merge);
}

void SpirvEmitter::emitLoop(const Stmt* S) {
  assert((!S->E || S->E->Ty.isBool()) && "verified KIR: bool loop conditions");
#ifndef NDEBUG
  for (const LoopInfo& L : Cur->Loops)
    assert(L.Id != S->LoopId && "verified KIR: unique loop ids");
#endif
  uint32_t Header = Mb.newId(), Body = Mb.newId(), Continue = Mb.newId(), Merge = Mb.newId();
  branch(Header);
  beginBlock(Header);
  opVoid(spv::Op::OpLoopMerge, {Merge, Continue, 0});
  if (S->E && !S->TestAtEnd) {
    uint32_t Test = Mb.newId();
    branch(Test);
    beginBlock(Test);
    uint32_t C = emitExpr(S->E);
    condBranch(C, Body, Merge);
  } else {
    branch(Body);
  }
  Cur->Loops.push_back({S->LoopId, Merge, Continue});
  beginBlock(Body);
  emitStmt(S->LoopBody);
  branch(Continue);
  // The continue construct: the step (and a do-while's test), then the back edge.
  Cur->Blocks.push_back({Continue, {}});
  Cur->Live = true;
  if (Cur->HasPred.count(Continue)) {
    emitStmt(S->Step);
    if (S->E && S->TestAtEnd && Cur->Live) {
      uint32_t C = emitExpr(S->E);
      condBranch(C, Header, Merge);
    }
  }
  branch(Header);
  Cur->Loops.pop_back();
  beginBlock(Merge);
  std::vector<uint32_t> Inner{S->LoopId};
  if (Cur->Live && (jumpsOut(S->LoopBody, Inner) || jumpsOut(S->Step, Inner)))
    dispatchPending();
}

void SpirvEmitter::emitJump(const Stmt* S) {
  assert(!Cur->Loops.empty() && "verified KIR: jumps inside loops");
  bool IsContinue = S->K == Stmt::Kind::Continue;
  const LoopInfo& Inner = Cur->Loops.back();
  if (Inner.Id == S->LoopId) {
    branch(IsContinue ? Inner.Continue : Inner.Merge);
    return;
  }
#ifndef NDEBUG
  bool Found = false;
  for (const LoopInfo& L : Cur->Loops)
    Found |= L.Id == S->LoopId;
  assert(Found && "verified KIR: a jump targets an enclosing loop");
#endif
  // SPIR-V may only leave the innermost loop: record the jump, break, and let each enclosing
  // loop's exit pass it on (dispatchPending) until the target loop takes it.
  if (!Cur->PendingVar) {
    uint32_t Ptr = Mb.typePointer(spv::StorageClass::Function, u32());
    Cur->PendingVar = Mb.newId();
    SpirvModuleBuilder::inst(
        Cur->Vars, spv::Op::OpVariable,
        {Ptr, Cur->PendingVar, uint32_t(spv::StorageClass::Function), Mb.constU32(0)});
  }
  opVoid(spv::Op::OpStore, {Cur->PendingVar, Mb.constU32(jumpCode(S->LoopId, IsContinue))});
  branch(Inner.Merge);
}

void SpirvEmitter::dispatchPending() {
  // No jump out of an inner loop was emitted (the ones there were dead code): nothing pends.
  if (!Cur->PendingVar)
    return;
  // Verified KIR jumps only to enclosing loops, so an outer loop takes every pending jump.
  assert(!Cur->Loops.empty() && "a jump leaves the outermost loop");
  const LoopInfo& L = Cur->Loops.back();
  uint32_t P = op(spv::Op::OpLoad, u32(), {Cur->PendingVar});
  uint32_t IsSet = op(spv::Op::OpINotEqual, boolTy(), {P, Mb.constU32(0)});
  uint32_t Handle = Mb.newId(), After = Mb.newId();
  opVoid(spv::Op::OpSelectionMerge, {After, 0});
  condBranch(IsSet, Handle, After);
  beginBlock(Handle);
  uint32_t BreakCode = Mb.constU32(jumpCode(L.Id, false));
  uint32_t ContCode = Mb.constU32(jumpCode(L.Id, true));
  uint32_t IsBreak = op(spv::Op::OpIEqual, boolTy(), {P, BreakCode});
  uint32_t IsCont = op(spv::Op::OpIEqual, boolTy(), {P, ContCode});
  uint32_t Mine = op(spv::Op::OpLogicalOr, boolTy(), {IsBreak, IsCont});
  // This loop's own jump is consumed; a jump further out stays pending and breaks this loop.
  uint32_t Next = op(spv::Op::OpSelect, u32(), {Mine, Mb.constU32(0), P});
  opVoid(spv::Op::OpStore, {Cur->PendingVar, Next});
  uint32_t ToCont = Mb.newId(), ToBreak = Mb.newId(), Join = Mb.newId();
  opVoid(spv::Op::OpSelectionMerge, {Join, 0});
  condBranch(IsCont, ToCont, ToBreak);
  beginBlock(ToCont);
  branch(L.Continue);
  beginBlock(ToBreak);
  branch(L.Merge);
  beginBlock(Join); // unreachable
  beginBlock(After);
}

void SpirvEmitter::emitReturnStmt(const Stmt* S) {
  const kir::Function& KF = *Cur->KF;
  if (KF.IsKernel || KF.ReturnType.isVoid()) {
    assert(!S->E && "verified KIR: no value returned from a void function");
    emitReturn(0);
    return;
  }
  assert(S->E && S->E->Ty == KF.ReturnType && "verified KIR: return typing");
  uint32_t V = emitExpr(S->E);
  if (Error.empty())
    emitReturn(V);
}

} // namespace cajeta::lowering::spirv
