// GPU smoke run of the NVPTX payloads: loads PTX made from DeviceKernels.cj through the CUDA
// driver (dlopen, no CUDA SDK needed to build), launches by GpuKernelAbi.h, checks the results.
//
// Usage: nvptx_device_run DIR   (DIR holds plain_sm_70.ptx, plain_sm_90.ptx, bounds_sm_90.ptx and
// approx_sm_90.ptx from `cajeta emit --target=ptx`; see run-on-gpu.sh). Exit status 0 = all passed.
#include "bundle/GpuKernelAbi.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <dlfcn.h>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

namespace {

// The few driver API declarations we call (cuda.h, CUDA 12/13 ABI names).
using CUresult = int;
using CUdevice = int;
using CUcontext = void*;
using CUmodule = void*;
using CUfunction = void*;
using CUdeviceptr = unsigned long long;
struct Driver {
  CUresult (*cuInit)(unsigned);
  CUresult (*cuDeviceGet)(CUdevice*, int);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext*, CUdevice);
  CUresult (*cuCtxSetCurrent)(CUcontext);
  CUresult (*cuModuleLoadDataEx)(CUmodule*, const void*, unsigned, int*, void**);
  CUresult (*cuModuleGetFunction)(CUfunction*, CUmodule, const char*);
  CUresult (*cuModuleUnload)(CUmodule);
  CUresult (*cuMemAlloc)(CUdeviceptr*, size_t);
  CUresult (*cuMemFree)(CUdeviceptr);
  CUresult (*cuMemcpyHtoD)(CUdeviceptr, const void*, size_t);
  CUresult (*cuMemcpyDtoH)(void*, CUdeviceptr, size_t);
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                             unsigned, void*, void**, void**);
  CUresult (*cuCtxSynchronize)();
  CUresult (*cuGetErrorName)(CUresult, const char**);
  CUresult (*cuFuncGetAttribute)(int*, int, CUfunction);
};
Driver Cu;
int Failures = 0;

