// `cajeta devices`: the backends and devices this machine offers, and the dispatcher's choice.
#include "Commands.h"

#include <cajeta/xpu.hpp>

#include <iostream>

namespace cajeta::cli {

void addDevicesCommand(CLI::App& App) {
  CLI::App* Cmd = App.add_subcommand("devices", "List backends, devices and the default choice");
  Cmd->callback([] {
    namespace xpu = cajeta::xpu;
    try {
      std::vector<xpu::Device> All = xpu::devices();
      std::cout << "backends probed (dispatch order): cuda, hip, vulkan, cpu\n";
      for (const char* Backend : {"cuda", "hip", "vulkan"})
        if (std::string Why = xpu::unavailableReason(Backend); !Why.empty())
          std::cout << "  " << Backend << ": no device (" << Why << ")\n";
      for (size_t I = 0; I < All.size(); ++I) {
        const xpu::Device& D = All[I];
        std::cout << "  [" << I << "] " << D.backend() << ": " << D.name()
                  << (D.runsOnHostCpu() ? " (runs on the host CPU)" : "") << "\n"
                  << "      compute units: " << D.computeUnits()
                  << ", max workgroup size: " << D.maxWorkgroupSize()
                  << ", max dynamic shared bytes: " << D.maxDynamicSharedBytes()
                  << ", wave width: " << D.waveWidth() << "\n";
        if (!D.concurrentStreams())
          std::cout << "      streams: one queue, launches on different streams run one after "
                       "the other\n";
        if (uint64_t Loops = D.maxLoopIterations())
          std::cout << "      loops: the driver ends every loop after " << Loops
                    << " iterations, silently\n";
        std::string Yes, No;
        for (xpu::Capability C : xpu::allCapabilities()) {
          std::string& List = D.supports(C) ? Yes : No;
          List += (List.empty() ? "" : ", ") + xpu::capabilityName(C);
        }
        std::cout << "      supports: " << (Yes.empty() ? "none" : Yes) << "\n"
                  << "      lacks: " << (No.empty() ? "none" : No) << "\n";
        std::string Shapes;
        for (const std::string& S : D.matrixShapes())
          Shapes += (Shapes.empty() ? "" : ", ") + S;
        if (!Shapes.empty())
          std::cout << "      tile products (MxNxK:a:b:c:result): " << Shapes << "\n";
      }
      xpu::Device Def = xpu::defaultDevice();
      std::cout << "default: " << Def.backend() << " (" << Def.name() << ")\n";
    } catch (const xpu::Error& E) {
      std::cerr << "cajeta: error: " << E.what() << "\n";
      ExitCode = 1;
    }
  });
}

} // namespace cajeta::cli
