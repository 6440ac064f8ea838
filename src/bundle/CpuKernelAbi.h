// The calling convention between CPU kernels (emitted by CpuTarget) and the runtime's CPU backend.
// Plain C so that both sides, and the tests, agree without sharing code.
//
// Beside each entry E the shared object defines `const char cajeta_abi_E[]`, the kernel's
// parameter record (bundle/KernelAbiRecord.h); the loader refuses a manifest whose parameters
// disagree with it.
#pragma once

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// One marshalled kernel argument. A buffer passes its base pointer and element count; a scalar
/// (and a function tag, as a uint32) is stored little-endian at the start of `Bits` (a float32 in
/// the low 4 bytes, etc.); a POD passes a pointer to its bytes in C layout (Length = size).
typedef struct CajetaCpuArg {
  union {
    void* Ptr;
    uint64_t Bits;
  };
  uint64_t Length; // elements, buffers only
} CajetaCpuArg;

/// Launch geometry: number of workgroups and workgroup size per dimension.
typedef struct CajetaCpuLaunch {
  uint32_t GridDim[3];
  uint32_t BlockDim[3];
  /// Set by a --check-bounds kernel that indexed out of range (first report wins, via
  /// compare-exchange on Failed); the kernel stops running further work-items.
  uint32_t Failed;
  uint32_t FailedParam; // parameter index of the buffer, or 0x80000000 | shared-array index
  uint64_t FailedIndex;
  uint64_t FailedLength;
  /// Bytes of the kernel's dynamic shared array (0 when it has none); the kernel allocates its
  /// shared memory itself, per workgroup, on the running thread.
  uint32_t DynamicSharedBytes;
  uint32_t Reserved;
} CajetaCpuLaunch;

#define CAJETA_CPU_SHARED_PARAM_BIT 0x80000000u

/// Every CPU kernel entry has this type. It runs the workgroups with linear index in
/// [GroupBegin, GroupEnd): linear = x + GridDim[0] * (y + GridDim[1] * z).
typedef void (*CajetaCpuKernelFn)(const CajetaCpuArg* Args, CajetaCpuLaunch* Launch,
                                  uint64_t GroupBegin, uint64_t GroupEnd);

#ifdef __cplusplus
}
#endif
