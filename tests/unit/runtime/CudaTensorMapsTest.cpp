// The cuda backend's tensor maps for TMA entries, host side only (no driver): each recipe's
// cuTensorMapEncodeTiled arguments from a launch's arguments, the launches the tensor memory
// accelerator may not serve, the choice between the TMA entry and the plain one through a
// stand-in encoder, and the maps' place in the kernel parameters.
#include "runtime/backends/cuda/CudaTensorMaps.h"
#include "runtime/backends/cuda/CudaKernelParams.h"

#include <gtest/gtest.h>

#include <cstring>

using namespace cajeta::xpu::rt;
using namespace cajeta::xpu::rt::cuda;
using namespace cajeta;

namespace {

bundle::ParamInfo param(const char* Name, bundle::ParamKind Kind, bundle::ScalarType Type) {
  bundle::ParamInfo P;
  P.Name = Name;
  P.Kind = Kind;
  P.Type = Type;
  return P;
}

/// K.gemm(a: buffer of float16, b: buffer of float32, rows: uint32, cols: int32, ld: uint64).
bundle::KernelInfo gemm() {
  using bundle::ParamKind;
  using bundle::ScalarType;
  bundle::KernelInfo K;
  K.Name = "K.gemm";
  K.Params = {param("a", ParamKind::Buffer, ScalarType::F16),
              param("b", ParamKind::Buffer, ScalarType::F32),
              param("rows", ParamKind::Scalar, ScalarType::U32),
              param("cols", ParamKind::Scalar, ScalarType::I32),
              param("ld", ParamKind::Scalar, ScalarType::U64)};
  return K;
}

bundle::TensorMapExtent fromParam(int32_t P) {
  bundle::TensorMapExtent E;
  E.Param = P;
  return E;
}

bundle::TensorMapExtent constant(uint64_t V) {
  bundle::TensorMapExtent E;
  E.Value = V;
  return E;
}

/// a viewed as rows x cols, ld apart, in 64 x 64 boxes swizzled by 128 bytes.
bundle::TensorMapRecipe recipeOfA() {
  bundle::TensorMapRecipe R;
  R.BufferParam = 0;
  R.Height = fromParam(2);
  R.Width = fromParam(3);
  R.Stride = fromParam(4);
  R.ElemBytes = 2;
  R.BoxCols = 64;
  R.BoxRows = 32;
  R.Swizzle128 = true;
  return R;
}

/// b as a constant 100 x 60 matrix, 64 apart, in 32 x 8 boxes without a swizzle.
bundle::TensorMapRecipe recipeOfB() {
  bundle::TensorMapRecipe R;
  R.BufferParam = 1;
  R.Height = constant(100);
  R.Width = constant(60);
  R.Stride = constant(64);
  R.ElemBytes = 4;
  R.BoxCols = 32;
  R.BoxRows = 8;
  return R;
}

class CudaTensorMapPlan : public ::testing::Test {
protected:
  void SetUp() override {
    // a: 128 x 96 of a 128 x 128 array; b: 100 rows of 64.
    Args[0].Ptr = reinterpret_cast<void*>(uintptr_t(0x7f0000001000));
    Args[0].Length = 128 * 128;
    Args[1].Ptr = reinterpret_cast<void*>(uintptr_t(0x7f0000100000));
    Args[1].Length = 100 * 64;
    Args[2].Bits = 128;
    Args[2].Length = 0;
    Args[3].Bits = 96;
    Args[3].Length = 0;
    Args[4].Bits = 128;
    Args[4].Length = 0;
  }

  /// "" or why recipe R may not serve a launch with Args.
  std::string plan(const bundle::TensorMapRecipe& R) {
    Out = TensorMapEncoding{};
    return CudaTensorMaps::plan(Info, R, Args, Out);
  }

  bundle::KernelInfo Info = gemm();
  MarshalledArg Args[5] = {};
  TensorMapEncoding Out;
};

} // namespace

