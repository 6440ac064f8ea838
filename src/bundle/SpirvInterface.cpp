#include "bundle/SpirvInterface.h"

#include "bundle/BundleFormat.h"

#include <map>

namespace cajeta::bundle {
namespace {

// The few opcodes, decorations and storage classes the interface needs (SPIR-V 1.3 §3).
constexpr uint32_t Magic = 0x07230203;
constexpr uint32_t OpEntryPoint = 15, OpVariable = 59, OpDecorate = 71, OpModuleProcessed = 330;
constexpr uint32_t ExecutionModelGLCompute = 5;
constexpr uint32_t DecorationBinding = 33, DecorationDescriptorSet = 34;
constexpr uint32_t StorageUniform = 2, StoragePushConstant = 9, StorageStorageBuffer = 12;

/// The literal string of Count - First words at word First of the instruction at I; false when it
/// has no terminating NUL.
template <typename WordFn>
bool literalString(WordFn Word, size_t I, size_t First, size_t Count, std::string& Out) {
  Out.clear();
  for (size_t W = I + First; W < I + Count; ++W)
    for (unsigned B = 0; B < 4; ++B) {
      char C = char(Word(W) >> (8 * B));
      if (C == 0)
        return true;
      Out += C;
    }
  return false;
}

} // namespace

bool SpirvInterface::read(const uint8_t* Data, size_t Size, SpirvInterface& Out,
                          std::string& Error) {
  Out = SpirvInterface();
  if (Size < 20 || Size % 4 || format::loadU32(Data) != Magic) {
    Error = "not a SPIR-V module (" + std::to_string(Size) + " bytes)";
    return false;
  }
  size_t Words = Size / 4;
  auto Word = [&](size_t I) { return format::loadU32(Data + 4 * I); };
  std::map<uint32_t, uint32_t> Sets, Bindings, Classes; // by variable id
  for (size_t I = 5; I < Words;) {
    uint32_t Head = Word(I);
    uint32_t Count = Head >> 16, Op = Head & 0xffff;
    if (Count == 0 || I + Count > Words) {
      Error = "an instruction at word " + std::to_string(I) + " runs past the module's end";
      return false;
    }
    if (Op == OpEntryPoint && Count >= 3 && Word(I + 1) == ExecutionModelGLCompute) {
      std::string Name;
      if (!literalString(Word, I, 3, Count, Name)) {
        Error = "an OpEntryPoint name that does not end";
        return false;
      }
      Out.ComputeEntries.insert(Name);
    } else if (Op == OpModuleProcessed && Count >= 2) {
      std::string Text;
      if (!literalString(Word, I, 1, Count, Text)) {
        Error = "an OpModuleProcessed string that does not end";
        return false;
      }
      static const std::string Prefix = "cajeta-abi ";
      if (Text.compare(0, Prefix.size(), Prefix) == 0) {
        Out.AbiRecord = Text.substr(Prefix.size());
        Out.HasAbiRecord = true;
      }
    } else if (Op == OpDecorate && Count == 4 && Word(I + 2) == DecorationDescriptorSet) {
      Sets[Word(I + 1)] = Word(I + 3);
    } else if (Op == OpDecorate && Count == 4 && Word(I + 2) == DecorationBinding) {
      Bindings[Word(I + 1)] = Word(I + 3);
    } else if (Op == OpVariable && Count >= 4) {
      Classes[Word(I + 2)] = Word(I + 3);
    }
    I += Count;
  }
  for (const auto& [Id, Class] : Classes) {
    if (Class == StoragePushConstant) {
      Out.PushConstants = true;
      continue;
    }
    if (Class != StorageStorageBuffer && Class != StorageUniform)
      continue;
    auto B = Bindings.find(Id);
    auto S = Sets.find(Id);
    std::pair<uint32_t, uint32_t> Where{S == Sets.end() ? 0 : S->second,
                                        B == Bindings.end() ? 0 : B->second};
    (Class == StorageStorageBuffer ? Out.StorageBindings : Out.UniformBindings).insert(Where);
  }
  return true;
}

} // namespace cajeta::bundle
