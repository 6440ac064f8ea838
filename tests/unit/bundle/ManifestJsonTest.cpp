// Tests the manifest's JSON form: its layout, the enum names, and every kind of field error.
#include "bundle/ManifestJson.h"
#include "SampleProgram.h"
#include "bundle/AccelLayout.h"

#include <gtest/gtest.h>

using namespace cajeta::bundle;
using nlohmann::json;

namespace {

/// Parses \p J and expects failure with exactly \p Message; \p Out must stay unchanged.
void expectError(const json& J, const std::string& Message) {
  Program Out;
  Out.CompilerVersion = "untouched";
  std::string Error;
  EXPECT_FALSE(manifestFromJson(J, Out, Error)) << J.dump();
  EXPECT_EQ(Error, Message);
  EXPECT_EQ(Out.CompilerVersion, "untouched");
}

json sampleJson() {
  return manifestToJson(test::sampleProgram());
}

} // namespace

TEST(ManifestJson, Layout) {
  json J = sampleJson();
  EXPECT_EQ(J["compilerVersion"], "cajeta 0.1.0 (test)");
  ASSERT_EQ(J["kernels"].size(), 3u);
  const json& Saxpy = J["kernels"][0];
  EXPECT_EQ(Saxpy["name"], "K.saxpy");
  EXPECT_EQ(Saxpy["sourceLine"], 12);
  EXPECT_EQ(
      Saxpy["params"][0],
      (json{{"name", "y"}, {"kind", "buffer"}, {"type", "float32"}, {"access", "read-write"}}));
  EXPECT_EQ(Saxpy["params"][3]["type"], "uint32");
  EXPECT_EQ(Saxpy["targets"]["cpu-x86_64"]["codeHash"], "fedcba9876543210");
  EXPECT_EQ(Saxpy["targets"]["nvptx-sm_90"]["staticSharedBytes"], 1024);
  // Payloads carry their size, never their bytes.
  EXPECT_EQ(J["payloads"][0],
            (json{{"target", "cpu-x86_64"},
                  {"format", "elf-shared-object"},
                  {"attributes", {{"cpu", "x86-64-v3"}, {"features", "+avx2,+fma"}}},
                  {"size", 700}}));
}

TEST(ManifestJson, RoundTripLeavesPayloadBytesEmpty) {
  Program In = test::sampleProgram();
  Program Out;
  std::string Error;
  ASSERT_TRUE(manifestFromJson(manifestToJson(In), Out, Error)) << Error;
  EXPECT_EQ(Out.CompilerVersion, In.CompilerVersion);
  ASSERT_EQ(Out.Kernels.size(), 3u);
  EXPECT_EQ(Out.Kernels[1].SourceLine, 4294967295u);
  EXPECT_EQ(Out.Kernels[0].Targets.at("cpu-x86_64").CodeHash, 0xfedcba9876543210ull);
  ASSERT_EQ(Out.Payloads.size(), 2u);
  EXPECT_EQ(Out.Payloads[0].Attributes, In.Payloads[0].Attributes);
  EXPECT_TRUE(Out.Payloads[0].Bytes.empty());
  // The text form parses back to the same JSON.
  EXPECT_EQ(json::parse(manifestToJson(In).dump()), manifestToJson(In));
}

TEST(ManifestJson, EnumNamesRoundTrip) {
  for (int I = 0; I <= int(ScalarType::BF16); ++I) {
    ScalarType T = ScalarType(I);
    EXPECT_EQ(parseScalarType(scalarTypeName(T)), T) << scalarTypeName(T);
    EXPECT_GT(scalarTypeSize(T), 0u);
  }
  EXPECT_STREQ(scalarTypeName(ScalarType::F32), "float32");
  EXPECT_STREQ(scalarTypeName(ScalarType::U32), "uint32");
  EXPECT_EQ(scalarTypeSize(ScalarType::Bool), 1u);
  EXPECT_EQ(scalarTypeSize(ScalarType::F16), 2u);
  EXPECT_EQ(scalarTypeSize(ScalarType::BF16), 2u);
  EXPECT_STREQ(scalarTypeName(ScalarType::BF16), "bfloat16");
  EXPECT_EQ(scalarTypeSize(ScalarType::I64), 8u);
  EXPECT_EQ(parseScalarType("float128"), std::nullopt);
  EXPECT_EQ(parseParamKind("buffer"), ParamKind::Buffer);
  EXPECT_EQ(parseParamKind("scalar"), ParamKind::Scalar);
  EXPECT_EQ(parseParamKind("pod"), ParamKind::Pod);
  EXPECT_EQ(parseParamKind("function"), ParamKind::Function);
  EXPECT_STREQ(paramKindName(ParamKind::Function), "function");
  EXPECT_EQ(parseParamKind("struct"), std::nullopt);
  for (Access A : {Access::None, Access::Read, Access::Write, Access::ReadWrite})
    EXPECT_EQ(parseAccess(accessName(A)), A);
  EXPECT_EQ(parseAccess("readwrite"), std::nullopt);
  EXPECT_STREQ(scalarTypeName(ScalarType(200)), "<invalid>");
  EXPECT_EQ(scalarTypeSize(ScalarType(200)), 0u);
}

TEST(ManifestJson, MissingFields) {
  json J = sampleJson();
  J.erase("compilerVersion");
  expectError(J, "manifest field 'compilerVersion' is missing");

  J = sampleJson();
  J["kernels"][1]["params"][0].erase("type");
  expectError(J, "manifest field 'kernels[1].params[0].type' is missing");

  J = sampleJson();
  J["kernels"][0]["targets"]["nvptx-sm_90"].erase("spillBytes");
  expectError(J, "manifest field 'kernels[0].targets.nvptx-sm_90.spillBytes' is missing");

  J = sampleJson();
  J["payloads"][1].erase("size");
  expectError(J, "manifest field 'payloads[1].size' is missing");

  J = sampleJson();
  J["payloads"][0].erase("attributes");
  expectError(J, "manifest field 'payloads[0].attributes' is missing");

  J = sampleJson();
  J.erase("kernels");
  expectError(J, "manifest field 'kernels' is missing");
}

