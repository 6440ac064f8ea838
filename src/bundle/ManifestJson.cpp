// Converts a Program's manifest to JSON and back, validating every field on the way in.
#include "bundle/ManifestJson.h"

#include "bundle/AccelLayout.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>
#include <set>

namespace cajeta::bundle {

using nlohmann::json;

namespace {

std::string codeHashHex(uint64_t Hash) {
  char Buf[17];
  std::snprintf(Buf, sizeof(Buf), "%016llx", static_cast<unsigned long long>(Hash));
  return Buf;
}

std::optional<uint64_t> parseCodeHashHex(const std::string& Text) {
  if (Text.empty() || Text.size() > 16)
    return std::nullopt;
  uint64_t Value = 0;
  const char* End = Text.data() + Text.size();
  auto [Ptr, Ec] = std::from_chars(Text.data(), End, Value, 16);
  if (Ec != std::errc() || Ptr != End)
    return std::nullopt;
  return Value;
}

/// Integral coefficients as JSON integers ("4", not "4.0").
json numberToJson(double V) {
  if (V == std::nearbyint(V) && std::fabs(V) < 9007199254740992.0)
    return V < 0 ? json(static_cast<int64_t>(V)) : json(static_cast<uint64_t>(V));
  return json(V);
}

/// A cost: an array of terms {"coefficient", "variables"}, or {"unknown": reason}.
json costToJson(const CostExpr& C) {
  if (!C.Unknown.empty())
    return json{{"unknown", C.Unknown}};
  json Terms = json::array();
  for (const CostTerm& T : C.Terms)
    Terms.push_back(json{{"coefficient", numberToJson(T.Coefficient)}, {"variables", T.Variables}});
  return Terms;
}

json schedulingToJson(const SchedulingManifest& S) {
  json Buffers = json::array();
  for (const BufferSchedule& B : S.Buffers)
    Buffers.push_back(json{{"param", B.Param},
                           {"accumulates", B.Accumulates},
                           {"streaming", B.Streaming},
                           {"bytesRead", costToJson(B.BytesRead)},
                           {"bytesWritten", costToJson(B.BytesWritten)}});
  return json{{"bytesRead", costToJson(S.BytesRead)},
              {"bytesWritten", costToJson(S.BytesWritten)},
              {"operations", costToJson(S.Operations)},
              {"buffers", std::move(Buffers)},
              {"tileRows", S.TileRows},
              {"tileCols", S.TileCols},
              {"restartable", S.Restartable},
              {"yieldPoints", S.YieldPoints}};
}

/// {"param": index} for a scalar parameter's value, {"value": n} for a constant.
json extentToJson(const TensorMapExtent& E) {
  if (E.Param >= 0)
    return json{{"param", uint32_t(E.Param)}};
  return json{{"value", E.Value}};
}

json tensorMapToJson(const TensorMapRecipe& R) {
  json J{{"bufferParam", R.BufferParam},   {"height", extentToJson(R.Height)},
         {"width", extentToJson(R.Width)}, {"stride", extentToJson(R.Stride)},
         {"elemBytes", R.ElemBytes},       {"boxCols", R.BoxCols},
         {"boxRows", R.BoxRows},           {"swizzle128", R.Swizzle128}};
  if (R.Blocks != TensorMapRecipe::NoBlocks) // absent: the 2D view
    J["blocks"] = R.Blocks;
  return J;
}

json targetToJson(const TargetManifest& T) {
  json J{{"symbol", T.Symbol},
         {"codeHash", codeHashHex(T.CodeHash)},
         {"registers", T.Registers},
         {"spillBytes", T.SpillBytes},
         {"staticSharedBytes", T.StaticSharedBytes}};
  if (!T.WaveTier.empty())
    J["waveTier"] = T.WaveTier;
  if (!T.TileTier.empty()) {
    J["tileTier"] = T.TileTier;
    J["tileWaves"] = T.TileWaves;
  }
  if (!T.StepSymbol.empty()) {
    J["stepSymbol"] = T.StepSymbol;
    J["stepCountParam"] = T.StepCountParam;
    if (!T.OnceSymbol.empty())
      J["onceSymbol"] = T.OnceSymbol;
    if (T.OnceAnyGrid)
      J["onceAnyGrid"] = true;
  }
  if (T.GroupShapeFree)
    J["groupShapeFree"] = true;
  if (T.GroupLoops)
    J["groupLoops"] = true;
  if (!T.QuadSymbol.empty()) {
    J["quadSymbol"] = T.QuadSymbol;
    J["quadCountParam"] = T.QuadCountParam;
    if (T.QuadAnyGrid)
      J["quadAnyGrid"] = true;
  }
  if (T.DynamicSharedGranule)
    J["dynamicSharedGranule"] = T.DynamicSharedGranule;
  if (T.DynamicSharedPrefix)
    J["dynamicSharedPrefix"] = T.DynamicSharedPrefix;
  if (!T.TmaSymbol.empty()) {
    J["tmaSymbol"] = T.TmaSymbol;
    json Maps = json::array();
    for (const TensorMapRecipe& R : T.TensorMaps)
      Maps.push_back(tensorMapToJson(R));
    J["tensorMaps"] = std::move(Maps);
  }
  if (T.TileWgmma)
    J["tileWgmma"] = true;
  if (T.Scheduling)
    J["scheduling"] = schedulingToJson(*T.Scheduling);
  return J;
}

/// A POD's fields and layout and a function's tag table are written for those kinds only.
json paramToJson(const ParamInfo& P) {
  json J{{"name", P.Name},
         {"kind", paramKindName(P.Kind)},
         {"type", scalarTypeName(P.Type)},
         {"access", accessName(P.Mode)}};
  if (P.Kind == ParamKind::Pod) {
    json Fields = json::array();
    for (const PodFieldInfo& F : P.Fields)
      Fields.push_back(
          json{{"name", F.Name}, {"type", scalarTypeName(F.Type)}, {"offset", F.Offset}});
    J["podName"] = P.PodName;
    J["fields"] = std::move(Fields);
    J["podSize"] = P.PodSize;
    J["podAlign"] = P.PodAlign;
  }
  if (P.Kind == ParamKind::Function)
    J["functionTable"] = P.FunctionTable;
  if (P.Accel) {
    J["accel"] = true;
    J["accelLayout"] = accel::Version;
  }
  return J;
}

json kernelToJson(const KernelInfo& K) {
  json Params = json::array();
  for (const ParamInfo& P : K.Params)
    Params.push_back(paramToJson(P));
  json Targets = json::object();
  for (const auto& [Name, T] : K.Targets)
    Targets[Name] = targetToJson(T);
  return json{{"name", K.Name},
              {"sourceFile", K.SourceFile},
              {"sourceLine", K.SourceLine},
              {"params", std::move(Params)},
              {"targets", std::move(Targets)},
              {"sharedArrays", K.SharedArrays},
              {"dynamicShared", K.DynamicShared},
              {"usesWave", K.UsesWave},
              {"backends", K.Backends}};
}

json payloadToJson(const Payload& P) {
  json Attributes = json::object();
  for (const auto& [Key, Value] : P.Attributes)
    Attributes[Key] = Value;
  return json{{"target", P.Target},
              {"format", P.Format},
              {"attributes", std::move(Attributes)},
              {"size", static_cast<uint64_t>(P.Bytes.size())}};
}

/// Reads typed fields out of JSON objects, reporting the first problem with its field path.
class FieldReader {
public:
  explicit FieldReader(std::string& Error) : Error(Error) {}

