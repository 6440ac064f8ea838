// The x86-64 machine that CPU code is generated for, from a `--cpu` name: shared by the kernels'
// CPU payload (CpuPayloadBuilder), the host part's payload (HostPayloadBuilder) and the native
// executable (HostExecutableBuilder), so all three read `--cpu` and report features alike.
#pragma once

#include <memory>
#include <string>

namespace llvm {
class TargetMachine;
} // namespace llvm

namespace cajeta::lowering {

/// The triple CPU code is generated for.
inline constexpr const char* CpuTriple = "x86_64-unknown-linux-gnu";

/// A TargetMachine with its CPU name and features.
struct CpuMachine {
  std::unique_ptr<llvm::TargetMachine> TM;
  std::string Cpu;
  std::string TmFeatures;      // what the TargetMachine was given ("+a,-b,...")
  std::string EnabledFeatures; // a payload's "features" attribute: only the enabled ones, sorted
};

/// The machine for Cpu: "native" (or empty) is this machine's CPU with every feature it has,
/// else an LLVM CPU name such as x86-64-v3 with its features as LLVM knows them. Position
/// independent code, the aggressive optimisation level and no FP contraction (unless @FastMath
/// asks). False with Error set for an unknown CPU or when LLVM has no x86-64 target.
bool createCpuMachine(const std::string& Cpu, CpuMachine& Mach, std::string& Error);

} // namespace cajeta::lowering
