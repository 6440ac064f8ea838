// Table of built-in static methods.
#include "compiler/frontend/Builtins.h"

#include <map>
#include <set>

namespace cajeta::frontend {

using kir::IntrinsicOp;

bool isXpuClass(const std::string& Name) {
  static const std::set<std::string> Names = {"KernelBuffer",
                                              "KernelThread",
                                              "Workgroup",
                                              "KernelStream",
                                              "Event",
                                              "Kernel",
                                              "Shared",
                                              "Barrier",
                                              "Atomics",
                                              "MemoryOrder",
                                              "Wave",
                                              "Tile",
                                              "Group",
                                              "CooperativeMatrix",
                                              "Device",
                                              "Capability",
                                              "AsyncCopy",
                                              "Texture2D",
                                              "Sampler",
                                              "AccelerationStructure",
                                              "RayQuery",
                                              "RayFlags",
                                              "KernelSubmission",
                                              "Scheduler"};
  return Names.count(Name) != 0;
}

bool isBuiltinClass(const std::string& Name) {
  return Name == "KernelThread" || Name == "Workgroup" || Name == "Math" || Name == "Float" ||
         Name == "Double";
}

bool builtinNeedsImport(const std::string& Name) {
  return Name != "Math" && Name != "Float" && Name != "Double";
}

std::optional<std::string> unsupportedXpuClass(const std::string& Name) {
  if (Name == "Texture2D" || Name == "Sampler")
    return "textures are not implemented yet";
  return std::nullopt;
}

std::optional<BuiltinMethod> findBuiltin(const std::string& Class, const std::string& Method) {
  static const std::map<std::pair<std::string, std::string>, BuiltinMethod> Table = [] {
    std::map<std::pair<std::string, std::string>, BuiltinMethod> T;
    const char* Axis[] = {"X", "Y", "Z"};
    const char* Lower[] = {"x", "y", "z"};
    for (uint8_t D = 0; D < 3; ++D) {
      T[{"KernelThread", Lower[D]}] = {IntrinsicOp::LocalId, D, 0, true};
      T[{"KernelThread", std::string("globalId") + Axis[D]}] = {IntrinsicOp::GlobalId, D, 0, true};
      T[{"KernelThread", std::string("globalSize") + Axis[D]}] = {IntrinsicOp::GlobalSize, D, 0,
                                                                  true};
      T[{"Workgroup", Lower[D]}] = {IntrinsicOp::GroupId, D, 0, true};
      T[{"Workgroup", std::string("dim") + Axis[D]}] = {IntrinsicOp::GroupDim, D, 0, true};
      T[{"Workgroup", std::string("count") + Axis[D]}] = {IntrinsicOp::GridDim, D, 0, true};
    }
    struct M {
      const char* Name;
      IntrinsicOp Op;
      unsigned Arity;
    };
    const M Math[] = {{"sqrt", IntrinsicOp::Sqrt, 1}, {"rsqrt", IntrinsicOp::Rsqrt, 1},
                      {"exp", IntrinsicOp::Exp, 1},   {"log", IntrinsicOp::Log, 1},
                      {"pow", IntrinsicOp::Pow, 2},   {"sin", IntrinsicOp::Sin, 1},
                      {"cos", IntrinsicOp::Cos, 1},   {"tanh", IntrinsicOp::Tanh, 1},
                      {"abs", IntrinsicOp::Abs, 1},   {"min", IntrinsicOp::Min, 2},
                      {"max", IntrinsicOp::Max, 2},   {"floor", IntrinsicOp::Floor, 1},
                      {"ceil", IntrinsicOp::Ceil, 1}, {"fma", IntrinsicOp::Fma, 3}};
    for (const M& X : Math)
      T[{"Math", X.Name}] = {X.Op, 0, X.Arity, false};
    // java.lang's raw bit views: the same bits as another type (no NaN canonicalisation).
    T[{"Float", "floatToRawIntBits"}] = {IntrinsicOp::Bitcast, 0, 1, false};
    T[{"Float", "intBitsToFloat"}] = {IntrinsicOp::Bitcast, 0, 1, false};
    T[{"Double", "doubleToRawLongBits"}] = {IntrinsicOp::Bitcast, 0, 1, false};
    T[{"Double", "longBitsToDouble"}] = {IntrinsicOp::Bitcast, 0, 1, false};
    return T;
  }();
  auto It = Table.find({Class, Method});
  if (It == Table.end())
    return std::nullopt;
  return It->second;
}

} // namespace cajeta::frontend
