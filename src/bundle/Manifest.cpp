// Names, parsers and sizes of the manifest's enums, and the Program lookups.
#include "bundle/Manifest.h"

#include <array>
#include <utility>

namespace cajeta::bundle {

namespace {

struct ScalarTypeEntry {
  ScalarType Type;
  const char* Name;
  unsigned Size;
};

constexpr std::array<ScalarTypeEntry, 13> ScalarTypes = {{
    {ScalarType::Bool, "bool", 1},
    {ScalarType::I8, "int8", 1},
    {ScalarType::I16, "int16", 2},
    {ScalarType::I32, "int32", 4},
    {ScalarType::I64, "int64", 8},
    {ScalarType::U8, "uint8", 1},
    {ScalarType::U16, "uint16", 2},
    {ScalarType::U32, "uint32", 4},
    {ScalarType::U64, "uint64", 8},
    {ScalarType::F16, "float16", 2},
    {ScalarType::F32, "float32", 4},
    {ScalarType::F64, "float64", 8},
    {ScalarType::BF16, "bfloat16", 2},
}};

constexpr std::array<std::pair<ParamKind, const char*>, 4> ParamKinds = {{
    {ParamKind::Buffer, "buffer"},
    {ParamKind::Scalar, "scalar"},
    {ParamKind::Pod, "pod"},
    {ParamKind::Function, "function"},
}};

constexpr std::array<std::pair<Access, const char*>, 4> Accesses = {{
    {Access::None, "none"},
    {Access::Read, "read"},
    {Access::Write, "write"},
    {Access::ReadWrite, "read-write"},
}};

const ScalarTypeEntry* findScalarType(ScalarType T) {
  for (const ScalarTypeEntry& E : ScalarTypes)
    if (E.Type == T)
      return &E;
  return nullptr;
}

template <typename Enum, size_t N>
const char* nameOf(const std::array<std::pair<Enum, const char*>, N>& Table, Enum Value) {
  for (const auto& [E, Name] : Table)
    if (E == Value)
      return Name;
  return "<invalid>";
}

template <typename Enum, size_t N>
std::optional<Enum> parseName(const std::array<std::pair<Enum, const char*>, N>& Table,
                              const std::string& Name) {
  for (const auto& [E, EName] : Table)
    if (Name == EName)
      return E;
  return std::nullopt;
}

} // namespace

const char* scalarTypeName(ScalarType T) {
  const ScalarTypeEntry* E = findScalarType(T);
  return E ? E->Name : "<invalid>";
}

std::optional<ScalarType> parseScalarType(const std::string& Name) {
  for (const ScalarTypeEntry& E : ScalarTypes)
    if (Name == E.Name)
      return E.Type;
  return std::nullopt;
}

bool isIntegerType(ScalarType T) {
  switch (T) {
  case ScalarType::I8:
  case ScalarType::I16:
  case ScalarType::I32:
  case ScalarType::I64:
  case ScalarType::U8:
  case ScalarType::U16:
  case ScalarType::U32:
  case ScalarType::U64:
    return true;
  default:
    return false;
  }
}

unsigned scalarTypeSize(ScalarType T) {
  const ScalarTypeEntry* E = findScalarType(T);
  return E ? E->Size : 0;
}

const char* paramKindName(ParamKind K) {
  return nameOf(ParamKinds, K);
}

std::optional<ParamKind> parseParamKind(const std::string& Name) {
  return parseName(ParamKinds, Name);
}

const char* accessName(Access A) {
  return nameOf(Accesses, A);
}

std::optional<Access> parseAccess(const std::string& Name) {
  return parseName(Accesses, Name);
}

const KernelInfo* Program::findKernel(const std::string& Name) const {
  for (const KernelInfo& K : Kernels)
    if (K.Name == Name)
      return &K;
  return nullptr;
}

const Payload* Program::findPayload(const std::string& Target) const {
  for (const Payload& P : Payloads)
    if (P.Target == Target)
      return &P;
  return nullptr;
}

std::vector<std::string> splitAttributeList(const std::string& List) {
  std::vector<std::string> Items;
  for (size_t At = 0; At < List.size();) {
    size_t End = List.find(',', At);
    if (End == std::string::npos)
      End = List.size();
    if (End > At)
      Items.push_back(List.substr(At, End - At));
    At = End + 1;
  }
  return Items;
}

} // namespace cajeta::bundle
