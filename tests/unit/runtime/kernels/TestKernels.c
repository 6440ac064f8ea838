/* Hand-written CPU kernels with the CajetaCpuKernelFn ABI, standing in for compiled ones. */
#include "bundle/CpuKernelAbi.h"

#include <time.h>

/* Calls Body for every work-item of the workgroups [Begin, End). */
#define FOR_EACH_ITEM(L, Begin, End, Body)                                                         \
  for (uint64_t G = (Begin); G < (End); ++G) {                                                     \
    uint64_t Gx = G % (L)->GridDim[0];                                                             \
    uint64_t Gy = (G / (L)->GridDim[0]) % (L)->GridDim[1];                                         \
    uint64_t Gz = G / ((uint64_t)(L)->GridDim[0] * (L)->GridDim[1]);                               \
    for (uint32_t Tz = 0; Tz < (L)->BlockDim[2]; ++Tz)                                             \
      for (uint32_t Ty = 0; Ty < (L)->BlockDim[1]; ++Ty)                                           \
        for (uint32_t Tx = 0; Tx < (L)->BlockDim[0]; ++Tx) {                                       \
          uint64_t X = Gx * (L)->BlockDim[0] + Tx;                                                 \
          uint64_t Y = Gy * (L)->BlockDim[1] + Ty;                                                 \
          uint64_t Z = Gz * (L)->BlockDim[2] + Tz;                                                 \
          (void)Y;                                                                                 \
          (void)Z;                                                                                 \
          Body                                                                                     \
        }                                                                                          \
  }

static float f32(const CajetaCpuArg* A) {
  union {
    uint32_t U;
    float F;
  } V;
  V.U = (uint32_t)A->Bits;
  return V.F;
}

/* K.saxpy(KernelBuffer<float32> y, KernelBuffer<float32> x, float32 a, uint32 n) */
void cj_K_saxpy(const CajetaCpuArg* Args, CajetaCpuLaunch* L, uint64_t Begin, uint64_t End) {
  float* Yb = (float*)Args[0].Ptr;
  const float* Xb = (const float*)Args[1].Ptr;
  float A = f32(&Args[2]);
  uint32_t N = (uint32_t)Args[3].Bits;
  FOR_EACH_ITEM(L, Begin, End, {
    if (X < N && X < Args[0].Length && X < Args[1].Length)
      Yb[X] = A * Xb[X] + Yb[X];
  })
}

/* K.coords(KernelBuffer<uint32> out): out[3 * linear + d] = global id in dimension d. */
void cj_K_coords(const CajetaCpuArg* Args, CajetaCpuLaunch* L, uint64_t Begin, uint64_t End) {
  uint32_t* Out = (uint32_t*)Args[0].Ptr;
  uint64_t W = (uint64_t)L->GridDim[0] * L->BlockDim[0];
  uint64_t H = (uint64_t)L->GridDim[1] * L->BlockDim[1];
  FOR_EACH_ITEM(L, Begin, End, {
    uint64_t I = 3 * (X + W * (Y + H * Z));
    if (I + 2 < Args[0].Length) {
      Out[I] = (uint32_t)X;
      Out[I + 1] = (uint32_t)Y;
      Out[I + 2] = (uint32_t)Z;
    }
  })
}

/* K.trace(AccelerationStructure scene): K.coords' code with its buffer an acceleration structure
   (it writes into the BVH's first words, harmlessly for a test). */
void cj_K_trace(const CajetaCpuArg* Args, CajetaCpuLaunch* L, uint64_t Begin, uint64_t End) {
  cj_K_coords(Args, L, Begin, End);
}

/* K.sleepy(KernelBuffer<float32> out, uint32 ms, float32 value): sleeps, then fills out. */
void cj_K_sleepy(const CajetaCpuArg* Args, CajetaCpuLaunch* L, uint64_t Begin, uint64_t End) {
  uint32_t Ms = (uint32_t)Args[1].Bits;
  struct timespec T = {Ms / 1000, (long)(Ms % 1000) * 1000000L};
  if (Begin == 0)
    nanosleep(&T, 0);
  float* Out = (float*)Args[0].Ptr;
  float V = f32(&Args[2]);
  if (Begin == 0)
    for (uint64_t I = 0; I < Args[0].Length; ++I)
      Out[I] = V;
  (void)L;
  (void)End;
}

