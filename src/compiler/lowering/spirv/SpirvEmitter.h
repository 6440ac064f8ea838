// SpirvEmitter: one KIR kernel -> one Vulkan compute SPIR-V module (the ABI is in
// bundle/VulkanKernelAbi.h). Helpers become SPIR-V functions specialised per buffer binding.
#pragma once

#include "compiler/kir/Kir.h"
#include "compiler/lowering/spirv/SpirvModuleBuilder.h"

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace cajeta::kir {
struct PipelineTrace;
} // namespace cajeta::kir

namespace cajeta::lowering::spirv {

struct SpirvEmitOptions {
  /// --check-bounds: every buffer and shared-array index is checked; a failure is written to the
  /// status buffer (binding = parameter count) and ends the work-item.
  bool CheckBounds = false;
  /// Float atomic add on buffers through SPV_EXT_shader_atomic_float_add (OpAtomicFAddEXT);
  /// otherwise (and always for shared arrays) a compare-exchange loop on the bits.
  bool NativeFloatAtomicAdd = false;
  /// The portable tier of wave ops (CAJETA_GPU_WAVE_IMPL=software): kernels that use them are
  /// first rewritten by kir::PortableWave::expand (shared scratch arrays and barriers; only
  /// Wave.width() stays a subgroup instruction). Otherwise the native tier: kir::WaveExpand
  /// builds every wave op from primitives that are GroupNonUniform instructions
  /// (SpirvEmitterWave.cpp).
  bool PortableWaveOps = false;
  /// SPV_KHR_ray_query instead of kir::RayQueryLowering's software walk: an AccelerationStructure
  /// parameter binds a Vulkan acceleration structure (OpTypeAccelerationStructureKHR) and each
  /// query is an OpTypeRayQueryKHR. For devices with VK_KHR_ray_query; none here has one, so the
  /// form is emit-verified only (`cajeta emit --target=spirv --native-ray-query`).
  bool NativeRayQuery = false;
  /// Tiles as SPV_KHR_cooperative_matrix fragments (kir::TileLowering's CoopMatrix form):
  /// SpirvPayloadBuilder::build makes this variant of the tile kernels beside the portable one,
  /// `cajeta emit` shows it.
  bool CoopMatrixTiles = false;
  /// A kernel that stores whole words into a shared array (IntrinsicOp::StoreWords: the staged
  /// AsyncCopy) keeps its shared arrays in one explicitly laid-out pool
  /// (SPV_KHR_workgroup_memory_explicit_layout, SPIR-V 1.4), read and written through a view of
  /// each element type, so that a staged chunk is one 4, 8 or 16-byte store instead of an element
  /// store a 1 or 2-byte element (which NVIDIA's driver leaves as element stores, each taking
  /// four times the shared-memory wavefronts of one vector store a chunk).
  bool SharedPool = false;
  /// SpirvPayloadBuilder: SharedPool for the cooperative-matrix variant (whose devices have the
  /// extension: the runtime checks) and, with SharedPoolEverywhere, for the portable one too
  /// (CAJETA_GPU_VULKAN_SHARED_POOL=0 / 1 / all; "all" fails on a device without the extension).
  bool SharedPoolEverywhere = false;
  /// `cajeta emit --print-after...`: passed to kir::runPipeline by SpirvPayloadBuilder (not
  /// owned; may be null).
  const kir::PipelineTrace* Trace = nullptr;
};

/// Where a scalar, function-tag or POD parameter lives in the parameter block.
struct ParamSlot {
  uint32_t Param = 0;  // KIR parameter index
  uint32_t Offset = 0; // bytes from the start of the block
  uint32_t Size = 0;   // bytes the runtime writes there
};

struct SpirvKernel {
  bool Ok = false;
  std::string Error;
  Words Module;                          // the SPIR-V binary
  std::string EntryPoint;                // OpEntryPoint name
  std::vector<std::string> Capabilities; // every OpCapability, by name
  std::vector<std::string> Extensions;   // every OpExtension
  std::vector<ParamSlot> Slots;          // the parameter block layout
  uint32_t ParamBlockBytes = 0;          // 0: no block
  bool ParamBlockIsUniform = false;      // too big for push constants: a uniform buffer
  uint32_t StaticSharedBytes = 0;
  uint32_t PerWaveSharedBytes = 0;        // SharedArray::PerWave arrays, for each wave of the group
  uint32_t DynamicSharedElementBytes = 0; // 0: no dynamic shared array
  bool UsesNativeFloatAtomicAdd = false;
  /// The module's SPIR-V version: 1.3, or 1.4 with the shared pool (SpirvEmitOptions::SharedPool).
  uint32_t Version = 0x00010300;
  /// The cooperative-matrix products the module multiplies, as the device must list them
  /// (VkCooperativeMatrixPropertiesKHR): "MxNxK:a:b:c:result", component types f16, f32, s8, u8,
  /// s32, u32. Empty without cooperative matrices.
  std::vector<std::string> CooperativeMatrixShapes;
  /// Math.fma / transcendentals emitted through GLSL.std.450, whose precision Vulkan does not
  /// promise (not fused; a few ULP in a reduced range; float64 ones in float32).
  bool UsesImpreciseFma = false;
  bool UsesImpreciseTranscendentals = false;
  /// Whether the kernel reads the grid's size (NumWorkgroups: Workgroup.countX(), grid-stride
  /// loops). One that does not may be dispatched in pieces (vkCmdDispatchBase), whose
  /// NumWorkgroups would be the piece's.
  bool ReadsGridCount = false;
};

class SpirvEmitter {
public:
  /// Push constants guaranteed by Vulkan (maxPushConstantsSize >= 128); a larger block goes to a
  /// uniform buffer.
  static constexpr uint32_t MaxPushConstantBytes = 128;

