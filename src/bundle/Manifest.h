// The program description a bundle carries: kernels, their parameters, per-target manifests.
// Shared by the compiler (which fills it) and the runtime (which reads it); no LLVM here.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace cajeta::bundle {

/// The scalar element types of the kernel language (spec §17.4 "primitives"). BF16 (bfloat16:
/// float32's sign and exponent with 7 mantissa bits) came later and so comes last: the numbering
/// is the C API's and the bundle's.
enum class ScalarType : uint8_t { Bool, I8, I16, I32, I64, U8, U16, U32, U64, F16, F32, F64, BF16 };

/// How a kernel parameter marshals (spec §17.4).
/// Function: a tag over ParamInfo::FunctionTable, marshalled as a uint32 (spec §17.1).
enum class ParamKind : uint8_t { Buffer, Scalar, Pod, Function };

/// What a kernel does to a buffer parameter, found by the access-mode analysis.
enum class Access : uint8_t { None, Read, Write, ReadWrite };

const char* scalarTypeName(ScalarType T); // "float32", "uint32", ...
std::optional<ScalarType> parseScalarType(const std::string& Name);
unsigned scalarTypeSize(ScalarType T);  // bytes in memory (bool = 1)
bool isIntegerType(ScalarType T);       // int8 .. int64, uint8 .. uint64 (not bool)
const char* paramKindName(ParamKind K); // "buffer", "scalar"
std::optional<ParamKind> parseParamKind(const std::string& Name);
const char* accessName(Access A); // "none", "read", "write", "read-write"
std::optional<Access> parseAccess(const std::string& Name);

/// A field of a POD parameter, at its offset in the C layout of the struct.
struct PodFieldInfo {
  std::string Name;
  ScalarType Type = ScalarType::I32;
  uint32_t Offset = 0;
};

struct ParamInfo {
  std::string Name;
  ParamKind Kind = ParamKind::Scalar;
  ScalarType Type = ScalarType::I32; // buffer: element type; Function: U32; Pod: unused
  Access Mode = Access::None;        // buffers only
  // Buffer only: the parameter is an AccelerationStructure (its BVH as a uint32 buffer,
  // bundle/AccelLayout.h); a launch takes an acceleration structure there and nothing else.
  bool Accel = false;
  // Pod only: the class name, fields, and C layout size/alignment.
  std::string PodName;
  std::vector<PodFieldInfo> Fields;
  uint32_t PodSize = 0;
  uint32_t PodAlign = 0;
  // Function only: tag t calls FunctionTable[t] ("K.square"); other tags are a no-op.
  std::vector<std::string> FunctionTable;
};

/// A cost as a polynomial in a kernel's scalar parameters and its launch geometry: the sum over
/// Terms of Coefficient times the product of Variables. A variable is a scalar parameter's name,
/// "items" (the launch's work-items) or "groups" (its workgroups). Unknown, when not empty, says
/// why no polynomial bounds the cost (a loop whose trip count is read from a buffer) and Terms is
/// then empty.
struct CostTerm {
  double Coefficient = 0;
  std::vector<std::string> Variables;
};
struct CostExpr {
  std::vector<CostTerm> Terms;
  std::string Unknown;
};

/// What a kernel does to one buffer parameter, beyond its access mode (ParamInfo::Mode).
struct BufferSchedule {
  uint32_t Param = 0;       // index into KernelInfo::Params
  bool Accumulates = false; // every write is an atomic read-modify-write: commutes with others
  bool Streaming = false;   // touched once per element at unit stride across work-items
  CostExpr BytesRead;       // bytes the launch reads from this buffer
  CostExpr BytesWritten;    // bytes it writes
};

/// The scheduling section of a (kernel, target) manifest (spec 17.8 "kernel manifests"), derived
/// from the kernel's KIR.
struct SchedulingManifest {
  CostExpr BytesRead;    // all buffers
  CostExpr BytesWritten; // all buffers
  CostExpr Operations;   // arithmetic operations
  std::vector<BufferSchedule> Buffers;
  /// Tile granularity: the unit a launch can be split at. A workgroup always; TileRows x TileCols
  /// the largest Tile a wave holds (0 x 0 when the kernel has none).
  uint32_t TileRows = 0;
  uint32_t TileCols = 0;
  /// Running the launch again from the start gives the same result: it reads no buffer it also
  /// writes and accumulates into none.
  bool Restartable = false;
  /// Group-boundary yield points: the barriers at which every work-item of a group stands, so a
  /// group could be paused there (0: the group runs to its end).
  uint32_t YieldPoints = 0;
};

