// KIR, the kernel IR: typed, structured (if / loop / break / continue / return, never a goto),
// with variables and expression trees. Sema produces it; the analyses, the LLVM lowering and
// (later) the SPIR-V emitter consume it. Every conversion is an explicit Cast and every builtin
// an enumerated IntrinsicOp, so a lowering never has to re-derive language rules.
#pragma once

#include "bundle/Manifest.h"

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

namespace cajeta::kir {

using bundle::ScalarType;

struct SourceLoc {
  uint32_t Line = 0;
  uint32_t Col = 0;
};

/// A KIR type: void, a scalar, a buffer of scalars (a kernel or helper parameter only), a
/// workgroup-shared array (Function::SharedArrays, kernels only), a POD (Module::Pods,
/// parameters only, read-only), or a tile (a kernel's local only, read and written by Tile
/// expressions only; kir::TileLowering replaces every tile before an emitter runs).
/// Function-typed source values are plain uint32 tags in KIR. An AccelerationStructure
/// parameter is a uint32 buffer (Param::IsAccel; its layout is bundle/AccelLayout.h) and a
/// RayQuery a kernel's or helper's local named only by RayQuery expressions
/// (kir::RayQueryLowering replaces every query by plain locals before an emitter runs). A Matrix
/// is one wave's cooperative-matrix fragment (SPV_KHR_cooperative_matrix) of Rows x Cols
/// elements in the device's own layout, for the use MatrixUse: only kir::TileLowering's
/// CoopMatrix form makes its locals, and only the SPIR-V emitter lowers them.
///
/// Host code (a Module with IsHost) has three more kinds, each a pointer-sized value: a heap
/// array of scalars (`heap float32[n]`), a runtime object (Handle: a KernelBuffer, KernelStream
/// or Event) and a string (a constant, a command-line argument; immutable).
struct Type {
  enum Kind : uint8_t {
    Void,
    Scalar,
    Buffer,
    Shared,
    Pod,
    Tile,
    HeapArray,
    Handle,
    String,
    RayQuery,
    Private,
    Matrix
  };
  enum HandleKind : uint8_t { BufferHandle, StreamHandle, EventHandle, AccelHandle };
  Kind K = Void;
  ScalarType Elem = ScalarType::I32; // Scalar: the type; Buffer/Shared/Tile/HeapArray and a
                                     // buffer Handle: the element type
  uint32_t PodIndex = 0;             // Pod: index into Module::Pods
  uint16_t Rows = 0, Cols = 0;       // Tile: the shape
  HandleKind Object = BufferHandle;  // Handle: what it refers to
  uint8_t MatrixUse = 0;             // Matrix: 0 a, 1 b, 2 accumulator (SPIR-V's numbering)

  static Type voidTy() { return {}; }
  static Type scalar(ScalarType T) { return {Scalar, T}; }
  static Type buffer(ScalarType T) { return {Buffer, T}; }
  static Type shared(ScalarType T) { return {Shared, T}; }
  static Type pod(uint32_t Index) { return {Pod, ScalarType::I32, Index}; }
  static Type tile(ScalarType T, uint32_t Rows, uint32_t Cols) {
    return {Tile, T, 0, uint16_t(Rows), uint16_t(Cols)};
  }
  static Type heapArray(ScalarType T) { return {HeapArray, T}; }
  static Type handle(HandleKind H, ScalarType T = ScalarType::I32) {
    return {Handle, T, 0, 0, 0, H};
  }
  static Type string() { return {String}; }
  static Type rayQuery() { return {RayQuery}; }
  static Type privateArray(ScalarType T) { return {Private, T}; }
  static Type matrix(ScalarType T, uint32_t Rows, uint32_t Cols, uint8_t Use) {
    return {Matrix, T, 0, uint16_t(Rows), uint16_t(Cols), BufferHandle, Use};
  }

