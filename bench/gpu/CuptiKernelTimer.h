// GPU execution time of our kernels from CUPTI's activity records (libcupti dlopened, optional).
#pragma once

#include <string>

namespace cajeta::gpubench {

/// The runtime does not expose its CUstream, so CUDA events cannot bracket our launches; CUPTI's
/// kernel activity records give every kernel's start and end on the GPU, whoever launched it.
class CuptiKernelTimer {
public:
  /// Loads libcupti (libcupti.so.13, else libcupti.so); available() says whether it worked.
  CuptiKernelTimer();
  bool available() const { return Available; }
  /// Why it is not available ("" when it is).
  const std::string& why() const { return Why; }

  /// Starts recording kernel activity (dropping anything recorded before).
  bool begin();
  /// Flushes the records and returns the summed GPU milliseconds of the kernels whose name starts
  /// with Prefix since begin() or the last take(); Count gets their number.
  double take(const std::string& Prefix, size_t& Count);
  /// Stops recording.
  void end();

private:
  bool Available = false;
  std::string Why;
};

} // namespace cajeta::gpubench
