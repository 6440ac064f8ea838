// CUPTI activity tracing of kernels (CONCURRENT_KERNEL records), through a dlopened libcupti.
#include "CuptiKernelTimer.h"

#include <cupti_activity.h>
#include <cupti_result.h>

#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <mutex>
#include <vector>

namespace cajeta::gpubench {

namespace {

struct KernelRecord {
  std::string Name;
  uint64_t Start, End; // ns
};

struct Cupti {
  CUptiResult (*RegisterCallbacks)(CUpti_BuffersCallbackRequestFunc,
                                   CUpti_BuffersCallbackCompleteFunc) = nullptr;
  CUptiResult (*Enable)(CUpti_ActivityKind) = nullptr;
  CUptiResult (*Disable)(CUpti_ActivityKind) = nullptr;
  CUptiResult (*FlushAll)(uint32_t) = nullptr;
  CUptiResult (*GetNextRecord)(uint8_t*, size_t, CUpti_Activity**) = nullptr;
  std::mutex Lock;
  std::vector<KernelRecord> Records;
};

Cupti Api;

constexpr size_t BufferBytes = 4 << 20;

void CUPTIAPI bufferRequested(uint8_t** Buffer, size_t* Size, size_t* MaxRecords) {
  *Buffer = static_cast<uint8_t*>(std::aligned_alloc(8, BufferBytes));
  *Size = *Buffer ? BufferBytes : 0;
  *MaxRecords = 0;
}

void CUPTIAPI bufferCompleted(CUcontext, uint32_t, uint8_t* Buffer, size_t, size_t Valid) {
  CUpti_Activity* Record = nullptr;
  std::lock_guard<std::mutex> G(Api.Lock);
  while (Buffer && Api.GetNextRecord(Buffer, Valid, &Record) == CUPTI_SUCCESS) {
    if (Record->kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL &&
        Record->kind != CUPTI_ACTIVITY_KIND_KERNEL)
      continue;
    auto* K = reinterpret_cast<CUpti_ActivityKernel10*>(Record);
    Api.Records.push_back(KernelRecord{K->name ? K->name : "", K->start, K->end});
  }
  std::free(Buffer);
}

template <class Fn> bool symbol(void* Lib, const char* Name, Fn& Out) {
  Out = reinterpret_cast<Fn>(dlsym(Lib, Name));
  return Out != nullptr;
}

} // namespace

CuptiKernelTimer::CuptiKernelTimer() {
  void* Lib = dlopen("libcupti.so.13", RTLD_NOW | RTLD_LOCAL);
  if (!Lib)
    Lib = dlopen("libcupti.so", RTLD_NOW | RTLD_LOCAL);
  if (!Lib) {
    Why = std::string("libcupti not found: ") + dlerror();
    return;
  }
  if (!symbol(Lib, "cuptiActivityRegisterCallbacks", Api.RegisterCallbacks) ||
      !symbol(Lib, "cuptiActivityEnable", Api.Enable) ||
      !symbol(Lib, "cuptiActivityDisable", Api.Disable) ||
      !symbol(Lib, "cuptiActivityFlushAll", Api.FlushAll) ||
      !symbol(Lib, "cuptiActivityGetNextRecord", Api.GetNextRecord)) {
    Why = "libcupti lacks an activity API function";
    return;
  }
  CUptiResult R = Api.RegisterCallbacks(bufferRequested, bufferCompleted);
  if (R != CUPTI_SUCCESS) {
    Why = "cuptiActivityRegisterCallbacks failed with CUptiResult " + std::to_string(int(R));
    return;
  }
  Available = true;
}

bool CuptiKernelTimer::begin() {
  if (!Available)
    return false;
  CUptiResult R = Api.Enable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  if (R != CUPTI_SUCCESS) {
    Why =
        "cuptiActivityEnable(CONCURRENT_KERNEL) failed with CUptiResult " + std::to_string(int(R));
    Available = false;
    return false;
  }
  Api.FlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  std::lock_guard<std::mutex> G(Api.Lock);
  Api.Records.clear();
  return true;
}

double CuptiKernelTimer::take(const std::string& Prefix, size_t& Count) {
  Count = 0;
  if (!Available)
    return 0;
  Api.FlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  std::lock_guard<std::mutex> G(Api.Lock);
  uint64_t Ns = 0;
  for (const KernelRecord& R : Api.Records) {
    if (R.Name.rfind(Prefix, 0) != 0 || R.End < R.Start)
      continue;
    Ns += R.End - R.Start;
    ++Count;
  }
  Api.Records.clear();
  return double(Ns) * 1e-6;
}

void CuptiKernelTimer::end() {
  if (!Available)
    return;
  Api.Disable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  Api.FlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  std::lock_guard<std::mutex> G(Api.Lock);
  Api.Records.clear();
}

} // namespace cajeta::gpubench