/// A matrix extent of a tensor map (TensorMapRecipe): the launch's value of scalar parameter
/// Param (an index into KernelInfo::Params) where Param >= 0, else the constant Value.
struct TensorMapExtent {
  int32_t Param = -1;
  uint64_t Value = 0;
};

/// NVIDIA sm_90a: one tensor map that a kernel's TMA entry (TargetManifest::TmaSymbol) takes,
/// for the tensor memory accelerator's copies of AsyncCopy.copyBlock. The runtime encodes it at
/// launch (cuTensorMapEncodeTiled): a 2D view of buffer parameter BufferParam, Width elements a
/// row (dimension 0), Height rows (dimension 1), rows Stride elements apart, of ElemBytes-byte
/// elements; boxes of BoxCols x BoxRows; Swizzle128: the 128-byte swizzle
/// (kir::SharedArray::Swizzle128), else none. Elements outside Height x Width read as zero.
/// Blocks: how one box fills whole blocks of a 128-byte swizzled array whose rows are two or four
/// atoms (kir::SharedArray::RowAtoms: blocks of 8 array rows, stored atom by atom). 0: not at all,
/// the 2D view. TwoAtomRows: a block of rows of two atoms, as the 4D view {BoxCols (one atom)
/// columns, 8 rows, Width / BoxCols atoms, Height / 8 blocks}, boxes {BoxCols, 8, 2, BoxRows / 8};
/// Width a multiple of BoxCols and Height of 8. FourAtomRows: the same with rows of four atoms,
/// boxes {BoxCols, 8, 4, BoxRows / 8} (a runtime that predates it rejects the bundle rather than
/// copy two atoms of four). PairedRows: a block of rows of one atom, two to
/// an array row, as {Width, 8 row pairs, 2 rows of a pair, Height / 16 blocks}, boxes {BoxCols, 8,
/// 2, BoxRows / 16}; Height a multiple of 16. Launches whose extents are not run the plain entry.
struct TensorMapRecipe {
  uint32_t BufferParam = 0;
  TensorMapExtent Height, Width, Stride;
  uint32_t ElemBytes = 2;
  uint32_t BoxCols = 0;
  uint32_t BoxRows = 0;
  bool Swizzle128 = false;
  enum BlockForm : uint32_t { NoBlocks = 0, TwoAtomRows = 1, PairedRows = 2, FourAtomRows = 3 };
  uint32_t Blocks = NoBlocks;
  /// The atoms (dimension 2) of a box of the 4D views: 4 for FourAtomRows, else 2.
  static uint32_t boxAtoms(uint32_t Blocks) { return Blocks == FourAtomRows ? 4 : 2; }
};

