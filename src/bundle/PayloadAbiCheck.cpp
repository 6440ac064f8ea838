#include "bundle/PayloadAbiCheck.h"

#include "bundle/KernelAbiRecord.h"
#include "bundle/PtxInterface.h"
#include "bundle/SpirvInterface.h"

#include <map>
#include <set>

namespace cajeta::bundle {
namespace {

std::string describe(const ParamInfo& P) {
  switch (P.Kind) {
  case ParamKind::Buffer:
    return std::string("buffer of ") + scalarTypeName(P.Type);
  case ParamKind::Scalar:
    return std::string("scalar ") + scalarTypeName(P.Type);
  case ParamKind::Function:
    return "function";
  case ParamKind::Pod:
    return "POD " + P.PodName + " of " + std::to_string(P.PodSize) + " bytes";
  }
  return "?";
}

std::string kernelPrefix(const KernelInfo& K) {
  return "kernel '" + K.Name + "': ";
}

/// GpuKernelAbi.h: the PTX parameters a kernel with these parameters takes.
std::vector<PtxParam> expectedPtxParams(const KernelInfo& K, std::vector<size_t>& Owner) {
  std::vector<PtxParam> Out;
  for (size_t I = 0; I < K.Params.size(); ++I) {
    const ParamInfo& P = K.Params[I];
    switch (P.Kind) {
    case ParamKind::Buffer:
      Out.push_back({8, 0});
      Out.push_back({8, 0});
      Owner.push_back(I);
      Owner.push_back(I);
      continue;
    case ParamKind::Scalar:
      Out.push_back({scalarTypeSize(P.Type), 0});
      break;
    case ParamKind::Function:
      Out.push_back({4, 0});
      break;
    case ParamKind::Pod:
      Out.push_back({P.PodSize, P.PodAlign});
      break;
    }
    Owner.push_back(I);
  }
  Out.push_back({8, 0}); // the status record's pointer
  Owner.push_back(K.Params.size());
  return Out;
}

/// Entry Symbol's PTX parameters against what K's manifest marshals, followed by TensorMaps
/// tensor maps (a TMA entry's: TargetManifest::TensorMaps).
std::string checkPtxEntry(const KernelInfo& K, const std::string& Symbol, const PtxInterface& Ptx,
                          size_t TensorMaps = 0) {
  auto It = Ptx.Entries.find(Symbol);
  if (It == Ptx.Entries.end())
    return kernelPrefix(K) + "the PTX has no entry '" + Symbol + "'";
  std::vector<size_t> Owner;
  std::vector<PtxParam> Want = expectedPtxParams(K, Owner);
  size_t StatusParam = Want.size() - 1;
  for (size_t I = 0; I < TensorMaps; ++I) {
    Want.push_back({128, 64}); // a CUtensorMap by value
    Owner.push_back(K.Params.size());
  }
  const std::vector<PtxParam>& Have = It->second;
  if (Have.size() != Want.size())
    return kernelPrefix(K) + "the manifest lists " + std::to_string(K.Params.size()) +
           " parameters" +
           (TensorMaps ? " and " + std::to_string(TensorMaps) + " tensor maps" : std::string()) +
           ", which take " + std::to_string(Want.size()) +
           " PTX parameters with the status pointer; entry '" + Symbol + "' has " +
           std::to_string(Have.size());
  for (size_t I = 0; I < Want.size(); ++I) {
    bool AlignDiffers = Want[I].Align && Have[I].Align != Want[I].Align;
    if (Have[I].Size == Want[I].Size && !AlignDiffers)
      continue;
    std::string Which = "the status pointer";
    if (Owner[I] < K.Params.size())
      Which = "parameter " + std::to_string(Owner[I]) + " '" + K.Params[Owner[I]].Name + "' (" +
              describe(K.Params[Owner[I]]) + ")";
    else if (I > StatusParam)
      Which = "tensor map " + std::to_string(I - StatusParam - 1);
    return kernelPrefix(K) + Which + " takes " + std::to_string(Want[I].Size) + " bytes" +
           (Want[I].Align ? " aligned to " + std::to_string(Want[I].Align) : "") +
           ", but PTX parameter " + std::to_string(I) + " of entry '" + Symbol + "' has " +
           std::to_string(Have[I].Size) +
           (Want[I].Align ? " aligned to " + std::to_string(Have[I].Align) : "");
  }
  return {};
}

std::string checkPtx(const KernelInfo& K, const TargetManifest& M, const PtxInterface& Ptx) {
  // The quad entry (when there is one) takes the same arguments as the kernel's own.
  for (const std::string* Symbol : {&M.Symbol, &M.QuadSymbol})
    if (Symbol == &M.Symbol || !Symbol->empty())
      if (std::string Problem = checkPtxEntry(K, *Symbol, Ptx); !Problem.empty())
        return Problem;
  // The TMA entry takes them too, then its tensor maps; where it has a parameter record of its
  // own, that must describe the kernel's parameters as well.
  if (!M.TmaSymbol.empty()) {
    if (std::string Problem = checkPtxEntry(K, M.TmaSymbol, Ptx, M.TensorMaps.size());
        !Problem.empty())
      return Problem;
    auto Record = Ptx.Records.find(kernelAbiRecordSymbol(M.TmaSymbol));
    if (Record != Ptx.Records.end())
      if (std::string Problem = checkKernelAbiRecord(K, "PTX", &Record->second, M.TmaSymbol);
          !Problem.empty())
        return Problem;
  }
  auto Record = Ptx.Records.find(kernelAbiRecordSymbol(M.Symbol));
  return checkKernelAbiRecord(K, "PTX", Record == Ptx.Records.end() ? nullptr : &Record->second,
                              M.Symbol);
}

/// VulkanKernelAbi.h's parameter block: "param:offset:size" for each non-buffer parameter.
std::string expectedSlots(const KernelInfo& K, uint32_t& Bytes) {
  std::string Out;
  uint32_t Offset = 0;
  for (size_t I = 0; I < K.Params.size(); ++I) {
    const ParamInfo& P = K.Params[I];
    uint32_t Size = 4, Align = 4;
    if (P.Kind == ParamKind::Buffer)
      continue;
    if (P.Kind == ParamKind::Pod) {
      Size = (P.PodSize + 3) / 4 * 4;
      Align = std::max<uint32_t>(4, P.PodAlign);
    } else if (P.Kind == ParamKind::Scalar && scalarTypeSize(P.Type) == 8) {
      Size = Align = 8;
    }
    Offset = (Offset + Align - 1) / Align * Align;
    Out += (Out.empty() ? "" : ",") + std::to_string(I) + ":" + std::to_string(Offset) + ":" +
           std::to_string(Size);
    Offset += Size;
  }
  Bytes = Offset;
  return Out;
}

std::string attribute(const Payload& P, const char* Key) {
  auto It = P.Attributes.find(Key);
  return It == P.Attributes.end() ? std::string() : It->second;
}

std::string checkSpirv(const KernelInfo& K, const TargetManifest& M, const Payload& P) {
  if (attribute(P, "entry") != M.Symbol)
    return kernelPrefix(K) + "the manifest's entry '" + M.Symbol + "' is not the payload's '" +
           attribute(P, "entry") + "'";
  uint32_t Bytes = 0;
  std::string Slots = expectedSlots(K, Bytes);
  if (attribute(P, "param_slots") != Slots ||
      attribute(P, "param_block_bytes") != std::to_string(Bytes))
    return kernelPrefix(K) + "the manifest's parameters take the block '" + Slots + "' (" +
           std::to_string(Bytes) + " bytes); the SPIR-V payload has '" +
           attribute(P, "param_slots") + "' (" + attribute(P, "param_block_bytes") + " bytes)";
  SpirvInterface Face;
  std::string Error;
  if (!SpirvInterface::read(P.Bytes.data(), P.Bytes.size(), Face, Error))
    return kernelPrefix(K) + "the SPIR-V payload: " + Error;
  if (!Face.ComputeEntries.count(M.Symbol))
    return kernelPrefix(K) + "the SPIR-V module has no compute entry point '" + M.Symbol + "'";
  std::string Block = attribute(P, "param_block");
  uint32_t Count = uint32_t(K.Params.size());
  for (const auto& [Set, Binding] : Face.StorageBindings) {
    bool Fits = Set == 0 && ((Binding < Count && K.Params[Binding].Kind == ParamKind::Buffer) ||
                             (Binding == Count && attribute(P, "check_bounds") == "1"));
    if (!Fits)
      return kernelPrefix(K) + "the SPIR-V module reads a storage buffer at set " +
             std::to_string(Set) + ", binding " + std::to_string(Binding) +
             ", which no buffer parameter of the manifest (" + std::to_string(Count) +
             " parameters) fills";
  }
  for (const auto& [Set, Binding] : Face.UniformBindings)
    if (Set != 0 || Binding != Count + 1 || Block != "uniform")
      return kernelPrefix(K) + "the SPIR-V module reads a uniform buffer at set " +
             std::to_string(Set) + ", binding " + std::to_string(Binding) +
             ", which the runtime would not bind (parameter block '" + Block + "')";
  if (Face.PushConstants && Block != "push-constant")
    return kernelPrefix(K) + "the SPIR-V module reads push constants, but its parameter block " +
           "is '" + Block + "'";
  return checkKernelAbiRecord(K, "SPIR-V module", Face.HasAbiRecord ? &Face.AbiRecord : nullptr,
                              M.Symbol);
}

} // namespace

std::string PayloadAbiCheck::checkTarget(const Program& P, const std::string& Target) {
  const Payload* Ptx = nullptr;
  PtxInterface PtxFace;
  // An nvptx target's PTX; a payload of another format there is the loader's to refuse.
  const Payload* Found = Target.rfind("nvptx-", 0) == 0 ? P.findPayload(Target) : nullptr;
  if (Found && Found->Format == "ptx") {
    Ptx = Found;
    std::string Error;
    std::string_view Text(reinterpret_cast<const char*>(Ptx->Bytes.data()), Ptx->Bytes.size());
    if (!PtxInterface::read(Text, PtxFace, Error))
      return Target + ": the PTX cannot be read: " + Error;
  }
  // SPIR-V: a module per kernel, "<target>:<kernel>"; the Vulkan backend may load either of
  // "spirv" and "spirv-coopmat" (a tile kernel's cooperative-matrix variant), so "spirv" checks
  // both.
  const bool Spirv = Target == "spirv" || Target == "spirv-coopmat";
  std::map<std::string, const Payload*> ByTarget; // findPayload per kernel would be quadratic
  if (Spirv)
    for (const Payload& Each : P.Payloads)
      ByTarget.emplace(Each.Target, &Each);
  for (const KernelInfo& K : P.Kernels) {
    for (const std::string& T : {Target, std::string(Target == "spirv" ? "spirv-coopmat" : "")}) {
      auto It = T.empty() ? K.Targets.end() : K.Targets.find(T);
      if (It == K.Targets.end())
        continue;
      std::string Problem;
      if (Ptx) {
        Problem = checkPtx(K, It->second, PtxFace);
      } else if (Spirv) {
        auto Module = ByTarget.find(T + ":" + K.Name);
        Problem = Module != ByTarget.end()
                      ? checkSpirv(K, It->second, *Module->second)
                      : kernelPrefix(K) + "no payload '" + T + ":" + K.Name + "' holds its code";
        // The quad entry's module takes the same arguments (entry QuadSymbol).
        if (Problem.empty() && T == "spirv" && !It->second.QuadSymbol.empty()) {
          TargetManifest Quads = It->second;
          Quads.Symbol = Quads.QuadSymbol;
          auto QuadModule = ByTarget.find("spirv-quads:" + K.Name);
          Problem = QuadModule != ByTarget.end()
                        ? checkSpirv(K, Quads, *QuadModule->second)
                        : kernelPrefix(K) + "no payload 'spirv-quads:" + K.Name +
                              "' holds its quad entry";
        }
      }
      if (!Problem.empty())
        return T + ": " + Problem;
    }
  }
  return "";
}

std::string PayloadAbiCheck::checkProgram(const Program& P) {
  std::set<std::string> Targets;
  for (const KernelInfo& K : P.Kernels)
    for (const auto& [Target, Manifest] : K.Targets)
      Targets.insert(Target);
  for (const std::string& T : Targets)
    if (std::string Problem = checkTarget(P, T); !Problem.empty())
      return Problem;
  return "";
}

} // namespace cajeta::bundle