bool loadDriver() {
  void* H = dlopen("libcuda.so.1", RTLD_NOW);
  if (!H) {
    std::printf("SKIP: libcuda.so.1: %s\n", dlerror());
    return false;
  }
  auto Get = [&](auto& Fn, const char* Name) {
    Fn = reinterpret_cast<std::remove_reference_t<decltype(Fn)>>(dlsym(H, Name));
    if (!Fn)
      std::printf("FAIL: libcuda has no %s\n", Name);
    return Fn != nullptr;
  };
  return Get(Cu.cuInit, "cuInit") && Get(Cu.cuDeviceGet, "cuDeviceGet") &&
         Get(Cu.cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain") &&
         Get(Cu.cuCtxSetCurrent, "cuCtxSetCurrent") &&
         Get(Cu.cuModuleLoadDataEx, "cuModuleLoadDataEx") &&
         Get(Cu.cuModuleGetFunction, "cuModuleGetFunction") &&
         Get(Cu.cuModuleUnload, "cuModuleUnload") && Get(Cu.cuMemAlloc, "cuMemAlloc_v2") &&
         Get(Cu.cuMemFree, "cuMemFree_v2") && Get(Cu.cuMemcpyHtoD, "cuMemcpyHtoD_v2") &&
         Get(Cu.cuMemcpyDtoH, "cuMemcpyDtoH_v2") && Get(Cu.cuLaunchKernel, "cuLaunchKernel") &&
         Get(Cu.cuCtxSynchronize, "cuCtxSynchronize") && Get(Cu.cuGetErrorName, "cuGetErrorName") &&
         Get(Cu.cuFuncGetAttribute, "cuFuncGetAttribute");
}

bool ok(CUresult R, const char* What) {
  if (R == 0)
    return true;
  const char* Name = "?";
  Cu.cuGetErrorName(R, &Name);
  std::printf("FAIL: %s: %s\n", What, Name);
  ++Failures;
  return false;
}

void check(bool Cond, const std::string& What) {
  std::printf("%s: %s\n", Cond ? "ok  " : "FAIL", What.c_str());
  if (!Cond)
    ++Failures;
}

/// Device memory holding a copy of a host vector.
template <class T> struct DevBuf {
  CUdeviceptr P = 0;
  size_t N = 0;
  explicit DevBuf(const std::vector<T>& H) : N(H.size()) {
    ok(Cu.cuMemAlloc(&P, N * sizeof(T) + 8), "cuMemAlloc");
    ok(Cu.cuMemcpyHtoD(P, H.data(), N * sizeof(T)), "cuMemcpyHtoD");
  }
  ~DevBuf() { Cu.cuMemFree(P); }
  std::vector<T> get() const {
    std::vector<T> H(N);
    ok(Cu.cuMemcpyDtoH(H.data(), P, N * sizeof(T)), "cuMemcpyDtoH");
    return H;
  }
};

/// Kernel arguments by GpuKernelAbi.h: buffers as (pointer, count), scalars by value, status last.
struct Args {
  std::vector<std::vector<unsigned char>> Slots;
  template <class T> Args& buf(const DevBuf<T>& B) { return val(B.P).val(uint64_t(B.N)); }
  template <class T> Args& val(const T& V) {
    Slots.emplace_back(sizeof(T));
    std::memcpy(Slots.back().data(), &V, sizeof(T));
    return *this;
  }
  std::vector<void*> pointers() {
    std::vector<void*> P;
    for (auto& S : Slots)
      P.push_back(S.data());
    return P;
  }
};

struct Module {
  CUmodule M = nullptr;
  CUdeviceptr Status = 0;
  std::string Name;
  bool load(const std::string& Path) {
    Name = Path;
    std::ifstream In(Path);
    std::stringstream SS;
    SS << In.rdbuf();
    std::string Ptx = SS.str();
    if (Ptx.empty()) {
      check(false, "read " + Path);
      return false;
    }
    char Log[8192] = {0};
    int Opts[] = {5 /*CU_JIT_ERROR_LOG_BUFFER*/, 6 /*..._SIZE_BYTES*/};
    void* Vals[] = {Log, reinterpret_cast<void*>(uintptr_t(sizeof Log))};
    CUresult R = Cu.cuModuleLoadDataEx(&M, Ptx.c_str(), 2, Opts, Vals);
    if (!ok(R, ("cuModuleLoadDataEx " + Path).c_str())) {
      std::printf("%s\n", Log);
      return false;
    }
    ok(Cu.cuMemAlloc(&Status, sizeof(CajetaGpuStatus)), "status alloc");
    resetStatus();
    return true;
  }
  void resetStatus() {
    CajetaGpuStatus Zero{};
    Cu.cuMemcpyHtoD(Status, &Zero, sizeof Zero);
  }
  CajetaGpuStatus status() {
    CajetaGpuStatus S{};
    Cu.cuMemcpyDtoH(&S, Status, sizeof S);
    return S;
  }
  CUfunction fn(const char* Kernel) {
    CUfunction F = nullptr;
    ok(Cu.cuModuleGetFunction(&F, M, Kernel), Kernel);
    return F;
  }
  bool launch(const char* Kernel, unsigned Grid, unsigned Block, Args A, unsigned Shared = 0) {
    CUfunction F = fn(Kernel);
    if (!F)
      return false;
    A.val(Status);
    std::vector<void*> P = A.pointers();
    return ok(Cu.cuLaunchKernel(F, Grid, 1, 1, Block, 1, 1, Shared, nullptr, P.data(), nullptr),
              Kernel) &&
           ok(Cu.cuCtxSynchronize(), Kernel);
  }
};

template <class T> int64_t ulps(T A, T B) {
  if (std::isnan(A) && std::isnan(B))
    return 0;
  if (std::isnan(A) || std::isnan(B))
    return std::numeric_limits<int64_t>::max();
  using I = std::conditional_t<sizeof(T) == 4, int32_t, int64_t>;
  I IA, IB;
  std::memcpy(&IA, &A, sizeof A);
  std::memcpy(&IB, &B, sizeof B);
  if (IA < 0)
    IA = std::numeric_limits<I>::min() - IA;
  if (IB < 0)
    IB = std::numeric_limits<I>::min() - IB;
  return std::llabs(int64_t(IA) - int64_t(IB));
}

const char* MathNames[] = {"exp", "log", "pow(x,1.5)", "sin", "cos", "tanh", "rsqrt"};

/// Max ULP error of math32/math64 per function against the host's libm in higher precision.
template <class T>
void mathUlps(Module& M, const char* Kernel, int64_t Bound, bool Enforce, const std::string& Tag) {
  const uint32_t N = 4096;
  std::vector<T> Xs(N);
  for (uint32_t I = 0; I < N; ++I)
    Xs[I] = T(0.01) + T(I) * T(20.0 / N) + (I % 3 ? T(0) : T(1e-3) * T(I % 7));
  DevBuf<T> In(Xs), Out(std::vector<T>(7 * N));
  if (!M.launch(Kernel, N / 128, 128, Args().buf(Out).buf(In).val(N)))
    return;
  std::vector<T> R = Out.get();
  for (int K = 0; K < 7; ++K) {
    int64_t Worst = 0;
    T WorstX = 0;
    for (uint32_t I = 0; I < N; ++I) {
      long double X = Xs[I], Ref;
      switch (K) {
      case 0:
        Ref = expl(X);
        break;
      case 1:
        Ref = logl(X);
        break;
      case 2:
        Ref = powl(X, 1.5L);
        break;
      case 3:
        Ref = sinl(X);
        break;
      case 4:
        Ref = cosl(X);
        break;
      case 5:
        Ref = tanhl(X);
        break;
      default:
        Ref = 1.0L / sqrtl(X);
        break;
      }
      int64_t U = ulps<T>(R[7 * I + K], T(Ref));
      if (U > Worst) {
        Worst = U;
        WorstX = Xs[I];
      }
    }
    char Line[256];
    std::snprintf(Line, sizeof Line, "%s %s %s: max %lld ulp (at x = %.9g)%s", Tag.c_str(),
                  sizeof(T) == 4 ? "float32" : "float64", MathNames[K], (long long)Worst,
                  double(WorstX), Enforce ? "" : " [measured, not enforced]");
    if (Enforce)
      check(Worst <= Bound, Line);
    else
      std::printf("info: %s\n", Line);
  }
}

uint32_t floatBits(float F) {
  uint32_t B;
  std::memcpy(&B, &F, 4);
  return B;
}

void runPlain(Module& M, const std::string& Tag) {
  std::printf("== %s (%s)\n", Tag.c_str(), M.Name.c_str());
  { // saxpy: bit-exact with the host (no contraction)
    const uint32_t N = 100000;
    std::vector<float> X(N), Y(N);
    for (uint32_t I = 0; I < N; ++I) {
      X[I] = float(I) * 0.37f - 11.0f;
      Y[I] = 1.0f / float(I + 1);
    }
    DevBuf<float> DX(X), DY(Y);
    float A = 3.1f;
    if (M.launch("cj_k_D_saxpy", (N + 255) / 256, 256, Args().buf(DY).buf(DX).val(A).val(N))) {
      std::vector<float> R = DY.get();
      size_t Bad = 0;
      for (uint32_t I = 0; I < N; ++I) {
        volatile float P = A * X[I]; // no fma on the host either
        Bad += floatBits(R[I]) != floatBits(P + Y[I]);
      }
      check(Bad == 0, Tag + " saxpy bit-exact (" + std::to_string(Bad) + " differ)");
    }
  }
  { // static shared memory + barriers
    const uint32_t N = 1000;
    std::vector<uint32_t> In(N);
    for (uint32_t I = 0; I < N; ++I)
      In[I] = I * 7 + 1;
    DevBuf<uint32_t> DI(In), DP(std::vector<uint32_t>(4));
    if (M.launch("cj_k_D_reduce", 4, 256, Args().buf(DI).buf(DP).val(N))) {
      std::vector<uint32_t> P = DP.get();
      bool Good = true;
      for (uint32_t G = 0; G < 4; ++G) {
        uint32_t S = 0;
        for (uint32_t I = G * 256; I < std::min(N, G * 256 + 256); ++I)
          S += In[I];
        Good &= P[G] == S;
      }
      check(Good, Tag + " reduce (256 static shared uint32, barriers in a loop)");
      int Shared = -1, Regs = -1;
      Cu.cuFuncGetAttribute(&Shared, 1 /*SHARED_SIZE_BYTES*/, M.fn("cj_k_D_reduce"));
      Cu.cuFuncGetAttribute(&Regs, 4 /*NUM_REGS*/, M.fn("cj_k_D_reduce"));
      check(Shared == 1024, Tag + " reduce static shared bytes = " + std::to_string(Shared));
      std::printf("info: %s reduce uses %d registers\n", Tag.c_str(), Regs);
    }
  }
  { // dynamic shared memory: length = bytes / 8 rounded down
    DevBuf<uint64_t> Out(std::vector<uint64_t>(6));
    if (M.launch("cj_k_D_dynamicShared", 3, 128, Args().buf(Out), 100 * 8 + 3)) {
      std::vector<uint64_t> R = Out.get();
      check(R[0] == 100 && R[1] == 5050 && R[4] == 100 && R[5] == 5050,
            Tag + " dynamic shared: length " + std::to_string(R[0]) + ", sum " +
                std::to_string(R[1]));
    }
  }
  { // atomics
    auto Run = [&](std::vector<float> Vals, float WantMin, float WantMax, const char* What) {
      std::vector<int32_t> C = {0, 0, INT32_MIN, INT32_MAX, 0, 0};
      DevBuf<int32_t> DC(C);
      DevBuf<float> DF(std::vector<float>{0.0f, INFINITY, -INFINITY});
      DevBuf<double> DD(std::vector<double>{0.0});
      DevBuf<float> DV(Vals);
      if (!M.launch("cj_k_D_atomics", 4, 256, Args().buf(DC).buf(DF).buf(DD).buf(DV)))
        return;
      std::vector<int32_t> RC = DC.get();
      std::vector<float> RF = DF.get();
      std::vector<double> RD = DD.get();
      check(RC[0] == 1024 && RC[1] == -2048 && RC[2] == 1023 && RC[3] == -1023 && RC[4] >= 1 &&
                RC[4] <= 1024 && RC[5] == 1024,
            Tag + " integer atomics (add, sub, max, min, compareExchange, shared add/load/store)");
      check(RF[0] == 1024.0f && RD[0] == 512.0, Tag + " float32/float64 atomic add");
      // Bitwise, except that any NaN matches a NaN (sm_90's min.NaN yields 0x7fffffff).
      auto Same = [](float A, float B) {
        return std::isnan(A) ? std::isnan(B) : floatBits(A) == floatBits(B);
      };
      check(Same(WantMin, RF[1]) && Same(WantMax, RF[2]),
            Tag + " float atomic min/max " + What + ": got " + std::to_string(RF[1]) + " / " +
                std::to_string(RF[2]) + " (bits " + std::to_string(floatBits(RF[1])) + ", " +
                std::to_string(floatBits(RF[2])) + ")");
    };
    Run({3, -0.0f, 1, 0.0f, 5, -2, 7, 0.5f}, -2.0f, 7.0f, "(plain values)");
    Run({0.0f, -0.0f, 0.0f, -0.0f, 0.0f, -0.0f, 0.0f, -0.0f}, -0.0f, 0.0f, "(-0 < +0)");
    Run({1, 2, NAN, 4, 5, 6, 7, 8}, NAN, NAN, "(NaN wins)");
  }
  { // POD by value: struct { uint8 flag; float64 scale; uint32 n; } in C layout
    struct alignas(8) Params {
      uint8_t Flag;
      double Scale;
      uint32_t N;
    } P{1, 2.5, 10};
    static_assert(sizeof(Params) == 24);
    DevBuf<double> Y(std::vector<double>(16, 2.0));
    if (M.launch("cj_k_D_pod", 1, 16, Args().buf(Y).val(P))) {
      std::vector<double> R = Y.get();
      check(R[0] == 5.0 && R[9] == 5.0 && R[10] == 2.0, Tag + " POD parameter by value");
    }
  }
  { // float16: 2.0 * 1.5 + 0.25 = 3.25 (0x4280), computed in binary16
    DevBuf<uint16_t> Y(std::vector<uint16_t>(32, 0x3400)), X(std::vector<uint16_t>(32, 0x3E00));
    uint16_t A = 0x4000;
    if (M.launch("cj_k_D_half", 1, 32, Args().buf(Y).buf(X).val(A))) {
      std::vector<uint16_t> R = Y.get();
      check(R[0] == 0x4280 && R[31] == 0x4280,
            Tag + " float16 arithmetic and scalar parameter: got bits " + std::to_string(R[0]));
    }
  }
  // Bounds: CUDA documents libdevice float32 functions within 4 ulp (pow) and 2 ulp (the
  // others here), float64 within 2 ulp; measured against the host libm in long double.
  mathUlps<float>(M, "cj_k_D_math32", 4, true, Tag + " libdevice");
  mathUlps<double>(M, "cj_k_D_math64", 2, true, Tag + " libdevice");
  CajetaGpuStatus S = M.status();
  check(S.Failed == 0, Tag + " status record untouched without --check-bounds");
}

void runBounds(Module& M) {
  std::printf("== check-bounds (%s)\n", M.Name.c_str());
  const uint32_t N = 64;
  DevBuf<float> Y(std::vector<float>(N, 0.0f));
  if (!M.launch("cj_k_D_saxpy", 1, 64, Args().buf(Y).buf(Y).val(1.0f).val(N)))
    return;
  check(M.status().Failed == 0, "in-range kernel leaves Failed = 0");
  if (!M.launch("cj_k_D_outOfRange", 1, 64, Args().buf(Y).val(N)))
    return;
  CajetaGpuStatus S = M.status();
  check(S.Failed == 1 && S.FailedParam == 0 && S.FailedIndex == N + 5 && S.FailedLength == N,
        "out-of-range store reported: Failed " + std::to_string(S.Failed) + ", param " +
            std::to_string(S.FailedParam) + ", index " + std::to_string(S.FailedIndex) +
            ", length " + std::to_string(S.FailedLength));
}

} // namespace

