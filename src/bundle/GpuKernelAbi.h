// The calling convention between GPU kernels (emitted by NvptxTarget) and the runtime's CUDA
// backend. Plain C so that both sides, and the tests, agree without sharing code.
//
// A kernel of a "nvptx-sm_XX" payload (Format "ptx") is an `.entry` whose name is the
// TargetManifest::Symbol of that kernel, with beside it the `.global .b8 cajeta_abi_<entry>[]`
// parameter record (bundle/KernelAbiRecord.h). The loader holds the manifest against both
// (bundle/PayloadAbiCheck.h). Its PTX parameters, in order, are:
//
//   for each KIR parameter, in declaration order (bundle::KernelInfo::Params):
//     ParamKind::Buffer    two params: the element base address (u64, a global-memory device
//                          pointer, CUdeviceptr) and then the element count (u64).
//     ParamKind::Scalar    one param of the scalar's type, by value, in its natural size:
//                          int8/uint8 and bool as one byte (bool: 0 or 1), int16/uint16 and
//                          float16 as two bytes (float16: the IEEE binary16 bits), 32-bit types
//                          as four bytes, 64-bit types as eight bytes.
//     ParamKind::Function  one u32: the function tag.
//     ParamKind::Pod       one param of PodSize bytes, aligned to PodAlign, holding the POD's
//                          bytes in C layout (PodFieldInfo::Offset); PTX `.param .align A .b8
//                          p[N]`.
//   and then ALWAYS one trailing param: a global-memory pointer (u64) to a CajetaGpuStatus in
//   device memory, zero-initialised by the runtime before the first launch that uses it.
//
// With cuLaunchKernel's kernelParams, entry i of the array points at the bytes of PTX param i
// (so a buffer takes two entries, and the status pointer is the last entry). The runtime must
// pass a valid status pointer even for kernels built without --check-bounds (they never write it,
// but the parameter list is the same in both builds).
//
// Geometry: gridDim/blockDim of the launch are Workgroup.count*/dim*; KernelThread.x() etc. are
// threadIdx/blockIdx. Dynamic shared memory: a kernel with a dynamic shared array gets its bytes
// from cuLaunchKernel's sharedMemBytes (the array's length is sharedMemBytes / element size,
// rounded down); static shared arrays are part of the code object (TargetManifest
// StaticSharedBytes, and CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES at load). Static plus dynamic bytes
// above 48 KiB need CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES set by the runtime first.
#pragma once

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// The status record of a launch (8-byte aligned, 24 bytes). A --check-bounds kernel that indexes
/// a buffer or shared array out of range claims the record with an atomic compare-and-swap of
/// Failed from 0 to 1 (the first failure wins), fills the other fields, and returns; every thread
/// that later sees Failed != 0 (at entry and after each helper call) returns as well. After the
/// stream synchronises, the runtime reads the record, reports kernel, parameter, index and length,
/// and resets Failed to 0 before reusing the record.
typedef struct CajetaGpuStatus {
  uint32_t Failed;       // 0 = no failure; 1 = a failure was recorded
  uint32_t FailedParam;  // KIR parameter index of the buffer, or
                         // CAJETA_GPU_SHARED_PARAM_BIT | index of the kernel's shared array
  uint64_t FailedIndex;  // the index used (a negative signed index as its 64-bit two's complement)
  uint64_t FailedLength; // the array's element count at that time
} CajetaGpuStatus;

/// Same bit as CAJETA_CPU_SHARED_PARAM_BIT (CpuKernelAbi.h): a shared array, not a parameter.
#define CAJETA_GPU_SHARED_PARAM_BIT 0x80000000u

/// Bumped whenever the parameter layout above changes (payload attribute "gpu_abi").
#define CAJETA_GPU_KERNEL_ABI_VERSION 1

#ifdef __cplusplus
static_assert(sizeof(CajetaGpuStatus) == 24, "CajetaGpuStatus layout");
}
#endif