  /// The parameter block layout of K (VulkanKernelAbi.h): returns the slots, sets Bytes.
  static std::vector<ParamSlot> paramBlockLayout(const kir::Module& M, const kir::Function& K,
                                                 uint32_t& Bytes);

  /// Emits kernel K of M. K must be a kernel available on "vulkan"; M must verify (kir::verify:
  /// the output of kir::runPipeline does), since the emitter asserts KIR validity.
  static SpirvKernel emitKernel(const kir::Module& M, const kir::Function& K,
                                const SpirvEmitOptions& Options);

  ~SpirvEmitter();

private:
  struct Block {
    uint32_t Label = 0;
    Words W;
  };
  struct LoopInfo {
    uint32_t Id = 0;
    uint32_t Merge = 0;
    uint32_t Continue = 0;
  };
  /// One SPIR-V function being emitted (the kernel entry or a helper specialisation).
  struct FnState {
    const kir::Function* KF = nullptr;
    uint32_t FnId = 0;
    uint32_t ReturnType = 0;
    /// Per KIR parameter: buffers and PODs -> the kernel parameter index they are bound to;
    /// scalars -> the SPIR-V value id.
    std::vector<uint32_t> Params;
    std::vector<uint32_t> Locals;   // Function-storage variables (a ray query's: the query)
    std::vector<uint32_t> Privates; // Function-storage arrays (kir::PrivateArray)
    Words Vars;                     // their OpVariable instructions (start of the entry block)
    Words Header;                   // OpFunction and OpFunctionParameter
    std::vector<Block> Blocks;
    bool Live = false;
    std::set<uint32_t> HasPred;
    std::vector<LoopInfo> Loops;
    uint32_t PendingVar = 0; // u32: the multi-level break/continue in flight (0: none)
  };
  /// An indexable array as the walk sees it.
  struct ArrayRef {
    bool Shared = false;
    bool Private = false;   // a Function-storage array: value-typed, never bounds-checked
    uint32_t Var = 0;       // the variable (buffer: the Block struct; shared: the array, or
                            // the pool's view of the element type)
    uint32_t Base = 0;      // shared, in the pool: the array's first element in the view
    uint32_t ElemType = 0;  // element type in memory
    kir::Type Elem;         // KIR element type
    bool Bits = false;      // a float array held as integer bits (shared arrays with atomics)
    uint32_t Length32 = 0;  // shared: the u32 length (constant or spec constant)
    uint32_t ParamCode = 0; // what a bounds report names
    uint32_t KernelParam = 0;
  };

  SpirvEmitter(const kir::Module& M, const kir::Function& K, const SpirvEmitOptions& O);
  bool run(SpirvKernel& Out);

  // --- functions and blocks (SpirvEmitter.cpp) ---
  void emitKernelFunction();
  uint32_t helperFunction(uint32_t Callee, const std::vector<uint32_t>& Bindings);
  void emitFunctionBody(FnState& FS);
  void finishFunction(FnState& FS);
  uint32_t op(spv::Op Op, uint32_t Type, const Words& Operands);
  void opVoid(spv::Op Op, const Words& Operands);
  void beginBlock(uint32_t Label);
  void branch(uint32_t Target);
  void condBranch(uint32_t Cond, uint32_t True, uint32_t False);
  void emitReturn(uint32_t Value);
  void leaveOnFailure();
  uint32_t curLabel() const { return Cur->Blocks.back().Label; }
  bool fail(const kir::SourceLoc& L, const std::string& Message);

