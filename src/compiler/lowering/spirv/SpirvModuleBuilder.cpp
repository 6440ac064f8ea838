// SPIR-V module builder: section bookkeeping, deduplication and the binary layout.
#include "compiler/lowering/spirv/SpirvModuleBuilder.h"

#include "cajeta/xpu/Float16.hpp"

#include <cstring>

namespace cajeta::lowering::spirv {

SpirvModuleBuilder::SpirvModuleBuilder() {
  addCapability(spv::Capability::Shader);
}

void SpirvModuleBuilder::inst(Words& Out, spv::Op Op, const Words& Operands) {
  Out.push_back(uint32_t(Operands.size() + 1) << 16 | uint32_t(Op));
  Out.insert(Out.end(), Operands.begin(), Operands.end());
}

void SpirvModuleBuilder::appendString(Words& Out, const std::string& S) {
  size_t N = S.size() / 4 + 1; // always room for the terminating nul
  size_t First = Out.size();
  Out.resize(First + N, 0);
  std::memcpy(&Out[First], S.data(), S.size());
}

uint32_t SpirvModuleBuilder::glslStd450() {
  if (GlslId)
    return GlslId;
  GlslId = newId();
  Words Ops{GlslId};
  appendString(Ops, "GLSL.std.450");
  inst(ExtImports, spv::Op::OpExtInstImport, Ops);
  return GlslId;
}

void SpirvModuleBuilder::addEntryPoint(spv::ExecutionModel Model, uint32_t Function,
                                       const std::string& Name, const Words& Interface) {
  Words Ops{uint32_t(Model), Function};
  appendString(Ops, Name);
  Ops.insert(Ops.end(), Interface.begin(), Interface.end());
  inst(EntryPoints, spv::Op::OpEntryPoint, Ops);
}

void SpirvModuleBuilder::addExecutionMode(uint32_t Function, spv::ExecutionMode Mode,
                                          const Words& Literals) {
  Words Ops{Function, uint32_t(Mode)};
  Ops.insert(Ops.end(), Literals.begin(), Literals.end());
  inst(ExecutionModes, spv::Op::OpExecutionMode, Ops);
}

void SpirvModuleBuilder::addName(uint32_t Id, const std::string& Name) {
  Words Ops{Id};
  appendString(Ops, Name);
  inst(Names, spv::Op::OpName, Ops);
}

void SpirvModuleBuilder::addModuleProcessed(const std::string& Text) {
  Words Ops;
  appendString(Ops, Text);
  inst(Processed, spv::Op::OpModuleProcessed, Ops); // after every OpName (layout section 7c)
}

void SpirvModuleBuilder::decorate(uint32_t Id, spv::Decoration D, const Words& Literals) {
  Words Ops{Id, uint32_t(D)};
  Ops.insert(Ops.end(), Literals.begin(), Literals.end());
  inst(Annotations, spv::Op::OpDecorate, Ops);
}

void SpirvModuleBuilder::decorateMember(uint32_t StructId, uint32_t Member, spv::Decoration D,
                                        const Words& Literals) {
  Words Ops{StructId, Member, uint32_t(D)};
  Ops.insert(Ops.end(), Literals.begin(), Literals.end());
  inst(Annotations, spv::Op::OpMemberDecorate, Ops);
}

uint32_t SpirvModuleBuilder::dedup(spv::Op Op, const Words& Operands, Words& Section) {
  // Operands hold everything but the result id; types put the result id first, constants
  // (whose first operand is a type) second.
  Words Key{uint32_t(Op)};
  Key.insert(Key.end(), Operands.begin(), Operands.end());
  if (auto It = Unique.find(Key); It != Unique.end())
    return It->second;
  uint32_t Id = newId();
  bool IsConstant = Op == spv::Op::OpConstant || Op == spv::Op::OpConstantTrue ||
                    Op == spv::Op::OpConstantFalse || Op == spv::Op::OpConstantNull ||
                    Op == spv::Op::OpConstantComposite;
  Words Ops;
  if (IsConstant) {
    Ops.push_back(Operands[0]);
    Ops.push_back(Id);
    Ops.insert(Ops.end(), Operands.begin() + 1, Operands.end());
  } else {
    Ops.push_back(Id);
    Ops.insert(Ops.end(), Operands.begin(), Operands.end());
  }
  inst(Section, Op, Ops);
  Unique.emplace(std::move(Key), Id);
  return Id;
}

uint32_t SpirvModuleBuilder::typeVoid() {
  return dedup(spv::Op::OpTypeVoid, {}, Globals);
}

uint32_t SpirvModuleBuilder::typeBool() {
  return dedup(spv::Op::OpTypeBool, {}, Globals);
}

uint32_t SpirvModuleBuilder::typeInt(unsigned Width) {
  if (Width == 8)
    addCapability(spv::Capability::Int8);
  else if (Width == 16)
    addCapability(spv::Capability::Int16);
  else if (Width == 64)
    addCapability(spv::Capability::Int64);
  return dedup(spv::Op::OpTypeInt, {Width, 0}, Globals);
}

uint32_t SpirvModuleBuilder::typeBFloat16() {
  addCapability(spv::Capability(5116)); // BFloat16TypeKHR
  addExtension("SPV_KHR_bfloat16");
  return dedup(spv::Op::OpTypeFloat, {16, 0}, Globals); // FP encoding BFloat16KHR = 0
}

uint32_t SpirvModuleBuilder::typeFloat(unsigned Width) {
  if (Width == 16)
    addCapability(spv::Capability::Float16);
  else if (Width == 64)
    addCapability(spv::Capability::Float64);
  return dedup(spv::Op::OpTypeFloat, {Width}, Globals);
}

uint32_t SpirvModuleBuilder::typeVector(uint32_t Elem, unsigned Count) {
  return dedup(spv::Op::OpTypeVector, {Elem, Count}, Globals);
}

uint32_t SpirvModuleBuilder::typeCooperativeMatrix(uint32_t Elem, uint32_t Scope, uint32_t RowsId,
                                                   uint32_t ColsId, uint32_t UseId) {
  return dedup(spv::Op(4456), {Elem, constU32(Scope), RowsId, ColsId, UseId}, Globals);
}

uint32_t SpirvModuleBuilder::typeRayQuery() {
  return dedup(spv::Op::OpTypeRayQueryKHR, {}, Globals);
}

uint32_t SpirvModuleBuilder::typeAccelerationStructure() {
  return dedup(spv::Op::OpTypeAccelerationStructureKHR, {}, Globals);
}

uint32_t SpirvModuleBuilder::typeArray(uint32_t Elem, uint32_t LengthId) {
  return dedup(spv::Op::OpTypeArray, {Elem, LengthId}, Globals);
}

uint32_t SpirvModuleBuilder::typeArrayUnique(uint32_t Elem, uint32_t LengthId) {
  uint32_t Id = newId();
  inst(Globals, spv::Op::OpTypeArray, {Id, Elem, LengthId});
  return Id;
}

uint32_t SpirvModuleBuilder::typeRuntimeArray(uint32_t Elem) {
  uint32_t Id = newId();
  inst(Globals, spv::Op::OpTypeRuntimeArray, {Id, Elem});
  return Id;
}

uint32_t SpirvModuleBuilder::typeStruct(const Words& Members) {
  uint32_t Id = newId();
  Words Ops{Id};
  Ops.insert(Ops.end(), Members.begin(), Members.end());
  inst(Globals, spv::Op::OpTypeStruct, Ops);
  return Id;
}

uint32_t SpirvModuleBuilder::typePointer(spv::StorageClass SC, uint32_t Pointee) {
  return dedup(spv::Op::OpTypePointer, {uint32_t(SC), Pointee}, Globals);
}

uint32_t SpirvModuleBuilder::typeFunction(uint32_t Return, const Words& Params) {
  Words Ops{Return};
  Ops.insert(Ops.end(), Params.begin(), Params.end());
  return dedup(spv::Op::OpTypeFunction, Ops, Globals);
}

uint32_t SpirvModuleBuilder::constInt(unsigned Width, uint64_t Value) {
  uint32_t T = typeInt(Width);
  if (Width < 64)
    Value &= (uint64_t(1) << Width) - 1;
  if (Width == 64)
    return dedup(spv::Op::OpConstant, {T, uint32_t(Value), uint32_t(Value >> 32)}, Globals);
  return dedup(spv::Op::OpConstant, {T, uint32_t(Value)}, Globals);
}

uint32_t SpirvModuleBuilder::constFloat(unsigned Width, double Value) {
  uint32_t T = typeFloat(Width);
  if (Width == 64) {
    uint64_t Bits;
    std::memcpy(&Bits, &Value, 8);
    return dedup(spv::Op::OpConstant, {T, uint32_t(Bits), uint32_t(Bits >> 32)}, Globals);
  }
  float F = float(Value);
  if (Width == 16)
    return dedup(spv::Op::OpConstant, {T, uint32_t(xpu::float16::fromFloat(F))}, Globals);
  uint32_t Bits;
  std::memcpy(&Bits, &F, 4);
  return dedup(spv::Op::OpConstant, {T, Bits}, Globals);
}

uint32_t SpirvModuleBuilder::constBool(bool Value) {
  uint32_t T = typeBool();
  return dedup(Value ? spv::Op::OpConstantTrue : spv::Op::OpConstantFalse, {T}, Globals);
}

uint32_t SpirvModuleBuilder::constNull(uint32_t Type) {
  return dedup(spv::Op::OpConstantNull, {Type}, Globals);
}

uint32_t SpirvModuleBuilder::specConstU32(uint32_t Default, uint32_t SpecId) {
  uint32_t Id = newId();
  inst(Globals, spv::Op::OpSpecConstant, {typeInt(32), Id, Default});
  decorate(Id, spv::Decoration::SpecId, {SpecId});
  return Id;
}

uint32_t SpirvModuleBuilder::specConstBool(bool Default, uint32_t SpecId) {
  uint32_t Id = newId();
  inst(Globals, Default ? spv::Op::OpSpecConstantTrue : spv::Op::OpSpecConstantFalse,
       {typeBool(), Id});
  decorate(Id, spv::Decoration::SpecId, {SpecId});
  return Id;
}

uint32_t SpirvModuleBuilder::specConstComposite(uint32_t Type, const Words& Parts) {
  uint32_t Id = newId();
  Words Ops{Type, Id};
  Ops.insert(Ops.end(), Parts.begin(), Parts.end());
  inst(Globals, spv::Op::OpSpecConstantComposite, Ops);
  return Id;
}

uint32_t SpirvModuleBuilder::specConstOp(uint32_t Type, spv::Op Op, const Words& Operands) {
  uint32_t Id = newId();
  Words Ops{Type, Id, uint32_t(Op)};
  Ops.insert(Ops.end(), Operands.begin(), Operands.end());
  inst(Globals, spv::Op::OpSpecConstantOp, Ops);
  return Id;
}

uint32_t SpirvModuleBuilder::globalVariable(uint32_t PointerType, spv::StorageClass SC,
                                            uint32_t Initializer) {
  uint32_t Id = newId();
  Words Ops{PointerType, Id, uint32_t(SC)};
  if (Initializer)
    Ops.push_back(Initializer);
  inst(Globals, spv::Op::OpVariable, Ops);
  GlobalVariables.push_back(Id);
  return Id;
}

Words SpirvModuleBuilder::finish(uint32_t Version) const {
  Words Out{spv::MagicNumber, Version, 0 /* generator: unregistered */, NextId, 0};
  for (spv::Capability C : Capabilities)
    inst(Out, spv::Op::OpCapability, {uint32_t(C)});
  for (const std::string& E : Extensions) {
    Words Ops;
    appendString(Ops, E);
    inst(Out, spv::Op::OpExtension, Ops);
  }
  Out.insert(Out.end(), ExtImports.begin(), ExtImports.end());
  inst(Out, spv::Op::OpMemoryModel,
       {uint32_t(spv::AddressingModel::Logical),
        uint32_t(VulkanModel ? spv::MemoryModel::Vulkan : spv::MemoryModel::GLSL450)});
  for (const Words* S :
       {&EntryPoints, &ExecutionModes, &Names, &Processed, &Annotations, &Globals, &Functions})
    Out.insert(Out.end(), S->begin(), S->end());
  return Out;
}

} // namespace cajeta::lowering::spirv