TEST(ManifestJson, MistypedFields) {
  json J = sampleJson();
  J["kernels"][0]["sourceLine"] = "12";
  expectError(J, "manifest field 'kernels[0].sourceLine' must be an unsigned integer, got string");

  J = sampleJson();
  J["kernels"][0]["sourceLine"] = -1;
  expectError(J, "manifest field 'kernels[0].sourceLine' must be an unsigned integer, got a "
                 "negative integer");

  J = sampleJson();
  J["kernels"][0]["sourceLine"] = 1.5;
  expectError(J, "manifest field 'kernels[0].sourceLine' must be an unsigned integer, got a "
                 "floating-point number");

  J = sampleJson();
  J["kernels"][0]["sourceLine"] = 4294967296ull;
  expectError(J, "manifest field 'kernels[0].sourceLine' is 4294967296, above 2^32-1");

  J = sampleJson();
  J["kernels"] = json::object();
  expectError(J, "manifest field 'kernels' must be an array, got object");

  J = sampleJson();
  J["kernels"][1] = 3;
  expectError(J, "manifest field 'kernels[1]' must be an object, got number");

  J = sampleJson();
  J["payloads"][0]["attributes"]["cpu"] = 5;
  expectError(J, "manifest field 'payloads[0].attributes.cpu' must be a string, got number");

  J = sampleJson();
  J["kernels"][0]["targets"]["cpu-x86_64"]["codeHash"] = "xyz";
  expectError(J, "manifest field 'kernels[0].targets.cpu-x86_64.codeHash' must be 1 to 16 hex "
                 "digits, got 'xyz'");

  J = sampleJson();
  J["kernels"][0]["targets"]["cpu-x86_64"]["codeHash"] = "00000000000000001";
  expectError(J, "manifest field 'kernels[0].targets.cpu-x86_64.codeHash' must be 1 to 16 hex "
                 "digits, got '00000000000000001'");

  expectError(json::array(), "manifest field '<root>' must be an object, got array");
}

TEST(ManifestJson, InvalidValues) {
  json J = sampleJson();
  J["kernels"][0]["params"][1]["type"] = "float128";
  expectError(J, "manifest field 'kernels[0].params[1].type' has unknown scalar type 'float128'");

  J = sampleJson();
  J["kernels"][0]["params"][1]["kind"] = "texture";
  expectError(J, "manifest field 'kernels[0].params[1].kind' has unknown parameter kind 'texture'");

  J = sampleJson();
  J["kernels"][0]["params"][1]["access"] = "rw";
  expectError(J, "manifest field 'kernels[0].params[1].access' has unknown access mode 'rw'");

  J = sampleJson();
  J["kernels"][1]["name"] = "K.saxpy";
  expectError(J, "manifest field 'kernels[1].name' repeats kernel name 'K.saxpy'");

  J = sampleJson();
  J["kernels"][0]["name"] = "";
  expectError(J, "manifest field 'kernels[0].name' must not be empty");

  J = sampleJson();
  J["payloads"][1]["target"] = "cpu-x86_64";
  expectError(J, "manifest field 'payloads[1].target' repeats payload target 'cpu-x86_64'");
}

TEST(ManifestJson, UnknownFieldsAreIgnored) {
  json J = sampleJson();
  J["futureField"] = {1, 2, 3};
  J["kernels"][0]["costModel"] = "n * 2";
  Program Out;
  std::string Error;
  EXPECT_TRUE(manifestFromJson(J, Out, Error)) << Error;
}

TEST(ManifestJson, DeviceSubsetLayout) {
  json J = sampleJson();
  const json& Apply = J["kernels"][2];
  EXPECT_EQ(Apply["sharedArrays"], (json{"tile", "scratch"}));
  EXPECT_EQ(Apply["dynamicShared"], true);
  EXPECT_EQ(Apply["backends"], (json{"cuda", "vulkan"}));
  EXPECT_EQ(Apply["params"][1]["kind"], "pod");
  EXPECT_EQ(Apply["params"][1]["podName"], "Params");
  EXPECT_EQ(Apply["params"][1]["podSize"], 24);
  EXPECT_EQ(Apply["params"][1]["podAlign"], 8);
  EXPECT_EQ(Apply["params"][1]["fields"][1],
            (json{{"name", "bias"}, {"type", "float64"}, {"offset", 8}}));
  EXPECT_EQ(Apply["params"][2]["kind"], "function");
  EXPECT_EQ(Apply["params"][2]["functionTable"], (json{"Ops.square", "Ops.negate"}));
  // Kind-specific fields are written for their kind only.
  EXPECT_FALSE(Apply["params"][0].contains("podName"));
  EXPECT_FALSE(Apply["params"][0].contains("functionTable"));
  EXPECT_FALSE(Apply["params"][2].contains("fields"));
  // Kernel-level fields are always written.
  EXPECT_EQ(J["kernels"][0]["sharedArrays"], json::array());
  EXPECT_EQ(J["kernels"][0]["dynamicShared"], false);
  EXPECT_EQ(J["kernels"][0]["backends"], json::array());
}

TEST(ManifestJson, DeviceSubsetRoundTrip) {
  Program In = test::sampleProgram();
  Program Out;
  std::string Error;
  ASSERT_TRUE(manifestFromJson(manifestToJson(In), Out, Error)) << Error;
  const KernelInfo& A = Out.Kernels[2];
  EXPECT_EQ(A.SharedArrays, (std::vector<std::string>{"tile", "scratch"}));
  EXPECT_TRUE(A.DynamicShared);
  EXPECT_EQ(A.Backends, (std::vector<std::string>{"cuda", "vulkan"}));
  const ParamInfo& P = A.Params[1];
  EXPECT_EQ(P.Kind, ParamKind::Pod);
  EXPECT_EQ(P.PodName, "Params");
  EXPECT_EQ(P.PodSize, 24u);
  EXPECT_EQ(P.PodAlign, 8u);
  ASSERT_EQ(P.Fields.size(), 3u);
  EXPECT_EQ(P.Fields[2].Name, "n");
  EXPECT_EQ(P.Fields[2].Type, ScalarType::U32);
  EXPECT_EQ(P.Fields[2].Offset, 16u);
  EXPECT_EQ(A.Params[2].Kind, ParamKind::Function);
  EXPECT_EQ(A.Params[2].FunctionTable, (std::vector<std::string>{"Ops.square", "Ops.negate"}));
  EXPECT_FALSE(Out.Kernels[0].DynamicShared);
  EXPECT_TRUE(Out.Kernels[0].Backends.empty());
  EXPECT_EQ(manifestToJson(Out)["kernels"], manifestToJson(In)["kernels"]);
}