  static std::string join(const std::string& Parent, const std::string& Key) {
    return Parent.empty() ? Key : Parent + "." + Key;
  }
  static std::string index(const std::string& Parent, size_t I) {
    return Parent + "[" + std::to_string(I) + "]";
  }

  bool fail(const std::string& Path, const std::string& Problem) {
    Error = "manifest field '" + Path + "' " + Problem;
    return false;
  }

  /// The member \p Key of object \p Obj (at \p ObjPath), which must have type \p Expected.
  const json* member(const json& Obj, const std::string& ObjPath, const char* Key,
                     json::value_t Expected, const char* ExpectedName) {
    std::string Path = join(ObjPath, Key);
    auto It = Obj.find(Key);
    if (It == Obj.end()) {
      fail(Path, "is missing");
      return nullptr;
    }
    if (It->type() != Expected) {
      fail(Path, std::string("must be ") + ExpectedName + ", got " + It->type_name());
      return nullptr;
    }
    return &*It;
  }

  bool string(const json& Obj, const std::string& ObjPath, const char* Key, std::string& Out) {
    const json* V = member(Obj, ObjPath, Key, json::value_t::string, "a string");
    if (!V)
      return false;
    Out = V->get_ref<const std::string&>();
    return true;
  }

  bool nonEmptyString(const json& Obj, const std::string& ObjPath, const char* Key,
                      std::string& Out) {
    if (!string(Obj, ObjPath, Key, Out))
      return false;
    if (Out.empty())
      return fail(join(ObjPath, Key), "must not be empty");
    return true;
  }

  bool u64(const json& Obj, const std::string& ObjPath, const char* Key, uint64_t& Out) {
    auto It = Obj.find(Key);
    if (It == Obj.end())
      return fail(join(ObjPath, Key), "is missing");
    if (!It->is_number_unsigned())
      return fail(join(ObjPath, Key),
                  std::string("must be an unsigned integer, got ") + numberTypeName(*It));
    Out = It->get<uint64_t>();
    return true;
  }