  // --- statements ---
  void emitStmt(const kir::Stmt* S);
  void emitIf(const kir::Stmt* S);
  void emitLoop(const kir::Stmt* S);
  void emitJump(const kir::Stmt* S);
  void emitReturnStmt(const kir::Stmt* S);
  void dispatchPending();

  // --- expressions (SpirvEmitterExpr.cpp) ---
  uint32_t emitExpr(const kir::Expr* E);
  uint32_t emitUnary(const kir::Expr* E);
  uint32_t emitBinary(const kir::Expr* E);
  uint32_t emitCompare(const kir::Expr* E, uint32_t L, uint32_t R);
  uint32_t emitLogical(const kir::Expr* E);
  uint32_t emitCast(const kir::Expr* E);
  uint32_t convert(uint32_t V, kir::Type From, kir::Type To);
  uint32_t emitSelect(const kir::Expr* E);
  uint32_t emitCallExpr(const kir::Expr* E);
  bool callArgs(const kir::Expr* E, uint32_t Callee, const std::vector<const kir::Expr*>& Args,
                std::vector<uint32_t>& Bindings, Words& Values);
  uint32_t emitCall(const kir::Expr* E, uint32_t Callee, const std::vector<uint32_t>& Bindings,
                    const Words& Values);
  uint32_t emitDispatch(const kir::Expr* E);
  uint32_t emitIntrinsic(const kir::Expr* E);
  /// DivTrunc, RemTrunc, ShiftLeft, ShiftRight, FToIUnchecked, Bitcast: one op each.
  uint32_t emitRawPrimitive(const kir::Expr* E);
  uint32_t emitMath(const kir::Expr* E, const Words& Ops);
  uint32_t floatMinMax(bool IsMin, kir::Type T, uint32_t A, uint32_t B);
  uint32_t glsl(uint32_t Type, uint32_t Inst, const Words& Ops);
  uint32_t glslMath(kir::Type Ty, uint32_t Inst, const Words& Ops);
  uint32_t powEdges(kir::Type Ty, uint32_t X, uint32_t Y, uint32_t AbsPow);
  uint32_t arith(spv::Op Op, uint32_t Type, uint32_t A, uint32_t B);

  // --- memory (SpirvEmitterMemory.cpp) ---
  uint32_t valueType(kir::Type T);
  uint32_t memoryType(kir::ScalarType T);
  uint32_t intConst(kir::Type T, uint64_t V);
  uint32_t zeroOf(kir::Type T);
  /// The array operand E of an access (verified KIR: a buffer parameter or a shared array).
  ArrayRef arrayOf(const kir::Expr* E);
  uint32_t bufferVar(uint32_t KernelParam, bool IntView);
  /// A StorageBuffer block variable on kernel parameter KernelParam's binding: a runtime array of
  /// A variable of storage class SC whose type is a Block struct of one member at offset 0,
  /// Array (decorated with Stride).
  uint32_t blockVariable(uint32_t Array, uint32_t Stride, spv::StorageClass SC);
  /// Elem with Stride (a view of the buffer; several may share the binding).
  uint32_t storageBlock(uint32_t Elem, uint32_t Stride, uint32_t KernelParam,
                        const std::string& Suffix);
  uint32_t sharedVar(uint32_t Index);
  /// SpirvEmitOptions::SharedPool: whether this kernel's shared arrays live in the pool.
  bool sharedPoolWanted() const;
  /// The pool's byte offsets of the shared arrays and its size (spec-constant expressions: an
  /// array's length may be one), made on first use.
  void layOutSharedPool();
  /// Shared array Index's first element in a view of UnitBytes elements (a spec constant, made
  /// once).
  uint32_t sharedStart(uint32_t Index, uint32_t UnitBytes);
  /// The pool viewed as an array of Elem (ElemBytes each): an Aliased Workgroup Block variable.
  uint32_t sharedView(uint32_t Elem, uint32_t ElemBytes);
  uint32_t elementPointer(const ArrayRef& A, const kir::Expr* IndexExpr, bool IntView);
  void boundsCheck(const ArrayRef& A, uint32_t Index, kir::Type IndexTy, uint32_t& Index32);
  void reportFailure(uint32_t ParamCode, uint32_t IndexLo, uint32_t IndexHi, uint32_t Length);
  uint32_t statusVar();
  uint32_t emitLoad(const kir::Expr* E);
  uint32_t emitStore(const kir::Expr* E);
  uint32_t emitAtomic(const kir::Expr* E);
  /// kir::AsyncCopyLowering's staged copies: a word of a chunk loaded as one vector of 1, 2 or
  /// 4 words through a word view of the buffer, and words stored as shared-array elements.
  uint32_t emitLoadWord(const kir::Expr* E);
  uint32_t emitStoreWords(const kir::Expr* E);
  /// The buffer bound for KernelParam as a runtime array of WordCount-word vectors (uint for 1).
  uint32_t wordView(uint32_t KernelParam, unsigned WordCount);
  uint32_t atomicCasLoop(const kir::Expr* E, uint32_t Ptr, uint32_t Scope, uint32_t Sem,
                         uint32_t Value);
  uint32_t paramWord(uint32_t WordIndex);
  uint32_t scalarParam(uint32_t KernelParam, kir::Type T);
  uint32_t podField(const kir::Expr* E);
  uint32_t readBlockScalar(uint32_t ByteOffset, kir::Type T);
  uint32_t builtinInput(spv::BuiltIn B);
  uint32_t coordinate(kir::IntrinsicOp Op, unsigned Dim);
  uint32_t u32() { return Mb.typeInt(32); }
  // The memory model (CoopMatrixTiles modules use Vulkan's, the rest GLSL450): Device scope,
  // the visibility bits of a barrier or atomic, the memory operands of a load or store.
  uint32_t deviceScope();
  uint32_t withVisibility(uint32_t Semantics);
  Words memoryAccess();