  bool isVoid() const { return K == Void; }
  bool isScalar() const { return K == Scalar; }
  bool isBuffer() const { return K == Buffer; }
  bool isShared() const { return K == Shared; }
  bool isPod() const { return K == Pod; }
  bool isTile() const { return K == Tile; }
  bool isHeapArray() const { return K == HeapArray; }
  bool isHandle() const { return K == Handle; }
  bool isHandle(HandleKind H) const { return K == Handle && Object == H; }
  bool isString() const { return K == String; }
  bool isRayQuery() const { return K == RayQuery; }
  bool isPrivate() const { return K == Private; }
  bool isMatrix() const { return K == Matrix; }
  /// A host value: a heap array, a handle or a string (pointers in the lowering).
  bool isHostValue() const { return K == HeapArray || K == Handle || K == String; }
  /// Indexable memory: a buffer, a shared array or (Load/Store only) a private array.
  bool isArray() const { return K == Buffer || K == Shared || K == Private; }
  bool isBool() const { return K == Scalar && Elem == ScalarType::Bool; }
  bool isInteger() const; // any intN/uintN (not bool)
  bool isSigned() const;  // intN
  bool isUnsigned() const;
  bool isFloat() const;  // float16/32/64 and bfloat16
  unsigned bits() const; // scalar width in bits (bool = 1)
  std::string str() const;
  bool operator==(const Type& O) const {
    if (K != O.K)
      return false;
    if (K == Pod)
      return PodIndex == O.PodIndex;
    if (K == Tile)
      return Elem == O.Elem && Rows == O.Rows && Cols == O.Cols;
    if (K == Matrix)
      return Elem == O.Elem && Rows == O.Rows && Cols == O.Cols && MatrixUse == O.MatrixUse;
    if (K == Handle)
      return Object == O.Object && (Object != BufferHandle || Elem == O.Elem);
    return K == Void || K == String || K == RayQuery || Elem == O.Elem;
  }
  bool operator!=(const Type& O) const { return !(*this == O); }
};

enum class UnaryOp : uint8_t {
  Neg,    // arithmetic negation (integers wrap)
  Not,    // logical not, bool only
  BitNot, // ~, integers only
};

/// Both operands of a Binary have the same type (Sema inserts the casts); comparisons yield bool.
enum class BinaryOp : uint8_t {
  Add,
  Sub,
  Mul,
  Div,  // integers: x / 0 == 0, MIN / -1 == MIN (wraps); floats: IEEE
  Rem,  // integers: x % 0 == 0, MIN % -1 == 0; floats: fmod semantics (C fmod / LLVM frem)
  Shl,  // count masked to the width: x << (c & (bits-1))
  Shr,  // >> : arithmetic for signed, logical for unsigned; count masked
  UShr, // >>> : always logical; count masked
  And,
  Or,
  Xor, // bitwise on integers, non-short-circuit on bool
  Eq,
  Ne,
  Lt,
  Le,
  Gt,
  Ge, // ordered comparisons for floats (NaN compares false, != true)
  LogicalAnd,
  LogicalOr, // short-circuit, bool operands
};

/// The inputs of an IntrinsicOp::MmaSync (its Index), which fix its shape and accumulator type.
/// F32 only in IntrinsicOp::TileDot (the CPU's register-blocked float32 product): no matrix
/// instruction takes float32 inputs.
enum class MmaInput : uint8_t { F16, BF16, S8, U8, F32 };
/// The MmaInput of a and b tiles of Elem (float16, bfloat16, int8, uint8 or float32).
MmaInput mmaInputOf(ScalarType Elem);
/// "m16n8k16.f16", "m16n8k16.bf16", "m16n8k32.s8" or "m16n8k32.u8" (the printer's name).
const char* mmaShapeName(MmaInput In);

/// Builtins. Geometry ops read dimension Expr::Dim (0 = x, 1 = y, 2 = z) and yield uint32.
enum class IntrinsicOp : uint8_t {
  LocalId,    // KernelThread.x(): work-item index within the workgroup
  GlobalId,   // KernelThread.globalIdX(): GroupId * GroupDim + LocalId
  GroupId,    // Workgroup.x(): workgroup index within the grid
  GroupDim,   // Workgroup.dimX(): workgroup size (work-items)
  GridDim,    // Workgroup.countX(): number of workgroups
  GlobalSize, // KernelThread.globalSizeX(): GridDim * GroupDim
  // Math. Floats: the libm function of the operand type, correctly rounded where IEEE says so
  // (sqrt), no fast-math. Abs/Min/Max also take integers (Abs of MIN wraps to MIN).
  Sqrt,
  Rsqrt,
  Exp,
  Log,
  Pow,
  Sin,
  Cos,
  Tanh,
  Abs,
  Min,
  Max,
  Floor,
  Ceil,
  Fma,          // fused multiply-add, one rounding
  BufferLength, // buf.length(): uint64 element count of Ops[0] (a buffer or shared array)
  // Raw primitives: only the legalization pass (kir/transforms/Polyfill) makes them, after it has
  // guarded their operands; an emitter maps each onto one machine operation. Outside the domain
  // stated the result is undefined (an emitter may give any value, never trap).
  DivTrunc,   // {a, b} integers: a / b rounded toward zero; b != 0, not signed MIN / -1
  RemTrunc,   // {a, b} integers: a - b * DivTrunc(a, b) (the sign of a); same domain
  ShiftLeft,  // {v, count} integers of one type: v << count; count < bits
  ShiftRight, // {v, count}: v >> count, arithmetic for signed, logical for unsigned; count < bits
  FToIUnchecked, // {float}, Ty an integer: round toward zero; the result fits Ty (no NaN)
  Bitcast,       // {v}, Ty a scalar of v's width (int <-> float): the same bits
  MinNum,        // {a, b} floats of Ty: the smaller / the larger, in one machine instruction
  MaxNum,        //   where there is one (PTX min.f32, minss); a NaN operand or -0 vs +0 gives
                 //   either operand
  // The NVIDIA tensor-core leaf kir::TileLowering makes in its mma.sync tier; no other pass makes
  // it and only the NVPTX target (sm_80+) lowers it. One warp-wide mma.sync.row.col; Index is its
  // MmaInput: m16n8k16 for float16 or bfloat16 inputs into float32 accumulators, m16n8k32 for
  // int8 or uint8 inputs into int32. Ops = the lane's 4 A registers and 2 B registers (uint32,
  // each two 16-bit or four 8-bit inputs, the first lowest: a0a1, a2a3, ...; b0b1, b2b3), then
  // its 4 C elements (the type of the result); yields element Dim (0..3) of D = A.B + C. The four
  // results of one product are four expressions with the same operands (LLVM merges them into
  // one instruction).
  MmaSync,
  // The same tier's shared-memory load (PTX ldmatrix.sync.aligned.m8n8.b16): Ops = {a float16,
  // bfloat16, int8 or uint8 shared array, this lane's row start as an element index (16-byte
  // aligned)}; Index = the number of 8x8 matrices of 16-bit elements (2 or 4), plus 8 for the
  // transposed form (.trans). Every lane of the warp takes part. Yields the lane's uint32
  // register Dim (0 .. count - 1): two 16-bit elements (or four bytes) of matrix Dim (LLVM
  // merges the calls of one load, as for MmaSync).
  LdMatrix,
  // Asynchronous global -> shared copies (AsyncCopy.*), void. Targets without them get plain
  // copies from kir::AsyncCopyLowering (the copy happens at once; commit and wait do nothing).
  // AsyncCopy: Ops = {shared array, dst index, buffer, src index, valid} (uint32 indices); Index =
  //   the element count (count * element size is 4, 8 or 16 bytes): dst[di + j] = j < valid ?
  //   src[si + j] : 0 for j < count. Visible to the work-item after an AsyncWait that covers its
  //   group, to the others after that and a barrier.
  // AsyncCommit: {}: closes this work-item's group of copies issued since the last commit.
  // AsyncWait: {}, Index = n: waits until at most n of this work-item's groups are in flight.
  // AsyncCopyBlock (AsyncCopy.copyBlock, the group's copy of a block of a matrix): Ops = {shared
  //   array, dst index, buffer, row, col, height, width, stride, cols} (uint32; cols a constant);
  //   Index = rows. Element (r, c) of the block, r < rows, c < cols, is the buffer's element
  //   (row + r) * stride + col + c of the height x width matrix it holds, 0 outside it, copied to
  //   dst + r * cols + c. Every work-item of the group reaches it with the same operands; each
  //   copies its share into its current group of copies. kir::AsyncBlockCopyLowering deals the
  //   block round the group as AsyncCopy chunks, first of all passes. Dim 1: the copy is left
  //   for the tensor memory accelerator (a TMA entry's, kir::TmaBlockCopies), which makes it
  //   TmaLoad after kir::TileLowering.
  AsyncCopy,
  AsyncCommit,
  AsyncWait,
  AsyncCopyBlock,
  // Device.supports(Capability.X) in a kernel: {}, Index = the capability (cajeta_xpu_capability),
  // yields bool, uniform. kir::runPipeline folds it to a constant where the target knows the
  // answer (PipelineConfig::Capabilities); SPIR-V asks the device through a specialisation
  // constant (the rest).
  Supports,
  // The Vulkan tile tier's leaves (SPV_KHR_cooperative_matrix): only kir::TileLowering's
  // CoopMatrix form makes them and only the SPIR-V emitter lowers them. A Matrix value is one
  // wave's fragment (Type::Matrix); every lane of the wave takes part in each, with the same
  // operands, as in a convergent wave op.
  MatrixFill,    // {v}, v of Ty's element type: every element v
  MatrixLoad,    // {array, offset, stride}: element (r, c) from array[offset + r * stride + c]
                 //   (Dim 1: column-major, offset + c * stride + r); uint32 offset and stride,
                 //   both multiples of 16 bytes (what Vulkan asks of every device)
  MatrixStore,   // {array, offset, stride, m}: void; stores m as MatrixLoad reads it
  MatrixMulAdd,  // {a, b, c}: a . b + c, Ty = c's type (int: a's and b's element signedness)
  MatrixScale,   // {m, v}: every element of m times v (v of the element type)
  MatrixAdd,     // {m, n}: the elementwise sum of two matrices of Ty
  MatrixConvert, // {m}: every element of m converted to Ty's element type (same shape and use)
  WaveBarrier,   // {}: void; the wave's lanes meet here, and their shared-memory writes before it
                 //   are visible to the whole wave after it
  // kir::AsyncCopyLowering's staged copies, for targets that load wide vectors but have no copy
  // engine (Vulkan), and kir::RayQueryLowering's node and slot reads there (LoadWord): only those
  // passes make them and only the SPIR-V emitter lowers them; except the buffer form of
  // StoreWords, which kir::TileLowering also makes (an accumulator's pair of columns, 2 words)
  // and the LLVM targets lower too (one aligned vector store).
  LoadWord,   // {buffer, chunk}: uint32 word Dim of the Index-word chunk `chunk` of the buffer
              //   (its elements Index * 4 / size * chunk ..; the words of one chunk are loaded
              //   once); Index 1, 2 or 4
  StoreWords, // {shared, dst, w0 .. w(Index-1)}: void; the words' elements (of the shared
              //   array's type, 1, 2 or 4 bytes, not bool) stored from shared[dst] on.
              //   {buffer, chunk, w0 .. w(Index-1)} (kir::WorkItemQuads, elements of 4 bytes):
              //   the Index-word chunk `chunk` of the buffer stored whole, as LoadWord reads it
  // The CPU tile tier's leaf (kir::TileLowering with CpuDotBf16 / CpuDotInt8; only the CPU
  // target lowers it): {c, ci, a, ai, b, bi, M, N, K}, void; Index is its MmaInput. c is a
  // shared array holding an M x N row-major matrix from element ci, a and b shared arrays
  // holding M x K and K x N from ai and bi; M, N, K uint32 constants, M a multiple of 4, N of
  // 16, K of the depth step. Run by one work-item.
  // - BF16 (AVX512-BF16's VDPBF16PS): c float32, a and b bfloat16 (or, after
  //   kir::BFloat16Lowering, uint16), K of 2. For each (i, j), for k ascending: c[i][j] =
  //   c[i][j] + a[i][k] * b[k][j] in float32 (each product exact), subnormal inputs and results
  //   flushed to zero.
  // - S8, U8 (AVX512-VNNI's VPDPBUSD): c int32, a and b int8 or uint8, K of 4; c[i][j] += the
  //   sum of a[i][k] * b[k][j], modulo 2^32.
  TileDot,
  // The NVIDIA sm_90a tile tier's leaves (kir::TileLowering's MmaSync form with Wgmma; only the
  // NVPTX target lowers them, and only for sm_90a): a warpgroup's product whose b operand stays
  // in shared memory. Every lane of the four waves of a warpgroup takes part in each.
  // WgmmaReady: {shared array, offset}: bool; whether the array's start is a multiple of 1024
  //   bytes (the 128-byte swizzle's period) and its element `offset` starts one of its blocks of
  //   8 rows (SharedArray::RowAtoms): where a b tile may start. Dim 0 for a 16-bit b; for a
  //   K-major operand (an 8-bit b, or an a), its depth in bytes: `offset` then lies in the first
  //   row of a block, a multiple of 32 bytes into one of its atoms, with Dim bytes left in it.
  // Wgmma: {shared array, offset, a0 .. a3, c0 .. c(4 Dim - 1)}: void; Index is its MmaInput,
  //   Dim = N / 8. F16 or BF16: wgmma.mma_async.m64nNk16 into float32 with a from registers
  //   (the lane's four uint32 pairs in mma.sync's m16n8k16 a layout: the wave's 16 of the 64
  //   rows) and b the 16 x N row-major tile at `offset` in the array, whose rows are N elements
  //   (N / 64 atoms: SharedArray::RowAtoms) and which is 128-byte swizzled
  //   (SharedArray::Swizzle128). S8 or U8: m64nNk32 into int32 (N a multiple of 16), a in
  //   mma.sync's m16n8k32 a layout, b the 32 x N tile stored K-major at `offset`: its column n
  //   the 32 bytes at offset + 128 n of the array, whose rows are one atom (RowAtoms 1). The c
  //   operands are float32 (int32) locals (Expr::Kind::Local), read and written in place: the
  //   wave's 16 rows of D in mma.sync's m16n8 c layout, one n8 block after another.
  //   Asynchronous: the locals hold D after the WgmmaWait that follows. With a from shared memory
  //   the operands are {shared array, offset, a's shared array, a's offset, c0 ..}: a is the
  //   warpgroup's 64 x K block (K = 16, or 32 for 8-bit inputs) stored K-major at a's offset, in
  //   rows of its array (RowAtoms atoms; 128-byte swizzled, of b's element type), the offset in a
  //   block's first row and its K in one atom; each wave's D rows are the block's 16 rows of that
  //   wave's place in the warpgroup.
  // WgmmaFence: {}: void; registers written before it (the a fragments, the accumulators) are
  //   seen by the Wgmmas after it (wgmma.fence).
  // WgmmaCommit: {}: void; commits the Wgmmas issued since the last commit as one group. Placed
  //   before control flow that products stay in flight across: ptxas serializes every wgmma of
  //   a kernel where a group is still open across a branch it cannot prove uniform (C7520).
  // WgmmaWait: {c locals}: void; commits the Wgmmas issued since the last commit (none where
  //   Index is 1: they were committed) and waits until at most Dim of the groups are pending
  //   (Dim 0: all of them done); the locals listed (none where Dim > 0) hold their results
  //   after it.
  // ProxyFence: {}: void; this thread's shared-memory writes before it are ordered before the
  //   asynchronous reads (wgmma's) of any wave that meets it at a barrier after (placed before
  //   each barrier of a kernel that issues Wgmma: wgmma reads what the last barrier published).
  WgmmaReady,
  Wgmma,
  WgmmaFence,
  WgmmaCommit,
  WgmmaWait,
  ProxyFence,
  // The tensor memory accelerator's leaves (kir::TmaBlockCopies, in an NVIDIA sm_90a kernel's
  // TMA entry; only the NVPTX target lowers them). Barriers are 8-byte elements of a uint64
  // shared array; a leaf run by one work-item says so.
  // MbarrierInit: {barriers, slot, count}: void; one work-item makes barrier `slot` expect
  //   `count` arrivals a phase (and orders that before the other work-items' and the
  //   accelerator's use of it, after a barrier).
  // TmaLoad: {shared array, dst index, barriers, slot, issue, c0, c1[, c2, c3]}: void; issued
  //   once, without a branch, for the one work-item whose bool `issue` is true (by it or by
  //   another work-item of its wave, which the target may elect). The box of tensor map Dim
  //   (Function::TensorMaps) at coordinates c0.. (2D: column, row of its matrix; 4D: its
  //   bundle::TensorMapRecipe::Blocks view) goes to the array from element dst on (128 or,
  //   swizzled, 1024 bytes aligned), Index bytes in all, which barrier `slot` then expects
  //   before its phase completes.
  // MbarrierArrive: {barriers, slot, arrive}: void; arrives at barrier `slot` without a branch:
  //   every work-item where `arrive` is the constant true, else once for the one work-item
  //   whose `arrive` is true (as TmaLoad's issue). Dim 1 (`arrive` the constant true): once
  //   per wave, by one lane the target elects among the wave's work-items, which reach it
  //   together.
  // MbarrierWait: {barriers, slot, parity}: void; waits until the phase of barrier `slot` with
  //   that parity (0 or 1, uint32) has completed; the accelerator's writes counted in it are
  //   then visible to this work-item.
  MbarrierInit,
  TmaLoad,
  MbarrierArrive,
  MbarrierWait,
  // Prefetch: {buffer, first, count}: void; a hint that the buffer's elements [first, first +
  //   count) are read (Dim 0) or written (Dim 1) soon. Made by kir::GridStrideInterchange for
  //   the CPU's step form (the next step's elements, once per group); it changes no value, and
  //   a target may lower it to nothing. Elements past the buffer are not touched.
  Prefetch,
};

/// Atomic read-modify-write operations (Expr::Kind::Atomic). All return the value the element
/// held before the operation. Integers: every op; float32/float64: Add, Min, Max, Exchange,
/// CompareExchange, Load, Store. Min/Max on floats follow Math.min/max (NaN wins, -0 < +0).
enum class AtomicOp : uint8_t {
  Add,
  Sub,
  Min,
  Max,
  And,
  Or,
  Xor,
  Exchange,        // Ops[2] is the new value
  CompareExchange, // Ops[2] expected, Ops[3] desired; stores desired iff the element == expected
                   // (bitwise for floats)
  Load,            // Ops = {array, index}
  Store,           // Ops = {array, index, value}; yields the value stored
};

/// Wave (subgroup) operations (Expr::Kind::Wave). A wave is Wave.width() consecutive work-items
/// of the workgroup in linear order (x fastest, then y, then z); lane = linear index % width.
/// The width is a power of two (4..64) fixed per device and kernel; a launch of a kernel that
/// uses wave ops needs a workgroup size that is a multiple of it, so every wave is full. Sema
/// admits wave ops only where every work-item of the group reaches them (the barrier rule), so
/// every lane of every wave takes part. Lane indices are uint32. Float reductions and scans use
/// a fixed order on every backend (below), so results are bit-identical for the same width.
enum class WaveOp : uint8_t {
  Width,          // uint32: lanes per wave
  LaneId,         // uint32: this work-item's lane
  Shuffle,        // {v, lane}: v of lane (lane & (width-1))
  ShuffleUp,      // {v, delta}: v of lane - delta; lanes below delta keep their own v
  ShuffleDown,    // {v, delta}: v of lane + delta; lanes whose source is >= width keep their own
  ShuffleXor,     // {v, mask}: v of lane ^ mask; lanes whose source is >= width keep their own
  Rotate,         // {v, delta}: v of lane (lane + delta) & (width-1)
  BroadcastFirst, // {v}: v of lane 0 (every lane is active)
  Ballot,         // {bool}: uint64 with bit i set iff lane i's operand is true
  All,            // {bool}: every lane's operand is true
  Any,            // {bool}: some lane's operand is true
  ReduceSum,      // {v}: over all lanes. Integers wrap. Floats: the butterfly order: for
  ReduceMin,      //   m = 1, 2, 4, ..., width/2: v = op(v, v of lane ^ m); Min/Max follow
  ReduceMax,      //   Math.min/max (NaN wins, -0 < +0)
  ReduceAnd,      // integers and bool only
  ReduceOr,
  ReduceXor,
  InclusiveSum, // {v}: sum over lanes 0..lane. Floats: for d = 1, 2, 4, ..., width/2:
                //   if (lane >= d) v = (v of lane - d) + v
  ExclusiveSum, // {v}: sum over lanes 0..lane-1 (0 at lane 0): the inclusive sum of lane - 1
  // The primitive every shuffle above is built from (kir::WaveExpand); Sema never makes it.
  ShuffleWord, // {word, lane}: the uint32 word of lane `lane` (uint32, already in [0, width))
};

/// Tile operations (Expr::Kind::Tile). A tile is a Rows x Cols matrix held by one wave: every
/// lane of the wave takes part in every tile op, as in a convergent wave op, and together the
/// lanes hold the elements (how is the tier's business: kir::TileLowering). Element (r, c) of a
/// tile loaded from memory at Offset with Stride is array[Offset + r * Stride + c] (RowMajor) or
/// array[Offset + c * Stride + r] (ColMajor); only elements with r < ValidRows and c < ValidCols
/// are read or written, the others load as zero. Index is the tile local that the op defines or
/// modifies (Store: the local it reads). The value is void (an Eval statement's expression).
enum class TileOp : uint8_t {
  Fill,    // {value of the element type}: every element = value
  Load,    // {array, offset, stride, validRows, validCols} (uint32 each but the array); Dim 0
           // row-major, 1 column-major. The array's element type is the tile's.
  Store,   // {array, offset, stride, validRows, validCols}: row-major, Dim 0
  Mac,     // {a, b} tile locals: tile += a . b. a: Rows x K, b: K x Cols, with a's and b's
           // element type one input type and the tile's its accumulator type (float16 or
           // float32 for float16 inputs, int32 for int8/uint8). Products and sums are in the
           // accumulator type; the order of the K sum is the tier's.
  Scale,   // {s of the element type}: every element *= s
  Add,     // {u}: a tile local of the same type and shape: element-wise +=
  Convert, // {u}: a tile local of the same shape: every element = u's converted (Cast rules)
};

/// Host operations (Expr::Kind::Host), in host modules only: each is one call into the host
/// support ABI (cajeta/xpu/cajeta_host.h). Line-numbered failures (a closed window, a length
/// mismatch) end the program there with the exception's name and the source line.
enum class HostOp : uint8_t {
  ArrayNew,       // {count int64}: Ty a HeapArray, zero-filled
  ArrayLength,    // {array}: int32 (Java's `a.length`)
  BufferNew,      // {count int64}: Ty a buffer Handle of the element type
  BufferUpload,   // {buffer, array[, stream]}: void; with a stream the Async form
  BufferDownload, // {buffer, array[, stream]}: void
  BufferLength,   // {buffer}: uint64
  StreamCurrent,  // {}: a stream Handle
  StreamNew,      // {}: a stream Handle
  StreamSync,     // {stream}: void
  StreamRecord,   // {stream}: an event Handle
  StreamWait,     // {stream, event}: void
  EventSync,      // {event}: void
  Launch,         // {stream, grid x, y, z, block x, y, z (uint32), args...}: void; Index: the
                  // kernel, Module::Kernels[Index]; args typed as its parameters
  Supports,       // {}: bool; Index = the capability (cajeta_xpu_capability)
  Print,          // {value}: a scalar or a String; void
  PrintFormatted, // {value}: a scalar; void; Index: Module::Strings[Index] is one Java format
                  // specifier ("%-8.3f") that Sema checked against the value's type
  PrintNewline,   // {}: void
  Exit,           // {status int32}: void; ends the program
  PrintCaught,    // {}: void; prints the message of the exception caught last (e.getMessage())
  ArgCount,       // {}: int32, the program's command-line arguments (main's args.length)
  ArgAt,          // {index int32}: String, argument index (args[i]; checked)
  ParseInt,       // {String}: Ty int32 or int64 (Integer.parseInt, Long.parseLong); raises
                  // NumberFormatException
  ParseFloat,     // {String}: Ty float32 or float64 (Float.parseFloat, Double.parseDouble)
  StringLength,   // {String}: int32 (s.length(), in bytes of its UTF-8)
  StringEquals,   // {String, String}: bool (s.equals(t))
  AccelNew,       // {vertices float32[], indices int32[]}: an AccelerationStructure Handle over
                  // the triangles (three indices each), built as the software BVH
};

/// Ray query operations (Expr::Kind::RayQuery) on the query local Index: the inline ray query of
/// SPIR-V's SPV_KHR_ray_query, over an AccelerationStructure parameter. Getters read the
/// candidate (Dim 0) or the committed (Dim 1) intersection. kir::RayQueryLowering writes the
/// traversal (a stackless walk over the software BVH) and the tests; no emitter sees these.
enum class RayQueryOp : uint8_t {
  Initialize, // {accel Param, flags uint32, ox, oy, oz, tmin, dx, dy, dz, tmax (float32)}: void;
              // starts a new traversal and clears the committed intersection
  Proceed,    // {}: bool: walks on to the next candidate the kernel decides on (an AABB, or a
              // triangle that is not opaque) and yields true, or yields false when the walk
              // is over. Opaque triangles closer than the committed one are committed on the way.
  Confirm,    // {}: void: commits the candidate triangle
  Generate,   // {t float32}: void: commits the candidate AABB at t when tmin <= t < committed t
  Terminate,  // {}: void: ends the walk; the committed intersection stays
  Type,       // {}: int32: candidate: CandidateTriangle 0, CandidateAabb 1; committed:
              //   CommittedNone 0, CommittedTriangle 1, CommittedGenerated 2
  T,          // {}: float32: the distance along the ray (a candidate AABB: where the ray enters)
  U,          // {}: float32: barycentric u (weight of v1) of a triangle intersection
  V,          // {}: float32: barycentric v (weight of v2)
  PrimitiveIndex, // {}: int32: the primitive's index in its description (-1: none)
  FrontFace,      // {}: bool: the ray comes from the side (v1 - v0) x (v2 - v0) points to
                  //   (dot(d, n) < 0: counter-clockwise seen from the origin)
};

/// C++/SPIR-V memory orders for atomics. The language's default is Relaxed.
enum class MemoryOrder : uint8_t { Relaxed, Acquire, Release, AcqRel, SeqCst };

struct Expr {
  enum class Kind : uint8_t {
    Const,     // IntValue (integers and bool: the value, two's complement in 64 bits) or FloatValue
    Local,     // read local Index
    Param,     // read parameter Index (buffers appear only as the operand of
               // Load/Store/Call/BufferLength)
    Unary,     // UOp Ops[0]
    Binary,    // Ops[0] BOp Ops[1]
    Cast,      // Ops[0] converted to Ty. int->int: trunc / sign- or zero-extend by the source's
               // signedness; float->int: round toward zero, saturating, NaN -> 0; int->float:
               // round to nearest; float->float: round to nearest; bool->number: 0/1;
               // number->bool: != 0.
    Select,    // Ops[0] ? Ops[1] : Ops[2], only the chosen arm is evaluated
    Load,      // Ops[0][Ops[1]]: buffer, index (any integer type, extended by its signedness)
    Store,     // Ops[0][Ops[1]] = Ops[2]; yields the stored value
    Assign,    // local Index = Ops[0]; yields the value
    Seq,       // evaluate Ops in order; yields the last one's value (Ty = its type)
    Call,      // call Module::Functions[Index] with Ops as arguments; Ty = its return type
    Intrinsic, // IOp over Ops (Dim for geometry)
    SharedRef, // the shared array Function::SharedArrays[Index] (operand 0 of Load/Store/Atomic/
               // BufferLength only); Ty = Type::shared(elem)
    Atomic,    // AOp with Order over Ops = {array (Param buffer or SharedRef), index, ...};
               // Ty = the element type
    Field,     // read field Index of Ops[0], a Param of POD type; Ty = the field's scalar type
    Wave,      // WOp over Ops (WaveOp: operand list and semantics); Ty: the result type
    Dispatch,  // call through a function tag: Ops[0] = tag (uint32), Ops[1..] = arguments;
               // Targets[t] is the function index for tag t. A tag >= Targets.size() is a
               // no-op that yields the zero value of Ty.
    Tile,      // TOp on tile local Index (TileOp: operands and semantics); Ty void. Tile locals
               // appear only as Index or as Local operands of Tile expressions.
    Host,      // HOp over Ops (HostOp: operands and result); host modules only
    StringConst,  // Module::Strings[Index]; Ty String (a Print operand only)
    Global,       // host: read static field Module::Globals[Index]
    GlobalAssign, // host: static field Index = Ops[0]; yields the value
    RayQuery,     // RQOp on the query local Index (RayQueryOp: operands and result)
    PrivateRef,   // the private array Function::PrivateArrays[Index] (operand 0 of Load/Store
                  // only); Ty = Type::privateArray(elem)
  };
  Kind K = Kind::Const;
  Type Ty;
  SourceLoc Loc;
  UnaryOp UOp = UnaryOp::Neg;
  BinaryOp BOp = BinaryOp::Add;
  IntrinsicOp IOp = IntrinsicOp::LocalId;
  AtomicOp AOp = AtomicOp::Add;
  MemoryOrder Order = MemoryOrder::Relaxed;
  WaveOp WOp = WaveOp::Width;
  TileOp TOp = TileOp::Fill;
  HostOp HOp = HostOp::Print;
  RayQueryOp RQOp = RayQueryOp::Proceed;
  std::vector<uint32_t> Targets; // Dispatch
  uint8_t Dim = 0;
  /// Binary Add or Mul of unsigned integers that a pass made and knows never wraps (an index
  /// into a layout whose size it knows fits); the source's own arithmetic always wraps.
  bool NoWrap = false;
  uint32_t Index = 0;
  uint64_t IntValue = 0;
  double FloatValue = 0;
  std::vector<Expr*> Ops;
};

struct Stmt {
  enum class Kind : uint8_t {
    Block,    // Body in order
    Eval,     // evaluate E, drop the value
    If,       // if (E) Then else Else (Else may be null)
    Loop,     // see below
    Break,    // leave loop LoopId
    Continue, // go to loop LoopId's step (then its test)
    Return,   // return E (null in a void function or a kernel)
    Barrier,  // workgroup barrier: every work-item of the group arrives before any goes on; it
              // orders shared and global memory (acquire-release). It must be reached by all
              // work-items of the group: Sema rejects barriers under control flow it can prove
              // divergent; a barrier in a helper counts at each call site.
    Try,      // host modules: run Then; an exception it raises (a pending one after a host op or
              // a call) goes to the first handler Body[i] whose Catches[i] (comma-separated
              // class names, cajeta/xpu/HostExceptions.hpp) it is an instance of, or on outward
  };
  Kind K = Kind::Block;
  SourceLoc Loc;
  std::vector<Stmt*> Body;
  Expr* E = nullptr;
  Stmt* Then = nullptr;
  Stmt* Else = nullptr;
  /// Loop: `while (E) { LoopBody; Step }`, E == null means true. With TestAtEnd (do-while) the
  /// body runs first and E is tested after Step. `continue` runs Step, then the test.
  Stmt* LoopBody = nullptr;
  Stmt* Step = nullptr;
  bool TestAtEnd = false;
  bool GridStride = false; // Loop: made by `for (i, T v : buf.range(n))` (i from the global id)
  /// Loop: a pass's row loop of a constant trip count that the CPU's LLVM pipeline must not
  /// unroll (the first lane's tile rows): unrolled whole before the vectorizer runs, its
  /// elements' addresses reach the SLP vectorizer split among hoisted bases, and a 32-element
  /// row of bfloat16 became a mix of 2-, 4- and 16-byte moves; kept rolled, it is whole vectors.
  bool KeepRolled = false;
  uint32_t LoopId = 0; // Loop: its own id (unique in the function); Break/Continue: the target
  std::vector<std::string> Catches; // Try: the classes each handler in Body catches
};

/// The role a tile plays in TileOp::Mac: inferred from its uses, or declared by
/// CooperativeMatrix<T, R, C, Use>.
enum class TileUse : uint8_t { Inferred, MatrixA, MatrixB, Accumulator };

struct Local {
  std::string Name; // source name (not unique: shadowing in sibling scopes gives two locals)
  Type Ty;
  SourceLoc Loc;
  TileUse Use = TileUse::Inferred; // tiles declared as CooperativeMatrix
};

struct Param {
  std::string Name;
  Type Ty;
  SourceLoc Loc;
  /// A function-typed parameter (a uint32 tag): the function index for each tag.
  std::vector<uint32_t> FunctionTable;
  bool IsFunction = false;
  /// An AccelerationStructure (Ty is a uint32 buffer): only RayQuery Initialize reads it.
  bool IsAccel = false;
};

/// A workgroup-shared array declared in a kernel: `Shared<float32> t = shared float32[256];`.
/// Count == 0 means dynamic: sized at launch (dynamic shared bytes / element size); a kernel has
/// at most one dynamic array.
struct SharedArray {
  std::string Name;
  ScalarType Elem = ScalarType::F32;
  uint32_t Count = 0;
  SourceLoc Loc;
  /// Count elements for each wave of the group, the total fixed when the group size and the
  /// wave width are (kir::TileLowering's scratch on SPIR-V; Count > 0).
  bool PerWave = false;
  /// Every access goes to byte b ^ (((b >> 7) & 7) << 4) of the array instead of byte b (the
  /// 128-byte swizzle that wgmma reads its b tiles in; kir::TileLowering sets it on sm_90a). The
  /// same data either way for a program: an access of up to 16 naturally aligned bytes stays in
  /// its 16 bytes. The array starts at a multiple of 1024 bytes and takes whole 128 bytes.
  bool Swizzle128 = false;
  /// With Swizzle128: the array's rows are RowAtoms 128-byte atoms wide (a b tile of 64 RowAtoms
  /// columns), kept as blocks of 8 rows each stored atom by atom (the 8 rows' first 128 bytes,
  /// then their next 128, ...: wgmma's layout of a b tile wider than one atom), before the
  /// swizzle. 1: plain rows. A bijection on each block of 1024 RowAtoms bytes; the array takes
  /// whole blocks.
  uint8_t RowAtoms = 1;
  /// Written by the tensor memory accelerator (IntrinsicOp::TmaLoad): starts at a multiple of
  /// 128 bytes.
  bool BulkCopied = false;
};

/// A per-work-item array of a function (passes make them; the source has none): Count elements,
/// undefined until written, indexed only in range (no bounds check). A function with a barrier
/// has none (the CPU's work-item loop fission keeps scalar locals only).
struct PrivateArray {
  std::string Name;
  ScalarType Elem = ScalarType::U32;
  uint32_t Count = 0;
  SourceLoc Loc;
};

/// A plain class of primitive fields, passed by value, read-only. Fields are laid out as a C
/// struct would be (natural alignment, in declaration order); Size includes tail padding.
struct PodField {
  std::string Name;
  ScalarType Type = ScalarType::I32;
  uint32_t Offset = 0;
};
struct PodType {
  std::string Name; // the class name
  std::vector<PodField> Fields;
  uint32_t Size = 0;
  uint32_t Align = 1;
};

struct Function {
  std::string Name;   // qualified source name, "K.saxpy"
  std::string Symbol; // the symbol the lowering gives it, e.g. "cj_K_saxpy"
  bool IsKernel = false;
  bool FastMath = false; // @FastMath: contraction allowed
  Type ReturnType;       // void for kernels
  std::vector<Param> Params;
  /// Every local of the function; Sema initialises each at its declaration.
  std::vector<Local> Locals;
  std::vector<SharedArray> SharedArrays; // kernels only
  std::vector<PrivateArray> PrivateArrays;
  /// @Backend("cpu", "cuda", ...): the backends this function exists on; empty = all. Sema
  /// guarantees a function only calls helpers available on all of its own backends.
  std::vector<std::string> Backends;
  bool HasBarrier = false; // the body, or a helper it calls, contains a Barrier
  bool UsesWave = false;   // the body, or a helper it calls, contains a wave op (or a tile op)
  bool UsesTiles = false;  // the kernel has tile locals (kept after kir::TileLowering)
  /// Set by kir::TileLowering's portable form: the waves per group its shared scratch holds (a
  /// launch with more waves is refused); 0 without portable tiles.
  uint32_t TileWaves = 0;
  /// Set by the pipeline before the CPU's implicit loop barriers: the kernel's results do not
  /// depend on how its grid is cut into workgroups (kir::GroupShapeIndependence::holds).
  bool GroupShapeFree = false;
  Stmt* Body = nullptr;
  SourceLoc Loc;
  /// Filled by analyzeAccess: one entry per parameter (None for scalars).
  std::vector<bundle::Access> ParamAccess;
  /// A kernel's TMA entry (kir::TmaBlockCopies): the kernel it is the second entry of, and the
  /// tensor maps it takes after that kernel's parameters (TmaLoad's Dim). Empty otherwise.
  std::string TmaEntryOf;
  std::vector<bundle::TensorMapRecipe> TensorMaps;
};

/// A kernel as host code launches it (HostOp::Launch): its qualified name and parameter types.
struct KernelRef {
  std::string Name; // "K.saxpy"
  std::vector<Type> Params;
};

/// A static field of host code: zero until the module's static initialiser assigns it.
struct Global {
  std::string Name; // "K.count"
  Type Ty;
  SourceLoc Loc;
};

/// A compiled program's device part, or (IsHost) its host part. Owns every node.
class Module {
public:
  std::string SourceFile;
  std::vector<std::unique_ptr<Function>> Functions; // kernels and @Device helpers; host
                                                    // methods in a host module
  std::vector<PodType> Pods;
  /// A host module: Functions are host methods (Locals, Params and values may be host values,
  /// Host and StringConst expressions appear); no kernels, shared arrays, waves or tiles.
  bool IsHost = false;
  std::vector<std::string> Strings; // host: StringConst texts
  std::vector<KernelRef> Kernels;   // host: the kernels HostOp::Launch names
  std::vector<Global> Globals;      // host: static fields
  /// host: Functions[StaticInit] assigns the static fields their initial values, in
  /// declaration order; the program runs it before its entry point. -1: none.
  int32_t StaticInit = -1;