/* K.checked(KernelBuffer<float32> data, uint64 index): data[index] = 1 with a bounds check. */
void cj_K_checked(const CajetaCpuArg* Args, CajetaCpuLaunch* L, uint64_t Begin, uint64_t End) {
  uint64_t Index = Args[1].Bits;
  FOR_EACH_ITEM(L, Begin, End, {
    if (X != 0)
      continue;
    if (Index >= Args[0].Length) {
      uint32_t Expected = 0;
      if (__atomic_compare_exchange_n(&L->Failed, &Expected, 1, 0, __ATOMIC_ACQ_REL,
                                      __ATOMIC_ACQUIRE)) {
        L->FailedParam = 0;
        L->FailedIndex = Index;
        L->FailedLength = Args[0].Length;
      }
      return;
    }
    ((float*)Args[0].Ptr)[Index] = 1.0f;
  })
}

/* K.scalars(KernelBuffer<int64> out, int8 a, uint16 b, int64 c, float64 d, bool e) */
void cj_K_scalars(const CajetaCpuArg* Args, CajetaCpuLaunch* L, uint64_t Begin, uint64_t End) {
  int64_t* Out = (int64_t*)Args[0].Ptr;
  union {
    uint64_t U;
    double D;
  } Dv;
  Dv.U = Args[4].Bits;
  if (Begin != 0 || Args[0].Length < 5)
    return;
  Out[0] = (int8_t)Args[1].Bits;
  Out[1] = (uint16_t)Args[2].Bits;
  Out[2] = (int64_t)Args[3].Bits;
  Out[3] = (int64_t)(Dv.D * 4.0);
  Out[4] = (int64_t)(Args[5].Bits & 0xff);
  (void)L;
  (void)End;
}

/* K.align(KernelBuffer<uint64> out): out[0] = the buffer's address modulo 64. */
void cj_K_align(const CajetaCpuArg* Args, CajetaCpuLaunch* L, uint64_t Begin, uint64_t End) {
  if (Begin == 0 && Args[0].Length >= 1)
    ((uint64_t*)Args[0].Ptr)[0] = (uint64_t)(uintptr_t)Args[0].Ptr % 64;
  (void)L;
  (void)End;
}

/* The POD of K.pod, in the C layout the manifest records (24 bytes, 8-aligned). */
typedef struct Params {
  float Scale;
  double Bias;
  uint32_t N;
} Params;

/* K.pod(KernelBuffer<float64> out, Params p): out = {scale, bias, n, ptr % 8, length}. */
void cj_K_pod(const CajetaCpuArg* Args, CajetaCpuLaunch* L, uint64_t Begin, uint64_t End) {
  const Params* P = (const Params*)Args[1].Ptr;
  double* Out = (double*)Args[0].Ptr;
  if (Begin == 0 && Args[0].Length >= 5) {
    Out[0] = P->Scale;
    Out[1] = P->Bias;
    Out[2] = P->N;
    Out[3] = (double)((uintptr_t)Args[1].Ptr % 8);
    Out[4] = (double)Args[1].Length;
  }
  (void)L;
  (void)End;
}

/* K.apply(KernelBuffer<float32> data, Fn<float32(float32)> op): tag 0 square, 1 negate;
   any other tag is the defined no-op yielding zero. */
void cj_K_apply(const CajetaCpuArg* Args, CajetaCpuLaunch* L, uint64_t Begin, uint64_t End) {
  float* D = (float*)Args[0].Ptr;
  uint32_t Tag = (uint32_t)Args[1].Bits;
  FOR_EACH_ITEM(L, Begin, End, {
    if (X < Args[0].Length) {
      float V = D[X];
      D[X] = Tag == 0 ? V * V : Tag == 1 ? -V : 0.0f;
    }
  })
}