  // --- wave operations (SpirvEmitterWave.cpp) ---
  uint32_t emitWave(const kir::Expr* E);
  // --- cooperative matrices (SpirvEmitterMatrix.cpp) ---
  /// A Matrix leaf of kir::TileLowering's CoopMatrix form (MatrixFill .. WaveBarrier).
  uint32_t emitMatrix(const kir::Expr* E);
  /// OpTypeCooperativeMatrixKHR of a Type::Matrix (subgroup scope); adds the capability.
  uint32_t matrixType(kir::Type T);
  // --- native ray query (SpirvEmitterRayQuery.cpp) ---
  /// A RayQuery expression as SPV_KHR_ray_query instructions (SpirvEmitOptions::NativeRayQuery).
  uint32_t emitRayQuery(const kir::Expr* E);
  /// The acceleration structure bound for kernel parameter KernelParam (UniformConstant).
  uint32_t accelVar(uint32_t KernelParam);
  uint32_t scalarBuiltin(spv::BuiltIn B);
  uint32_t subgroupScope();
  uint32_t waveWidth();
  uint32_t waveLane();
  /// A 32-bit integer reduction or scan as one GroupNonUniformArithmetic instruction.
  uint32_t nativeArithmetic(kir::WaveOp Op, kir::Type T, uint32_t V);
  uint32_t boolTy() { return Mb.typeBool(); }

  const kir::Module& M;
  const kir::Function& Kernel;
  SpirvEmitOptions Opts;
  SpirvModuleBuilder Mb;
  std::string Error;
  FnState* Cur = nullptr;
  std::vector<ParamSlot> Slots;
  uint32_t BlockBytes = 0;
  uint32_t ParamBlockVar = 0;
  std::map<std::pair<uint32_t, bool>, uint32_t> BufferVars;    // (param, int view) -> variable
  std::map<std::pair<uint32_t, unsigned>, uint32_t> WordViews; // (param, words) -> variable
  std::map<uint32_t, uint32_t> AccelVars;                      // kernel param -> variable
  std::vector<uint32_t> SharedVars;
  std::vector<uint32_t> SharedLengths;
  std::vector<bool> SharedBits;
  bool SharedPool = false;                  // this kernel's shared arrays are in the pool
  std::vector<uint32_t> SharedOffsets;      // the pool: each array's byte offset (an id)
  uint32_t SharedPoolBytes = 0;             // the pool's size in bytes (an id)
  std::map<uint32_t, uint32_t> SharedViews; // element type -> the pool's view
  std::map<std::pair<uint32_t, uint32_t>, uint32_t> SharedStarts; // (array, unit) -> start
  std::map<spv::BuiltIn, uint32_t> Builtins;
  uint32_t WorkgroupSize = 0;
  uint32_t GroupSizeIds[3] = {0, 0, 0};        // the spec constants of WorkgroupSize
  uint32_t WavesPerGroup = 0;                  // spec-constant expression, made on first use
  std::map<uint32_t, uint32_t> SupportsConsts; // capability -> its bool spec constant
  uint32_t StatusVar = 0;
  uint32_t FailedFlag = 0; // Private bool: a bounds failure happened in this work-item
  std::map<std::pair<uint32_t, std::vector<uint32_t>>, uint32_t> Helpers;
  std::set<std::string> MatrixShapes; // SpirvKernel::CooperativeMatrixShapes
  bool UsedNativeFAdd = false;
  bool UsedFma = false;
  bool UsedGridCount = false; // NumWorkgroups read: the grid must be dispatched whole
  bool UsedTranscendental = false;
};

} // namespace cajeta::lowering::spirv