TEST(ManifestJson, DeviceSubsetFieldErrors) {
  json J = sampleJson();
  J["kernels"][0].erase("sharedArrays");
  expectError(J, "manifest field 'kernels[0].sharedArrays' is missing");

  J = sampleJson();
  J["kernels"][2]["dynamicShared"] = 1;
  expectError(J, "manifest field 'kernels[2].dynamicShared' must be a boolean, got number");

  J = sampleJson();
  J["kernels"][0]["dynamicShared"] = true;
  expectError(J, "manifest field 'kernels[0].dynamicShared' is true but the kernel has no shared "
                 "arrays");

  J = sampleJson();
  J["kernels"][2]["backends"][1] = "metal";
  expectError(J, "manifest field 'kernels[2].backends[1]' has unknown backend 'metal' (known: "
                 "cpu, cuda, hip, vulkan)");

  J = sampleJson();
  J["kernels"][2]["backends"] = "cuda";
  expectError(J, "manifest field 'kernels[2].backends' must be an array, got string");

  J = sampleJson();
  J["kernels"][2]["sharedArrays"][1] = 7;
  expectError(J, "manifest field 'kernels[2].sharedArrays[1]' must be a string, got number");

  J = sampleJson();
  J["kernels"][2]["sharedArrays"][1] = "tile";
  expectError(J, "manifest field 'kernels[2].sharedArrays[1]' repeats 'tile'");

  J = sampleJson();
  J["kernels"][2]["sharedArrays"][0] = "";
  expectError(J, "manifest field 'kernels[2].sharedArrays[0]' must not be empty");

  J = sampleJson();
  J["kernels"][2]["params"][1].erase("podName");
  expectError(J, "manifest field 'kernels[2].params[1].podName' is missing");

  J = sampleJson();
  J["kernels"][2]["params"][1]["podSize"] = 0u;
  expectError(J, "manifest field 'kernels[2].params[1].podSize' must not be 0");

  J = sampleJson();
  J["kernels"][2]["params"][1]["podAlign"] = 6u;
  expectError(J, "manifest field 'kernels[2].params[1].podAlign' must be a power of two up to "
                 "64, got 6");

  J = sampleJson();
  J["kernels"][2]["params"][1]["podSize"] = 20u;
  expectError(J, "manifest field 'kernels[2].params[1].podSize' is 20, not a multiple of podAlign "
                 "8");

  J = sampleJson();
  J["kernels"][2]["params"][1]["fields"][2]["offset"] = 22u;
  expectError(J, "manifest field 'kernels[2].params[1].fields[2].offset' is 22: a uint32 there "
                 "ends past podSize 24");

  J = sampleJson();
  J["kernels"][2]["params"][1]["fields"][1]["offset"] = 4u;
  expectError(J, "manifest field 'kernels[2].params[1].fields[1].offset' is 4, not aligned for "
                 "float64");

  J = sampleJson();
  J["kernels"][2]["params"][1]["fields"][1]["name"] = "scale";
  expectError(J, "manifest field 'kernels[2].params[1].fields[1].name' repeats field name 'scale'");

  J = sampleJson();
  J["kernels"][2]["params"][1]["fields"][0]["type"] = "float8";
  expectError(J, "manifest field 'kernels[2].params[1].fields[0].type' has unknown scalar type "
                 "'float8'");

  J = sampleJson();
  J["kernels"][2]["params"][1]["fields"] = json::object();
  expectError(J, "manifest field 'kernels[2].params[1].fields' must be an array, got object");

  J = sampleJson();
  J["kernels"][2]["params"][2].erase("functionTable");
  expectError(J, "manifest field 'kernels[2].params[2].functionTable' is missing");

  J = sampleJson();
  J["kernels"][2]["params"][2]["functionTable"][0] = json::array();
  expectError(J, "manifest field 'kernels[2].params[2].functionTable[0]' must be a string, got "
                 "array");
}

TEST(ManifestJson, WaveFieldsRoundTripAndAreOptional) {
  Program In = test::sampleProgram();
  In.Kernels[0].UsesWave = true;
  In.Kernels[0].Targets.at("cpu-x86_64").WaveTier = "portable";
  In.Kernels[0].Targets.at("nvptx-sm_90").WaveTier = "native";
  json J = manifestToJson(In);
  EXPECT_EQ(J["kernels"][0]["usesWave"], true);
  EXPECT_EQ(J["kernels"][0]["targets"]["cpu-x86_64"]["waveTier"], "portable");
  EXPECT_FALSE(J["kernels"][1]["targets"]["cpu-x86_64"].contains("waveTier"));
  Program Out;
  std::string Error;
  ASSERT_TRUE(manifestFromJson(J, Out, Error)) << Error;
  EXPECT_TRUE(Out.Kernels[0].UsesWave);
  EXPECT_FALSE(Out.Kernels[1].UsesWave);
  EXPECT_EQ(Out.Kernels[0].Targets.at("nvptx-sm_90").WaveTier, "native");
  // A manifest from before wave ops (no usesWave, no waveTier) still reads.
  J["kernels"][0].erase("usesWave");
  J["kernels"][0]["targets"]["cpu-x86_64"].erase("waveTier");
  Program Old;
  ASSERT_TRUE(manifestFromJson(J, Old, Error)) << Error;
  EXPECT_FALSE(Old.Kernels[0].UsesWave);
}

