// A Program with three kernels and two payloads that exercises every manifest field, for tests.
#pragma once

#include "bundle/Manifest.h"

namespace cajeta::bundle::test {

inline std::vector<uint8_t> patternBytes(size_t N, uint8_t Seed) {
  std::vector<uint8_t> Bytes(N);
  for (size_t I = 0; I < N; ++I)
    Bytes[I] = uint8_t(Seed + I * 31 + (I >> 8));
  return Bytes;
}

/// A parameter without POD or function-table fields (brace-initialising four of ParamInfo's
/// members leaves the rest to -Wmissing-field-initializers).
inline ParamInfo param(std::string Name, ParamKind Kind, ScalarType Type, Access Mode) {
  ParamInfo P;
  P.Name = std::move(Name);
  P.Kind = Kind;
  P.Type = Type;
  P.Mode = Mode;
  return P;
}

/// A manifest without a wave tier or step entry.
inline TargetManifest manifest(std::string Symbol, uint64_t CodeHash, uint32_t Registers,
                               uint32_t SpillBytes, uint32_t StaticSharedBytes) {
  TargetManifest M;
  M.Symbol = std::move(Symbol);
  M.CodeHash = CodeHash;
  M.Registers = Registers;
  M.SpillBytes = SpillBytes;
  M.StaticSharedBytes = StaticSharedBytes;
  return M;
}

inline Program sampleProgram() {
  Program P;
  P.CompilerVersion = "cajeta 0.1.0 (test)";

  KernelInfo Saxpy;
  Saxpy.Name = "K.saxpy";
  Saxpy.SourceFile = "examples/saxpy.cj";
  Saxpy.SourceLine = 12;
  Saxpy.Params = {param("y", ParamKind::Buffer, ScalarType::F32, Access::ReadWrite),
                  param("x", ParamKind::Buffer, ScalarType::F32, Access::Read),
                  param("a", ParamKind::Scalar, ScalarType::F32, Access::None),
                  param("n", ParamKind::Scalar, ScalarType::U32, Access::None)};
  Saxpy.Targets["cpu-x86_64"] = manifest("cajeta_K_saxpy", 0xfedcba9876543210ull, 0, 0, 0);
  Saxpy.Targets["nvptx-sm_90"] = manifest("K_saxpy", 0x0123456789abcdefull, 32, 8, 1024);

  KernelInfo Fill;
  Fill.Name = "K.fill";
  Fill.SourceFile = "examples/fill.cj";
  Fill.SourceLine = 4294967295u;
  Fill.Params = {param("out", ParamKind::Buffer, ScalarType::I64, Access::Write),
                 param("flag", ParamKind::Scalar, ScalarType::Bool, Access::None),
                 param("h", ParamKind::Scalar, ScalarType::F16, Access::None)};
  Fill.Targets["cpu-x86_64"] = manifest("cajeta_K_fill", 1, 0, 0, 0);

  // The device subset's fields: a POD, a function tag, shared arrays and @Backend.
  KernelInfo Apply;
  Apply.Name = "K.apply";
  Apply.SourceFile = "examples/apply.cj";
  Apply.SourceLine = 30;
  ParamInfo Params = param("p", ParamKind::Pod, ScalarType::I32, Access::None);
  Params.PodName = "Params";
  Params.Fields = {
      {"scale", ScalarType::F32, 0}, {"bias", ScalarType::F64, 8}, {"n", ScalarType::U32, 16}};
  Params.PodSize = 24;
  Params.PodAlign = 8;
  ParamInfo Op = param("op", ParamKind::Function, ScalarType::U32, Access::None);
  Op.FunctionTable = {"Ops.square", "Ops.negate"};
  Apply.Params = {param("data", ParamKind::Buffer, ScalarType::F32, Access::ReadWrite), Params, Op};
  Apply.Targets["nvptx-sm_90"] = manifest("K_apply", 77, 40, 0, 2048);
  Apply.SharedArrays = {"tile", "scratch"};
  Apply.DynamicShared = true;
  Apply.Backends = {"cuda", "vulkan"};

  P.Kernels = {Saxpy, Fill, Apply};

  Payload Cpu;
  Cpu.Target = "cpu-x86_64";
  Cpu.Format = "elf-shared-object";
  Cpu.Attributes = {{"cpu", "x86-64-v3"}, {"features", "+avx2,+fma"}};
  Cpu.Bytes = patternBytes(700, 7);

  Payload Ptx;
  Ptx.Target = "nvptx-sm_90";
  Ptx.Format = "ptx";
  Ptx.Attributes = {{"sm", "90"}};
  std::string Text = ".version 8.4\n.target sm_90\n.address_size 64\n";
  Ptx.Bytes.assign(Text.begin(), Text.end());

  P.Payloads = {Cpu, Ptx};
  return P;
}

} // namespace cajeta::bundle::test
