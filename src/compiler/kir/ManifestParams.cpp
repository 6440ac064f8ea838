#include "compiler/kir/ManifestParams.h"

namespace cajeta::kir {

bundle::ParamInfo manifestParam(const Module& M, const Function& Fn, size_t I) {
  const Param& Par = Fn.Params[I];
  bundle::ParamInfo PI;
  PI.Name = Par.Name;
  PI.Type = Par.Ty.Elem;
  if (Par.Ty.isBuffer()) {
    PI.Kind = bundle::ParamKind::Buffer;
    PI.Mode = I < Fn.ParamAccess.size() ? Fn.ParamAccess[I] : bundle::Access::None;
    PI.Accel = Par.IsAccel;
  } else if (Par.Ty.isPod()) {
    const PodType& Pod = M.Pods[Par.Ty.PodIndex];
    PI.Kind = bundle::ParamKind::Pod;
    PI.PodName = Pod.Name;
    PI.PodSize = Pod.Size;
    PI.PodAlign = Pod.Align;
    for (const PodField& F : Pod.Fields)
      PI.Fields.push_back({F.Name, F.Type, F.Offset});
  } else if (Par.IsFunction) {
    PI.Kind = bundle::ParamKind::Function;
    for (uint32_t T : Par.FunctionTable)
      PI.FunctionTable.push_back(M.Functions[T]->Name);
  } else {
    PI.Kind = bundle::ParamKind::Scalar;
  }
  return PI;
}

std::vector<bundle::ParamInfo> manifestParams(const Module& M, const Function& Fn) {
  std::vector<bundle::ParamInfo> Out;
  for (size_t I = 0; I < Fn.Params.size(); ++I)
    Out.push_back(manifestParam(M, Fn, I));
  return Out;
}

} // namespace cajeta::kir
