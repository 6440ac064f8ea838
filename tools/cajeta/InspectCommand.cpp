// `cajeta inspect k.cjx`: kernels, parameters, manifests and payloads of a bundle (the host
// payload with its methods and entry point), and who signed it.
#include "Commands.h"

#include "bundle/BundleReader.h"
#include "bundle/CostExpr.h"
#include "bundle/ManifestJson.h"
#include "signing/PublicKey.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <iomanip>
#include <iostream>
#include <set>
#include <string>
#include <vector>

namespace cajeta::cli {

/// The kernel's other entries and when the runtime takes each (Kernel::entryFor).
static void printEntries(const bundle::KernelInfo& K, const bundle::TargetManifest& TM) {
  auto Param = [&](int32_t I) {
    return I >= 0 && size_t(I) < K.Params.size() ? "'" + K.Params[I].Name + "'"
                                                 : "#" + std::to_string(I);
  };
  if (!TM.QuadSymbol.empty())
    std::cout << "      quad entry " << TM.QuadSymbol << ": four work-items to a work-item where "
              << Param(TM.QuadCountParam) << " is at most the launch's size in x"
              << (TM.QuadAnyGrid ? " (or on any grid that keeps its indices in 32 bits)" : "")
              << "\n";
  if (!TM.StepSymbol.empty())
    std::cout << "      step entry " << TM.StepSymbol << ": the grid-stride loop a step at a time "
              << "where " << Param(TM.StepCountParam) << " exceeds the launch's work-items\n";
  if (!TM.OnceSymbol.empty())
    std::cout << "      once entry " << TM.OnceSymbol << ": one step per work-item where "
              << Param(TM.StepCountParam) << " is at most the launch's size in x"
              << (TM.OnceAnyGrid ? " (or on a grid widened to it)" : "") << "\n";
  if (TM.TmaSymbol.empty())
    return;
  std::cout << "      TMA entry " << TM.TmaSymbol
            << ": block copies through the tensor memory accelerator where every tensor map "
               "serves the launch\n";
  auto Extent = [&](const bundle::TensorMapExtent& E) {
    return E.Param >= 0 ? Param(E.Param) : std::to_string(E.Value);
  };
  for (size_t I = 0; I < TM.TensorMaps.size(); ++I) {
    const bundle::TensorMapRecipe& R = TM.TensorMaps[I];
    std::cout << "        map " << I << ": " << Param(int32_t(R.BufferParam)) << " as "
              << Extent(R.Height) << " x " << Extent(R.Width) << " elements of " << R.ElemBytes
              << " B, rows " << Extent(R.Stride) << " apart; boxes of " << R.BoxRows << " x "
              << R.BoxCols << (R.Swizzle128 ? ", 128-byte swizzle" : "")
              << (R.Blocks == bundle::TensorMapRecipe::TwoAtomRows ? ", 4D: blocks of two-atom rows"
                  : R.Blocks == bundle::TensorMapRecipe::PairedRows
                      ? ", 4D: one-atom rows paired into two-atom rows"
                      : "")
              << "\n";
  }
}

/// A target's scheduling section: a summary line, then a line per buffer parameter.
static void printScheduling(const bundle::KernelInfo& K, const bundle::SchedulingManifest& S) {
  std::cout << "      scheduling: reads " << bundle::formatCost(S.BytesRead) << " bytes, writes "
            << bundle::formatCost(S.BytesWritten) << " bytes, " << bundle::formatCost(S.Operations)
            << " operations; " << (S.Restartable ? "restartable" : "not restartable") << "; "
            << S.YieldPoints << " yield point" << (S.YieldPoints == 1 ? "" : "s")
            << "; tile granularity workgroup";
  if (S.TileRows)
    std::cout << ", " << S.TileRows << "x" << S.TileCols << " tiles";
  std::cout << "\n";
  for (const bundle::BufferSchedule& B : S.Buffers) {
    if (B.Param >= K.Params.size())
      continue;
    const bundle::ParamInfo& Par = K.Params[B.Param];
    std::cout << "        " << Par.Name << ": " << bundle::accessName(Par.Mode);
    if (B.Accumulates)
      std::cout << ", accumulates";
    if (B.Streaming)
      std::cout << ", streaming";
    bool Reads = !B.BytesRead.Terms.empty() || !B.BytesRead.Unknown.empty();
    bool Writes = !B.BytesWritten.Terms.empty() || !B.BytesWritten.Unknown.empty();
    if (Reads)
      std::cout << ", " << bundle::formatCost(B.BytesRead) << " bytes read";
    if (Writes)
      std::cout << ", " << bundle::formatCost(B.BytesWritten) << " bytes written";
    if (!Reads && !Writes)
      std::cout << ", untouched";
    std::cout << "\n";
  }
}

/// The host payload's attributes, its methods by name: "entry", "methods", "returns_int" and
/// "static_init" (Compiler.cpp's addHostPayload) read back.
static void printHostPayload(const bundle::Payload& Pl) {
  auto Attr = [&](const char* Key) {
    auto It = Pl.Attributes.find(Key);
    return It == Pl.Attributes.end() ? std::string() : It->second;
  };
  static const std::set<std::string> Host = {"entry", "methods", "returns_int", "static_init"};
  for (const auto& [Key, Value] : Pl.Attributes)
    if (!Host.count(Key))
      std::cout << "    " << Key << " = " << Value << "\n";
  std::vector<std::string> ReturnsInt = bundle::splitAttributeList(Attr("returns_int"));
  std::string Entry = Attr("entry"), EntryName;
  std::vector<std::string> Methods = bundle::splitAttributeList(Attr("methods"));
  std::cout << "    methods: " << Methods.size() << "\n";
  for (const std::string& M : Methods) {
    size_t Eq = M.find('=');
    std::string Name = M.substr(0, Eq), Symbol = Eq == std::string::npos ? "" : M.substr(Eq + 1);
    bool Int = std::find(ReturnsInt.begin(), ReturnsInt.end(), Name) != ReturnsInt.end();
    if (!Entry.empty() && Symbol == Entry)
      EntryName = Name;
    std::cout << "      " << Name << "  (" << (Int ? "int32" : "void") << ", symbol " << Symbol
              << ")\n";
  }
  if (!Entry.empty())
    std::cout << "    entry: " << (EntryName.empty() ? Entry : EntryName) << "\n";
  else
    std::cout << "    entry: none (`cajeta run --main Class.method` names one)\n";
  if (std::string Init = Attr("static_init"); !Init.empty())
    std::cout << "    static initialiser: " << Init << "\n";
}

/// Who signed it, unchecked: only `cajeta verify` against a trusted key says the signature holds.
static void printSignature(const std::optional<bundle::SignatureBlock>& S) {
  if (!S) {
    std::cout << "signature: none (unsigned)\n";
    return;
  }
  std::cout << "signature: Ed25519, key " << signing::PublicKey(S->PublicKey).fingerprint()
            << " (not verified here: `cajeta verify --trust KEY.pub` checks it)\n";
}

/// The records `cajeta build --with-calibration` built in: what each measured, and where.
void printCalibration(const std::vector<std::string>& Records) {
  std::cout << "calibration: " << Records.size() << " record" << (Records.size() == 1 ? "" : "s")
            << (Records.empty() ? " (none built in)" : "") << "\n";
  for (const std::string& Text : Records) {
    nlohmann::json R = nlohmann::json::parse(Text, nullptr, false);
    if (R.is_discarded() || !R.contains("key") || !R["key"].is_object()) {
      std::cout << "  (a record that is not JSON with a key: served nowhere)\n";
      continue;
    }
    const nlohmann::json& Key = R["key"];
    auto field = [&](const char* Name) {
      return Key.contains(Name) && Key[Name].is_string() ? Key[Name].get<std::string>() : "?";
    };
    std::cout << "  " << field("subject") << " on " << field("device") << "\n";
  }
}

static void printProgram(const bundle::Program& P) {
  std::cout << "compiler: " << P.CompilerVersion << "\n";
  std::cout << "kernels: " << P.Kernels.size() << "\n";
  for (const bundle::KernelInfo& K : P.Kernels) {
    std::cout << "  " << K.Name << "  (" << K.SourceFile << ":" << K.SourceLine << ")\n";
    for (size_t I = 0; I < K.Params.size(); ++I) {
      const bundle::ParamInfo& Par = K.Params[I];
      std::cout << "    " << I << ": " << Par.Name << " : ";
      if (Par.Kind == bundle::ParamKind::Buffer)
        std::cout << "KernelBuffer<" << bundle::scalarTypeName(Par.Type) << ">  access "
                  << bundle::accessName(Par.Mode);
      else
        std::cout << bundle::scalarTypeName(Par.Type) << "  by value";
      std::cout << "\n";
    }
    for (const auto& [Target, TM] : K.Targets) {
      std::cout << "    target " << Target << ": symbol " << TM.Symbol << ", code hash " << std::hex
                << std::setw(16) << std::setfill('0') << TM.CodeHash << std::dec
                << std::setfill(' ') << ", registers " << TM.Registers << ", spill "
                << TM.SpillBytes << " B, static shared " << TM.StaticSharedBytes << " B"
                << (TM.WaveTier.empty() ? "" : ", wave ops " + TM.WaveTier)
                << (TM.TileTier.empty() ? "" : ", tiles " + TM.TileTier)
                << (TM.TileWgmma ? " (wgmma for b tiles in shared memory)" : "")
                << (TM.DynamicSharedGranule ? ", dynamic shared in multiples of " +
                                                  std::to_string(TM.DynamicSharedGranule) + " B"
                                            : "")
                << "\n";
      printEntries(K, TM);
      if (TM.Scheduling)
        printScheduling(K, *TM.Scheduling);
    }
  }
  std::cout << "payloads: " << P.Payloads.size() << "\n";
  for (const bundle::Payload& Pl : P.Payloads) {
    std::cout << "  " << Pl.Target << ": " << Pl.Format << ", " << Pl.Bytes.size() << " bytes\n";
    if (Pl.Target == "host") {
      printHostPayload(Pl);
      continue;
    }
    for (const auto& [Key, Value] : Pl.Attributes)
      std::cout << "    " << Key << " = " << Value << "\n";
  }
  printCalibration(P.Calibration);
}

void addInspectCommand(CLI::App& App) {
  struct Options {
    std::string Input;
    bool Json = false;
  };
  auto O = std::make_shared<Options>();
  CLI::App* Cmd = App.add_subcommand("inspect", "Show a bundle's kernels, parameters, manifests "
                                                "and payloads");
  Cmd->add_option("bundle", O->Input, ".cjx bundle")->required();
  Cmd->add_flag("--json", O->Json, "Print the manifest as JSON");
  Cmd->callback([O] {
    bundle::BundleReadResult R = bundle::BundleReader::readFile(O->Input);
    if (!R.Ok) {
      std::cerr << "cajeta: error: " << R.Error << "\n";
      ExitCode = 1;
      return;
    }
    if (O->Json)
      std::cout << bundle::manifestToJson(R.Value).dump(2) << "\n";
    else {
      printSignature(R.Signature);
      printProgram(R.Value);
    }
  });
}

} // namespace cajeta::cli
