// A kernel entry of a loaded PTX module as the cuda backend hands it out (BackendModule::
// findKernel): its function, and for a TMA entry the plain entry it stands in for and the tensor
// maps it takes. Owned by the module; the runtime passes it back to the queue as the launch's
// kernel.
#pragma once

#include "bundle/Manifest.h"
#include "runtime/backends/cuda/CudaDriverApi.h"
#include "runtime/backends/cuda/CudaTensorMapEncoding.h"

#include <mutex>
#include <vector>

namespace cajeta::xpu::rt::cuda {

struct CudaEntry {
  CUfunction Fn = nullptr;
  /// A TMA entry (bundle::TargetManifest::TmaSymbol): the plain entry, run where the maps do not
  /// encode for a launch; null for every other entry.
  const CudaEntry* Plain = nullptr;
  /// A TMA entry's tensor maps, encoded for its launches and passed after the status pointer.
  std::vector<bundle::TensorMapRecipe> Maps;
  /// A TMA entry's code: the most work-items per group it takes (0: no limit of its own), its
  /// static shared bytes, and the device's limit on static plus dynamic shared bytes (0:
  /// unknown).
  uint32_t MaxThreads = 0;
  uint32_t StaticSharedBytes = 0;
  uint32_t SharedLimit = 0;
  /// A TMA entry's last encode of each map and the arguments it came from: a launch whose
  /// matrices are the same takes the map without the driver's encode (CudaTensorMaps::choose).
  /// Guarded by EncodedLock: queues of many threads launch the same entry.
  struct EncodedMap {
    bool Valid = false;
    TensorMapEncoding From;
    CUtensorMap Map;
  };
  mutable std::mutex EncodedLock;
  mutable std::vector<EncodedMap> Encoded;

  /// The entry a BackendQueue launch names.
  static const CudaEntry& of(const void* Kernel) { return *static_cast<const CudaEntry*>(Kernel); }
};

} // namespace cajeta::xpu::rt::cuda
