// A small SPIR-V module builder over the spirv-headers enums: ids, deduplicated types and
// constants, decorations, capabilities, and the section order of a binary module.
#pragma once

#include <spirv/unified1/spirv.hpp11>

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace cajeta::lowering::spirv {

/// Words of one instruction stream (a section or a function body).
using Words = std::vector<uint32_t>;

class SpirvModuleBuilder {
public:
  SpirvModuleBuilder();

  /// Appends one instruction (opcode and word count in the first word) to Out.
  static void inst(Words& Out, spv::Op Op, const Words& Operands);
  /// Appends S as a nul-terminated, zero-padded literal string.
  static void appendString(Words& Out, const std::string& S);

  uint32_t newId() { return NextId++; }

  void addCapability(spv::Capability C) { Capabilities.insert(C); }
  void addExtension(const std::string& Name) { Extensions.insert(Name); }
  const std::set<spv::Capability>& capabilities() const { return Capabilities; }
  const std::set<std::string>& extensions() const { return Extensions; }
  /// The id of the GLSL.std.450 extended instruction set (imported on first use).
  uint32_t glslStd450();

  void addEntryPoint(spv::ExecutionModel Model, uint32_t Function, const std::string& Name,
                     const Words& Interface);
  void addExecutionMode(uint32_t Function, spv::ExecutionMode Mode, const Words& Literals);
  void addName(uint32_t Id, const std::string& Name);
  /// An OpModuleProcessed string (a note on how the module was made; drivers ignore it).
  void addModuleProcessed(const std::string& Text);
  void decorate(uint32_t Id, spv::Decoration D, const Words& Literals = {});
  void decorateMember(uint32_t StructId, uint32_t Member, spv::Decoration D,
                      const Words& Literals = {});

  // Types (deduplicated, except structs and runtime arrays, which carry their own decorations).
  // Creating a type of a width that needs a capability (Int8, Int16, Int64, Float16, Float64)
  // adds it. Integer types are signless (signedness 0); operations choose S/U.
  uint32_t typeVoid();
  uint32_t typeBool();
  uint32_t typeInt(unsigned Width);
  uint32_t typeFloat(unsigned Width);
  /// SPV_KHR_bfloat16's type (OpTypeFloat 16 BFloat16KHR); only cooperative matrices use it.
  uint32_t typeBFloat16();
  uint32_t typeVector(uint32_t Elem, unsigned Count);
  uint32_t typeRayQuery(); // OpTypeRayQueryKHR
  /// OpTypeCooperativeMatrixKHR (the ids of Rows, Cols and Use are constants; Scope a literal
  /// made a constant here).
  uint32_t typeCooperativeMatrix(uint32_t Elem, uint32_t Scope, uint32_t RowsId, uint32_t ColsId,
                                 uint32_t UseId);
  uint32_t typeAccelerationStructure(); // OpTypeAccelerationStructureKHR
  uint32_t typeArray(uint32_t Elem, uint32_t LengthId);
  /// A fresh array type, for one that carries an ArrayStride decoration.
  uint32_t typeArrayUnique(uint32_t Elem, uint32_t LengthId);
  uint32_t typeRuntimeArray(uint32_t Elem);
  uint32_t typeStruct(const Words& Members);
  uint32_t typePointer(spv::StorageClass SC, uint32_t Pointee);
  uint32_t typeFunction(uint32_t Return, const Words& Params);

  // Constants (deduplicated).
  uint32_t constInt(unsigned Width, uint64_t Value);
  uint32_t constU32(uint32_t Value) { return constInt(32, Value); }
  uint32_t constFloat(unsigned Width, double Value);
  uint32_t constBool(bool Value);
  uint32_t constNull(uint32_t Type);
  uint32_t specConstU32(uint32_t Default, uint32_t SpecId);
  /// A bool specialisation constant (OpSpecConstantTrue/False) with SpecId.
  uint32_t specConstBool(bool Default, uint32_t SpecId);
  uint32_t specConstComposite(uint32_t Type, const Words& Parts);
  /// OpSpecConstantOp: Op over spec constants (and constants), evaluated at specialisation.
  uint32_t specConstOp(uint32_t Type, spv::Op Op, const Words& Operands);

  /// A module-scope OpVariable (Initializer 0 = none).
  uint32_t globalVariable(uint32_t PointerType, spv::StorageClass SC, uint32_t Initializer = 0);
  /// Every module-scope variable so far (SPIR-V 1.4 lists them all in an entry point's interface).
  const std::vector<uint32_t>& globalVariables() const { return GlobalVariables; }

  /// Appends a whole function (OpFunction ... OpFunctionEnd) to the function section.
  void addFunctionWords(const Words& W) { Functions.insert(Functions.end(), W.begin(), W.end()); }

  /// The Vulkan memory model instead of GLSL450 (its capability and, for SPIR-V 1.3, its
  /// extension): what cooperative matrices require.
  void useVulkanMemoryModel() {
    VulkanModel = true;
    addCapability(spv::Capability::VulkanMemoryModel);
    addExtension("SPV_KHR_vulkan_memory_model");
  }
  bool vulkanMemoryModel() const { return VulkanModel; }

  /// The binary module for SPIR-V Version (0x00010300 for 1.3).
  Words finish(uint32_t Version) const;

private:
  uint32_t dedup(spv::Op Op, const Words& Operands, Words& Section);

  uint32_t NextId = 1;
  uint32_t GlslId = 0;
  bool VulkanModel = false;
  std::set<spv::Capability> Capabilities;
  std::set<std::string> Extensions;
  std::map<Words, uint32_t> Unique; // {opcode, operands...} -> result id
  std::vector<uint32_t> GlobalVariables;
  Words ExtImports, EntryPoints, ExecutionModes, Names, Processed, Annotations, Globals, Functions;
};

} // namespace cajeta::lowering::spirv
