// Submissions (spec 17.8) from the host: every frame submits smooth -> scale -> clamp as one chain
// (a capture identity: recorded on the first frame, replayed after) under the frameBudget policy
// with a deadline of one frame, prints what the scheduler knows about the first kernel (its
// resource descriptor), and checks the last frame against the same arithmetic on the host.
#include <cajeta/xpu.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

namespace xpu = cajeta::xpu;
using namespace std::chrono_literals;

namespace {

/// The three kernels on the host, in the same float32 arithmetic.
std::vector<float> frameOnHost(const std::vector<float>& In, float Gain, float Lo, float Hi) {
  size_t N = In.size();
  std::vector<float> Out(N);
  for (size_t I = 0; I < N; ++I) {
    size_t L = I == 0 ? 0 : I - 1, R = I + 1 == N ? I : I + 1;
    float V = (In[L] + 2.0f * In[I] + In[R]) * 0.25f;
    V = V * Gain;
    Out[I] = std::min(std::max(V, Lo), Hi);
  }
  return Out;
}

std::string bytes(const std::optional<double>& B) {
  return B ? std::to_string(static_cast<long long>(*B)) + " bytes" : "unknown";
}

} // namespace

int main(int argc, char** argv) {
  std::string Path = argc > 1 ? argv[1] : CAJETA_EXAMPLES_DIR "/frames.cj";
  try {
    xpu::Program P = xpu::Program::compileFile(Path);
    xpu::Kernel Smooth = P.kernel("Frames.smooth"), Scale = P.kernel("Frames.scale"),
                Clamp = P.kernel("Frames.clamp");
    const uint32_t N = 1 << 16;
    std::vector<float> Signal(N);
    for (uint32_t I = 0; I < N; ++I)
      Signal[I] = static_cast<float>((I * 37) % 101) - 50.0f;
    xpu::KernelBuffer<float> In(N), Out(N);
    In.upload(Signal);
    xpu::KernelStream S;
    const xpu::Dim3 Grid = xpu::grid((N + 255) / 256), Block = xpu::block(256);

    const int Frames = 60;
    int Refused = 0;
    float Gain = 1.0f;
    for (int F = 0; F < Frames; ++F) {
      Gain = 1.0f + 0.01f * static_cast<float>(F);
      xpu::KernelSubmission Sub = xpu::KernelSubmission(S)
                                      .policy(xpu::Policy::FrameBudget)
                                      .capture(1)
                                      .within(16ms); // one frame at 60 Hz, or not at all
      try {
        xpu::ResourceDescriptor D = Smooth.launch(Sub, Grid, Block)(Out, In, N);
        Scale.launch(Sub, Grid, Block)(Out, Gain, N);
        Clamp.launch(Sub, Grid, Block)(Out, -40.0f, 40.0f, N);
        if (F == 0)
          std::printf("smooth: classified %s, reads %s, writes %s, restartable %s\n",
                      D.classified ? "yes" : "no", bytes(D.bytesRead).c_str(),
                      bytes(D.bytesWritten).c_str(), D.restartable ? "yes" : "no");
        S.sync();
      } catch (const xpu::DeadlineMissed& E) { // a frame that cannot start in time is dropped
        ++Refused;
        std::fprintf(stderr, "frame %d dropped: %s\n", F, E.what());
        S.sync();
      }
    }
    std::vector<float> Got;
    Out.download(Got);
    std::vector<float> Want = frameOnHost(Signal, Gain, -40.0f, 40.0f);
    size_t Bad = 0;
    for (uint32_t I = 0; I < N; ++I)
      if (Got[I] != Want[I] && Bad++ < 5)
        std::fprintf(stderr, "mismatch at %u: got %g, want %g\n", I, Got[I], Want[I]);
    std::printf("backend: %s; %d frames, %d dropped for their deadline\n",
                P.device().backend().c_str(), Frames, Refused);
    if (Bad || Refused == Frames) {
      std::printf("frames: FAILED (%zu wrong)\n", Bad);
      return 1;
    }
    std::printf("frames: the last frame matches the host: verified\n");
    return 0;
  } catch (const xpu::Error& E) {
    std::fprintf(stderr, "frames: %s\n", E.what());
    return 1;
  }
}
