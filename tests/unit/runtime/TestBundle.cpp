// The test kernels' manifest: parameters as TestKernels.c reads them, and the .so as payload.
#include "TestBundle.h"

#include "bundle/BundleWriter.h"

#include <fstream>
#include <iterator>
#include <stdexcept>

namespace cajeta::xpu::test {

using bundle::Access;
using bundle::ParamKind;
using bundle::ScalarType;

/// A parameter without POD or function-table fields (brace-initialising four of ParamInfo's
/// members leaves the rest to -Wmissing-field-initializers).
static bundle::ParamInfo param(const char* Name, ParamKind Kind, ScalarType T, Access A) {
  bundle::ParamInfo P;
  P.Name = Name;
  P.Kind = Kind;
  P.Type = T;
  P.Mode = A;
  return P;
}
static bundle::ParamInfo buf(const char* Name, ScalarType T, Access A) {
  return param(Name, ParamKind::Buffer, T, A);
}
static bundle::ParamInfo scalar(const char* Name, ScalarType T) {
  return param(Name, ParamKind::Scalar, T, Access::None);
}

static bundle::KernelInfo kernel(const char* Name, const char* Symbol,
                                 std::vector<bundle::ParamInfo> Params) {
  bundle::KernelInfo K;
  K.Name = Name;
  K.SourceFile = "TestKernels.c";
  K.Params = std::move(Params);
  K.Targets["cpu-x86_64"].Symbol = Symbol;
  return K;
}

bundle::Program makeTestProgram() {
  std::ifstream In(CAJETA_TEST_KERNELS_PATH, std::ios::binary);
  if (!In)
    throw std::runtime_error("cannot read " CAJETA_TEST_KERNELS_PATH);
  bundle::Program P;
  P.CompilerVersion = "hand-written test kernels";
  P.Kernels.push_back(
      kernel("K.saxpy", "cj_K_saxpy",
             {buf("y", ScalarType::F32, Access::ReadWrite), buf("x", ScalarType::F32, Access::Read),
              scalar("a", ScalarType::F32), scalar("n", ScalarType::U32)}));
  P.Kernels.push_back(
      kernel("K.coords", "cj_K_coords", {buf("out", ScalarType::U32, Access::Write)}));
  P.Kernels.push_back(kernel("K.sleepy", "cj_K_sleepy",
                             {buf("out", ScalarType::F32, Access::Write),
                              scalar("ms", ScalarType::U32), scalar("value", ScalarType::F32)}));
  P.Kernels.push_back(
      kernel("K.checked", "cj_K_checked",
             {buf("data", ScalarType::F32, Access::Write), scalar("index", ScalarType::U64)}));
  P.Kernels.push_back(
      kernel("K.scalars", "cj_K_scalars",
             {buf("out", ScalarType::I64, Access::Write), scalar("a", ScalarType::I8),
              scalar("b", ScalarType::U16), scalar("c", ScalarType::I64),
              scalar("d", ScalarType::F64), scalar("e", ScalarType::Bool)}));
  P.Kernels.push_back(
      kernel("K.align", "cj_K_align", {buf("out", ScalarType::U64, Access::Write)}));
  bundle::ParamInfo Pod = param("p", ParamKind::Pod, ScalarType::I32, Access::None);
  Pod.PodName = "Params";
  Pod.Fields = {
      {"scale", ScalarType::F32, 0}, {"bias", ScalarType::F64, 8}, {"n", ScalarType::U32, 16}};
  Pod.PodSize = 24;
  Pod.PodAlign = 8;
  P.Kernels.push_back(
      kernel("K.pod", "cj_K_pod", {buf("out", ScalarType::F64, Access::Write), Pod}));
  bundle::ParamInfo Op = param("op", ParamKind::Function, ScalarType::U32, Access::None);
  Op.FunctionTable = {"Ops.square", "Ops.negate"};
  P.Kernels.push_back(
      kernel("K.apply", "cj_K_apply", {buf("data", ScalarType::F32, Access::ReadWrite), Op}));
  P.Kernels.push_back(
      kernel("K.half", "cj_K_half",
             {buf("data", ScalarType::F16, Access::Write), scalar("h", ScalarType::F16)}));
  bundle::KernelInfo Dynamic =
      kernel("K.dynamic", "cj_K_dynamic", {buf("out", ScalarType::U32, Access::Write)});
  Dynamic.SharedArrays = {"scratch"};
  Dynamic.DynamicShared = true;
  P.Kernels.push_back(Dynamic);
  P.Kernels.push_back(
      kernel("K.deep", "cj_K_deep",
             {buf("out", ScalarType::U32, Access::Write), scalar("mib", ScalarType::U32)}));
  bundle::KernelInfo SharedOob =
      kernel("K.sharedOob", "cj_K_sharedOob", {buf("data", ScalarType::F32, Access::Write)});
  SharedOob.SharedArrays = {"tile"};
  P.Kernels.push_back(SharedOob);
  // @Backend("cuda"): compiled for no CPU target, so the bundle has no cpu manifest for it.
  bundle::KernelInfo Fast =
      kernel("K.fast", "cj_K_fast", {buf("data", ScalarType::F32, Access::Write)});
  Fast.Targets.clear();
  Fast.Backends = {"cuda"};
  P.Kernels.push_back(Fast);

  bundle::Payload Pay;
  Pay.Target = "cpu-x86_64";
  Pay.Format = "elf-shared-object";
  Pay.Attributes["cpu"] = "x86-64";
  Pay.Attributes["features"] = "+sse2,-sse4a";
  Pay.Bytes.assign(std::istreambuf_iterator<char>(In), std::istreambuf_iterator<char>());
  P.Payloads.push_back(std::move(Pay));
  return P;
}

std::vector<uint8_t> testBundleBytes() {
  return bundle::BundleWriter::write(makeTestProgram());
}

} // namespace cajeta::xpu::test
