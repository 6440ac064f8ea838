// The native form of inline ray query (SpirvEmitOptions::NativeRayQuery): each kir::RayQueryOp
// as its SPV_KHR_ray_query instruction over a Vulkan acceleration structure. The software form
// never reaches the emitter (kir::RayQueryLowering). Emit-verified only: no device here offers
// VK_KHR_ray_query.
#include "compiler/lowering/spirv/SpirvEmitter.h"

namespace cajeta::lowering::spirv {

using kir::Expr;
using kir::RayQueryOp;
using kir::Type;

uint32_t SpirvEmitter::accelVar(uint32_t KernelParam) {
  if (auto It = AccelVars.find(KernelParam); It != AccelVars.end())
    return It->second;
  uint32_t Var = Mb.globalVariable(
      Mb.typePointer(spv::StorageClass::UniformConstant, Mb.typeAccelerationStructure()),
      spv::StorageClass::UniformConstant);
  Mb.decorate(Var, spv::Decoration::DescriptorSet, {0});
  Mb.decorate(Var, spv::Decoration::Binding, {KernelParam});
  Mb.addName(Var, Kernel.Params[KernelParam].Name);
  AccelVars[KernelParam] = Var;
  return Var;
}

uint32_t SpirvEmitter::emitRayQuery(const Expr* E) {
  Mb.addCapability(spv::Capability::RayQueryKHR);
  Mb.addExtension("SPV_KHR_ray_query");
  uint32_t Query = Cur->Locals[E->Index];
  uint32_t F32 = valueType(Type::scalar(kir::ScalarType::F32));
  uint32_t Which = Mb.constU32(E->Dim); // 0: candidate, 1: committed (RayQueryIntersection)
  switch (E->RQOp) {
  case RayQueryOp::Initialize: {
    // Operand 0 is an acceleration-structure parameter bound to a kernel parameter.
    uint32_t K = Cur->Params[E->Ops[0]->Index];
    uint32_t As = op(spv::Op::OpLoad, Mb.typeAccelerationStructure(), {accelVar(K)});
    Words V;
    for (size_t I = 1; I < E->Ops.size(); ++I)
      V.push_back(emitExpr(E->Ops[I]));
    if (!Error.empty())
      return 0;
    uint32_t Vec3 = Mb.typeVector(F32, 3);
    uint32_t Origin = op(spv::Op::OpCompositeConstruct, Vec3, {V[1], V[2], V[3]});
    uint32_t Dir = op(spv::Op::OpCompositeConstruct, Vec3, {V[5], V[6], V[7]});
    opVoid(spv::Op::OpRayQueryInitializeKHR,
           {Query, As, V[0], Mb.constU32(0xFF), Origin, V[4], Dir, V[8]});
    return 0;
  }
  case RayQueryOp::Proceed:
    return op(spv::Op::OpRayQueryProceedKHR, boolTy(), {Query});
  case RayQueryOp::Confirm:
    opVoid(spv::Op::OpRayQueryConfirmIntersectionKHR, {Query});
    return 0;
  case RayQueryOp::Generate: {
    uint32_t T = emitExpr(E->Ops[0]);
    opVoid(spv::Op::OpRayQueryGenerateIntersectionKHR, {Query, T});
    return 0;
  }
  case RayQueryOp::Terminate:
    opVoid(spv::Op::OpRayQueryTerminateKHR, {Query});
    return 0;
  case RayQueryOp::Type: // int32 and uint32 are one SPIR-V type here
    return op(spv::Op::OpRayQueryGetIntersectionTypeKHR, u32(), {Query, Which});
  case RayQueryOp::T:
    return op(spv::Op::OpRayQueryGetIntersectionTKHR, F32, {Query, Which});
  case RayQueryOp::U:
  case RayQueryOp::V: {
    uint32_t Bary = op(spv::Op::OpRayQueryGetIntersectionBarycentricsKHR, Mb.typeVector(F32, 2),
                       {Query, Which});
    return op(spv::Op::OpCompositeExtract, F32, {Bary, E->RQOp == RayQueryOp::U ? 0u : 1u});
  }
  case RayQueryOp::PrimitiveIndex: {
    // -1 where nothing is committed, as the software form says (Vulkan leaves it undefined).
    uint32_t I32 = Mb.typeInt(32);
    uint32_t Index = op(spv::Op::OpRayQueryGetIntersectionPrimitiveIndexKHR, I32, {Query, Which});
    if (!E->Dim)
      return Index;
    uint32_t Type = op(spv::Op::OpRayQueryGetIntersectionTypeKHR, u32(), {Query, Which});
    uint32_t None = op(spv::Op::OpIEqual, boolTy(), {Type, Mb.constU32(0)});
    return op(spv::Op::OpSelect, I32, {None, Mb.constU32(~0u), Index});
  }
  case RayQueryOp::FrontFace:
    return op(spv::Op::OpRayQueryGetIntersectionFrontFaceKHR, boolTy(), {Query, Which});
  }
  return 0;
}

} // namespace cajeta::lowering::spirv