TEST(ManifestJson, GridStrideEntriesRoundTripAndAreOptional) {
  Program In = test::sampleProgram();
  TargetManifest& Cpu = In.Kernels[0].Targets.at("cpu-x86_64");
  Cpu.StepSymbol = "k_steps";
  Cpu.StepCountParam = 1;
  Cpu.OnceSymbol = "k_once";
  Cpu.OnceAnyGrid = true;
  json J = json::parse(manifestToJson(In).dump()); // as a bundle stores it
  EXPECT_EQ(J["kernels"][0]["targets"]["cpu-x86_64"]["onceAnyGrid"], true);
  Program Out;
  std::string Error;
  ASSERT_TRUE(manifestFromJson(J, Out, Error)) << Error;
  EXPECT_EQ(Out.Kernels[0].Targets.at("cpu-x86_64").OnceSymbol, "k_once");
  EXPECT_TRUE(Out.Kernels[0].Targets.at("cpu-x86_64").OnceAnyGrid);
  // Older bundles have no onceAnyGrid: the once entry keeps to the grid it is launched on.
  J["kernels"][0]["targets"]["cpu-x86_64"].erase("onceAnyGrid");
  Program Old;
  ASSERT_TRUE(manifestFromJson(J, Old, Error)) << Error;
  EXPECT_FALSE(Old.Kernels[0].Targets.at("cpu-x86_64").OnceAnyGrid);
  J["kernels"][0]["targets"]["cpu-x86_64"]["onceAnyGrid"] = "yes";
  EXPECT_FALSE(manifestFromJson(J, Old, Error));
  EXPECT_NE(Error.find("onceAnyGrid"), std::string::npos) << Error;
}

namespace {

/// A CPU target's optional boolean Key (member Flag): written where set, read back, false where
/// absent (older bundles), and a value that is not a boolean rejected by name.
void expectOptionalCpuFlagRoundTrips(const char* Key, bool TargetManifest::*Flag) {
  Program In = test::sampleProgram();
  In.Kernels[0].Targets.at("cpu-x86_64").*Flag = true;
  json J = json::parse(manifestToJson(In).dump());
  EXPECT_EQ(J["kernels"][0]["targets"]["cpu-x86_64"][Key], true) << Key;
  Program Out;
  std::string Error;
  ASSERT_TRUE(manifestFromJson(J, Out, Error)) << Error;
  EXPECT_TRUE(Out.Kernels[0].Targets.at("cpu-x86_64").*Flag) << Key;
  J["kernels"][0]["targets"]["cpu-x86_64"].erase(Key);
  Program Old;
  ASSERT_TRUE(manifestFromJson(J, Old, Error)) << Error;
  EXPECT_FALSE(Old.Kernels[0].Targets.at("cpu-x86_64").*Flag) << Key;
  J["kernels"][0]["targets"]["cpu-x86_64"][Key] = 1;
  EXPECT_FALSE(manifestFromJson(J, Old, Error)) << Key;
  EXPECT_NE(Error.find(Key), std::string::npos) << Error;
}

} // namespace

// Older bundles have none: their launches are narrowed only to spread over the threads.
TEST(ManifestJson, GroupLoopsRoundTripsAndIsOptional) {
  expectOptionalCpuFlagRoundTrips("groupLoops", &TargetManifest::GroupLoops);
}

// Older bundles have none: their launches run in the workgroups they name.
TEST(ManifestJson, GroupShapeFreeRoundTripsAndIsOptional) {
  expectOptionalCpuFlagRoundTrips("groupShapeFree", &TargetManifest::GroupShapeFree);
}

TEST(ManifestJson, QuadEntriesRoundTripAndAreOptional) {
  Program In = test::sampleProgram();
  TargetManifest& Cpu = In.Kernels[0].Targets.at("cpu-x86_64");
  Cpu.QuadSymbol = "k_quads";
  Cpu.QuadCountParam = 3;
  Cpu.QuadAnyGrid = true;
  json J = json::parse(manifestToJson(In).dump());
  EXPECT_EQ(J["kernels"][0]["targets"]["cpu-x86_64"]["quadSymbol"], "k_quads");
  Program Out;
  std::string Error;
  ASSERT_TRUE(manifestFromJson(J, Out, Error)) << Error;
  EXPECT_EQ(Out.Kernels[0].Targets.at("cpu-x86_64").QuadSymbol, "k_quads");
  EXPECT_EQ(Out.Kernels[0].Targets.at("cpu-x86_64").QuadCountParam, 3);
  EXPECT_TRUE(Out.Kernels[0].Targets.at("cpu-x86_64").QuadAnyGrid);
  // Bundles of older compilers have none: the plain entry runs.
  J["kernels"][0]["targets"]["cpu-x86_64"].erase("quadSymbol");
  J["kernels"][0]["targets"]["cpu-x86_64"].erase("quadCountParam");
  Program Old;
  ASSERT_TRUE(manifestFromJson(J, Old, Error)) << Error;
  EXPECT_TRUE(Old.Kernels[0].Targets.at("cpu-x86_64").QuadSymbol.empty());
  EXPECT_EQ(Old.Kernels[0].Targets.at("cpu-x86_64").QuadCountParam, -1);
  // A symbol without its count is malformed.
  J["kernels"][0]["targets"]["cpu-x86_64"]["quadSymbol"] = "k_quads";
  EXPECT_FALSE(manifestFromJson(J, Old, Error));
  EXPECT_NE(Error.find("quadCountParam"), std::string::npos) << Error;
}

namespace {

/// The sample program with a TMA entry on K.saxpy's nvptx-sm_90 manifest: a map of x whose
/// height and stride are the scalar n, and one of y of constant extents.
Program tmaProgram() {
  Program P = test::sampleProgram();
  TargetManifest& Ptx = P.Kernels[0].Targets.at("nvptx-sm_90");
  Ptx.TmaSymbol = "K_saxpy_tma";
  TensorMapRecipe X;
  X.BufferParam = 1;
  X.Height.Param = 3;
  X.Width.Value = 64;
  X.Stride.Param = 3;
  X.ElemBytes = 4;
  X.BoxCols = 32;
  X.BoxRows = 64;
  X.Swizzle128 = true;
  TensorMapRecipe Y;
  Y.BufferParam = 0;
  Y.Height.Value = 5000000000ull; // a constant past 32 bits is the launch's to refuse
  Y.Width.Value = 16;
  Y.Stride.Value = 16;
  Y.ElemBytes = 4;
  Y.BoxCols = 4;
  Y.BoxRows = 256;
  Ptx.TensorMaps = {X, Y};
  return P;
}

json tmaJson() {
  return json::parse(manifestToJson(tmaProgram()).dump());
}

const char* const TmaPath = "kernels[0].targets.nvptx-sm_90";

} // namespace

