#include "bundle/KernelAbiRecord.h"

namespace cajeta::bundle {

std::string kernelAbiRecordSymbol(const std::string& Symbol) {
  return "cajeta_abi_" + Symbol;
}

std::string kernelAbiRecord(const std::vector<ParamInfo>& Params) {
  std::string Out;
  for (const ParamInfo& P : Params) {
    if (!Out.empty())
      Out += ',';
    switch (P.Kind) {
    case ParamKind::Buffer:
      Out += (P.Accel ? "a" : "b") + std::to_string(scalarTypeSize(P.Type));
      break;
    case ParamKind::Scalar:
      Out += std::string("s") + scalarTypeName(P.Type);
      break;
    case ParamKind::Function:
      Out += 'f';
      break;
    case ParamKind::Pod:
      Out += "p" + std::to_string(P.PodSize) + "." + std::to_string(P.PodAlign);
      break;
    }
  }
  return Out;
}

std::string checkKernelAbiRecord(const KernelInfo& K, const char* Where, const std::string* Have,
                                 const std::string& Symbol) {
  std::string Prefix = "kernel '" + K.Name + "': ";
  if (!Have)
    return Prefix + "the " + Where + " records no parameter list for '" + Symbol +
           "' (a bundle of an older compiler: build it again)";
  std::string Want = kernelAbiRecord(K.Params);
  if (*Have != Want)
    return Prefix + "the manifest's parameters marshal as '" + Want + "', but the " + Where +
           "'s '" + Symbol + "' takes '" + *Have + "'";
  return "";
}

} // namespace cajeta::bundle