  bool u32(const json& Obj, const std::string& ObjPath, const char* Key, uint32_t& Out) {
    uint64_t Wide = 0;
    if (!u64(Obj, ObjPath, Key, Wide))
      return false;
    if (Wide > std::numeric_limits<uint32_t>::max())
      return fail(join(ObjPath, Key), "is " + std::to_string(Wide) + ", above 2^32-1");
    Out = static_cast<uint32_t>(Wide);
    return true;
  }

  bool boolean(const json& Obj, const std::string& ObjPath, const char* Key, bool& Out) {
    const json* V = member(Obj, ObjPath, Key, json::value_t::boolean, "a boolean");
    if (!V)
      return false;
    Out = V->get<bool>();
    return true;
  }

  /// An array of non-empty strings, each distinct.
  bool nameList(const json& Obj, const std::string& ObjPath, const char* Key,
                std::vector<std::string>& Out) {
    const json* V = array(Obj, ObjPath, Key);
    if (!V)
      return false;
    std::string Path = join(ObjPath, Key);
    std::set<std::string> Seen;
    for (size_t I = 0; I < V->size(); ++I) {
      const json& E = (*V)[I];
      if (!E.is_string())
        return fail(index(Path, I), std::string("must be a string, got ") + E.type_name());
      const std::string& Name = E.get_ref<const std::string&>();
      if (Name.empty())
        return fail(index(Path, I), "must not be empty");
      if (!Seen.insert(Name).second)
        return fail(index(Path, I), "repeats '" + Name + "'");
      Out.push_back(Name);
    }
    return true;
  }

  const json* array(const json& Obj, const std::string& ObjPath, const char* Key) {
    return member(Obj, ObjPath, Key, json::value_t::array, "an array");
  }

  const json* object(const json& Obj, const std::string& ObjPath, const char* Key) {
    return member(Obj, ObjPath, Key, json::value_t::object, "an object");
  }

  /// Adds " (kernel 'Name')" to the error unless it names the kernel already.
  void nameKernel(const std::string& Name) {
    std::string Tag = "kernel '" + Name + "'";
    if (Error.find(Tag) == std::string::npos)
      Error += " (" + Tag + ")";
  }

  bool requireObject(const json& V, const std::string& Path) {
    if (V.is_object())
      return true;
    return fail(Path, std::string("must be an object, got ") + V.type_name());
  }

private:
  static std::string numberTypeName(const json& V) {
    if (V.is_number_integer())
      return "a negative integer";
    if (V.is_number_float())
      return "a floating-point number";
    return V.type_name();
  }