TEST(ManifestJson, TmaEntriesRoundTripAndAreOptional) {
  json J = tmaJson();
  const json& T = J["kernels"][0]["targets"]["nvptx-sm_90"];
  EXPECT_EQ(T["tmaSymbol"], "K_saxpy_tma");
  ASSERT_EQ(T["tensorMaps"].size(), 2u);
  EXPECT_EQ(T["tensorMaps"][0],
            json::parse(R"({"bufferParam": 1, "height": {"param": 3}, "width": {"value": 64},
                            "stride": {"param": 3}, "elemBytes": 4, "boxCols": 32,
                            "boxRows": 64, "swizzle128": true})"));
  EXPECT_EQ(T["tensorMaps"][1]["height"], json::parse(R"({"value": 5000000000})"));
  Program Out;
  std::string Error;
  ASSERT_TRUE(manifestFromJson(J, Out, Error)) << Error;
  const TargetManifest& M = Out.Kernels[0].Targets.at("nvptx-sm_90");
  EXPECT_EQ(M.TmaSymbol, "K_saxpy_tma");
  ASSERT_EQ(M.TensorMaps.size(), 2u);
  const TensorMapRecipe& X = M.TensorMaps[0];
  EXPECT_EQ(X.BufferParam, 1u);
  EXPECT_EQ(X.Height.Param, 3);
  EXPECT_EQ(X.Width.Param, -1);
  EXPECT_EQ(X.Width.Value, 64u);
  EXPECT_EQ(X.Stride.Param, 3);
  EXPECT_EQ(X.ElemBytes, 4u);
  EXPECT_EQ(X.BoxCols, 32u);
  EXPECT_EQ(X.BoxRows, 64u);
  EXPECT_TRUE(X.Swizzle128);
  const TensorMapRecipe& Y = M.TensorMaps[1];
  EXPECT_EQ(Y.BufferParam, 0u);
  EXPECT_EQ(Y.Height.Param, -1);
  EXPECT_EQ(Y.Height.Value, 5000000000ull);
  EXPECT_EQ(Y.BoxRows, 256u);
  EXPECT_FALSE(Y.Swizzle128);
  // Written again, the same.
  EXPECT_EQ(manifestToJson(Out)["kernels"], manifestToJson(tmaProgram())["kernels"]);
  // Other targets and bundles of older compilers have none: the plain entry runs.
  EXPECT_FALSE(sampleJson()["kernels"][0]["targets"]["nvptx-sm_90"].contains("tmaSymbol"));
  EXPECT_FALSE(sampleJson()["kernels"][0]["targets"]["nvptx-sm_90"].contains("tensorMaps"));
  Program Old;
  ASSERT_TRUE(manifestFromJson(sampleJson(), Old, Error)) << Error;
  EXPECT_TRUE(Old.Kernels[0].Targets.at("nvptx-sm_90").TmaSymbol.empty());
  EXPECT_TRUE(Old.Kernels[0].Targets.at("nvptx-sm_90").TensorMaps.empty());
}

// A map whose boxes fill blocks of two-atom rows keeps its form; a 2D map writes none.
TEST(ManifestJson, TmaMapsOfBlocksOfTwoAtomRows) {
  Program P = tmaProgram();
  TensorMapRecipe& R = P.Kernels[0].Targets.at("nvptx-sm_90").TensorMaps[0];
  R.Blocks = TensorMapRecipe::TwoAtomRows;
  R.BoxRows = 64;
  json J = manifestToJson(P);
  const json& Map = J["kernels"][0]["targets"]["nvptx-sm_90"]["tensorMaps"][0];
  EXPECT_EQ(Map["blocks"], 1);
  EXPECT_FALSE(J["kernels"][0]["targets"]["nvptx-sm_90"]["tensorMaps"][1].contains("blocks"));
  Program Out;
  std::string Error;
  ASSERT_TRUE(manifestFromJson(J, Out, Error)) << Error;
  EXPECT_EQ(Out.Kernels[0].Targets.at("nvptx-sm_90").TensorMaps[0].Blocks,
            uint32_t(TensorMapRecipe::TwoAtomRows));
  EXPECT_EQ(Out.Kernels[0].Targets.at("nvptx-sm_90").TensorMaps[1].Blocks,
            uint32_t(TensorMapRecipe::NoBlocks));
  // Rows of four atoms (3) round-trip too.
  json Four = J;
  Four["kernels"][0]["targets"]["nvptx-sm_90"]["tensorMaps"][0]["blocks"] = 3u;
  ASSERT_TRUE(manifestFromJson(Four, Out, Error)) << Error;
  EXPECT_EQ(Out.Kernels[0].Targets.at("nvptx-sm_90").TensorMaps[0].Blocks,
            uint32_t(TensorMapRecipe::FourAtomRows));
  // An unknown form, or blocks of a box that is not one swizzled atom wide: refused.
  json Bad = J;
  Bad["kernels"][0]["targets"]["nvptx-sm_90"]["tensorMaps"][0]["blocks"] = 4u;
  EXPECT_FALSE(manifestFromJson(Bad, Out, Error));
  Bad = J;
  Bad["kernels"][0]["targets"]["nvptx-sm_90"]["tensorMaps"][0]["swizzle128"] = false;
  EXPECT_FALSE(manifestFromJson(Bad, Out, Error));
}

