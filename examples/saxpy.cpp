// The host side of spec Example 17.4-1 in C++: JIT-compile saxpy.cj (or load a .cjx bundle),
// run it on the backend the dispatcher picks, and check every element.
#include <cajeta/xpu.hpp>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace xpu = cajeta::xpu;

int main(int argc, char** argv) {
  std::string Path = argc > 1 ? argv[1] : CAJETA_EXAMPLES_DIR "/saxpy.cj";
  try {
    bool IsBundle = Path.size() > 4 && Path.substr(Path.size() - 4) == ".cjx";
    xpu::Program Program = IsBundle ? xpu::Program::load(Path) : xpu::Program::compileFile(Path);
    xpu::Kernel Saxpy = Program.kernel("K.saxpy");

    const uint32_t N = 1 << 20;
    std::vector<float> HX(N), HY(N);
    for (uint32_t I = 0; I < N; ++I) {
      HX[I] = static_cast<float>(I % 1000) * 0.5f;
      HY[I] = static_cast<float>(I % 7);
    }
    xpu::KernelBuffer<float> X(N), Y(N);
    X.upload(HX);
    Y.upload(HY);
    xpu::KernelStream& S = xpu::KernelStream::current();
    Saxpy.launch(S, xpu::grid((N + 255) / 256), xpu::block(256))(Y, X, 3.0f, N);
    S.sync();
    std::vector<float> Out;
    Y.download(Out);

    size_t Bad = 0;
    for (uint32_t I = 0; I < N; ++I) {
      float Want = 3.0f * HX[I] + HY[I];
      if (Out[I] != Want && Bad++ < 5)
        std::fprintf(stderr, "mismatch at %u: got %g, want %g\n", I, Out[I], Want);
    }
    xpu::Device D = Program.device();
    std::printf("backend: %s\ndevice:  %s\nprogram: %s%s\n", D.backend().c_str(), D.name().c_str(),
                Path.c_str(), Program.fromCache() ? " (JIT cache hit)" : "");
    if (Bad) {
      std::printf("saxpy: FAILED, %zu of %u elements wrong\n", Bad, N);
      return 1;
    }
    std::printf("saxpy: y = 3*x + y over %u elements: verified (y[12345] = %g)\n", N, Out[12345]);
    return 0;
  } catch (const xpu::Error& E) {
    std::fprintf(stderr, "saxpy: %s\n", E.what());
    return 1;
  }
}