int main(int Argc, char** Argv) {
  if (Argc != 2) {
    std::printf("usage: %s PTX_DIR\n", Argv[0]);
    return 2;
  }
  if (!loadDriver())
    return 77;
  CUdevice Dev;
  CUcontext Ctx;
  if (!ok(Cu.cuInit(0), "cuInit") || !ok(Cu.cuDeviceGet(&Dev, 0), "cuDeviceGet") ||
      !ok(Cu.cuDevicePrimaryCtxRetain(&Ctx, Dev), "primary context") ||
      !ok(Cu.cuCtxSetCurrent(Ctx), "cuCtxSetCurrent"))
    return 1;
  std::string Dir = Argv[1];
  for (const char* Sm : {"sm_70", "sm_90"}) {
    Module M;
    if (M.load(Dir + "/plain_" + Sm + ".ptx"))
      runPlain(M, std::string("PTX ") + Sm);
  }
  Module B;
  if (B.load(Dir + "/bounds_sm_90.ptx"))
    runBounds(B);
  Module A;
  if (A.load(Dir + "/approx_sm_90.ptx")) {
    std::printf("== approximate math without libdevice (%s)\n", A.Name.c_str());
    mathUlps<float>(A, "cj_k_D_math32", 0, false, "approx");
    mathUlps<double>(A, "cj_k_D_math64", 0, false, "approx");
  }
  std::printf("%s: %d failure(s)\n", Failures ? "FAILED" : "PASSED", Failures);
  return Failures ? 1 : 0;
}