TEST(ManifestJson, TmaFieldErrors) {
  std::string Path = TmaPath;
  auto Target = [](json& J) -> json& { return J["kernels"][0]["targets"]["nvptx-sm_90"]; };
  auto Map = [&](json& J) -> json& { return Target(J)["tensorMaps"][0]; };

  // The entry and its maps come together; a TMA entry takes at least one.
  json J = tmaJson();
  Target(J).erase("tmaSymbol");
  expectError(J, "manifest field '" + Path + ".tensorMaps' is present without \"tmaSymbol\"");
  J = tmaJson();
  Target(J).erase("tensorMaps");
  expectError(J, "manifest field '" + Path + ".tensorMaps' is missing");
  J = tmaJson();
  Target(J)["tensorMaps"] = json::array();
  expectError(J, "manifest field '" + Path + ".tensorMaps' must not be empty");
  J = tmaJson();
  Target(J)["tensorMaps"] = json::object();
  expectError(J, "manifest field '" + Path + ".tensorMaps' must be an array, got object");
  J = tmaJson();
  Target(J)["tmaSymbol"] = "";
  expectError(J, "manifest field '" + Path + ".tmaSymbol' must not be empty");
  J = tmaJson();
  Target(J)["tmaSymbol"] = 7;
  expectError(J, "manifest field '" + Path + ".tmaSymbol' must be a string, got number");
  J = tmaJson();
  Target(J)["tensorMaps"][1] = 3;
  expectError(J, "manifest field '" + Path + ".tensorMaps[1]' must be an object, got number");

  // The buffer: a parameter in range that is a buffer.
  J = tmaJson();
  Map(J)["bufferParam"] = 4u;
  expectError(J, "manifest field '" + Path +
                     ".tensorMaps[0].bufferParam' is 4 but kernel 'K.saxpy' has 4 parameters");
  J = tmaJson();
  Map(J)["bufferParam"] = 2u;
  expectError(J, "manifest field '" + Path +
                     ".tensorMaps[0].bufferParam' is 2, parameter 'a' of kernel 'K.saxpy', "
                     "which is not a buffer");
  J = tmaJson();
  Map(J)["bufferParam"] = -1;
  expectError(J, "manifest field '" + Path +
                     ".tensorMaps[0].bufferParam' must be an unsigned integer, got a negative "
                     "integer");

  // Extents: one of a parameter, an integer scalar, and a constant.
  J = tmaJson();
  Map(J)["height"] = json::object();
  expectError(J, "manifest field '" + Path +
                     ".tensorMaps[0].height' must have one of \"param\" and \"value\"");
  J = tmaJson();
  Map(J)["width"] = json{{"param", 3u}, {"value", 64u}};
  expectError(J, "manifest field '" + Path +
                     ".tensorMaps[0].width' must have one of \"param\" and \"value\"");
  J = tmaJson();
  Map(J)["stride"] = 64u;
  expectError(J,
              "manifest field '" + Path + ".tensorMaps[0].stride' must be an object, got number");
  J = tmaJson();
  Map(J).erase("stride");
  expectError(J, "manifest field '" + Path + ".tensorMaps[0].stride' is missing");
  J = tmaJson();
  Map(J)["height"] = json{{"param", 2u}};
  expectError(J, "manifest field '" + Path +
                     ".tensorMaps[0].height.param' is 2, parameter 'a' of kernel 'K.saxpy', "
                     "which is not an integer scalar");
  J = tmaJson();
  Map(J)["height"] = json{{"param", 0u}};
  expectError(J, "manifest field '" + Path +
                     ".tensorMaps[0].height.param' is 0, parameter 'y' of kernel 'K.saxpy', "
                     "which is not an integer scalar");
  J = tmaJson();
  Map(J)["stride"] = json{{"param", 9u}};
  expectError(J, "manifest field '" + Path +
                     ".tensorMaps[0].stride.param' is 9 but kernel 'K.saxpy' has 4 parameters");
  J = tmaJson();
  Map(J)["width"] = json{{"value", -64}};
  expectError(J, "manifest field '" + Path +
                     ".tensorMaps[0].width.value' must be an unsigned integer, got a negative "
                     "integer");
  J = tmaJson();
  Map(J)["width"] = json{{"value", 6.5}};
  expectError(J, "manifest field '" + Path +
                     ".tensorMaps[0].width.value' must be an unsigned integer, got a "
                     "floating-point number");

  // Elements of 1, 2 or 4 bytes, the buffer's; boxes of 1 to 256 a side; the swizzle a flag.
  J = tmaJson();
  Map(J)["elemBytes"] = 2u;
  expectError(J, "manifest field '" + Path +
                     ".tensorMaps[0].elemBytes' is 2 but parameter 'x' is a buffer of float32");
  J = tmaJson();
  Map(J)["elemBytes"] = 8u;
  expectError(J, "manifest field '" + Path + ".tensorMaps[0].elemBytes' is 8, not 1, 2 or 4");
  J = tmaJson();
  Map(J)["boxCols"] = 0u;
  expectError(J, "manifest field '" + Path + ".tensorMaps[0].boxCols' is 0, not between 1 and 256");
  J = tmaJson();
  Map(J)["boxRows"] = 257u;
  expectError(J,
              "manifest field '" + Path + ".tensorMaps[0].boxRows' is 257, not between 1 and 256");
  J = tmaJson();
  Map(J).erase("boxRows");
  expectError(J, "manifest field '" + Path + ".tensorMaps[0].boxRows' is missing");
  J = tmaJson();
  Map(J)["swizzle128"] = "yes";
  expectError(J, "manifest field '" + Path +
                     ".tensorMaps[0].swizzle128' must be a boolean, got string");
}

TEST(ManifestJson, WaveFieldErrors) {
  json J = sampleJson();
  J["kernels"][0]["usesWave"] = "yes";
  Program Out;
  std::string Error;
  EXPECT_FALSE(manifestFromJson(J, Out, Error));
  EXPECT_NE(Error.find("usesWave"), std::string::npos) << Error;
  J = sampleJson();
  J["kernels"][0]["targets"]["cpu-x86_64"]["waveTier"] = "fast";
  expectError(J, "manifest field 'kernels[0].targets.cpu-x86_64.waveTier' must be \"native\" or "
                 "\"portable\", got 'fast'");
}