TEST_F(CudaTensorMapPlan, ParameterExtentsGiveTheEncodeArguments) {
  ASSERT_EQ(plan(recipeOfA()), "");
  EXPECT_EQ(Out.DataType, CU_TENSOR_MAP_DATA_TYPE_UINT16);
  EXPECT_EQ(Out.GlobalAddress, 0x7f0000001000u);
  EXPECT_EQ(Out.GlobalDim[0], 96u);  // width: cols
  EXPECT_EQ(Out.GlobalDim[1], 128u); // height: rows
  EXPECT_EQ(Out.GlobalStrides[0], 256u);
  EXPECT_EQ(Out.BoxDim[0], 64u);
  EXPECT_EQ(Out.BoxDim[1], 32u);
  EXPECT_EQ(Out.ElementStrides[0], 1u);
  EXPECT_EQ(Out.ElementStrides[1], 1u);
  EXPECT_EQ(Out.Interleave, CU_TENSOR_MAP_INTERLEAVE_NONE);
  EXPECT_EQ(Out.Swizzle, CU_TENSOR_MAP_SWIZZLE_128B);
  EXPECT_EQ(Out.L2Promotion, CU_TENSOR_MAP_L2_PROMOTION_L2_128B);
  EXPECT_EQ(Out.OobFill, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  // The launch's values, whatever they are.
  Args[2].Bits = 7;
  Args[3].Bits = 8;
  Args[4].Bits = 1000;
  ASSERT_EQ(plan(recipeOfA()), "");
  EXPECT_EQ(Out.GlobalDim[0], 8u);
  EXPECT_EQ(Out.GlobalDim[1], 7u);
  EXPECT_EQ(Out.GlobalStrides[0], 2000u);
}

// Boxes that fill whole blocks of a swizzled array of two-atom rows: 4D views whose dimensions
// are the block's layout (an atom's columns, 8 rows, 2 atoms, blocks; or columns, 8 row pairs,
// the pair's 2 rows, blocks of 16), only for matrices of whole atoms and blocks.
TEST_F(CudaTensorMapPlan, BlocksOfTwoAtomRowsAsFourDimensionalViews) {
  bundle::TensorMapRecipe R = recipeOfA(); // a: 128 rows of 96 float16, 128 apart (256 bytes)
  R.Blocks = bundle::TensorMapRecipe::TwoAtomRows;
  R.BoxCols = 64;
  R.BoxRows = 64;
  Args[3].Bits = 128; // two whole atoms a row
  ASSERT_EQ(plan(R), "");
  EXPECT_EQ(Out.Rank, 4u);
  EXPECT_EQ(Out.GlobalAddress, 0x7f0000001000u);
  const uint64_t Dims[] = {64, 8, 2, 16}, Strides[] = {256, 128, 2048};
  const uint32_t Box[] = {64, 8, 2, 8};
  for (int I = 0; I < 4; ++I) {
    EXPECT_EQ(Out.GlobalDim[I], Dims[I]) << I;
    EXPECT_EQ(Out.BoxDim[I], Box[I]) << I;
    EXPECT_EQ(Out.ElementStrides[I], 1u) << I;
  }
  for (int I = 0; I < 3; ++I)
    EXPECT_EQ(Out.GlobalStrides[I], Strides[I]) << I;
  Args[3].Bits = 96; // half an atom past the last whole one
  EXPECT_NE(plan(R), "");
  Args[3].Bits = 128;
  Args[2].Bits = 100; // not whole blocks of 8 rows
  EXPECT_NE(plan(R), "");

  R.Blocks = bundle::TensorMapRecipe::PairedRows;
  Args[2].Bits = 128;
  Args[3].Bits = 96; // any width: the columns are dimension 0
  ASSERT_EQ(plan(R), "");
  EXPECT_EQ(Out.Rank, 4u);
  const uint64_t PDims[] = {96, 8, 2, 8}, PStrides[] = {512, 256, 4096};
  const uint32_t PBox[] = {64, 8, 2, 4};
  for (int I = 0; I < 4; ++I) {
    EXPECT_EQ(Out.GlobalDim[I], PDims[I]) << I;
    EXPECT_EQ(Out.BoxDim[I], PBox[I]) << I;
  }
  for (int I = 0; I < 3; ++I)
    EXPECT_EQ(Out.GlobalStrides[I], PStrides[I]) << I;
  Args[2].Bits = 120; // not whole blocks of 16 rows
  EXPECT_NE(plan(R), "");
  // Only for boxes one swizzled atom wide.
  Args[2].Bits = 128;
  R.Swizzle128 = false;
  EXPECT_NE(plan(R), "");
}

// Rows of four atoms (wgmma's n = 256): the same view with four atoms in a box.
TEST_F(CudaTensorMapPlan, BlocksOfFourAtomRowsTakeFourAtomsABox) {
  bundle::TensorMapRecipe R = recipeOfA(); // a: 128 rows of 96 float16, 128 apart (256 bytes)
  R.Blocks = bundle::TensorMapRecipe::FourAtomRows;
  R.BoxCols = 64;
  R.BoxRows = 64;
  Args[2].Bits = 64;  // 64 rows (the buffer holds 16384 elements)
  Args[3].Bits = 256; // four whole atoms a row
  Args[4].Bits = 256;
  ASSERT_EQ(plan(R), "");
  EXPECT_EQ(Out.Rank, 4u);
  const uint64_t Dims[] = {64, 8, 4, 8}, Strides[] = {512, 128, 4096};
  const uint32_t Box[] = {64, 8, 4, 8};
  for (int I = 0; I < 4; ++I) {
    EXPECT_EQ(Out.GlobalDim[I], Dims[I]) << I;
    EXPECT_EQ(Out.BoxDim[I], Box[I]) << I;
  }
  for (int I = 0; I < 3; ++I)
    EXPECT_EQ(Out.GlobalStrides[I], Strides[I]) << I;
  Args[3].Bits = 224; // half an atom past the last whole one
  EXPECT_NE(plan(R), "");
  Args[3].Bits = 256;
  R.Blocks = 4; // a kind no runtime knows
  EXPECT_NE(plan(R), "");
}

TEST_F(CudaTensorMapPlan, ConstantExtentsAndTheBoxAndSwizzlePassThrough) {
  ASSERT_EQ(plan(recipeOfB()), "");
  EXPECT_EQ(Out.DataType, CU_TENSOR_MAP_DATA_TYPE_UINT32);
  EXPECT_EQ(Out.GlobalAddress, 0x7f0000100000u);
  EXPECT_EQ(Out.GlobalDim[0], 60u);
  EXPECT_EQ(Out.GlobalDim[1], 100u);
  EXPECT_EQ(Out.GlobalStrides[0], 256u);
  EXPECT_EQ(Out.BoxDim[0], 32u);
  EXPECT_EQ(Out.BoxDim[1], 8u);
  EXPECT_EQ(Out.Swizzle, CU_TENSOR_MAP_SWIZZLE_NONE);
  // One-byte elements: a buffer of int8.
  Info.Params[1].Type = bundle::ScalarType::I8;
  bundle::TensorMapRecipe R = recipeOfB();
  R.ElemBytes = 1;
  R.Stride = constant(64);
  R.BoxCols = 16;
  ASSERT_EQ(plan(R), "");
  EXPECT_EQ(Out.DataType, CU_TENSOR_MAP_DATA_TYPE_UINT8);
  EXPECT_EQ(Out.GlobalStrides[0], 64u);
}

TEST_F(CudaTensorMapPlan, AMisalignedBaseIsRefused) {
  Args[0].Ptr = reinterpret_cast<void*>(uintptr_t(0x7f0000001008));
  EXPECT_EQ(plan(recipeOfA()), "'a' starts at 0x7f0000001008, not 16-byte aligned");
  Args[0].Ptr = reinterpret_cast<void*>(uintptr_t(0x7f0000001010));
  EXPECT_EQ(plan(recipeOfA()), "");
}

TEST_F(CudaTensorMapPlan, ARowStrideNotAMultipleOf16BytesIsRefused) {
  Args[4].Bits = 100; // 200 bytes
  EXPECT_EQ(plan(recipeOfA()), "'a': rows 200 bytes apart, not a multiple of 16");
  Args[4].Bits = 104; // 208 bytes
  EXPECT_EQ(plan(recipeOfA()), "");
  // 2^40 bytes or more apart.
  Args[4].Bits = uint64_t(1) << 39;
  Args[0].Length = UINT64_MAX;
  EXPECT_EQ(plan(recipeOfA()), "'a': rows 549755813888 elements apart, 2^40 bytes or more");
}

TEST_F(CudaTensorMapPlan, AMatrixPastTheBuffersEndIsRefused) {
  // 128 rows of 96, 128 apart, end at element 127 * 128 + 96: inside 128 * 128.
  Args[0].Length = 127 * 128 + 96;
  EXPECT_EQ(plan(recipeOfA()), "");
  Args[0].Length = 127 * 128 + 95;
  EXPECT_EQ(plan(recipeOfA()), "'a': 128 rows of 96 elements, 128 apart, end past its 16351 "
                               "elements");
  // Constant extents too: b's 100 rows of 60, 64 apart, need 99 * 64 + 60.
  Args[1].Length = 99 * 64 + 59;
  EXPECT_EQ(plan(recipeOfB()),
            "'b': 100 rows of 60 elements, 64 apart, end past its 6395 elements");
  // Products that pass 64 bits still end past the buffer.
  Args[2].Bits = 0xffffffffu;
  Args[4].Bits = uint64_t(1) << 38;
  Args[0].Length = UINT64_MAX;
  EXPECT_NE(plan(recipeOfA()).find("end past its"), std::string::npos);
}

TEST_F(CudaTensorMapPlan, EmptyWideAndNegativeMatricesAreRefused) {
  Args[2].Bits = 0;
  EXPECT_EQ(plan(recipeOfA()), "'a': the matrix is 0 x 96, empty");
  Args[2].Bits = 128;
  Args[3].Bits = 0;
  EXPECT_EQ(plan(recipeOfA()), "'a': the matrix is 128 x 0, empty");
  Args[3].Bits = 136; // wider than its stride of 128
  EXPECT_EQ(plan(recipeOfA()), "'a': rows of 136 elements only 128 apart");
  Args[3].Bits = 0xffffffffu; // int32 -1
  EXPECT_EQ(plan(recipeOfA()), "'a': its width ('cols') is negative");
  bundle::TensorMapRecipe R = recipeOfB();
  R.Height = constant(uint64_t(1) << 32);
  EXPECT_EQ(plan(R), "'b': the matrix is 4294967296 x 60, 2^32 or more a side");
  R = recipeOfB();
  R.Height = fromParam(1); // a buffer, which no manifest would name
  EXPECT_EQ(plan(R), "'b': its height is parameter 1, not a scalar");
  R = recipeOfB();
  R.BufferParam = 2;
  EXPECT_EQ(plan(R), "parameter 2 is not a buffer");
}

TEST_F(CudaTensorMapPlan, BoxesTheUnitDoesNotTakeAreRefused) {
  bundle::TensorMapRecipe R = recipeOfA();
  R.BoxCols = 4; // 8 bytes a row
  EXPECT_EQ(plan(R), "'a': box rows of 8 bytes, not a multiple of 16");
  R.BoxCols = 128; // 256 bytes a row: past the swizzle's span
  EXPECT_EQ(plan(R), "'a': box rows of 256 bytes, more than the 128-byte swizzle spans");
  R.Swizzle128 = false;
  EXPECT_EQ(plan(R), "");
  R.BoxRows = 257;
  EXPECT_EQ(plan(R), "'a': a box of 257 x 128; the unit takes 1 to 256 a side");
  R.BoxRows = 0;
  EXPECT_EQ(plan(R), "'a': a box of 0 x 128; the unit takes 1 to 256 a side");
}

namespace {

/// A stand-in for the driver's encoder: records its arguments and writes the map's first byte.
struct Encoder {
  static inline int Calls = 0;
  static inline CUresult Result = CUDA_SUCCESS;
  static inline TensorMapEncoding Last;
  static inline uint32_t LastRank = 0;

  static CUresult encode(CUtensorMap* Map, int DataType, uint32_t Rank, void* Address,
                         const uint64_t* Dim, const uint64_t* Strides, const uint32_t* Box,
                         const uint32_t* ElementStrides, int Interleave, int Swizzle, int L2,
                         int Oob) {
    ++Calls;
    LastRank = Rank;
    Last.DataType = DataType;
    Last.GlobalAddress = reinterpret_cast<uintptr_t>(Address);
    std::memcpy(Last.GlobalDim, Dim, sizeof(Last.GlobalDim));
    Last.GlobalStrides[0] = Strides[0];
    std::memcpy(Last.BoxDim, Box, sizeof(Last.BoxDim));
    std::memcpy(Last.ElementStrides, ElementStrides, sizeof(Last.ElementStrides));
    Last.Interleave = Interleave;
    Last.Swizzle = Swizzle;
    Last.L2Promotion = L2;
    Last.OobFill = Oob;
    if (Result == CUDA_SUCCESS) {
      std::memset(Map, 0, sizeof(*Map));
      Map->Opaque[0] = Last.GlobalAddress; // tells the maps apart
    }
    return Result;
  }
};

CUfunction function(uintptr_t Id) {
  return reinterpret_cast<CUfunction>(Id);
}

class CudaTmaChoice : public CudaTensorMapPlan {
protected:
  void SetUp() override {
    CudaTensorMapPlan::SetUp();
    Encoder::Calls = 0;
    Encoder::Result = CUDA_SUCCESS;
    Api.cuTensorMapEncodeTiled = &Encoder::encode;
    Plain.Fn = function(0x100);
    Tma.Fn = function(0x200);
    Tma.Plain = &Plain;
    Tma.Maps = {recipeOfA(), recipeOfB()};
    Tma.MaxThreads = 256;
    Tma.StaticSharedBytes = 1024;
    Tma.SharedLimit = 227 * 1024;
    Geometry.Grid[0] = Geometry.Grid[1] = Geometry.Grid[2] = 1;
    Geometry.Block[0] = 128;
    Geometry.Block[1] = Geometry.Block[2] = 1;
    Geometry.DynamicSharedBytes = 64 * 1024;
    Geometry.StaticSharedBytes = 512;
  }

  CudaLaunchChoice choose(const CudaEntry& E) {
    return CudaTensorMaps::choose(Api, E, Info, Args, Geometry);
  }

  CudaDriverApi Api{};
  CudaEntry Plain, Tma;
  LaunchGeometry Geometry{};
};

} // namespace

TEST_F(CudaTmaChoice, EveryMapEncodedRunsTheTmaEntry) {
  CudaLaunchChoice C = choose(Tma);
  EXPECT_EQ(C.Fallback, "");
  EXPECT_TRUE(C.tma());
  EXPECT_EQ(C.Fn, Tma.Fn);
  EXPECT_EQ(C.StaticSharedBytes, 1024u);
  ASSERT_EQ(C.Maps.size(), 2u);
  EXPECT_EQ(C.Maps[0].Opaque[0], 0x7f0000001000u);
  EXPECT_EQ(C.Maps[1].Opaque[0], 0x7f0000100000u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(&C.Maps[0]) % 64, 0u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(&C.Maps[1]) % 64, 0u);
  // The driver saw the plan of the last map.
  EXPECT_EQ(Encoder::Calls, 2);
  EXPECT_EQ(Encoder::LastRank, 2u);
  TensorMapEncoding Want;
  ASSERT_EQ(CudaTensorMaps::plan(Info, recipeOfB(), Args, Want), "");
  const TensorMapEncoding& Got = Encoder::Last;
  EXPECT_EQ(Got.DataType, Want.DataType);
  EXPECT_EQ(Got.GlobalAddress, Want.GlobalAddress);
  EXPECT_EQ(Got.GlobalDim[0], Want.GlobalDim[0]);
  EXPECT_EQ(Got.GlobalDim[1], Want.GlobalDim[1]);
  EXPECT_EQ(Got.GlobalStrides[0], Want.GlobalStrides[0]);
  EXPECT_EQ(Got.BoxDim[0], Want.BoxDim[0]);
  EXPECT_EQ(Got.BoxDim[1], Want.BoxDim[1]);
  EXPECT_EQ(Got.ElementStrides[0], 1u);
  EXPECT_EQ(Got.ElementStrides[1], 1u);
  EXPECT_EQ(Got.Interleave, Want.Interleave);
  EXPECT_EQ(Got.Swizzle, Want.Swizzle);
  EXPECT_EQ(Got.L2Promotion, Want.L2Promotion);
  EXPECT_EQ(Got.OobFill, Want.OobFill);
}

// The driver encodes a map once for launches with the same matrix; another matrix (here a at
// another address) is encoded anew, the other map taken as it was.
TEST_F(CudaTmaChoice, LaunchesWithTheSameMatricesReuseTheirEncodedMaps) {
  CudaLaunchChoice First = choose(Tma);
  ASSERT_TRUE(First.tma());
  EXPECT_EQ(Encoder::Calls, 2);
  CudaLaunchChoice Again = choose(Tma);
  ASSERT_TRUE(Again.tma());
  EXPECT_EQ(Encoder::Calls, 2);
  EXPECT_EQ(std::memcmp(&Again.Maps[0], &First.Maps[0], sizeof(CUtensorMap)), 0);
  EXPECT_EQ(std::memcmp(&Again.Maps[1], &First.Maps[1], sizeof(CUtensorMap)), 0);
  Args[0].Ptr = reinterpret_cast<void*>(uintptr_t(0x7f0000002000));
  CudaLaunchChoice Moved = choose(Tma);
  ASSERT_TRUE(Moved.tma());
  EXPECT_EQ(Encoder::Calls, 3);
  EXPECT_EQ(Moved.Maps[0].Opaque[0], 0x7f0000002000u);
  EXPECT_EQ(Moved.Maps[1].Opaque[0], 0x7f0000100000u);
  // A failed encode is not remembered: the next launch asks the driver again.
  Encoder::Result = 1;
  Args[0].Ptr = reinterpret_cast<void*>(uintptr_t(0x7f0000003000));
  EXPECT_FALSE(choose(Tma).tma());
  Encoder::Result = CUDA_SUCCESS;
  EXPECT_TRUE(choose(Tma).tma());
  EXPECT_EQ(Encoder::Calls, 5);
}

TEST_F(CudaTmaChoice, APlainEntryRunsItself) {
  CudaLaunchChoice C = choose(Plain);
  EXPECT_EQ(C.Fn, Plain.Fn);
  EXPECT_FALSE(C.tma());
  EXPECT_EQ(C.Fallback, "");
  EXPECT_EQ(C.StaticSharedBytes, 512u);
  EXPECT_EQ(Encoder::Calls, 0);
}

TEST_F(CudaTmaChoice, AMapThatDoesNotServeTheLaunchRunsThePlainEntry) {
  Args[1].Ptr = reinterpret_cast<void*>(uintptr_t(0x7f0000100004));
  CudaLaunchChoice C = choose(Tma);
  EXPECT_EQ(C.Fn, Plain.Fn);
  EXPECT_FALSE(C.tma());
  EXPECT_TRUE(C.Maps.empty());
  EXPECT_EQ(C.StaticSharedBytes, 512u);
  EXPECT_EQ(C.Fallback, "tensor map 1: 'b' starts at 0x7f0000100004, not 16-byte aligned");
}

TEST_F(CudaTmaChoice, ADriverThatCannotEncodeRunsThePlainEntry) {
  Encoder::Result = 1; // CUDA_ERROR_INVALID_VALUE
  CudaLaunchChoice C = choose(Tma);
  EXPECT_EQ(C.Fn, Plain.Fn);
  EXPECT_EQ(C.Fallback, "tensor map 0: cuTensorMapEncodeTiled: error 1");
  Api.cuTensorMapEncodeTiled = nullptr; // a driver before CUDA 12
  C = choose(Tma);
  EXPECT_EQ(C.Fn, Plain.Fn);
  EXPECT_EQ(C.Fallback, "tensor map 0: the driver has no cuTensorMapEncodeTiled");
}

TEST_F(CudaTmaChoice, AGeometryTheTmaCodeDoesNotTakeRunsThePlainEntry) {
  Geometry.Block[0] = 512;
  CudaLaunchChoice C = choose(Tma);
  EXPECT_EQ(C.Fn, Plain.Fn);
  EXPECT_EQ(C.Fallback, "its code takes at most 256 work-items a group, the launch has 512");
  Geometry.Block[0] = 128;
  Geometry.DynamicSharedBytes = 227 * 1024 - 1000;
  C = choose(Tma);
  EXPECT_EQ(C.Fn, Plain.Fn);
  EXPECT_EQ(C.Fallback, "its 1024 static shared bytes and the launch's 231448 dynamic ones pass "
                        "the device's 232448");
  Geometry.DynamicSharedBytes = 227 * 1024 - 1024;
  EXPECT_EQ(choose(Tma).Fn, Tma.Fn);
  // More maps than the backend passes.
  Tma.Maps.assign(MaxTensorMaps + 1, recipeOfB());
  C = choose(Tma);
  EXPECT_EQ(C.Fn, Plain.Fn);
  EXPECT_EQ(C.Fallback, "it takes 17 tensor maps; the backend passes 1 to 16");
}

TEST_F(CudaTmaChoice, TheMapsFollowTheStatusPointerAndKeyTheLaunch) {
  CudaLaunchChoice C = choose(Tma);
  ASSERT_TRUE(C.tma());
  CUdeviceptr Status = 0x5000;
  void* Params[MaxParamSlots];
  size_t N = packKernelParams(Info, Args, &Status, Params, C.Maps.data(), C.Maps.size());
  // Two buffers of two, three scalars, the status pointer, two maps.
  ASSERT_EQ(N, 10u);
  EXPECT_EQ(Params[0], &Args[0].Ptr);
  EXPECT_EQ(Params[1], &Args[0].Length);
  EXPECT_EQ(Params[4], &Args[2].Bits);
  EXPECT_EQ(Params[7], &Status);
  EXPECT_EQ(Params[8], &C.Maps[0]);
  EXPECT_EQ(Params[9], &C.Maps[1]);
  EXPECT_EQ(packKernelParams(Info, Args, &Status, Params), 8u);
  // A graph node's identity: the same arguments with other maps differ.
  std::vector<uint8_t> WithMaps, WithOther, Without;
  argumentBytes(Info, Args, WithMaps, C.Maps.data(), C.Maps.size());
  argumentBytes(Info, Args, Without);
  EXPECT_EQ(WithMaps.size(), Without.size() + 2 * sizeof(CUtensorMap));
  C.Maps[1].Opaque[5] = 1;
  argumentBytes(Info, Args, WithOther, C.Maps.data(), C.Maps.size());
  EXPECT_NE(WithMaps, WithOther);
}