/* K.half(KernelBuffer<float16> data, float16 h): every element becomes h (bit copy). */
void cj_K_half(const CajetaCpuArg* Args, CajetaCpuLaunch* L, uint64_t Begin, uint64_t End) {
  uint16_t* D = (uint16_t*)Args[0].Ptr;
  uint16_t H = (uint16_t)Args[1].Bits;
  FOR_EACH_ITEM(L, Begin, End, {
    if (X < Args[0].Length)
      D[X] = H;
  })
}

/* K.dynamic(KernelBuffer<uint32> out): per workgroup, allocates the dynamic shared array on the
   running thread, fills it, and stores the byte count it saw and a checksum of what it read. */
void cj_K_dynamic(const CajetaCpuArg* Args, CajetaCpuLaunch* L, uint64_t Begin, uint64_t End) {
  uint32_t* Out = (uint32_t*)Args[0].Ptr;
  uint32_t Bytes = L->DynamicSharedBytes;
  volatile uint8_t* Shared = (volatile uint8_t*)__builtin_alloca(Bytes ? Bytes : 1);
  for (uint64_t G = Begin; G < End; ++G) {
    uint32_t Sum = 0;
    for (uint32_t I = 0; I < Bytes; ++I)
      Shared[I] = (uint8_t)(I + G);
    for (uint32_t I = 0; I < Bytes; ++I)
      Sum += Shared[I];
    if (2 * G + 1 < Args[0].Length) {
      Out[2 * G] = Bytes;
      Out[2 * G + 1] = Sum;
    }
  }
}

/* K.deep(KernelBuffer<uint32> out, uint32 mib): touches `mib` MiB of the running thread's stack
   (as per-work-item arrays would), then marks its workgroups done. */
void cj_K_deep(const CajetaCpuArg* Args, CajetaCpuLaunch* L, uint64_t Begin, uint64_t End) {
  uint64_t Bytes = (uint64_t)(uint32_t)Args[1].Bits << 20;
  volatile uint8_t* Frame = (volatile uint8_t*)__builtin_alloca(Bytes ? Bytes : 1);
  for (uint64_t I = 0; I < Bytes; I += 4096)
    Frame[I] = (uint8_t)I;
  for (uint64_t G = Begin; G < End; ++G)
    if (G < Args[0].Length)
      ((uint32_t*)Args[0].Ptr)[G] = 1u + Frame[0];
  (void)L;
}

/* K.sharedOob(KernelBuffer<float32> data): a --check-bounds kernel that indexes its shared array
   'tile' (256 elements) at 300 and reports it. */
void cj_K_sharedOob(const CajetaCpuArg* Args, CajetaCpuLaunch* L, uint64_t Begin, uint64_t End) {
  uint32_t Expected = 0;
  if (__atomic_compare_exchange_n(&L->Failed, &Expected, 1, 0, __ATOMIC_ACQ_REL,
                                  __ATOMIC_ACQUIRE)) {
    L->FailedParam = CAJETA_CPU_SHARED_PARAM_BIT | 0u;
    L->FailedIndex = 300;
    L->FailedLength = 256;
  }
  (void)Args;
  (void)Begin;
  (void)End;
}

// Each entry's parameter list as the manifest (TestBundle.cpp) marshals it: the record a
// compiled CPU payload carries beside each kernel (bundle/KernelAbiRecord.h), which the loader
// holds against the manifest.
const char cajeta_abi_cj_K_saxpy[] = "b4,b4,sfloat32,suint32";
const char cajeta_abi_cj_K_coords[] = "b4";
const char cajeta_abi_cj_K_trace[] = "a4";
const char cajeta_abi_cj_K_sleepy[] = "b4,suint32,sfloat32";
const char cajeta_abi_cj_K_checked[] = "b4,suint64";
const char cajeta_abi_cj_K_scalars[] = "b8,sint8,suint16,sint64,sfloat64,sbool";
const char cajeta_abi_cj_K_align[] = "b8";
const char cajeta_abi_cj_K_pod[] = "b8,p24.8";
const char cajeta_abi_cj_K_apply[] = "b4,f";
const char cajeta_abi_cj_K_half[] = "b2,sfloat16";
const char cajeta_abi_cj_K_dynamic[] = "b4";
const char cajeta_abi_cj_K_deep[] = "b4,suint32";
const char cajeta_abi_cj_K_sharedOob[] = "b4";
