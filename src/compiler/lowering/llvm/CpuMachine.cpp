// The x86-64 machine for a `--cpu` name (CpuMachine.h).
#include "compiler/lowering/llvm/CpuMachine.h"

#include "hostcpu/HostAmx.h"

#include <llvm/ADT/StringMap.h>
#include <llvm/MC/MCSubtargetInfo.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Target/TargetOptions.h>
#include <llvm/TargetParser/Host.h>

#include <algorithm>
#include <mutex>
#include <vector>

namespace cajeta::lowering {
namespace {

void initializeX86Once() {
  static std::once_flag Once;
  std::call_once(Once, [] {
    LLVMInitializeX86TargetInfo();
    LLVMInitializeX86Target();
    LLVMInitializeX86TargetMC();
    LLVMInitializeX86AsmPrinter();
    LLVMInitializeX86AsmParser();
  });
}

std::string join(const std::vector<std::string>& Parts) {
  std::string S;
  for (const std::string& P : Parts)
    S += (S.empty() ? "" : ",") + P;
  return S;
}

} // namespace

bool createCpuMachine(const std::string& Cpu, CpuMachine& Mach, std::string& Error) {
  initializeX86Once();
  std::string LookupError;
  const llvm::Target* T = llvm::TargetRegistry::lookupTarget(CpuTriple, LookupError);
  if (!T) {
    Error = "no LLVM target for " + std::string(CpuTriple) + ": " + LookupError;
    return false;
  }
  std::vector<std::string> Enabled;
  Mach.Cpu = Cpu;
  Mach.TmFeatures.clear();
  if (Mach.Cpu.empty() || Mach.Cpu == "native") {
    Mach.Cpu = llvm::sys::getHostCPUName().str();
    std::vector<std::string> All;
    // AMX's tile data is usable only once the OS grants it to the process (hostcpu::HostAmx):
    // without the grant the host's code takes none of its instructions.
    const bool AmxGranted = hostcpu::hostAmx().Tile;
    for (const auto& KV : llvm::sys::getHostCPUFeatures()) {
      const bool On = KV.second && (AmxGranted || !KV.first().starts_with("amx-"));
      All.push_back((On ? "+" : "-") + KV.first().str());
      if (On)
        Enabled.push_back("+" + KV.first().str());
    }
    std::sort(All.begin(), All.end());
    Mach.TmFeatures = join(All);
  }
  std::unique_ptr<llvm::MCSubtargetInfo> Probe(T->createMCSubtargetInfo(CpuTriple, "", ""));
  if (!Probe || !Probe->isCPUStringValid(Mach.Cpu)) {
    Error = "unknown CPU '" + Mach.Cpu + "' for x86-64 (see `llc -mcpu=help`)";
    return false;
  }
  llvm::TargetOptions TO;
  TO.AllowFPOpFusion = llvm::FPOpFusion::Strict; // no contraction unless @FastMath says so
  Mach.TM.reset(T->createTargetMachine(CpuTriple, Mach.Cpu, Mach.TmFeatures, TO, llvm::Reloc::PIC_,
                                       std::nullopt, llvm::CodeGenOptLevel::Aggressive));
  if (!Mach.TM) {
    Error = "cannot create an x86-64 target machine for CPU '" + Mach.Cpu + "'";
    return false;
  }
  if (Enabled.empty()) { // a named CPU: its features as LLVM knows them
    const llvm::MCSubtargetInfo* STI = Mach.TM->getMCSubtargetInfo();
    for (const llvm::SubtargetFeatureKV& KV : STI->getAllProcessorFeatures())
      if (STI->getFeatureBits().test(KV.Value))
        Enabled.push_back(std::string("+") + KV.Key);
  }
  std::sort(Enabled.begin(), Enabled.end());
  Mach.EnabledFeatures = join(Enabled);
  return true;
}

} // namespace cajeta::lowering