namespace {

CostExpr costOf(std::vector<CostTerm> Terms) {
  CostExpr E;
  E.Terms = std::move(Terms);
  return E;
}

/// The sample program with a scheduling section on K.saxpy's CPU manifest (y, x, a, n).
Program scheduledProgram() {
  Program P = test::sampleProgram();
  SchedulingManifest S;
  S.BytesRead = costOf({{8, {"items"}}, {0.5, {"n", "n"}}});
  S.BytesWritten = costOf({{4, {"items"}}});
  S.Operations.Unknown = "loop at line 7 runs a count read from a buffer";
  BufferSchedule Y;
  Y.Param = 0;
  Y.Accumulates = true;
  Y.BytesRead = costOf({{4, {"items"}}});
  Y.BytesWritten = costOf({{4, {"items"}}});
  BufferSchedule X;
  X.Param = 1;
  X.Streaming = true;
  X.BytesRead = costOf({{4, {"items"}}, {0.5, {"n", "n"}}, {3, {}}, {1, {"groups"}}});
  S.Buffers = {Y, X};
  S.TileRows = 16;
  S.TileCols = 32;
  S.Restartable = false;
  S.YieldPoints = 3;
  P.Kernels[0].Targets["cpu-x86_64"].Scheduling = S;
  return P;
}

json scheduledJson() {
  return manifestToJson(scheduledProgram());
}

void expectSameCost(const CostExpr& A, const CostExpr& B) {
  EXPECT_EQ(A.Unknown, B.Unknown);
  ASSERT_EQ(A.Terms.size(), B.Terms.size());
  for (size_t I = 0; I < A.Terms.size(); ++I) {
    EXPECT_EQ(A.Terms[I].Coefficient, B.Terms[I].Coefficient);
    EXPECT_EQ(A.Terms[I].Variables, B.Terms[I].Variables);
  }
}

const char* SchedPath = "kernels[0].targets.cpu-x86_64.scheduling";

} // namespace

TEST(ManifestJson, SchedulingLayout) {
  json J = scheduledJson();
  const json& S = J["kernels"][0]["targets"]["cpu-x86_64"]["scheduling"];
  EXPECT_EQ(S["bytesRead"], json::parse(R"([{"coefficient": 8, "variables": ["items"]},
                                            {"coefficient": 0.5, "variables": ["n", "n"]}])"));
  EXPECT_EQ(S["operations"], (json{{"unknown", "loop at line 7 runs a count read from a buffer"}}));
  EXPECT_EQ(S["buffers"][0]["param"], 0);
  EXPECT_EQ(S["buffers"][0]["accumulates"], true);
  EXPECT_EQ(S["buffers"][1]["streaming"], true);
  EXPECT_EQ(S["tileRows"], 16);
  EXPECT_EQ(S["tileCols"], 32);
  EXPECT_EQ(S["restartable"], false);
  EXPECT_EQ(S["yieldPoints"], 3);
  // Integral coefficients are written as integers.
  EXPECT_TRUE(S["bytesWritten"][0]["coefficient"].is_number_integer());
  // No section where the manifest has none.
  EXPECT_FALSE(J["kernels"][0]["targets"]["nvptx-sm_90"].contains("scheduling"));
}

TEST(ManifestJson, SchedulingRoundTrips) {
  Program In = scheduledProgram();
  Program Out;
  std::string Error;
  ASSERT_TRUE(manifestFromJson(json::parse(manifestToJson(In).dump()), Out, Error)) << Error;
  const std::optional<SchedulingManifest>& A = In.Kernels[0].Targets.at("cpu-x86_64").Scheduling;
  const std::optional<SchedulingManifest>& B = Out.Kernels[0].Targets.at("cpu-x86_64").Scheduling;
  ASSERT_TRUE(B.has_value());
  expectSameCost(A->BytesRead, B->BytesRead);
  expectSameCost(A->BytesWritten, B->BytesWritten);
  expectSameCost(A->Operations, B->Operations);
  ASSERT_EQ(B->Buffers.size(), 2u);
  for (size_t I = 0; I < 2; ++I) {
    EXPECT_EQ(A->Buffers[I].Param, B->Buffers[I].Param);
    EXPECT_EQ(A->Buffers[I].Accumulates, B->Buffers[I].Accumulates);
    EXPECT_EQ(A->Buffers[I].Streaming, B->Buffers[I].Streaming);
    expectSameCost(A->Buffers[I].BytesRead, B->Buffers[I].BytesRead);
    expectSameCost(A->Buffers[I].BytesWritten, B->Buffers[I].BytesWritten);
  }
  EXPECT_EQ(B->TileRows, 16u);
  EXPECT_EQ(B->TileCols, 32u);
  EXPECT_FALSE(B->Restartable);
  EXPECT_EQ(B->YieldPoints, 3u);
  // Manifests without the section (older compilers) load without one.
  EXPECT_FALSE(Out.Kernels[0].Targets.at("nvptx-sm_90").Scheduling.has_value());
  EXPECT_FALSE(Out.Kernels[1].Targets.at("cpu-x86_64").Scheduling.has_value());
}

