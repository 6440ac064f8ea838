// PolyBenchTarget: kernels looked up once, buffers made and filled from the case's Init.
#include "PolyBenchTarget.h"

namespace cajeta::polybench {

PolyBenchTarget::PolyBenchTarget(const xpu::Program& Program, xpu::Device Device,
                                 xpu::KernelStream& Stream, const Case& C)
    : Program(Program), Stream(Stream), C(C) {
  Buffers.reserve(C.Init.size());
  for (const std::vector<float>& Init : C.Init)
    Buffers.emplace_back(Device, Init.size());
  reset();
}

const xpu::Kernel& PolyBenchTarget::kernel(const std::string& Name) {
  auto It = Kernels.find(Name);
  if (It == Kernels.end())
    It = Kernels.emplace(Name, Program.kernel("PolyBench." + Name)).first;
  return It->second;
}

void PolyBenchTarget::reset() {
  for (size_t I = 0; I < Buffers.size(); ++I)
    Buffers[I].upload(C.Init[I]);
}

std::vector<float> PolyBenchTarget::download(size_t Array) {
  std::vector<float> Out;
  Buffers.at(Array).download(Out);
  return Out;
}

xpu::Dim3 grid2d(uint32_t Cols, uint32_t Rows) {
  return xpu::grid((Cols + Block2d.x - 1) / Block2d.x, (Rows + Block2d.y - 1) / Block2d.y);
}

xpu::Dim3 grid1d(uint32_t N) {
  return xpu::grid((N + Block1d.x - 1) / Block1d.x);
}

} // namespace cajeta::polybench