  std::string& Error;
};

bool parsePodField(FieldReader& R, const json& J, const std::string& Path, PodFieldInfo& Out) {
  if (!R.requireObject(J, Path))
    return false;
  std::string Type;
  if (!R.nonEmptyString(J, Path, "name", Out.Name) || !R.string(J, Path, "type", Type) ||
      !R.u32(J, Path, "offset", Out.Offset))
    return false;
  std::optional<ScalarType> T = parseScalarType(Type);
  if (!T)
    return R.fail(FieldReader::join(Path, "type"), "has unknown scalar type '" + Type + "'");
  Out.Type = *T;
  return true;
}

/// The POD's class name, fields and C layout; every field must lie inside the struct at an
/// offset aligned for its type.
bool parsePodLayout(FieldReader& R, const json& J, const std::string& Path, ParamInfo& Out) {
  if (!R.nonEmptyString(J, Path, "podName", Out.PodName) ||
      !R.u32(J, Path, "podSize", Out.PodSize) || !R.u32(J, Path, "podAlign", Out.PodAlign))
    return false;
  if (Out.PodSize == 0)
    return R.fail(FieldReader::join(Path, "podSize"), "must not be 0");
  if (Out.PodAlign == 0 || (Out.PodAlign & (Out.PodAlign - 1)) || Out.PodAlign > 64)
    return R.fail(FieldReader::join(Path, "podAlign"),
                  "must be a power of two up to 64, got " + std::to_string(Out.PodAlign));
  if (Out.PodSize % Out.PodAlign)
    return R.fail(FieldReader::join(Path, "podSize"), "is " + std::to_string(Out.PodSize) +
                                                          ", not a multiple of podAlign " +
                                                          std::to_string(Out.PodAlign));
  std::string FieldsPath = FieldReader::join(Path, "fields");
  const json* Fields = R.array(J, Path, "fields");
  if (!Fields)
    return false;
  std::set<std::string> Names;
  for (size_t I = 0; I < Fields->size(); ++I) {
    std::string FieldPath = FieldReader::index(FieldsPath, I);
    PodFieldInfo F;
    if (!parsePodField(R, (*Fields)[I], FieldPath, F))
      return false;
    if (!Names.insert(F.Name).second)
      return R.fail(FieldPath + ".name", "repeats field name '" + F.Name + "'");
    uint64_t Size = scalarTypeSize(F.Type);
    if (uint64_t(F.Offset) + Size > Out.PodSize)
      return R.fail(FieldPath + ".offset",
                    "is " + std::to_string(F.Offset) + ": a " + scalarTypeName(F.Type) +
                        " there ends past podSize " + std::to_string(Out.PodSize));
    if (F.Offset % Size)
      return R.fail(FieldPath + ".offset", "is " + std::to_string(F.Offset) + ", not aligned for " +
                                               scalarTypeName(F.Type));
    Out.Fields.push_back(std::move(F));
  }
  return true;
}

bool parseParam(FieldReader& R, const json& J, const std::string& Path, ParamInfo& Out) {
  if (!R.requireObject(J, Path))
    return false;
  std::string Kind, Type, Mode;
  if (!R.string(J, Path, "name", Out.Name) || !R.string(J, Path, "kind", Kind) ||
      !R.string(J, Path, "type", Type) || !R.string(J, Path, "access", Mode))
    return false;
  std::optional<ParamKind> K = parseParamKind(Kind);
  if (!K)
    return R.fail(FieldReader::join(Path, "kind"), "has unknown parameter kind '" + Kind + "'");
  std::optional<ScalarType> T = parseScalarType(Type);
  if (!T)
    return R.fail(FieldReader::join(Path, "type"), "has unknown scalar type '" + Type + "'");
  std::optional<Access> A = parseAccess(Mode);
  if (!A)
    return R.fail(FieldReader::join(Path, "access"), "has unknown access mode '" + Mode + "'");
  Out.Kind = *K;
  Out.Type = *T;
  Out.Mode = *A;
  // Optional: an AccelerationStructure is a uint32 buffer; older manifests have no key.
  if (J.contains("accel") && !R.boolean(J, Path, "accel", Out.Accel))
    return false;
  if (Out.Accel && (Out.Kind != ParamKind::Buffer || Out.Type != ScalarType::U32))
    return R.fail(FieldReader::join(Path, "accel"), "is true but the parameter is a " + Kind +
                                                        " of " + Type + ", not a buffer of uint32");
  if (Out.Accel) {
    // The kernel's walk reads the BVH words of one layout version; the runtime builds its own.
    // Manifests from before the key read version 1.
    uint32_t Layout = 1;
    if (J.contains("accelLayout") && !R.u32(J, Path, "accelLayout", Layout))
      return false;
    if (Layout != accel::Version)
      return R.fail(FieldReader::join(Path, "accelLayout"),
                    "is " + std::to_string(Layout) +
                        ": the kernel reads acceleration structures of that layout version, this "
                        "runtime builds version " +
                        std::to_string(accel::Version) + "; rebuild the bundle with this compiler");
  }
  if (Out.Kind == ParamKind::Pod)
    return parsePodLayout(R, J, Path, Out);
  if (Out.Kind == ParamKind::Function)
    return R.nameList(J, Path, "functionTable", Out.FunctionTable);
  return true;
}

/// A cost of kernel K: its variables must be K's scalar parameters, "items" or "groups".
bool parseCost(FieldReader& R, const json& J, const std::string& ObjPath, const char* Key,
               const KernelInfo& K, CostExpr& Out) {
  std::string Path = FieldReader::join(ObjPath, Key);
  auto It = J.find(Key);
  if (It == J.end())
    return R.fail(Path, "is missing");
  if (It->is_object())
    return R.nonEmptyString(*It, Path, "unknown", Out.Unknown);
  if (!It->is_array())
    return R.fail(Path, std::string("must be an array of terms or an object with \"unknown\", "
                                    "got ") +
                            It->type_name());
  for (size_t I = 0; I < It->size(); ++I) {
    const json& T = (*It)[I];
    std::string TermPath = FieldReader::index(Path, I);
    if (!R.requireObject(T, TermPath))
      return false;
    std::string CoefPath = FieldReader::join(TermPath, "coefficient");
    auto C = T.find("coefficient");
    if (C == T.end())
      return R.fail(CoefPath, "is missing");
    if (!C->is_number())
      return R.fail(CoefPath, std::string("must be a number, got ") + C->type_name());
    CostTerm Term;
    Term.Coefficient = C->get<double>();
    if (!std::isfinite(Term.Coefficient))
      return R.fail(CoefPath, "must be a finite number");
    std::string VarsPath = FieldReader::join(TermPath, "variables");
    const json* Vars = R.array(T, TermPath, "variables");
    if (!Vars)
      return false;
    for (size_t V = 0; V < Vars->size(); ++V) {
      const json& Name = (*Vars)[V];
      if (!Name.is_string())
        return R.fail(FieldReader::index(VarsPath, V),
                      std::string("must be a string, got ") + Name.type_name());
      const std::string& N = Name.get_ref<const std::string&>();
      bool Known = N == "items" || N == "groups";
      for (const ParamInfo& P : K.Params)
        Known |= P.Kind == ParamKind::Scalar && P.Name == N;
      if (!Known)
        return R.fail(FieldReader::index(VarsPath, V),
                      "names '" + N + "', which is neither a scalar parameter of kernel '" +
                          K.Name + "' nor items or groups");
      Term.Variables.push_back(N);
    }
    Out.Terms.push_back(std::move(Term));
  }
  return true;
}

bool parseScheduling(FieldReader& R, const json& J, const std::string& Path, const KernelInfo& K,
                     SchedulingManifest& Out) {
  if (!R.requireObject(J, Path))
    return false;
  if (!parseCost(R, J, Path, "bytesRead", K, Out.BytesRead) ||
      !parseCost(R, J, Path, "bytesWritten", K, Out.BytesWritten) ||
      !parseCost(R, J, Path, "operations", K, Out.Operations) ||
      !R.u32(J, Path, "tileRows", Out.TileRows) || !R.u32(J, Path, "tileCols", Out.TileCols) ||
      !R.boolean(J, Path, "restartable", Out.Restartable) ||
      !R.u32(J, Path, "yieldPoints", Out.YieldPoints))
    return false;
  std::string BuffersPath = FieldReader::join(Path, "buffers");
  const json* Buffers = R.array(J, Path, "buffers");
  if (!Buffers)
    return false;
  std::set<uint32_t> Seen;
  for (size_t I = 0; I < Buffers->size(); ++I) {
    const json& B = (*Buffers)[I];
    std::string BufferPath = FieldReader::index(BuffersPath, I);
    BufferSchedule S;
    if (!R.requireObject(B, BufferPath) || !R.u32(B, BufferPath, "param", S.Param))
      return false;
    std::string ParamPath = FieldReader::join(BufferPath, "param");
    if (S.Param >= K.Params.size())
      return R.fail(ParamPath, "is " + std::to_string(S.Param) + " but kernel '" + K.Name +
                                   "' has " + std::to_string(K.Params.size()) + " parameters");
    if (K.Params[S.Param].Kind != ParamKind::Buffer)
      return R.fail(ParamPath, "is " + std::to_string(S.Param) + ", parameter '" +
                                   K.Params[S.Param].Name + "' of kernel '" + K.Name +
                                   "', which is not a buffer");
    if (!Seen.insert(S.Param).second)
      return R.fail(ParamPath, "repeats parameter " + std::to_string(S.Param));
    if (!R.boolean(B, BufferPath, "accumulates", S.Accumulates) ||
        !R.boolean(B, BufferPath, "streaming", S.Streaming) ||
        !parseCost(R, B, BufferPath, "bytesRead", K, S.BytesRead) ||
        !parseCost(R, B, BufferPath, "bytesWritten", K, S.BytesWritten))
      return false;
    Out.Buffers.push_back(std::move(S));
  }
  return true;
}

/// "is 5 but kernel 'K.f' has 4 parameters" or "is 1, parameter 'x' of kernel 'K.f', which is
/// not <What>", for a field naming parameter Param that must be Wanted.
bool checkParamRef(FieldReader& R, const std::string& Path, uint32_t Param, const KernelInfo& K,
                   bool Wanted, const char* What) {
  if (Param >= K.Params.size())
    return R.fail(Path, "is " + std::to_string(Param) + " but kernel '" + K.Name + "' has " +
                            std::to_string(K.Params.size()) + " parameters");
  if (!Wanted)
    return R.fail(Path, "is " + std::to_string(Param) + ", parameter '" + K.Params[Param].Name +
                            "' of kernel '" + K.Name + "', which is not " + What);
  return true;
}

bool isIntegerScalar(const ParamInfo& P) {
  return P.Kind == ParamKind::Scalar && isIntegerType(P.Type);
}

/// A tensor map's extent: {"param": i}, an integer scalar parameter of K whose launch value it
/// is, or {"value": n}, a constant.
bool parseExtent(FieldReader& R, const json& J, const std::string& ObjPath, const char* Key,
                 const KernelInfo& K, TensorMapExtent& Out) {
  std::string Path = FieldReader::join(ObjPath, Key);
  const json* E = R.object(J, ObjPath, Key);
  if (!E)
    return false;
  if (E->contains("param") == E->contains("value"))
    return R.fail(Path, "must have one of \"param\" and \"value\"");
  if (E->contains("value"))
    return R.u64(*E, Path, "value", Out.Value);
  uint32_t Param = 0;
  if (!R.u32(*E, Path, "param", Param))
    return false;
  bool Fits = Param < K.Params.size() && isIntegerScalar(K.Params[Param]);
  if (!checkParamRef(R, FieldReader::join(Path, "param"), Param, K, Fits, "an integer scalar"))
    return false;
  Out.Param = int32_t(Param);
  return true;
}

/// One tensor map of a TMA entry: a 2D view of a buffer parameter whose elements it copies
/// (elemBytes, 1, 2 or 4, is the buffer's element size) in boxes of at most 256 a side.
bool parseTensorMap(FieldReader& R, const json& J, const std::string& Path, const KernelInfo& K,
                    TensorMapRecipe& Out) {
  if (!R.requireObject(J, Path) || !R.u32(J, Path, "bufferParam", Out.BufferParam))
    return false;
  uint32_t Buffer = Out.BufferParam;
  bool IsBuffer = Buffer < K.Params.size() && K.Params[Buffer].Kind == ParamKind::Buffer;
  if (!checkParamRef(R, FieldReader::join(Path, "bufferParam"), Buffer, K, IsBuffer, "a buffer"))
    return false;
  if (!parseExtent(R, J, Path, "height", K, Out.Height) ||
      !parseExtent(R, J, Path, "width", K, Out.Width) ||
      !parseExtent(R, J, Path, "stride", K, Out.Stride) ||
      !R.u32(J, Path, "elemBytes", Out.ElemBytes) || !R.u32(J, Path, "boxCols", Out.BoxCols) ||
      !R.u32(J, Path, "boxRows", Out.BoxRows) || !R.boolean(J, Path, "swizzle128", Out.Swizzle128))
    return false;
  std::string ElemPath = FieldReader::join(Path, "elemBytes");
  if (Out.ElemBytes != 1 && Out.ElemBytes != 2 && Out.ElemBytes != 4)
    return R.fail(ElemPath, "is " + std::to_string(Out.ElemBytes) + ", not 1, 2 or 4");
  const ParamInfo& B = K.Params[Buffer];
  if (Out.ElemBytes != scalarTypeSize(B.Type))
    return R.fail(ElemPath, "is " + std::to_string(Out.ElemBytes) + " but parameter '" + B.Name +
                                "' is a buffer of " + scalarTypeName(B.Type));
  for (auto [Key, Side] : {std::pair{"boxCols", Out.BoxCols}, std::pair{"boxRows", Out.BoxRows}})
    if (Side == 0 || Side > 256)
      return R.fail(FieldReader::join(Path, Key),
                    "is " + std::to_string(Side) + ", not between 1 and 256");
  if (J.contains("blocks") && !R.u32(J, Path, "blocks", Out.Blocks))
    return false;
  if (Out.Blocks > TensorMapRecipe::FourAtomRows)
    return R.fail(FieldReader::join(Path, "blocks"),
                  "is " + std::to_string(Out.Blocks) + ", not 0, 1, 2 or 3");
  if (Out.Blocks != TensorMapRecipe::NoBlocks &&
      (!Out.Swizzle128 || Out.BoxCols * Out.ElemBytes != 128 ||
       Out.BoxRows % (Out.Blocks == TensorMapRecipe::PairedRows ? 16 : 8)))
    return R.fail(FieldReader::join(Path, "blocks"),
                  "names blocks of swizzled rows of several atoms for a box of " +
                      std::to_string(Out.BoxRows) + " x " + std::to_string(Out.BoxCols) +
                      (Out.Swizzle128 ? "" : ", not swizzled"));
  return true;
}

/// A TMA entry (tmaSymbol) and the tensor maps it takes, at least one; neither in older bundles.
bool parseTmaEntry(FieldReader& R, const json& J, const std::string& Path, const KernelInfo& K,
                   TargetManifest& Out) {
  if (!J.contains("tmaSymbol")) {
    if (J.contains("tensorMaps"))
      return R.fail(FieldReader::join(Path, "tensorMaps"), "is present without \"tmaSymbol\"");
    return true;
  }
  if (!R.nonEmptyString(J, Path, "tmaSymbol", Out.TmaSymbol))
    return false;
  std::string MapsPath = FieldReader::join(Path, "tensorMaps");
  const json* Maps = R.array(J, Path, "tensorMaps");
  if (!Maps)
    return false;
  if (Maps->empty())
    return R.fail(MapsPath, "must not be empty");
  for (size_t I = 0; I < Maps->size(); ++I) {
    TensorMapRecipe M;
    if (!parseTensorMap(R, (*Maps)[I], FieldReader::index(MapsPath, I), K, M))
      return false;
    Out.TensorMaps.push_back(M);
  }
  return true;
}

bool parseTarget(FieldReader& R, const json& J, const std::string& Path, const KernelInfo& K,
                 TargetManifest& Out) {
  if (!R.requireObject(J, Path))
    return false;
  std::string Hash;
  if (!R.string(J, Path, "symbol", Out.Symbol) || !R.string(J, Path, "codeHash", Hash))
    return false;
  std::optional<uint64_t> HashValue = parseCodeHashHex(Hash);
  if (!HashValue)
    return R.fail(FieldReader::join(Path, "codeHash"),
                  "must be 1 to 16 hex digits, got '" + Hash + "'");
  Out.CodeHash = *HashValue;
  if (!R.u32(J, Path, "registers", Out.Registers) ||
      !R.u32(J, Path, "spillBytes", Out.SpillBytes) ||
      !R.u32(J, Path, "staticSharedBytes", Out.StaticSharedBytes))
    return false;
  if (J.contains("stepSymbol")) { // optional: CPU kernels with a grid-stride loop
    uint32_t Param = 0;
    if (!R.nonEmptyString(J, Path, "stepSymbol", Out.StepSymbol) ||
        !R.u32(J, Path, "stepCountParam", Param))
      return false;
    Out.StepCountParam = int32_t(Param);
    if (J.contains("onceSymbol") && // optional: compilers since 0.13
        !R.nonEmptyString(J, Path, "onceSymbol", Out.OnceSymbol))
      return false;
    if (J.contains("onceAnyGrid") && // optional: compilers since 0.14.27
        !R.boolean(J, Path, "onceAnyGrid", Out.OnceAnyGrid))
      return false;
  }
  if (J.contains("quadSymbol")) { // optional: GPU element-wise kernels, compilers since 0.15
    uint32_t Param = 0;
    if (!R.nonEmptyString(J, Path, "quadSymbol", Out.QuadSymbol) ||
        !R.u32(J, Path, "quadCountParam", Param))
      return false;
    Out.QuadCountParam = int32_t(Param);
    if (J.contains("quadAnyGrid") && !R.boolean(J, Path, "quadAnyGrid", Out.QuadAnyGrid))
      return false;
  }
  if (J.contains("tileWgmma") && // optional: compilers since 0.16
      !R.boolean(J, Path, "tileWgmma", Out.TileWgmma))
    return false;
  if (J.contains("dynamicSharedGranule") && // optional: compilers since 0.16
      !R.u32(J, Path, "dynamicSharedGranule", Out.DynamicSharedGranule))
    return false;
  if (J.contains("dynamicSharedPrefix") && // optional: compilers since 0.27
      !R.u32(J, Path, "dynamicSharedPrefix", Out.DynamicSharedPrefix))
    return false;
  if (J.contains("groupShapeFree") && // optional: compilers since 0.16.2
      !R.boolean(J, Path, "groupShapeFree", Out.GroupShapeFree))
    return false;
  if (J.contains("groupLoops") && // optional: compilers since 0.28.3
      !R.boolean(J, Path, "groupLoops", Out.GroupLoops))
    return false;
  if (!parseTmaEntry(R, J, Path, K, Out)) // optional: sm_90a block copies through the TMA
    return false;
  if (J.contains("scheduling")) { // optional: absent in bundles of older compilers
    SchedulingManifest S;
    if (!parseScheduling(R, J.at("scheduling"), FieldReader::join(Path, "scheduling"), K, S)) {
      R.nameKernel(K.Name);
      return false;
    }
    Out.Scheduling = std::move(S);
  }
  if (J.contains("tileTier")) { // optional: written for kernels that use tiles
    if (!R.string(J, Path, "tileTier", Out.TileTier) || !R.u32(J, Path, "tileWaves", Out.TileWaves))
      return false;
    if (Out.TileTier != "native" && Out.TileTier != "portable")
      return R.fail(FieldReader::join(Path, "tileTier"),
                    "must be \"native\" or \"portable\", got '" + Out.TileTier + "'");
  }
  if (!J.contains("waveTier")) // optional: written for kernels that use wave ops
    return true;
  if (!R.string(J, Path, "waveTier", Out.WaveTier))
    return false;
  if (Out.WaveTier != "native" && Out.WaveTier != "portable")
    return R.fail(FieldReader::join(Path, "waveTier"),
                  "must be \"native\" or \"portable\", got '" + Out.WaveTier + "'");
  return true;
}

bool parseKernel(FieldReader& R, const json& J, const std::string& Path, KernelInfo& Out) {
  if (!R.requireObject(J, Path))
    return false;
  if (!R.nonEmptyString(J, Path, "name", Out.Name) ||
      !R.string(J, Path, "sourceFile", Out.SourceFile) ||
      !R.u32(J, Path, "sourceLine", Out.SourceLine))
    return false;
  std::string ParamsPath = FieldReader::join(Path, "params");
  const json* Params = R.array(J, Path, "params");
  if (!Params)
    return false;
  for (size_t I = 0; I < Params->size(); ++I) {
    ParamInfo P;
    if (!parseParam(R, (*Params)[I], FieldReader::index(ParamsPath, I), P))
      return false;
    Out.Params.push_back(std::move(P));
  }
  std::string TargetsPath = FieldReader::join(Path, "targets");
  const json* Targets = R.object(J, Path, "targets");
  if (!Targets)
    return false;
  for (const auto& [Name, Value] : Targets->items()) {
    if (Name.empty())
      return R.fail(TargetsPath, "has a target with an empty name");
    TargetManifest T;
    if (!parseTarget(R, Value, TargetsPath + "." + Name, Out, T))
      return false;
    Out.Targets.emplace(Name, std::move(T));
  }
  if (!R.nameList(J, Path, "sharedArrays", Out.SharedArrays) ||
      !R.boolean(J, Path, "dynamicShared", Out.DynamicShared) ||
      !R.nameList(J, Path, "backends", Out.Backends))
    return false;
  if (J.contains("usesWave") && !R.boolean(J, Path, "usesWave", Out.UsesWave)) // optional
    return false;
  if (Out.DynamicShared && Out.SharedArrays.empty())
    return R.fail(FieldReader::join(Path, "dynamicShared"),
                  "is true but the kernel has no shared arrays");
  static const std::set<std::string> Known = {"cpu", "cuda", "hip", "vulkan"};
  for (size_t I = 0; I < Out.Backends.size(); ++I)
    if (!Known.count(Out.Backends[I]))
      return R.fail(FieldReader::index(FieldReader::join(Path, "backends"), I),
                    "has unknown backend '" + Out.Backends[I] +
                        "' (known: cpu, cuda, hip, vulkan)");
  return true;
}

bool parsePayload(FieldReader& R, const json& J, const std::string& Path, Payload& Out) {
  if (!R.requireObject(J, Path))
    return false;
  uint64_t Size = 0;
  if (!R.nonEmptyString(J, Path, "target", Out.Target) ||
      !R.string(J, Path, "format", Out.Format) || !R.u64(J, Path, "size", Size))
    return false;
  std::string AttributesPath = FieldReader::join(Path, "attributes");
  const json* Attributes = R.object(J, Path, "attributes");
  if (!Attributes)
    return false;
  for (const auto& [Key, Value] : Attributes->items()) {
    if (!Value.is_string())
      return R.fail(AttributesPath + "." + Key,
                    std::string("must be a string, got ") + Value.type_name());
    Out.Attributes.emplace(Key, Value.get<std::string>());
  }
  return true;
}

bool parseProgram(FieldReader& R, const json& J, Program& Out) {
  if (!J.is_object())
    return R.fail("<root>", std::string("must be an object, got ") + J.type_name());
  if (!R.string(J, "", "compilerVersion", Out.CompilerVersion))
    return false;
  if (J.contains("cacheKey") && !R.string(J, "", "cacheKey", Out.CacheKey))
    return false;
  if (J.contains("calibration")) {
    const json* Records = R.array(J, "", "calibration");
    if (!Records)
      return false;
    for (size_t I = 0; I < Records->size(); ++I) {
      if (!(*Records)[I].is_string())
        return R.fail(FieldReader::index("calibration", I),
                      std::string("must be a string, got ") + (*Records)[I].type_name());
      Out.Calibration.push_back((*Records)[I].get<std::string>());
    }
  }
  const json* Kernels = R.array(J, "", "kernels");
  if (!Kernels)
    return false;
  std::set<std::string> KernelNames;
  for (size_t I = 0; I < Kernels->size(); ++I) {
    std::string Path = FieldReader::index("kernels", I);
    KernelInfo K;
    if (!parseKernel(R, (*Kernels)[I], Path, K))
      return false;
    if (!KernelNames.insert(K.Name).second)
      return R.fail(Path + ".name", "repeats kernel name '" + K.Name + "'");
    Out.Kernels.push_back(std::move(K));
  }
  const json* Payloads = R.array(J, "", "payloads");
  if (!Payloads)
    return false;
  std::set<std::string> PayloadTargets;
  for (size_t I = 0; I < Payloads->size(); ++I) {
    std::string Path = FieldReader::index("payloads", I);
    Payload P;
    if (!parsePayload(R, (*Payloads)[I], Path, P))
      return false;
    if (!PayloadTargets.insert(P.Target).second)
      return R.fail(Path + ".target", "repeats payload target '" + P.Target + "'");
    Out.Payloads.push_back(std::move(P));
  }
  return true;
}

} // namespace

json manifestToJson(const Program& P) {
  json Kernels = json::array();
  for (const KernelInfo& K : P.Kernels)
    Kernels.push_back(kernelToJson(K));
  json Payloads = json::array();
  for (const Payload& Pl : P.Payloads)
    Payloads.push_back(payloadToJson(Pl));
  json J{{"compilerVersion", P.CompilerVersion},
         {"kernels", std::move(Kernels)},
         {"payloads", std::move(Payloads)}};
  if (!P.CacheKey.empty())
    J["cacheKey"] = P.CacheKey;
  if (!P.Calibration.empty())
    J["calibration"] = P.Calibration;
  return J;
}

bool manifestFromJson(const json& J, Program& Out, std::string& Error) {
  try {
    FieldReader R(Error);
    Program Parsed;
    if (!parseProgram(R, J, Parsed))
      return false;
    Out = std::move(Parsed);
    return true;
  } catch (const std::exception& E) {
    Error = std::string("manifest could not be read: ") + E.what();
    return false;
  }
}

} // namespace cajeta::bundle
