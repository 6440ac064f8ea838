// Times a loop of tiny launches on one stream followed by one sync on the vulkan backend (the
// per-launch cost of command submission). Usage: vulkan_launch_bench [launches] [rounds]
#include <cajeta/xpu.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace xpu = cajeta::xpu;

namespace {

const char* const Source = R"(
import cajeta.xpu.*;

public final class B {
    @Kernel
    public static void bump(KernelBuffer<int32> out, uint32 n) {
        uint32 i = KernelThread.globalIdX();
        if (i < n) { out[i] = out[i] + 1; }
    }
}
)";

} // namespace

int main(int Argc, char** Argv) {
  int Launches = Argc > 1 ? std::atoi(Argv[1]) : 1000;
  int Rounds = Argc > 2 ? std::atoi(Argv[2]) : 5;
  if (Launches <= 0 || Rounds <= 0) {
    std::fprintf(stderr, "usage: vulkan_launch_bench [launches > 0] [rounds > 0]\n");
    return 2;
  }
  setenv("CAJETA_XPU_BACKEND", "vulkan", 1);
  try {
    xpu::Program P = xpu::Program::compileSource(Source, "B.cj");
    if (P.device().backend() != "vulkan") {
      std::fprintf(stderr, "no vulkan device (the program landed on %s)\n",
                   P.device().backend().c_str());
      return 77;
    }
    xpu::Kernel K = P.kernel("B.bump");
    const uint32_t N = 64;
    xpu::KernelBuffer<int32_t> Out(N);
    Out.upload(std::vector<int32_t>(N, 0));
    xpu::KernelStream S(P.device());
    K.launch(S, xpu::grid(1), xpu::block(N))(Out, N); // pipeline creation out of the timing
    S.sync();
    double Best = 1e30;
    for (int R = 0; R != Rounds; ++R) {
      auto T0 = std::chrono::steady_clock::now();
      for (int I = 0; I != Launches; ++I)
        K.launch(S, xpu::grid(1), xpu::block(N))(Out, N);
      auto TE = std::chrono::steady_clock::now();
      S.sync();
      auto T1 = std::chrono::steady_clock::now();
      double Us = std::chrono::duration<double, std::micro>(T1 - T0).count();
      double EnqueueUs = std::chrono::duration<double, std::micro>(TE - T0).count();
      std::printf("round %d: %d launches + 1 sync: %.1f us total, %.2f us per launch (%.2f us "
                  "per launch call before the sync)\n",
                  R, Launches, Us, Us / Launches, EnqueueUs / Launches);
      Best = std::min(Best, Us);
    }
    std::vector<int32_t> Got(N);
    Out.download(Got);
    int32_t Want = 1 + Launches * Rounds;
    for (uint32_t I = 0; I != N; ++I)
      if (Got[I] != Want) {
        std::fprintf(stderr, "element %u is %d, want %d\n", I, Got[I], Want);
        return 1;
      }
    std::printf("device '%s': best %.2f us per launch\n", P.device().name().c_str(),
                Best / Launches);
  } catch (const std::exception& E) {
    std::fprintf(stderr, "error: %s\n", E.what());
    return 1;
  }
  return 0;
}
