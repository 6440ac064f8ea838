// Tensor maps for TMA entries (CudaTensorMaps.h).
#include "runtime/backends/cuda/CudaTensorMaps.h"

#include "runtime/backends/cuda/CudaKernelParams.h"

#include <fmt/format.h>

namespace cajeta::xpu::rt::cuda {

namespace {

constexpr uint64_t MaxExtent = uint64_t(1) << 32;   // elements a side, exclusive
constexpr uint64_t MaxRowBytes = uint64_t(1) << 40; // a row stride's bytes, exclusive
constexpr uint32_t MaxBoxSide = 256;                // elements a box side
constexpr uint64_t Alignment = 16;                  // bytes: base, row stride, box rows
constexpr uint64_t SwizzleSpan = 128;               // bytes a 128-byte swizzle's box row holds

bool isSigned(bundle::ScalarType T) {
  using bundle::ScalarType;
  return T == ScalarType::I8 || T == ScalarType::I16 || T == ScalarType::I32 ||
         T == ScalarType::I64;
}

/// The launch's value of extent E (Name: "height", ...), or why it has none: a negative signed
/// value would read as a huge one.
std::string extent(const bundle::KernelInfo& Info, const bundle::TensorMapExtent& E,
                   const MarshalledArg* Args, const char* Name, uint64_t& Out) {
  if (E.Param < 0) {
    Out = E.Value;
    return "";
  }
  if (size_t(E.Param) >= Info.Params.size() ||
      Info.Params[E.Param].Kind != bundle::ParamKind::Scalar)
    return fmt::format("its {} is parameter {}, not a scalar", Name, E.Param);
  const bundle::ParamInfo& P = Info.Params[E.Param];
  unsigned Bits = 8 * bundle::scalarTypeSize(P.Type);
  Out = Args[E.Param].Bits;
  if (Bits < 64)
    Out &= (uint64_t(1) << Bits) - 1;
  if (isSigned(P.Type) && ((Out >> (Bits - 1)) & 1))
    return fmt::format("its {} ('{}') is negative", Name, P.Name);
  return "";
}

/// Map I of Entry for encode arguments E: the entry's last encode of it where E is the same,
/// else the driver's (remembered where it succeeds).
std::string encodeOnce(const CudaDriverApi& Api, const CudaEntry& Entry, size_t I,
                       const TensorMapEncoding& E, CUtensorMap& Out) {
  std::lock_guard<std::mutex> Lock(Entry.EncodedLock);
  if (Entry.Encoded.size() != Entry.Maps.size())
    Entry.Encoded.assign(Entry.Maps.size(), {});
  CudaEntry::EncodedMap& Last = Entry.Encoded[I];
  if (Last.Valid && Last.From == E) {
    Out = Last.Map;
    return "";
  }
  std::string Why = CudaTensorMaps::encode(Api, E, Out);
  Last.Valid = Why.empty();
  if (Last.Valid) {
    Last.From = E;
    Last.Map = Out;
  }
  return Why;
}

/// Every map of TMA entry Entry encoded into Maps for this launch, or why not.
std::string encodeAll(const CudaDriverApi& Api, const CudaEntry& Entry,
                      const bundle::KernelInfo& Info, const MarshalledArg* Args,
                      const LaunchGeometry& Geometry, std::vector<CUtensorMap>& Maps) {
  if (Entry.Maps.empty() || Entry.Maps.size() > MaxTensorMaps)
    return fmt::format("it takes {} tensor maps; the backend passes 1 to {}", Entry.Maps.size(),
                       MaxTensorMaps);
  uint64_t Items = uint64_t(Geometry.Block[0]) * Geometry.Block[1] * Geometry.Block[2];
  if (Entry.MaxThreads && Items > Entry.MaxThreads)
    return fmt::format("its code takes at most {} work-items a group, the launch has {}",
                       Entry.MaxThreads, Items);
  uint64_t Shared = uint64_t(Geometry.DynamicSharedBytes) + Entry.StaticSharedBytes;
  if (Entry.SharedLimit && Shared > Entry.SharedLimit)
    return fmt::format("its {} static shared bytes and the launch's {} dynamic ones pass the "
                       "device's {}",
                       Entry.StaticSharedBytes, Geometry.DynamicSharedBytes, Entry.SharedLimit);
  Maps.resize(Entry.Maps.size());
  for (size_t I = 0; I != Entry.Maps.size(); ++I) {
    TensorMapEncoding E;
    std::string Why = CudaTensorMaps::plan(Info, Entry.Maps[I], Args, E);
    if (Why.empty())
      Why = encodeOnce(Api, Entry, I, E, Maps[I]);
    if (!Why.empty())
      return fmt::format("tensor map {}: {}", I, Why);
  }
  return "";
}

} // namespace

std::string CudaTensorMaps::plan(const bundle::KernelInfo& Info, const bundle::TensorMapRecipe& R,
                                 const MarshalledArg* Args, TensorMapEncoding& Out) {
  if (R.BufferParam >= Info.Params.size() ||
      Info.Params[R.BufferParam].Kind != bundle::ParamKind::Buffer)
    return fmt::format("parameter {} is not a buffer", R.BufferParam);
  const bundle::ParamInfo& B = Info.Params[R.BufferParam];
  // Only the bits move: an unsigned type of the element's size serves every element type.
  switch (R.ElemBytes) {
  case 1:
    Out.DataType = CU_TENSOR_MAP_DATA_TYPE_UINT8;
    break;
  case 2:
    Out.DataType = CU_TENSOR_MAP_DATA_TYPE_UINT16;
    break;
  case 4:
    Out.DataType = CU_TENSOR_MAP_DATA_TYPE_UINT32;
    break;
  default:
    return fmt::format("'{}': {}-byte elements", B.Name, R.ElemBytes);
  }
  uint64_t Height = 0, Width = 0, Stride = 0;
  for (auto [E, Name, Value] :
       {std::tuple{&R.Height, "height", &Height}, std::tuple{&R.Width, "width", &Width},
        std::tuple{&R.Stride, "stride", &Stride}})
    if (std::string Why = extent(Info, *E, Args, Name, *Value); !Why.empty())
      return fmt::format("'{}': {}", B.Name, Why);
  if (!Height || !Width)
    return fmt::format("'{}': the matrix is {} x {}, empty", B.Name, Height, Width);
  if (Height >= MaxExtent || Width >= MaxExtent)
    return fmt::format("'{}': the matrix is {} x {}, 2^32 or more a side", B.Name, Height, Width);
  if (Width > Stride)
    return fmt::format("'{}': rows of {} elements only {} apart", B.Name, Width, Stride);
  if (Stride >= MaxRowBytes || Stride * R.ElemBytes >= MaxRowBytes)
    return fmt::format("'{}': rows {} elements apart, 2^40 bytes or more", B.Name, Stride);
  uint64_t RowBytes = Stride * R.ElemBytes;
  if (RowBytes % Alignment)
    return fmt::format("'{}': rows {} bytes apart, not a multiple of {}", B.Name, RowBytes,
                       Alignment);
  auto Base = reinterpret_cast<uintptr_t>(Args[R.BufferParam].Ptr);
  if (Base % Alignment)
    return fmt::format("'{}' starts at {:#x}, not {}-byte aligned", B.Name, Base, Alignment);
  // Nothing outside the buffer may ever be read: the last row ends inside it.
  using Wide = unsigned __int128;
  Wide End = (Wide(Height - 1) * Stride + Width) * R.ElemBytes;
  Wide Bytes = Wide(Args[R.BufferParam].Length) * bundle::scalarTypeSize(B.Type);
  if (End > Bytes)
    return fmt::format("'{}': {} rows of {} elements, {} apart, end past its {} elements", B.Name,
                       Height, Width, Stride, Args[R.BufferParam].Length);
  if (!R.BoxCols || !R.BoxRows || R.BoxCols > MaxBoxSide || R.BoxRows > MaxBoxSide)
    return fmt::format("'{}': a box of {} x {}; the unit takes 1 to {} a side", B.Name, R.BoxRows,
                       R.BoxCols, MaxBoxSide);
  uint64_t BoxRowBytes = uint64_t(R.BoxCols) * R.ElemBytes;
  if (BoxRowBytes % Alignment)
    return fmt::format("'{}': box rows of {} bytes, not a multiple of {}", B.Name, BoxRowBytes,
                       Alignment);
  if (R.Swizzle128 && BoxRowBytes > SwizzleSpan)
    return fmt::format("'{}': box rows of {} bytes, more than the 128-byte swizzle spans", B.Name,
                       BoxRowBytes);
  Out.Rank = 2;
  Out.GlobalAddress = Base;
  Out.GlobalDim[0] = Width;
  Out.GlobalDim[1] = Height;
  Out.GlobalStrides[0] = RowBytes;
  Out.BoxDim[0] = R.BoxCols;
  Out.BoxDim[1] = R.BoxRows;
  if (R.Blocks != bundle::TensorMapRecipe::NoBlocks) {
    // One box fills whole blocks of 8 array rows of two or four atoms, stored atom by atom: a
    // 4D view whose dimensions, fastest first, are the block's layout in shared memory.
    if (!R.Swizzle128 || BoxRowBytes != SwizzleSpan)
      return fmt::format("'{}': blocks of rows of several atoms need boxes one swizzled atom wide",
                         B.Name);
    const bool Paired = R.Blocks == bundle::TensorMapRecipe::PairedRows;
    const uint32_t BlockRows = Paired ? 16 : 8;
    if (R.Blocks > bundle::TensorMapRecipe::FourAtomRows || R.BoxRows % BlockRows)
      return fmt::format("'{}': blocks of kind {} for boxes of {} rows", B.Name, R.Blocks,
                         R.BoxRows);
    if (Height % BlockRows)
      return fmt::format("'{}': {} rows, not whole blocks of {}", B.Name, Height, BlockRows);
    if (!Paired && Width % R.BoxCols)
      return fmt::format("'{}': rows of {} elements, not whole atoms of {}", B.Name, Width,
                         R.BoxCols);
    Out.Rank = 4;
    if (Paired) { // {columns, row pairs, the two rows of a pair, blocks of 16 rows}
      Out.GlobalDim[0] = Width;
      Out.GlobalDim[1] = 8;
      Out.GlobalDim[2] = 2;
      Out.GlobalStrides[0] = 2 * RowBytes;
      Out.GlobalStrides[1] = RowBytes;
    } else { // {an atom's columns, rows, atoms, blocks of 8 rows}
      Out.GlobalDim[0] = R.BoxCols;
      Out.GlobalDim[1] = 8;
      Out.GlobalDim[2] = Width / R.BoxCols;
      Out.GlobalStrides[0] = RowBytes;
      Out.GlobalStrides[1] = BoxRowBytes;
    }
    Out.GlobalDim[3] = Height / BlockRows;
    Out.GlobalStrides[2] = BlockRows * RowBytes;
    Out.BoxDim[1] = 8;
    Out.BoxDim[2] = bundle::TensorMapRecipe::boxAtoms(R.Blocks);
    Out.BoxDim[3] = R.BoxRows / BlockRows;
  }
  for (uint32_t I = 0; I < 4; ++I)
    Out.ElementStrides[I] = 1;
  Out.Interleave = CU_TENSOR_MAP_INTERLEAVE_NONE;
  Out.Swizzle = R.Swizzle128 ? CU_TENSOR_MAP_SWIZZLE_128B : CU_TENSOR_MAP_SWIZZLE_NONE;
  Out.L2Promotion = CU_TENSOR_MAP_L2_PROMOTION_L2_128B;
  Out.OobFill = CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE; // outside the matrix reads as zero
  return "";
}

std::string CudaTensorMaps::encode(const CudaDriverApi& Api, const TensorMapEncoding& E,
                                   CUtensorMap& Out) {
  if (!Api.cuTensorMapEncodeTiled)
    return "the driver has no cuTensorMapEncodeTiled";
  CUresult R = Api.cuTensorMapEncodeTiled(&Out, E.DataType, E.Rank,
                                          reinterpret_cast<void*>(uintptr_t(E.GlobalAddress)),
                                          E.GlobalDim, E.GlobalStrides, E.BoxDim, E.ElementStrides,
                                          E.Interleave, E.Swizzle, E.L2Promotion, E.OobFill);
  if (R == CUDA_SUCCESS)
    return "";
  const char* Name = nullptr;
  if (Api.cuGetErrorName && Api.cuGetErrorName(R, &Name) == CUDA_SUCCESS && Name)
    return fmt::format("cuTensorMapEncodeTiled: {}", Name);
  return fmt::format("cuTensorMapEncodeTiled: error {}", R);
}

CudaLaunchChoice CudaTensorMaps::choose(const CudaDriverApi& Api, const CudaEntry& Entry,
                                        const bundle::KernelInfo& Info, const MarshalledArg* Args,
                                        const LaunchGeometry& Geometry) {
  CudaLaunchChoice C;
  C.StaticSharedBytes = Geometry.StaticSharedBytes;
  if (!Entry.Plain) {
    C.Fn = Entry.Fn;
    return C;
  }
  C.Fn = Entry.Plain->Fn;
  C.Fallback = encodeAll(Api, Entry, Info, Args, Geometry, C.Maps);
  if (!C.Fallback.empty()) {
    C.Maps.clear();
    return C;
  }
  C.Fn = Entry.Fn;
  C.StaticSharedBytes = Entry.StaticSharedBytes;
  return C;
}

} // namespace cajeta::xpu::rt::cuda
