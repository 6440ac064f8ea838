// Runs the CUDA toolkit's ptxas on PTX text: assembling checks and the `ptxas -v` footprint.
#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace cajeta::lowering {

/// What `ptxas -v` says about one entry.
struct PtxasFootprint {
  uint32_t Registers = 0;
  uint32_t SpillBytes = 0; // spill stores
  uint32_t StaticSharedBytes = 0;
};

class NvptxPtxas {
public:
  /// $CAJETA_PTXAS, else $CUDA_HOME/bin/ptxas, else /usr/local/cuda/bin/ptxas, else `ptxas` on
  /// PATH; empty when none is executable.
  static std::string find();

  /// The GPU architecture to give this ptxas for PTX of target Sm ("sm_70"): Sm itself when the
  /// ptxas knows it, else the oldest "sm_NN" it knows with NN above Sm's number (CUDA 13's ptxas
  /// no longer assembles for sm_70 but accepts `.target sm_70` PTX for sm_75); empty if none.
  static std::string archFor(const std::string& Ptxas, const std::string& Sm);

  /// Writes Ptx to a fresh file under TempDir (the system's temp directory when empty), runs
  /// `ptxas -v -arch=Arch file -o /dev/null` and removes the file. Output receives ptxas's
  /// messages. Returns true when ptxas ran and succeeded.
  static bool assemble(const std::string& Ptxas, const std::string& Ptx, const std::string& Arch,
                       const std::string& TempDir, std::string& Output);

  /// The per-entry footprint from `ptxas -v` messages, keyed by entry name.
  static std::map<std::string, PtxasFootprint> parseVerbose(const std::string& Output);
};

} // namespace cajeta::lowering