  Expr* newExpr(Expr::Kind K, Type Ty, SourceLoc Loc);
  Stmt* newStmt(Stmt::Kind K, SourceLoc Loc);
  const Function* findFunction(const std::string& Name) const;

private:
  std::deque<Expr> Exprs;
  std::deque<Stmt> Stmts;
};

const char* unaryOpName(UnaryOp Op);
const char* binaryOpName(BinaryOp Op);
const char* intrinsicName(IntrinsicOp Op);
const char* atomicOpName(AtomicOp Op);
/// Operands of an Atomic expression, the array and the index included (Load 2, CAS 4, else 3).
unsigned atomicOperandCount(AtomicOp Op);
/// Whether an atomic op exists for float32/float64 elements (add, min, max, exchange,
/// compare-exchange, load, store).
bool atomicAllowedOnFloat(AtomicOp Op);
const char* memoryOrderName(MemoryOrder O);
const char* waveOpName(WaveOp Op); // the source method name: "reduceSum", "shuffleXor", ...
/// Operands of a Wave expression: Width/LaneId 0, Shuffle*/Rotate 2, the rest 1.
unsigned waveOperandCount(WaveOp Op);
/// Whether Op only computes a value from its operands (geometry, math, the raw primitives,
/// Bitcast, BufferLength): it reads and writes no memory and no other lane's values.
bool isValueIntrinsic(IntrinsicOp Op);
/// Operands of a math intrinsic (Sqrt..Fma): Pow, Min and Max 2, Fma 3, the rest 1.
unsigned mathOperandCount(IntrinsicOp Op);
/// Whether a value of type Operand may be operand 0 of Op: votes take bool; reductions and scans
/// 32/64-bit integers and floats (And/Or/Xor integers only); ShuffleWord a uint32; the other
/// shuffles any scalar. The lane or distance (operand 1) is always a uint32.
bool waveOperandAllowed(WaveOp Op, Type Operand);
/// The result type of Op on operand 0 of type Operand (ignored for Width and LaneId).
Type waveResultType(WaveOp Op, Type Operand);
/// Whether E is a wave op that every lane of the wave must reach (all but width and laneId, and
/// every tile op).
bool isConvergentWaveOp(const Expr* E);
const char* hostOpName(HostOp Op);
const char* rayQueryOpName(RayQueryOp Op); // the source method stem: "proceed", "t", ...
/// Operands of a RayQuery expression (Initialize 10, Generate 1, the rest 0).
unsigned rayQueryOperandCount(RayQueryOp Op);
/// The result type of a RayQuery expression.
Type rayQueryResultType(RayQueryOp Op);
/// Operands of a Host expression, or -1 when it varies (Launch: 7 + args; uploads: 2 or 3).
int hostOperandCount(HostOp Op);
const char* tileOpName(TileOp Op); // the source method name: "fill", "load", "mac", ...
/// Operands of a Tile expression (Load/Store 5, Fill/Mac 1-2, ...).
unsigned tileOperandCount(TileOp Op);
/// Whether tiles of element types In (a and b) may accumulate into Acc with Mac.
bool tileMacTypesAllowed(ScalarType In, ScalarType Acc);
/// The largest Loop::LoopId in S (0 when it has no loop): new loops take ids above it.
uint32_t maxLoopId(const Stmt* S);
/// Whether F is compiled for a backend ("cpu", "cuda", "hip", "vulkan").
bool availableOn(const Function& F, const std::string& Backend);

/// The readable dump printed by `cajeta emit --target=kir`.
std::string dump(const Module& M);

} // namespace cajeta::kir