/// The per-(kernel, target) manifest: what the runtime needs to launch one kernel's code.
struct TargetManifest {
  std::string Symbol;     // entry symbol in the target's payload
  uint64_t CodeHash = 0;  // xxh3 of the kernel's code for this target
  uint32_t Registers = 0; // 0 where the target has no such notion
  uint32_t SpillBytes = 0;
  uint32_t StaticSharedBytes = 0;
  /// Kernels that use wave ops: "native" or "portable" (PortableWave: at most 1024 work-items
  /// per workgroup); empty otherwise.
  std::string WaveTier;
  /// Kernels that use tiles: "native" (the backend's matrix instructions) or "portable" (the
  /// software tile); and for the portable tile, the waves per workgroup its shared scratch holds
  /// (a launch with more is refused; 0: sized for the launch's waves). Empty / 0 otherwise.
  std::string TileTier;
  uint32_t TileWaves = 0;
  /// NVIDIA sm_90a: some of the kernel's products are wgmma, with b read from shared memory
  /// (kir::WgmmaOperands); false everywhere else.
  bool TileWgmma = false;
  /// CPU: a second entry that runs the kernel's grid-stride loop a step at a time for the whole
  /// group, used when the scalar parameter StepCountParam exceeds the launch's work-items (more
  /// than one step each) and, for a count of 32 or 64 bits, the count plus the grid's size in x
  /// fits the count's type (the entry's steps are then bounded per group and guarded by i <
  /// count); empty / -1 where there is none.
  std::string StepSymbol;
  int32_t StepCountParam = -1;
  /// CPU: a third entry with that loop run once per work-item, used when StepCountParam is at
  /// most the launch's global size in x (one step each or none: GridStrideInterchange::
  /// rewriteOnce); empty where there is none (older bundles, or more than one such loop).
  std::string OnceSymbol;
  /// CPU: the once entry may also run on a grid widened in x to the count, one step per
  /// work-item, when the count exceeds the launch's global size in x (each step depends on its
  /// index alone: GridStrideInterchange::stepsIndependent). False in older bundles.
  bool OnceAnyGrid = false;
  /// CPU: the kernel computes the same on any cut of its grid into workgroups of the same global
  /// size (kir::GroupShapeIndependence::holds): the runtime may narrow its workgroups in x so
  /// that a launch of fewer workgroups than threads still spreads over them. False in older
  /// bundles.
  bool GroupShapeFree = false;
  /// CPU: the kernel runs loops once per workgroup around a loop over its work-items (the
  /// fission of kir::ImplicitLoopBarriers), so each pass's working set grows with the
  /// workgroup's width: with GroupShapeFree, the runtime narrows a launch of few workgroups
  /// even on one thread (runtime/backends/cpu/GroupNarrowing.h). False in older bundles.
  bool GroupLoops = false;
  /// GPUs: a second entry each of whose work-items runs four neighbouring work-items of an
  /// element-wise kernel (kir::WorkItemQuads), taken when the uint32 parameter QuadCountParam
  /// (the count its guard compares the global index in x with) is at most the launch's global
  /// size in x, on a grid narrowed in x to ceil(count / 4) work-items; empty / -1 where there is
  /// none (older bundles, other kernels).
  std::string QuadSymbol;
  int32_t QuadCountParam = -1;
  /// The quad entry is exact on any grid (the grid-stride form): taken on the launch's own grid
  /// when the count exceeds its global size in x and the count plus four times that size fits
  /// 32 bits. False in older bundles.
  bool QuadAnyGrid = false;
  /// The launch's dynamic shared bytes are rounded up to a multiple of this (a swizzled dynamic
  /// array takes whole 128-byte rows: kir::SharedArray::Swizzle128); 0 where nothing is rounded.
  uint32_t DynamicSharedGranule = 0;
  /// Bytes of the kernel's static shared arrays that its code keeps at the start of the dynamic
  /// shared memory (NVIDIA: arrays past PTX's 48 KiB of `.shared`); the runtime adds them to the
  /// launch's dynamic bytes, the dynamic array following them. 0 on most kernels and targets.
  uint32_t DynamicSharedPrefix = 0;
  /// NVIDIA sm_90a: a second entry whose block copies go through the tensor memory accelerator,
  /// taking after the plain entry's parameters one 128-byte tensor map per TensorMaps entry (in
  /// that order, each 64-byte aligned). The runtime takes it when every map encodes for the
  /// launch's arguments (16-byte aligned base and row stride, each matrix inside its buffer);
  /// empty where there is none.
  std::string TmaSymbol;
  std::vector<TensorMapRecipe> TensorMaps;
  /// The work-items each work-item of a quad entry runs (4t .. 4t + 3).
  static constexpr uint32_t QuadWidth = 4;
  /// Absent in bundles of older compilers: the kernel then runs as an unclassified submission.
  std::optional<SchedulingManifest> Scheduling;
};

struct KernelInfo {
  std::string Name; // qualified: "K.saxpy"
  std::string SourceFile;
  uint32_t SourceLine = 0;
  std::vector<ParamInfo> Params;
  std::map<std::string, TargetManifest> Targets; // key: target name, e.g. "cpu-x86_64"
  std::vector<std::string> SharedArrays;         // names of its shared arrays, in declaration order
  bool DynamicShared = false;                    // one shared array is sized at launch
  bool UsesWave = false; // wave ops: launches need a workgroup size that is a multiple of the width
  std::vector<std::string> Backends; // @Backend restriction; empty = every backend
};

/// One compiled code object for one target.
struct Payload {
  std::string Target; // "cpu-x86_64", later "nvptx-sm_90", "spirv", ...
  std::string Format; // "elf-shared-object", "ptx", ...
  std::map<std::string, std::string>
      Attributes; // e.g. {"cpu": "sapphirerapids", "features": "+avx2,..."}
  std::vector<uint8_t> Bytes;
};

/// The items of a payload attribute that holds a list ("kernels", "methods", "buffers", ...):
/// comma-separated, empty items dropped.
std::vector<std::string> splitAttributeList(const std::string& List);

/// Everything a .cjx holds.
struct Program {
  std::string CompilerVersion;
  /// A JIT cache entry's key, recorded when the entry was written and checked when it is read
  /// (an entry stored under another entry's name is not served); empty in other bundles.
  std::string CacheKey;
  /// Calibration records built in (`cajeta build --with-calibration`): each a record's JSON
  /// text with its checksum, served on the device it was measured on only; empty by default.
  std::vector<std::string> Calibration;
  std::vector<KernelInfo> Kernels;
  std::vector<Payload> Payloads;

  const KernelInfo* findKernel(const std::string& Name) const;
  const Payload* findPayload(const std::string& Target) const;
};

} // namespace cajeta::bundle
