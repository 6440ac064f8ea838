// Sema for Device.supports(Capability.X) in device code (the degradation rule): a uniform bool
// (kir::IntrinsicOp::Supports) that each target's pipeline folds where it knows the answer.
#include "compiler/frontend/Sema.h"

#include "cajeta/xpu/cajeta_xpu.h"

#include <map>

namespace cajeta::frontend {

namespace {

const std::map<std::string, uint32_t>& capabilities() {
  static const std::map<std::string, uint32_t> Names = {
      {"WaveOps", CAJETA_XPU_CAP_WAVE_OPS},
      {"Float16", CAJETA_XPU_CAP_FLOAT16},
      {"Float64", CAJETA_XPU_CAP_FLOAT64},
      {"Int64Atomics", CAJETA_XPU_CAP_INT64_ATOMICS},
      {"FloatAtomics", CAJETA_XPU_CAP_FLOAT_ATOMICS},
      {"SharedMemory", CAJETA_XPU_CAP_SHARED_MEMORY},
      {"DynamicSharedMemory", CAJETA_XPU_CAP_DYNAMIC_SHARED_MEMORY},
      {"CooperativeMatrix", CAJETA_XPU_CAP_COOPERATIVE_MATRIX},
      {"Textures", CAJETA_XPU_CAP_TEXTURES},
      {"RayQuery", CAJETA_XPU_CAP_RAY_QUERY},
      {"CorrectlyRoundedFma", CAJETA_XPU_CAP_CORRECTLY_ROUNDED_FMA},
      {"PreciseTranscendentals", CAJETA_XPU_CAP_PRECISE_TRANSCENDENTALS},
      {"Float32Denormals", CAJETA_XPU_CAP_FLOAT32_DENORMALS}};
  return Names;
}

} // namespace

Sema::Value Sema::buildDeviceQuery(const Expr* E, const std::string& Method) {
  if (Method != "supports") {
    Diags.error(E->Ops[0]->Range, "'Device." + Method +
                                      "' is host API; device code can call Device.supports("
                                      "Capability.X)");
    return {};
  }
  if (!isImported("Capability")) {
    Diags.error(E->Range, "'Capability' is not imported; add 'import cajeta.xpu.Capability;'");
    return {};
  }
  const Expr* A = E->Ops.size() == 2 ? E->Ops[1] : nullptr;
  std::string List;
  for (const auto& [Name, Id] : capabilities())
    List += (List.empty() ? "" : ", ") + Name;
  if (!A || A->K != Expr::Kind::Member || A->Ops[0]->K != Expr::Kind::Name ||
      A->Ops[0]->Text != "Capability") {
    Diags.error(A ? A->Range : E->Range,
                "'Device.supports' takes one capability, as in Capability.CooperativeMatrix");
    return {};
  }
  auto It = capabilities().find(A->Text);
  if (It == capabilities().end()) {
    Diags.error(A->Range, "unknown capability '" + A->Text + "' (there are " + List + ")");
    return {};
  }
  if (InHost) { // asked of the program's device at run time
    kir::Expr* R =
        hostOp(kir::HostOp::Supports, kir::Type::scalar(bundle::ScalarType::Bool), {}, E->Range);
    R->Index = It->second;
    return value(R, E->Range);
  }
  kir::Expr* R = M->newExpr(kir::Expr::Kind::Intrinsic, kir::Type::scalar(bundle::ScalarType::Bool),
                            loc(E->Range));
  R->IOp = kir::IntrinsicOp::Supports;
  R->Index = It->second;
  return value(R, E->Range);
}

} // namespace cajeta::frontend
