// SpirvEmitter's memory: types, StorageBuffer and Workgroup variables, the parameter block
// (push constants or a uniform buffer), POD fields, builtins, --check-bounds and atomics.
#include "compiler/lowering/spirv/SpirvEmitter.h"

#include "compiler/kir/Walk.h"

#include <spirv/unified1/GLSL.std.450.h>

#include <cassert>

namespace cajeta::lowering::spirv {

using kir::AtomicOp;
using kir::Expr;
using kir::MemoryOrder;
using kir::Type;

uint32_t SpirvEmitter::valueType(Type T) {
  if (T.isMatrix())
    return matrixType(T);
  if (T.isBool())
    return Mb.typeBool();
  if (T.isFloat() && T.Elem != kir::ScalarType::BF16) // bfloat16 is bits (kir::BFloat16Lowering)
    return Mb.typeFloat(T.bits());
  return Mb.typeInt(T.bits());
}

uint32_t SpirvEmitter::memoryType(kir::ScalarType T) {
  if (T == kir::ScalarType::Bool) // bool in buffers is a byte
    return Mb.typeInt(8);
  return valueType(Type::scalar(T));
}

uint32_t SpirvEmitter::intConst(Type T, uint64_t V) {
  return Mb.constInt(T.bits(), V);
}

uint32_t SpirvEmitter::zeroOf(Type T) {
  if (T.isBool())
    return Mb.constBool(false);
  if (T.isFloat() && T.Elem != kir::ScalarType::BF16)
    return Mb.constFloat(T.bits(), 0.0);
  return Mb.constInt(T.bits(), 0);
}

// ---------------------------------------------------------------------------------------------
// Variables

uint32_t SpirvEmitter::bufferVar(uint32_t KernelParam, bool IntView) {
  auto Key = std::make_pair(KernelParam, IntView);
  if (auto It = BufferVars.find(Key); It != BufferVars.end())
    return It->second;
  kir::ScalarType E = Kernel.Params[KernelParam].Ty.Elem;
  unsigned Size = bundle::scalarTypeSize(E);
  uint32_t Elem = IntView ? Mb.typeInt(Size * 8) : memoryType(E);
  if (Size == 1) {
    Mb.addCapability(spv::Capability::StorageBuffer8BitAccess);
    Mb.addExtension("SPV_KHR_8bit_storage");
  } else if (Size == 2) {
    Mb.addCapability(spv::Capability::StorageBuffer16BitAccess);
    Mb.addExtension("SPV_KHR_16bit_storage");
  }
  uint32_t Var = storageBlock(Elem, Size, KernelParam, IntView ? ".bits" : "");
  BufferVars[Key] = Var;
  return Var;
}

uint32_t SpirvEmitter::blockVariable(uint32_t Array, uint32_t Stride, spv::StorageClass SC) {
  Mb.decorate(Array, spv::Decoration::ArrayStride, {Stride});
  uint32_t St = Mb.typeStruct({Array});
  Mb.decorate(St, spv::Decoration::Block);
  Mb.decorateMember(St, 0, spv::Decoration::Offset, {0});
  return Mb.globalVariable(Mb.typePointer(SC, St), SC);
}

uint32_t SpirvEmitter::storageBlock(uint32_t Elem, uint32_t Stride, uint32_t KernelParam,
                                    const std::string& Suffix) {
  uint32_t Var = blockVariable(Mb.typeRuntimeArray(Elem), Stride, spv::StorageClass::StorageBuffer);
  Mb.decorate(Var, spv::Decoration::DescriptorSet, {0});
  Mb.decorate(Var, spv::Decoration::Binding, {KernelParam});
  Mb.addName(Var, Kernel.Params[KernelParam].Name + Suffix);
  return Var;
}

uint32_t SpirvEmitter::wordView(uint32_t KernelParam, unsigned WordCount) {
  auto Key = std::make_pair(KernelParam, WordCount);
  if (auto It = WordViews.find(Key); It != WordViews.end())
    return It->second;
  uint32_t Elem = WordCount == 1 ? u32() : Mb.typeVector(u32(), WordCount);
  uint32_t Var =
      storageBlock(Elem, 4 * WordCount, KernelParam, ".words" + std::to_string(WordCount));
  WordViews[Key] = Var;
  return Var;
}

uint32_t SpirvEmitter::emitLoadWord(const Expr* E) {
  // {buffer, chunk}: word Dim of the Index-word chunk, through the buffer's word view. Each
  // word's expression loads the whole vector; the driver keeps one load (nothing is stored to
  // the buffer between them).
  ArrayRef Src = arrayOf(E->Ops[0]);
  const unsigned WordCount = E->Index;
  uint32_t Chunk = emitExpr(E->Ops[1]);
  if (!Error.empty())
    return 0;
  uint32_t Vec = WordCount == 1 ? u32() : Mb.typeVector(u32(), WordCount);
  Words Load = {op(spv::Op::OpAccessChain, Mb.typePointer(spv::StorageClass::StorageBuffer, Vec),
                   {wordView(Src.KernelParam, WordCount), Mb.constU32(0), Chunk})};
  for (uint32_t W : memoryAccess())
    Load.push_back(W);
  uint32_t Value = op(spv::Op::OpLoad, Vec, Load);
  return WordCount == 1 ? Value : op(spv::Op::OpCompositeExtract, u32(), {Value, E->Dim});
}

uint32_t SpirvEmitter::emitStoreWords(const Expr* E) {
  if (E->Ops[0]->K == Expr::Kind::Param) {
    // {buffer, chunk, words...}: the chunk whole, one vector store through the word view.
    ArrayRef Dst = arrayOf(E->Ops[0]);
    const unsigned WordCount = E->Index;
    Words Parts;
    for (size_t I = 1; I < E->Ops.size(); ++I)
      Parts.push_back(emitExpr(E->Ops[I]));
    if (!Error.empty())
      return 0;
    uint32_t Chunk = Parts.front();
    Parts.erase(Parts.begin());
    uint32_t Vec = WordCount == 1 ? u32() : Mb.typeVector(u32(), WordCount);
    uint32_t Value = WordCount == 1 ? Parts[0] : op(spv::Op::OpCompositeConstruct, Vec, Parts);
    Words Store = {op(spv::Op::OpAccessChain, Mb.typePointer(spv::StorageClass::StorageBuffer, Vec),
                      {wordView(Dst.KernelParam, WordCount), Mb.constU32(0), Chunk}),
                   Value};
    for (uint32_t W : memoryAccess())
      Store.push_back(W);
    opVoid(spv::Op::OpStore, Store);
    return 0;
  }
  // {shared, dst, words...}: in the pool, the words as one store through its view of words
  // (dst is a multiple of the chunk's elements: kir::AsyncCopyLowering stages only such copies);
  // otherwise each word as its 4 / size elements of the shared array's type.
  ArrayRef Dst = arrayOf(E->Ops[0]);
  const unsigned Size = bundle::scalarTypeSize(Dst.Elem.Elem), PerWord = 4 / Size;
  uint32_t Di = emitExpr(E->Ops[1]);
  Words Values;
  for (size_t I = 2; I < E->Ops.size(); ++I)
    Values.push_back(emitExpr(E->Ops[I]));
  if (!Error.empty())
    return 0;
  if (Dst.Base) {
    const unsigned WordCount = unsigned(Values.size()), ChunkBytes = 4 * WordCount;
    uint32_t Vec = WordCount == 1 ? u32() : Mb.typeVector(u32(), WordCount);
    uint32_t Value = WordCount == 1 ? Values[0] : op(spv::Op::OpCompositeConstruct, Vec, Values);
    uint32_t First = sharedStart(E->Ops[0]->Index, ChunkBytes);
    uint32_t Chunk = op(spv::Op::OpIAdd, u32(),
                        {First, op(spv::Op::OpUDiv, u32(), {Di, Mb.constU32(ChunkBytes / Size)})});
    Words Store = {op(spv::Op::OpAccessChain, Mb.typePointer(spv::StorageClass::Workgroup, Vec),
                      {sharedView(Vec, ChunkBytes), Mb.constU32(0), Chunk}),
                   Value};
    for (uint32_t W : memoryAccess())
      Store.push_back(W);
    opVoid(spv::Op::OpStore, Store);
    return 0;
  }
  uint32_t ElemTy = Dst.ElemType;
  uint32_t Pieces = PerWord == 1 ? ElemTy : Mb.typeVector(ElemTy, PerWord);
  uint32_t Ptr = Mb.typePointer(spv::StorageClass::Workgroup, ElemTy);
  Words Access = memoryAccess();
  for (unsigned W = 0; W < Values.size(); ++W) {
    uint32_t Parts = Pieces == u32() ? Values[W] : op(spv::Op::OpBitcast, Pieces, {Values[W]});
    for (unsigned J = 0; J < PerWord; ++J) {
      uint32_t Element = PerWord == 1 ? Parts : op(spv::Op::OpCompositeExtract, ElemTy, {Parts, J});
      uint32_t Index = op(spv::Op::OpIAdd, u32(), {Di, Mb.constU32(W * PerWord + J)});
      Words Store = {op(spv::Op::OpAccessChain, Ptr, {Dst.Var, Index}), Element};
      Store.insert(Store.end(), Access.begin(), Access.end());
      opVoid(spv::Op::OpStore, Store);
    }
  }
  return 0;
}

bool SpirvEmitter::sharedPoolWanted() const {
  if (!Opts.SharedPool || Kernel.SharedArrays.empty())
    return false;
  for (const kir::SharedArray& S : Kernel.SharedArrays)
    if (S.Elem == kir::ScalarType::Bool) // a bool has no layout
      return false;
  bool StoresWords = false;
  kir::forEachExprIn(Kernel.Body, [&](const Expr* E) {
    StoresWords =
        StoresWords || (E->K == Expr::Kind::Intrinsic && E->IOp == kir::IntrinsicOp::StoreWords &&
                        !E->Ops.empty() && E->Ops[0]->K == Expr::Kind::SharedRef);
  });
  return StoresWords;
}

void SpirvEmitter::layOutSharedPool() {
  if (!SharedOffsets.empty())
    return;
  // Each array at a 16-byte boundary (a view of 4-word vectors reaches any array's start).
  uint32_t End = Mb.constU32(0);
  for (uint32_t I = 0; I < Kernel.SharedArrays.size(); ++I) {
    sharedVar(I); // its length
    SharedOffsets.push_back(End);
    uint32_t Bytes = Mb.specConstOp(
        u32(), spv::Op::OpIMul,
        {SharedLengths[I], Mb.constU32(bundle::scalarTypeSize(Kernel.SharedArrays[I].Elem))});
    uint32_t Up =
        Mb.specConstOp(u32(), spv::Op::OpIAdd,
                       {Mb.specConstOp(u32(), spv::Op::OpIAdd, {End, Bytes}), Mb.constU32(15)});
    End = Mb.specConstOp(
        u32(), spv::Op::OpIMul,
        {Mb.specConstOp(u32(), spv::Op::OpUDiv, {Up, Mb.constU32(16)}), Mb.constU32(16)});
  }
  SharedPoolBytes = End;
}

uint32_t SpirvEmitter::sharedStart(uint32_t Index, uint32_t UnitBytes) {
  auto Key = std::make_pair(Index, UnitBytes);
  if (auto It = SharedStarts.find(Key); It != SharedStarts.end())
    return It->second;
  layOutSharedPool();
  uint32_t Start =
      Mb.specConstOp(u32(), spv::Op::OpUDiv, {SharedOffsets[Index], Mb.constU32(UnitBytes)});
  SharedStarts[Key] = Start;
  return Start;
}

uint32_t SpirvEmitter::sharedView(uint32_t Elem, uint32_t ElemBytes) {
  if (auto It = SharedViews.find(Elem); It != SharedViews.end())
    return It->second;
  layOutSharedPool();
  uint32_t Len = Mb.specConstOp(u32(), spv::Op::OpUDiv, {SharedPoolBytes, Mb.constU32(ElemBytes)});
  uint32_t Var =
      blockVariable(Mb.typeArrayUnique(Elem, Len), ElemBytes, spv::StorageClass::Workgroup);
  Mb.decorate(Var, spv::Decoration::Aliased);
  Mb.addName(Var, "cj_shared_pool_" + std::to_string(SharedViews.size()));
  SharedViews[Elem] = Var;
  return Var;
}

uint32_t SpirvEmitter::sharedVar(uint32_t Index) {
  if (SharedVars.empty()) {
    SharedVars.assign(Kernel.SharedArrays.size(), 0);
    SharedLengths.assign(Kernel.SharedArrays.size(), 0);
  }
  if (SharedVars[Index] || SharedLengths[Index])
    return SharedVars[Index];
  const kir::SharedArray& S = Kernel.SharedArrays[Index];
  Type ET = Type::scalar(S.Elem);
  uint32_t Elem = SharedBits[Index] ? Mb.typeInt(ET.bits()) : valueType(ET);
  uint32_t Len = S.Count ? Mb.constU32(S.Count) : 0;
  if (S.PerWave) {
    // Count for each wave: Count * ceil(x * y * z / subgroup size), the subgroup size being
    // specialisation constant 4 (the runtime gives the device's).
    if (!WavesPerGroup) {
      uint32_t W = Mb.specConstU32(32, 4);
      Mb.addName(W, "cj_subgroup_size");
      uint32_t Items = Mb.specConstOp(
          u32(), spv::Op::OpIMul,
          {Mb.specConstOp(u32(), spv::Op::OpIMul, {GroupSizeIds[0], GroupSizeIds[1]}),
           GroupSizeIds[2]});
      uint32_t Up =
          Mb.specConstOp(u32(), spv::Op::OpISub,
                         {Mb.specConstOp(u32(), spv::Op::OpIAdd, {Items, W}), Mb.constU32(1)});
      WavesPerGroup = Mb.specConstOp(u32(), spv::Op::OpUDiv, {Up, W});
      Mb.addName(WavesPerGroup, "cj_waves_per_group");
    }
    Len = Mb.specConstOp(u32(), spv::Op::OpIMul, {Len, WavesPerGroup});
  }
  if (!Len) { // the dynamic array: its element count is specialisation constant 3
    Len = Mb.specConstU32(1, 3);
    Mb.addName(Len, "cj_dynamic_shared_elements");
  }
  SharedLengths[Index] = Len;
  if (SharedPool) // no variable of its own: the pool's views
    return 0;
  uint32_t Arr = Mb.typeArray(Elem, Len);
  uint32_t Var = Mb.globalVariable(Mb.typePointer(spv::StorageClass::Workgroup, Arr),
                                   spv::StorageClass::Workgroup);
  Mb.addName(Var, S.Name);
  SharedVars[Index] = Var;
  return Var;
}

uint32_t SpirvEmitter::statusVar() {
  if (StatusVar)
    return StatusVar;
  uint32_t Rta = Mb.typeRuntimeArray(u32());
  Mb.decorate(Rta, spv::Decoration::ArrayStride, {4});
  uint32_t St = Mb.typeStruct({Rta});
  Mb.decorate(St, spv::Decoration::Block);
  Mb.decorateMember(St, 0, spv::Decoration::Offset, {0});
  StatusVar = Mb.globalVariable(Mb.typePointer(spv::StorageClass::StorageBuffer, St),
                                spv::StorageClass::StorageBuffer);
  Mb.decorate(StatusVar, spv::Decoration::DescriptorSet, {0});
  Mb.decorate(StatusVar, spv::Decoration::Binding, {uint32_t(Kernel.Params.size())});
  Mb.addName(StatusVar, "cj_status");
  return StatusVar;
}

SpirvEmitter::ArrayRef SpirvEmitter::arrayOf(const Expr* E) {
  ArrayRef A;
  if (E->K == Expr::Kind::PrivateRef) {
    assert(E->Index < Cur->Privates.size() && "verified KIR: a private array of this function");
    A.Private = true;
    A.Var = Cur->Privates[E->Index];
    A.Elem = Type::scalar(E->Ty.Elem);
    A.ElemType = valueType(A.Elem);
    return A;
  }
  if (E->K == Expr::Kind::SharedRef) {
    // Verified KIR: only kernels have shared arrays, so a SharedRef is one of this kernel's.
    assert(Cur->KF == &Kernel && E->Index < Kernel.SharedArrays.size() &&
           "verified KIR: a shared array of this kernel");
    A.Shared = true;
    A.Var = sharedVar(E->Index);
    A.Elem = Type::scalar(E->Ty.Elem);
    A.Bits = SharedBits[E->Index];
    A.ElemType = A.Bits ? Mb.typeInt(A.Elem.bits()) : valueType(A.Elem);
    A.Length32 = SharedLengths[E->Index];
    if (SharedPool) {
      const uint32_t Size = bundle::scalarTypeSize(A.Elem.Elem);
      A.Var = sharedView(A.ElemType, Size);
      A.Base = sharedStart(E->Index, Size);
    }
    A.ParamCode = 0x80000000u | E->Index;
    return A;
  }
  assert(E->K == Expr::Kind::Param && E->Ty.isBuffer() && E->Index < Cur->Params.size() &&
         "verified KIR: a buffer parameter or a shared array");
  uint32_t K = Cur->Params[E->Index]; // the kernel parameter a helper's buffer is bound to
  assert(K < Kernel.Params.size() && Kernel.Params[K].Ty == E->Ty &&
         "a buffer argument bound to a parameter of another type");
  A.KernelParam = K;
  A.Var = bufferVar(K, false);
  A.Elem = Type::scalar(E->Ty.Elem);
  A.ElemType = memoryType(E->Ty.Elem);
  A.ParamCode = K;
  return A;
}

uint32_t SpirvEmitter::elementPointer(const ArrayRef& A, const Expr* IndexExpr, bool IntView) {
  assert(IndexExpr->Ty.isInteger() && "verified KIR: integer indices");
  Type IT = IndexExpr->Ty;
  uint32_t Index = emitExpr(IndexExpr);
  if (!Error.empty())
    return 0;
  if (IT.bits() < 32) // widen by the index's signedness
    Index = op(IT.isSigned() ? spv::Op::OpSConvert : spv::Op::OpUConvert, u32(), {Index});
  if (Opts.CheckBounds && !A.Private) {
    uint32_t Unused = 0;
    boundsCheck(A, Index, IT, Unused);
  }
  spv::StorageClass SC = A.Shared    ? spv::StorageClass::Workgroup
                         : A.Private ? spv::StorageClass::Function
                                     : spv::StorageClass::StorageBuffer;
  uint32_t Elem = A.ElemType;
  uint32_t Var = A.Var;
  if (IntView && !A.Shared) {
    Elem = Mb.typeInt(A.Elem.bits());
    Var = bufferVar(A.KernelParam, true);
  }
  uint32_t Ptr = Mb.typePointer(SC, Elem);
  if (A.Base) { // in the shared pool: the array's start in its element type's view
    uint32_t Base = IT.bits() > 32 ? op(spv::Op::OpUConvert, Mb.typeInt(64), {A.Base}) : A.Base;
    return op(spv::Op::OpAccessChain, Ptr,
              {Var, Mb.constU32(0),
               op(spv::Op::OpIAdd, IT.bits() > 32 ? Mb.typeInt(64) : u32(), {Base, Index})});
  }
  if (A.Shared || A.Private)
    return op(spv::Op::OpAccessChain, Ptr, {Var, Index});
  return op(spv::Op::OpAccessChain, Ptr, {Var, Mb.constU32(0), Index});
}

void SpirvEmitter::boundsCheck(const ArrayRef& A, uint32_t Index, Type IndexTy, uint32_t& Index32) {
  uint32_t B = boolTy();
  uint32_t Len = A.Shared ? A.Length32 : op(spv::Op::OpArrayLength, u32(), {A.Var, 0});
  uint32_t InRange, Lo, Hi;
  if (IndexTy.bits() <= 32) {
    // A negative signed index is a huge unsigned one: out of range too.
    InRange = op(spv::Op::OpULessThan, B, {Index, Len});
    Lo = Index;
    Hi = Mb.constU32(0);
    if (IndexTy.isSigned())
      Hi = op(spv::Op::OpSelect, u32(),
              {op(spv::Op::OpSLessThan, B, {Index, Mb.constU32(0)}), Mb.constU32(~0u), Hi});
  } else {
    uint32_t U64 = Mb.typeInt(64);
    InRange = op(spv::Op::OpULessThan, B, {Index, op(spv::Op::OpUConvert, U64, {Len})});
    Lo = op(spv::Op::OpUConvert, u32(), {Index});
    Hi = op(spv::Op::OpUConvert, u32(),
            {op(spv::Op::OpShiftRightLogical, U64, {Index, Mb.constInt(64, 32)})});
  }
  Index32 = Lo;
  uint32_t Ok = Mb.newId(), Bad = Mb.newId();
  opVoid(spv::Op::OpSelectionMerge, {Ok, 0});
  condBranch(InRange, Ok, Bad);
  beginBlock(Bad);
  reportFailure(A.ParamCode, Lo, Hi, Len);
  leaveOnFailure();
  beginBlock(Ok);
}

void SpirvEmitter::reportFailure(uint32_t ParamCode, uint32_t IndexLo, uint32_t IndexHi,
                                 uint32_t Length) {
  // The first failure of the launch claims the record (Failed: 0 -> 1) and fills it in.
  uint32_t Ptr = Mb.typePointer(spv::StorageClass::StorageBuffer, u32());
  auto Word = [&](uint32_t W) {
    return op(spv::Op::OpAccessChain, Ptr, {statusVar(), Mb.constU32(0), Mb.constU32(W)});
  };
  uint32_t Device = deviceScope();
  uint32_t Relaxed = Mb.constU32(0);
  uint32_t Old = op(spv::Op::OpAtomicCompareExchange, u32(),
                    {Word(0), Device, Relaxed, Relaxed, Mb.constU32(1), Mb.constU32(0)});
  uint32_t Won = op(spv::Op::OpIEqual, boolTy(), {Old, Mb.constU32(0)});
  uint32_t Fill = Mb.newId(), Done = Mb.newId();
  opVoid(spv::Op::OpSelectionMerge, {Done, 0});
  condBranch(Won, Fill, Done);
  beginBlock(Fill);
  uint32_t Values[] = {Mb.constU32(ParamCode), IndexLo, IndexHi, Length, Mb.constU32(0)};
  for (uint32_t W = 1; W <= 5; ++W)
    opVoid(spv::Op::OpStore, {Word(W), Values[W - 1]});
  branch(Done);
  beginBlock(Done);
}

// ---------------------------------------------------------------------------------------------
// Loads and stores

uint32_t SpirvEmitter::deviceScope() {
  if (Mb.vulkanMemoryModel())
    Mb.addCapability(spv::Capability::VulkanMemoryModelDeviceScope);
  return Mb.constU32(uint32_t(spv::Scope::Device));
}

uint32_t SpirvEmitter::withVisibility(uint32_t Semantics) {
  using S = spv::MemorySemanticsMask;
  if (!Mb.vulkanMemoryModel())
    return Semantics;
  // Vulkan's model has no sequential consistency, and its release and acquire make writes
  // available and visible only when they say so.
  if (Semantics & uint32_t(S::SequentiallyConsistent))
    Semantics = (Semantics & ~uint32_t(S::SequentiallyConsistent)) | uint32_t(S::AcquireRelease);
  if (Semantics & uint32_t(S::Release) || Semantics & uint32_t(S::AcquireRelease))
    Semantics |= uint32_t(S::MakeAvailable);
  if (Semantics & uint32_t(S::Acquire) || Semantics & uint32_t(S::AcquireRelease))
    Semantics |= uint32_t(S::MakeVisible);
  return Semantics;
}

Words SpirvEmitter::memoryAccess() {
  // Under Vulkan's model a plain access takes part in other invocations' synchronisation only
  // when it is non-private (shared and buffer memory that barriers publish).
  if (!Mb.vulkanMemoryModel())
    return {};
  return {uint32_t(spv::MemoryAccessMask::NonPrivatePointer)};
}

uint32_t SpirvEmitter::emitLoad(const Expr* E) {
  assert(E->Ops.size() == 2 && "verified KIR: load operands");
  ArrayRef A = arrayOf(E->Ops[0]);
  assert(E->Ty == A.Elem && "verified KIR: load typing");
  uint32_t Ptr = elementPointer(A, E->Ops[1], false);
  if (!Error.empty())
    return 0;
  Words Operands = {Ptr};
  if (!A.Private)
    for (uint32_t W : memoryAccess())
      Operands.push_back(W);
  uint32_t V = op(spv::Op::OpLoad, A.ElemType, Operands);
  if (A.Bits)
    return op(spv::Op::OpBitcast, valueType(A.Elem), {V});
  if (A.Elem.isBool() && !A.Shared && !A.Private) // any non-zero byte reads as true
    return op(spv::Op::OpINotEqual, boolTy(), {V, Mb.constInt(8, 0)});
  return V;
}

uint32_t SpirvEmitter::emitStore(const Expr* E) {
  assert(E->Ops.size() == 3 && "verified KIR: store operands");
  ArrayRef A = arrayOf(E->Ops[0]);
  assert(E->Ty == A.Elem && E->Ops[2]->Ty == A.Elem && "verified KIR: store typing");
  // Left to right: the index (bounds-checked), then the value.
  uint32_t Ptr = elementPointer(A, E->Ops[1], false);
  uint32_t V = emitExpr(E->Ops[2]);
  if (!Error.empty())
    return 0;
  uint32_t Mem = V;
  if (A.Bits)
    Mem = op(spv::Op::OpBitcast, A.ElemType, {V});
  else if (A.Elem.isBool() && !A.Shared && !A.Private)
    Mem = op(spv::Op::OpSelect, A.ElemType, {V, Mb.constInt(8, 1), Mb.constInt(8, 0)});
  Words Operands = {Ptr, Mem};
  if (!A.Private)
    for (uint32_t W : memoryAccess())
      Operands.push_back(W);
  opVoid(spv::Op::OpStore, Operands);
  return V;
}

// ---------------------------------------------------------------------------------------------
// Parameter block, PODs and builtins

uint32_t SpirvEmitter::paramWord(uint32_t WordIndex) {
  bool Uniform = BlockBytes > MaxPushConstantBytes;
  spv::StorageClass SC = Uniform ? spv::StorageClass::Uniform : spv::StorageClass::PushConstant;
  if (!ParamBlockVar) {
    uint32_t Arr;
    if (Uniform) { // std140: an array of uvec4 (stride 16) holds the words densely
      Arr = Mb.typeArrayUnique(Mb.typeVector(u32(), 4), Mb.constU32((BlockBytes + 15) / 16));
      Mb.decorate(Arr, spv::Decoration::ArrayStride, {16});
    } else {
      Arr = Mb.typeArrayUnique(u32(), Mb.constU32((BlockBytes + 3) / 4));
      Mb.decorate(Arr, spv::Decoration::ArrayStride, {4});
    }
    uint32_t St = Mb.typeStruct({Arr});
    Mb.decorate(St, spv::Decoration::Block);
    Mb.decorateMember(St, 0, spv::Decoration::Offset, {0});
    ParamBlockVar = Mb.globalVariable(Mb.typePointer(SC, St), SC);
    Mb.addName(ParamBlockVar, "cj_params");
    if (Uniform) {
      Mb.decorate(ParamBlockVar, spv::Decoration::DescriptorSet, {0});
      Mb.decorate(ParamBlockVar, spv::Decoration::Binding, {uint32_t(Kernel.Params.size()) + 1});
    }
  }
  uint32_t Ptr = Mb.typePointer(SC, u32());
  uint32_t Chain = Uniform ? op(spv::Op::OpAccessChain, Ptr,
                                {ParamBlockVar, Mb.constU32(0), Mb.constU32(WordIndex / 4),
                                 Mb.constU32(WordIndex % 4)})
                           : op(spv::Op::OpAccessChain, Ptr,
                                {ParamBlockVar, Mb.constU32(0), Mb.constU32(WordIndex)});
  return op(spv::Op::OpLoad, u32(), {Chain});
}

uint32_t SpirvEmitter::readBlockScalar(uint32_t ByteOffset, Type T) {
  uint32_t W = ByteOffset / 4, Shift = ByteOffset % 4 * 8;
  if (T.bits() == 64) {
    uint32_t Pair = op(spv::Op::OpCompositeConstruct, Mb.typeVector(u32(), 2),
                       {paramWord(W), paramWord(W + 1)});
    return op(spv::Op::OpBitcast, valueType(T), {Pair});
  }
  uint32_t Word = paramWord(W);
  if (Shift)
    Word = op(spv::Op::OpShiftRightLogical, u32(), {Word, Mb.constU32(Shift)});
  if (T.isBool())
    return op(spv::Op::OpINotEqual, boolTy(),
              {op(spv::Op::OpBitwiseAnd, u32(), {Word, Mb.constU32(0xff)}), Mb.constU32(0)});
  if (T.Elem == kir::ScalarType::F16) { // through UnpackHalf2x16: no Int16 needed
    uint32_t F32 = Mb.typeFloat(32);
    uint32_t Half = op(spv::Op::OpBitwiseAnd, u32(), {Word, Mb.constU32(0xffff)});
    uint32_t Pair = glsl(Mb.typeVector(F32, 2), GLSLstd450UnpackHalf2x16, {Half});
    uint32_t X = op(spv::Op::OpCompositeExtract, F32, {Pair, 0});
    return op(spv::Op::OpFConvert, valueType(T), {X});
  }
  if (T.bits() == 32)
    return T.isFloat() ? op(spv::Op::OpBitcast, valueType(T), {Word}) : Word;
  return op(spv::Op::OpUConvert, valueType(T), {Word}); // the low 8 or 16 bits
}

uint32_t SpirvEmitter::scalarParam(uint32_t KernelParam, Type T) {
  for (const ParamSlot& S : Slots)
    if (S.Param == KernelParam)
      return readBlockScalar(S.Offset, T);
  fail(Kernel.Loc, "parameter " + std::to_string(KernelParam) + " has no slot");
  return 0;
}

uint32_t SpirvEmitter::podField(const Expr* E) {
  // Verified KIR: a field, naturally aligned inside its POD, of a POD parameter.
  assert(E->Ops.size() == 1 && E->Ops[0]->K == Expr::Kind::Param && E->Ops[0]->Ty.isPod() &&
         E->Ops[0]->Index < Cur->Params.size() && E->Ops[0]->Ty.PodIndex < M.Pods.size() &&
         "verified KIR: a field of a POD parameter");
  const Expr* P = E->Ops[0];
  const kir::PodType& Pod = M.Pods[P->Ty.PodIndex];
  assert(E->Index < Pod.Fields.size() && "verified KIR: field indices");
  const kir::PodField& F = Pod.Fields[E->Index];
  assert(E->Ty == Type::scalar(F.Type) && "verified KIR: field typing");
  uint32_t K = Cur->Params[P->Index];
  for (const ParamSlot& S : Slots)
    if (S.Param == K)
      return readBlockScalar(S.Offset + F.Offset, E->Ty);
  return fail(E->Loc, "POD parameter has no slot"), 0;
}

uint32_t SpirvEmitter::builtinInput(spv::BuiltIn B) {
  if (auto It = Builtins.find(B); It != Builtins.end())
    return It->second;
  uint32_t V3 = Mb.typeVector(u32(), 3);
  uint32_t Var =
      Mb.globalVariable(Mb.typePointer(spv::StorageClass::Input, V3), spv::StorageClass::Input);
  Mb.decorate(Var, spv::Decoration::BuiltIn, {uint32_t(B)});
  Builtins[B] = Var;
  return Var;
}

uint32_t SpirvEmitter::coordinate(kir::IntrinsicOp Op, unsigned Dim) {
  if (Op == kir::IntrinsicOp::GroupDim)
    return op(spv::Op::OpCompositeExtract, u32(), {WorkgroupSize, Dim});
  spv::BuiltIn B = Op == kir::IntrinsicOp::LocalId   ? spv::BuiltIn::LocalInvocationId
                   : Op == kir::IntrinsicOp::GroupId ? spv::BuiltIn::WorkgroupId
                                                     : spv::BuiltIn::NumWorkgroups;
  UsedGridCount |= B == spv::BuiltIn::NumWorkgroups;
  uint32_t V = op(spv::Op::OpLoad, Mb.typeVector(u32(), 3), {builtinInput(B)});
  return op(spv::Op::OpCompositeExtract, u32(), {V, Dim});
}

// ---------------------------------------------------------------------------------------------
// Atomics

namespace {

/// Memory semantics of an order (sequential consistency is acquire-release: Vulkan has no
/// stronger per-operation order), plus the storage class it orders.
uint32_t semantics(MemoryOrder O, uint32_t StorageBit) {
  using S = spv::MemorySemanticsMask;
  switch (O) {
  case MemoryOrder::Relaxed:
    return 0;
  case MemoryOrder::Acquire:
    return uint32_t(S::Acquire) | StorageBit;
  case MemoryOrder::Release:
    return uint32_t(S::Release) | StorageBit;
  case MemoryOrder::AcqRel:
  case MemoryOrder::SeqCst:
    return uint32_t(S::AcquireRelease) | StorageBit;
  }
  return 0;
}

MemoryOrder loadOrder(MemoryOrder O) {
  if (O == MemoryOrder::Release)
    return MemoryOrder::Relaxed;
  if (O == MemoryOrder::AcqRel || O == MemoryOrder::SeqCst)
    return MemoryOrder::Acquire;
  return O;
}

MemoryOrder storeOrder(MemoryOrder O) {
  if (O == MemoryOrder::Acquire)
    return MemoryOrder::Relaxed;
  if (O == MemoryOrder::AcqRel || O == MemoryOrder::SeqCst)
    return MemoryOrder::Release;
  return O;
}

} // namespace

uint32_t SpirvEmitter::emitAtomic(const Expr* E) {
  // Verified KIR: the op's operand count, operands of the element type, integers or
  // float32/float64 with an op that exists for floats.
  assert(E->Ops.size() == kir::atomicOperandCount(E->AOp) && "verified KIR: atomic operands");
  ArrayRef A = arrayOf(E->Ops[0]);
  Type Elem = A.Elem;
  assert(E->Ty == Elem && "verified KIR: atomic typing");
  bool IsFloat = Elem.isFloat();
  unsigned Bits = Elem.bits();
  if (Bits < 32) // Vulkan has no 8- or 16-bit atomics
    return fail(E->Loc, std::string("atomic '") + kir::atomicOpName(E->AOp) + "' on " + Elem.str() +
                            " is not supported on vulkan"),
           0;
  if (Bits == 64)
    Mb.addCapability(spv::Capability::Int64Atomics);
  uint32_t StorageBit = A.Shared ? uint32_t(spv::MemorySemanticsMask::WorkgroupMemory)
                                 : uint32_t(spv::MemorySemanticsMask::UniformMemory);
  uint32_t Scope = A.Shared ? Mb.constU32(uint32_t(spv::Scope::Workgroup)) : deviceScope();
  auto Sem = [&](MemoryOrder O) { return Mb.constU32(withVisibility(semantics(O, StorageBit))); };
  bool NativeAdd = IsFloat && E->AOp == AtomicOp::Add && !A.Shared && Opts.NativeFloatAtomicAdd;
  bool IntView = IsFloat && !NativeAdd; // float atomics work on the bits
  uint32_t Ptr = elementPointer(A, E->Ops[1], IntView);
  Words Vals;
  for (size_t I = 2; I < E->Ops.size(); ++I)
    Vals.push_back(emitExpr(E->Ops[I]));
  if (!Error.empty())
    return 0;
  uint32_t T = valueType(Elem), IT = Mb.typeInt(Bits);
  auto ToBits = [&](uint32_t V) { return IsFloat ? op(spv::Op::OpBitcast, IT, {V}) : V; };
  auto FromBits = [&](uint32_t V) { return IsFloat ? op(spv::Op::OpBitcast, T, {V}) : V; };
  bool S = Elem.isSigned();
  uint32_t Order = Sem(E->Order);
  auto Rmw = [&](spv::Op Op) { return op(Op, T, {Ptr, Scope, Order, Vals[0]}); };
  switch (E->AOp) {
  case AtomicOp::Add:
    if (NativeAdd) {
      Mb.addCapability(Bits == 64 ? spv::Capability::AtomicFloat64AddEXT
                                  : spv::Capability::AtomicFloat32AddEXT);
      Mb.addExtension("SPV_EXT_shader_atomic_float_add");
      UsedNativeFAdd = true;
      return Rmw(spv::Op::OpAtomicFAddEXT);
    }
    if (IsFloat)
      return atomicCasLoop(E, Ptr, Scope, Order, Vals[0]);
    return Rmw(spv::Op::OpAtomicIAdd);
  case AtomicOp::Sub:
    return Rmw(spv::Op::OpAtomicISub);
  case AtomicOp::And:
    return Rmw(spv::Op::OpAtomicAnd);
  case AtomicOp::Or:
    return Rmw(spv::Op::OpAtomicOr);
  case AtomicOp::Xor:
    return Rmw(spv::Op::OpAtomicXor);
  case AtomicOp::Min:
    if (IsFloat)
      return atomicCasLoop(E, Ptr, Scope, Order, Vals[0]);
    return Rmw(S ? spv::Op::OpAtomicSMin : spv::Op::OpAtomicUMin);
  case AtomicOp::Max:
    if (IsFloat)
      return atomicCasLoop(E, Ptr, Scope, Order, Vals[0]);
    return Rmw(S ? spv::Op::OpAtomicSMax : spv::Op::OpAtomicUMax);
  case AtomicOp::Exchange:
    return FromBits(op(spv::Op::OpAtomicExchange, IT, {Ptr, Scope, Order, ToBits(Vals[0])}));
  case AtomicOp::CompareExchange: // floats compare bitwise
    return FromBits(
        op(spv::Op::OpAtomicCompareExchange, IT,
           {Ptr, Scope, Order, Sem(loadOrder(E->Order)), ToBits(Vals[1]), ToBits(Vals[0])}));
  case AtomicOp::Load:
    return FromBits(op(spv::Op::OpAtomicLoad, IT, {Ptr, Scope, Sem(loadOrder(E->Order))}));
  case AtomicOp::Store:
    opVoid(spv::Op::OpAtomicStore, {Ptr, Scope, Sem(storeOrder(E->Order)), ToBits(Vals[0])});
    return Vals[0];
  }
  assert(false && "verified KIR: unknown atomic op");
  return 0;
}

uint32_t SpirvEmitter::atomicCasLoop(const Expr* E, uint32_t Ptr, uint32_t Scope, uint32_t Sem,
                                     uint32_t Value) {
  // Load, compute, compare-exchange the bits until it sticks. Min/max follow Math.min/max.
  Type Elem = E->Ty;
  uint32_t T = valueType(Elem), IT = Mb.typeInt(Elem.bits());
  uint32_t Relaxed = Mb.constU32(0);
  // The loop's compare-exchange is relaxed; the order E asks for is a fence before and after the
  // loop (a release fence before and an acquire fence after a relaxed read-modify-write order it
  // at least as strongly). lavapipe (Mesa 22.3 llvmpipe) lost updates from ordered compare-
  // exchanges inside divergent loops in workgroups wider than its SIMD width, and lost later
  // stores after two loops that left from their continue block: hence also the exit as a break
  // from the body.
  bool Ordered = E->Order != kir::MemoryOrder::Relaxed;
  if (Ordered)
    opVoid(spv::Op::OpMemoryBarrier, {Scope, Sem});
  uint32_t First = op(spv::Op::OpAtomicLoad, IT, {Ptr, Scope, Relaxed});
  uint32_t Pre = curLabel();
  uint32_t Header = Mb.newId(), Body = Mb.newId(), Continue = Mb.newId(), Merge = Mb.newId();
  uint32_t Seen = Mb.newId();
  branch(Header);
  beginBlock(Header);
  uint32_t Old = op(spv::Op::OpPhi, IT, {First, Pre, Seen, Continue});
  opVoid(spv::Op::OpLoopMerge, {Merge, Continue, 0});
  branch(Body);
  beginBlock(Body);
  uint32_t OldF = op(spv::Op::OpBitcast, T, {Old});
  uint32_t NewF = E->AOp == AtomicOp::Add ? arith(spv::Op::OpFAdd, T, OldF, Value)
                                          : floatMinMax(E->AOp == AtomicOp::Min, Elem, OldF, Value);
  uint32_t NewI = op(spv::Op::OpBitcast, IT, {NewF});
  SpirvModuleBuilder::inst(Cur->Blocks.back().W, spv::Op::OpAtomicCompareExchange,
                           {IT, Seen, Ptr, Scope, Relaxed, Relaxed, NewI, Old});
  uint32_t Done = op(spv::Op::OpIEqual, boolTy(), {Seen, Old});
  condBranch(Done, Merge, Continue);
  beginBlock(Continue);
  branch(Header);
  beginBlock(Merge);
  if (Ordered)
    opVoid(spv::Op::OpMemoryBarrier, {Scope, Sem});
  return OldF;
}

} // namespace cajeta::lowering::spirv
