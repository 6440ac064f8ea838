// The cooperative-matrix leaves of kir::TileLowering's CoopMatrix form (Kir.h, MatrixFill ..
// WaveBarrier) as SPV_KHR_cooperative_matrix instructions. The tile loop and the partial-tile path
// are KIR already; this maps one fragment operation onto one instruction.
#include "compiler/lowering/spirv/SpirvEmitter.h"

#include "bundle/Manifest.h"

namespace cajeta::lowering::spirv {

using kir::Expr;
using kir::IntrinsicOp;
using kir::ScalarType;
using kir::Type;

namespace {

// SPV_KHR_cooperative_matrix's enumerants (the spirv-headers Debian 12 ships predate them).
constexpr auto OpTypeCooperativeMatrixKHR = spv::Op(4456);
constexpr auto OpCooperativeMatrixLoadKHR = spv::Op(4457);
constexpr auto OpCooperativeMatrixStoreKHR = spv::Op(4458);
constexpr auto OpCooperativeMatrixMulAddKHR = spv::Op(4459);
constexpr auto CapabilityCooperativeMatrixKHR = spv::Capability(6022);
constexpr auto CapabilityBFloat16CooperativeMatrixKHR = spv::Capability(5118);
constexpr uint32_t MatrixASignedComponents = 0x1, MatrixBSignedComponents = 0x2,
                   MatrixCSignedComponents = 0x4, MatrixResultSignedComponents = 0x8;

/// The element type as the device's property list names it (VkComponentTypeKHR).
std::string componentName(ScalarType T) {
  switch (T) {
  case ScalarType::F16:
    return "f16";
  case ScalarType::BF16:
    return "bf16";
  case ScalarType::F32:
    return "f32";
  case ScalarType::I8:
    return "s8";
  case ScalarType::U8:
    return "u8";
  default:
    return bundle::scalarTypeName(T);
  }
}

} // namespace

uint32_t SpirvEmitter::matrixType(Type T) {
  Mb.addCapability(CapabilityCooperativeMatrixKHR);
  Mb.addExtension("SPV_KHR_cooperative_matrix");
  // bfloat16 values are uint16 bits everywhere else (kir::BFloat16Lowering); a matrix of them has
  // SPV_KHR_bfloat16's type, and its scalar operands are bitcast to it (matrixScalar).
  uint32_t Elem = valueType(Type::scalar(T.Elem));
  if (T.Elem == ScalarType::BF16) {
    Elem = Mb.typeBFloat16();
    Mb.addCapability(CapabilityBFloat16CooperativeMatrixKHR);
  }
  return Mb.typeCooperativeMatrix(Elem, uint32_t(spv::Scope::Subgroup), Mb.constU32(T.Rows),
                                  Mb.constU32(T.Cols), Mb.constU32(T.MatrixUse));
}

uint32_t SpirvEmitter::emitMatrix(const Expr* E) {
  const IntrinsicOp Op = E->IOp;
  if (Op == IntrinsicOp::WaveBarrier) {
    // The wave's lanes meet; their workgroup-memory writes before are visible after.
    uint32_t Sem = uint32_t(spv::MemorySemanticsMask::AcquireRelease) |
                   uint32_t(spv::MemorySemanticsMask::WorkgroupMemory);
    uint32_t Sg = Mb.constU32(uint32_t(spv::Scope::Subgroup));
    opVoid(spv::Op::OpControlBarrier, {Sg, Sg, Mb.constU32(withVisibility(Sem))});
    return 0;
  }
  if (Op == IntrinsicOp::MatrixLoad || Op == IntrinsicOp::MatrixStore) {
    ArrayRef A = arrayOf(E->Ops[0]);
    if (A.Bits)
      return fail(E->Loc, "a tile loaded from or stored to a shared array that atomics use"), 0;
    const Type M = Op == IntrinsicOp::MatrixLoad ? E->Ty : E->Ops[3]->Ty;
    uint32_t Ptr = elementPointer(A, E->Ops[1], false);
    uint32_t Stride = emitExpr(E->Ops[2]);
    if (Opts.CheckBounds) {
      // The last element the instruction touches, besides the first (elementPointer's).
      uint32_t Start = emitExpr(E->Ops[1]);
      uint32_t Major = Mb.constU32((E->Dim ? M.Cols : M.Rows) - 1);
      uint32_t Minor = Mb.constU32((E->Dim ? M.Rows : M.Cols) - 1);
      uint32_t Last = op(spv::Op::OpIAdd, u32(),
                         {Start, op(spv::Op::OpIAdd, u32(),
                                    {op(spv::Op::OpIMul, u32(), {Major, Stride}), Minor})});
      uint32_t Unused = 0;
      boundsCheck(A, Last, Type::scalar(ScalarType::U32), Unused);
    }
    uint32_t Layout = Mb.constU32(E->Dim); // RowMajorKHR 0, ColumnMajorKHR 1
    if (!Error.empty())
      return 0;
    Words Access = memoryAccess();
    if (Op == IntrinsicOp::MatrixLoad) {
      Words Operands = {Ptr, Layout, Stride};
      Operands.insert(Operands.end(), Access.begin(), Access.end());
      return op(OpCooperativeMatrixLoadKHR, matrixType(M), Operands);
    }
    Words Operands = {Ptr, emitExpr(E->Ops[3]), Layout, Stride};
    Operands.insert(Operands.end(), Access.begin(), Access.end());
    opVoid(OpCooperativeMatrixStoreKHR, Operands);
    return 0;
  }
  Words V;
  for (const Expr* O : E->Ops)
    V.push_back(emitExpr(O));
  if (!Error.empty())
    return 0;
  const uint32_t T = matrixType(E->Ty);
  const Type Elem = Type::scalar(E->Ty.Elem);
  // A scalar operand of a bfloat16 matrix: its bits, as the matrix's component type.
  auto Scalar = [&](uint32_t Bits) {
    return Elem.Elem == ScalarType::BF16 ? op(spv::Op::OpBitcast, Mb.typeBFloat16(), {Bits}) : Bits;
  };
  switch (Op) {
  case IntrinsicOp::MatrixFill:
    return op(spv::Op::OpCompositeConstruct, T, {Scalar(V[0])});
  case IntrinsicOp::MatrixScale:
    V[1] = Scalar(V[1]);
    if (Elem.isFloat())
      return op(spv::Op::OpMatrixTimesScalar, T, {V[0], V[1]});
    return op(spv::Op::OpIMul, T, {V[0], op(spv::Op::OpCompositeConstruct, T, {V[1]})});
  case IntrinsicOp::MatrixAdd:
    return op(Elem.isFloat() ? spv::Op::OpFAdd : spv::Op::OpIAdd, T, {V[0], V[1]});
  case IntrinsicOp::MatrixConvert: {
    const Type From = Type::scalar(E->Ops[0]->Ty.Elem);
    if (From == Elem)
      return V[0];
    spv::Op Conv =
        From.isFloat() && Elem.isFloat() ? spv::Op::OpFConvert
        : From.isFloat()  ? (Elem.isSigned() ? spv::Op::OpConvertFToS : spv::Op::OpConvertFToU)
        : Elem.isFloat()  ? (From.isSigned() ? spv::Op::OpConvertSToF : spv::Op::OpConvertUToF)
        : From.isSigned() ? spv::Op::OpSConvert
                          : spv::Op::OpUConvert;
    if (From.bits() == Elem.bits() && !From.isFloat() && !Elem.isFloat())
      return V[0]; // int32 <-> uint32: one SPIR-V type here
    return op(Conv, T, {V[0]});
  }
  case IntrinsicOp::MatrixMulAdd: {
    const ScalarType In = E->Ops[0]->Ty.Elem;
    uint32_t Operands = 0;
    if (In == ScalarType::I8)
      Operands = MatrixASignedComponents | MatrixBSignedComponents | MatrixCSignedComponents |
                 MatrixResultSignedComponents;
    // What the device must list: MxNxK, the a, b, c and result component types.
    const Type A = E->Ops[0]->Ty;
    std::string Acc = In == ScalarType::I8   ? "s32"
                      : In == ScalarType::U8 ? "u32"
                                             : componentName(E->Ty.Elem);
    MatrixShapes.insert(std::to_string(A.Rows) + "x" + std::to_string(E->Ty.Cols) + "x" +
                        std::to_string(A.Cols) + ":" + componentName(In) + ":" + componentName(In) +
                        ":" + Acc + ":" + Acc);
    return op(OpCooperativeMatrixMulAddKHR, T, {V[0], V[1], V[2], Operands});
  }
  default:
    break;
  }
  return fail(E->Loc, std::string("no SPIR-V for ") + kir::intrinsicName(Op)), 0;
}

} // namespace cajeta::lowering::spirv
