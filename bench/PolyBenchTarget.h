// PolyBenchTarget: where a case's kernels run: polybench.cj's kernels and the case's arrays as
// buffers on one device, and the stream the launches go to.
#pragma once

#include "PolyBenchSuite.h"

#include <cajeta/xpu.hpp>

#include <map>
#include <string>
#include <vector>

namespace cajeta::polybench {

namespace xpu = cajeta::xpu;

class PolyBenchTarget {
public:
  /// Buffers for C's arrays on Device, filled with their Init; Program holds class PolyBench.
  PolyBenchTarget(const xpu::Program& Program, xpu::Device Device, xpu::KernelStream& Stream,
                  const Case& C);

  /// Kernel PolyBench.<Name> (looked up once).
  const xpu::Kernel& kernel(const std::string& Name);
  xpu::KernelBuffer<float>& buffer(size_t Array) { return Buffers.at(Array); }
  xpu::KernelStream& stream() { return Stream; }
  /// Uploads every array's Init again.
  void reset();
  /// Array's contents.
  std::vector<float> download(size_t Array);

private:
  const xpu::Program& Program;
  xpu::KernelStream& Stream;
  const Case& C;
  std::vector<xpu::KernelBuffer<float>> Buffers;
  std::map<std::string, xpu::Kernel> Kernels;
};

/// Launch shapes: 2D blocks of 32 x 8 (x the column) and 1D blocks of 256, PolyBench/GPU's.
xpu::Dim3 grid2d(uint32_t Cols, uint32_t Rows);
xpu::Dim3 grid1d(uint32_t N);
inline const xpu::Dim3 Block2d = xpu::block(32, 8);
inline const xpu::Dim3 Block1d = xpu::block(256);

} // namespace cajeta::polybench