TEST(ManifestJson, SchedulingFieldErrors) {
  std::string Path = SchedPath;
  auto Sched = [](json& J) -> json& {
    return J["kernels"][0]["targets"]["cpu-x86_64"]["scheduling"];
  };

  json J = scheduledJson();
  Sched(J).erase("operations");
  expectError(J, "manifest field '" + Path + ".operations' is missing (kernel 'K.saxpy')");

  J = scheduledJson();
  Sched(J)["bytesRead"] = "8*items";
  expectError(J, "manifest field '" + Path +
                     ".bytesRead' must be an array of terms or an object with \"unknown\", got "
                     "string (kernel 'K.saxpy')");

  J = scheduledJson();
  Sched(J)["operations"] = json::object();
  expectError(J, "manifest field '" + Path + ".operations.unknown' is missing (kernel 'K.saxpy')");

  J = scheduledJson();
  Sched(J)["operations"] = json{{"unknown", ""}};
  expectError(J, "manifest field '" + Path +
                     ".operations.unknown' must not be empty (kernel 'K.saxpy')");

  // A variable that is neither a scalar parameter nor items / groups: an unknown name, a buffer.
  J = scheduledJson();
  Sched(J)["bytesRead"][1]["variables"][1] = "m";
  expectError(J, "manifest field '" + Path +
                     ".bytesRead[1].variables[1]' names 'm', which is neither a scalar parameter "
                     "of kernel 'K.saxpy' nor items or groups");
  J = scheduledJson();
  Sched(J)["buffers"][1]["bytesRead"][0]["variables"][0] = "x";
  expectError(J, "manifest field '" + Path +
                     ".buffers[1].bytesRead[0].variables[0]' names 'x', which is neither a "
                     "scalar parameter of kernel 'K.saxpy' nor items or groups");
  J = scheduledJson();
  Sched(J)["bytesWritten"][0]["variables"][0] = 3;
  expectError(J, "manifest field '" + Path +
                     ".bytesWritten[0].variables[0]' must be a string, got number (kernel "
                     "'K.saxpy')");

  // Coefficients: a number, finite.
  J = scheduledJson();
  Sched(J)["bytesWritten"][0]["coefficient"] = "4";
  expectError(J, "manifest field '" + Path +
                     ".bytesWritten[0].coefficient' must be a number, got string (kernel "
                     "'K.saxpy')");
  for (double Bad : {std::nan(""), HUGE_VAL, -HUGE_VAL}) {
    J = scheduledJson();
    Sched(J)["bytesRead"][0]["coefficient"] = Bad;
    expectError(J, "manifest field '" + Path +
                       ".bytesRead[0].coefficient' must be a finite number (kernel 'K.saxpy')");
  }
  J = scheduledJson();
  Sched(J)["bytesRead"][0].erase("variables");
  expectError(J,
              "manifest field '" + Path + ".bytesRead[0].variables' is missing (kernel 'K.saxpy')");

  // Buffer entries: a parameter in range that is a buffer, once.
  J = scheduledJson();
  Sched(J)["buffers"][1]["param"] = 4u;
  expectError(J, "manifest field '" + Path +
                     ".buffers[1].param' is 4 but kernel 'K.saxpy' has 4 parameters");
  J = scheduledJson();
  Sched(J)["buffers"][1]["param"] = 3u;
  expectError(J, "manifest field '" + Path +
                     ".buffers[1].param' is 3, parameter 'n' of kernel 'K.saxpy', which is not "
                     "a buffer");
  J = scheduledJson();
  Sched(J)["buffers"][1]["param"] = 0u;
  expectError(J, "manifest field '" + Path +
                     ".buffers[1].param' repeats parameter 0 (kernel 'K.saxpy')");
  J = scheduledJson();
  Sched(J)["buffers"][0]["streaming"] = 1;
  expectError(J, "manifest field '" + Path +
                     ".buffers[0].streaming' must be a boolean, got number (kernel 'K.saxpy')");

  // The scalar fields.
  J = scheduledJson();
  Sched(J)["tileRows"] = -16;
  expectError(J, "manifest field '" + Path +
                     ".tileRows' must be an unsigned integer, got a negative integer (kernel "
                     "'K.saxpy')");
  J = scheduledJson();
  Sched(J)["restartable"] = "yes";
  expectError(J, "manifest field '" + Path +
                     ".restartable' must be a boolean, got string (kernel 'K.saxpy')");
  J = scheduledJson();
  Sched(J).erase("yieldPoints");
  expectError(J, "manifest field '" + Path + ".yieldPoints' is missing (kernel 'K.saxpy')");
  J = scheduledJson();
  Sched(J) = json::array();
  expectError(J, "manifest field '" + Path + "' must be an object, got array (kernel 'K.saxpy')");
}

TEST(ManifestJson, AnAccelParameterNamesTheLayoutItReads) {
  Program In = test::sampleProgram();
  ParamInfo& X = In.Kernels[0].Params[1];
  X.Type = ScalarType::U32;
  X.Accel = true;
  json J = manifestToJson(In);
  EXPECT_EQ(J["kernels"][0]["params"][1]["accelLayout"], accel::Version);
  Program Out;
  std::string Error;
  ASSERT_TRUE(manifestFromJson(J, Out, Error)) << Error;
  EXPECT_TRUE(Out.Kernels[0].Params[1].Accel);
  // A kernel built for another layout (or before the key: version 1) would misread the BVH.
  const std::string Want = "manifest field 'kernels[0].params[1].accelLayout' is 1: the kernel "
                           "reads acceleration structures of that layout version, this runtime "
                           "builds version " +
                           std::to_string(accel::Version) +
                           "; rebuild the bundle with this compiler";
  J["kernels"][0]["params"][1].erase("accelLayout");
  expectError(J, Want);
  J["kernels"][0]["params"][1]["accelLayout"] = 1u;
  expectError(J, Want);
}

TEST(ManifestJson, DynamicSharedPrefixRoundTripsAndIsOptional) {
  Program In = test::sampleProgram();
  TargetManifest& Cpu = In.Kernels[0].Targets.at("cpu-x86_64");
  Cpu.DynamicSharedPrefix = 114688;
  json J = json::parse(manifestToJson(In).dump());
  EXPECT_EQ(J["kernels"][0]["targets"]["cpu-x86_64"]["dynamicSharedPrefix"], 114688);
  Program Out;
  std::string Error;
  ASSERT_TRUE(manifestFromJson(J, Out, Error)) << Error;
  EXPECT_EQ(Out.Kernels[0].Targets.at("cpu-x86_64").DynamicSharedPrefix, 114688u);
  // Bundles of older compilers have none: nothing is placed.
  J["kernels"][0]["targets"]["cpu-x86_64"].erase("dynamicSharedPrefix");
  Program Old;
  ASSERT_TRUE(manifestFromJson(J, Old, Error)) << Error;
  EXPECT_EQ(Old.Kernels[0].Targets.at("cpu-x86_64").DynamicSharedPrefix, 0u);
  J["kernels"][0]["targets"]["cpu-x86_64"]["dynamicSharedPrefix"] = "a lot";
  EXPECT_FALSE(manifestFromJson(J, Old, Error));
  EXPECT_NE(Error.find("dynamicSharedPrefix"), std::string::npos) << Error;
}
