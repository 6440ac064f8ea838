// Wave ops in the SPIR-V emitter: every op on every operand type class it admits passes
// spirv-val for Vulkan 1.1 and 1.3 (native tier plain and --check-bounds, portable tier), the
// module declares exactly the GroupNonUniform capabilities it uses, and float reductions and
// scans do not use the driver-ordered float group instructions.
#include "SpirvTestSupport.h"

#include <gtest/gtest.h>

#include <functional>
#include <set>
#include <string>
#include <vector>

namespace cajeta::lowering::spirv::test {
namespace {

struct OpCase {
  const char* Method;
  int Arity; // 1: Wave.m(v); 2: Wave.m(v, k)
  enum { AnyScalar, Arith, Bits, Bool } Operands;
};

const OpCase Ops[] = {
    {"shuffle", 2, OpCase::AnyScalar},
    {"shuffleUp", 2, OpCase::AnyScalar},
    {"shuffleDown", 2, OpCase::AnyScalar},
    {"shuffleXor", 2, OpCase::AnyScalar},
    {"rotate", 2, OpCase::AnyScalar},
    {"broadcastFirst", 1, OpCase::AnyScalar},
    {"ballot", 1, OpCase::Bool},
    {"all", 1, OpCase::Bool},
    {"any", 1, OpCase::Bool},
    {"reduceSum", 1, OpCase::Arith},
    {"reduceMin", 1, OpCase::Arith},
    {"reduceMax", 1, OpCase::Arith},
    {"reduceAnd", 1, OpCase::Bits},
    {"reduceOr", 1, OpCase::Bits},
    {"reduceXor", 1, OpCase::Bits},
    {"inclusivePrefixSum", 1, OpCase::Arith},
    {"exclusivePrefixSum", 1, OpCase::Arith},
};

const std::vector<std::string> AllScalars = {"bool",   "int8",    "uint8",   "int16",
                                             "uint16", "int32",   "uint32",  "int64",
                                             "uint64", "float16", "float32", "float64"};

std::vector<std::string> typesOf(const OpCase& C) {
  switch (C.Operands) {
  case OpCase::AnyScalar:
    return AllScalars;
  case OpCase::Arith:
    return {"int32", "uint32", "int64", "uint64", "float32", "float64"};
  case OpCase::Bits:
    return {"int32", "uint32", "int64", "uint64"};
  case OpCase::Bool:
    return {"bool"};
  }
  return {};
}

std::string resultOf(const std::string& Method, const std::string& T) {
  if (Method == "ballot")
    return "uint64";
  if (Method == "all" || Method == "any")
    return "bool";
  return T;
}

/// A kernel applying Wave.<Method> to in[i] (and a distance k) and storing it.
std::string kernelSource(const OpCase& C, const std::string& T) {
  std::string Call = std::string("Wave.") + C.Method + "(in[i]" + (C.Arity == 2 ? ", k)" : ")");
  return "import cajeta.xpu.*;\npublic final class W {\n    @Kernel\n"
         "    public static void run(KernelBuffer<" +
         resultOf(C.Method, T) + "> out, KernelBuffer<" + T +
         "> in, uint32 k) {\n"
         "        uint32 i = KernelThread.globalIdX();\n"
         "        out[i] = " +
         Call + ";\n    }\n}\n";
}

std::set<std::string> groupCaps(const SpirvKernel& K) {
  std::set<std::string> Out;
  for (const std::string& C : K.Capabilities)
    if (C.rfind("GroupNonUniform", 0) == 0)
      Out.insert(C);
  return Out;
}

void expectValid(const SpirvKernel& K, const std::string& What) {
  ASSERT_TRUE(K.Ok) << What << ": " << K.Error;
  for (const char* V : {"1.1", "1.3"}) {
    std::string Out;
    EXPECT_TRUE(spirvVal(K.Module, V, Out)) << What << " (vulkan" << V << "): " << Out << "\n"
                                            << disassemble(K.Module);
  }
}

TEST(SpirvWave, EveryOpOnEveryOperandTypeValidates) {
  unsigned Count = 0;
  for (const OpCase& C : Ops)
    for (const std::string& T : typesOf(C)) {
      std::string What = std::string("Wave.") + C.Method + " on " + T;
      driver::FrontendResult F = frontend("W.cj", kernelSource(C, T));
      ASSERT_TRUE(F.Ok) << What << ":\n" << F.Diagnostics;
      SpirvKernel K = emit(F, "W.run");
      expectValid(K, What);
      SpirvEmitOptions Bounds;
      Bounds.CheckBounds = true;
      expectValid(emit(F, "W.run", Bounds), What + " --check-bounds");
      // Every wave op needs the basic subgroup feature (builtins, scope).
      EXPECT_TRUE(groupCaps(K).count("GroupNonUniform")) << What;
      // No extended subgroup types: the subgroup instructions see only 32-bit words and bools.
      std::string Dis = disassemble(K.Module);
      EXPECT_EQ(Dis.find("OpGroupNonUniformFAdd"), std::string::npos) << What;
      EXPECT_EQ(Dis.find("OpGroupNonUniformFMin"), std::string::npos) << What;
      EXPECT_EQ(Dis.find("OpGroupNonUniformFMax"), std::string::npos) << What;
      ++Count;
    }
  EXPECT_EQ(Count, 6u * 12 + 3 + 5 * 6 + 3 * 4);
}

TEST(SpirvWave, PortableTierValidatesAndUsesOnlyTheWidthBuiltin) {
  SpirvEmitOptions Portable;
  Portable.PortableWaveOps = true;
  for (const OpCase& C : Ops)
    for (const std::string& T : typesOf(C)) {
      std::string What = std::string("portable Wave.") + C.Method + " on " + T;
      driver::FrontendResult F = frontend("W.cj", kernelSource(C, T));
      ASSERT_TRUE(F.Ok) << What << ":\n" << F.Diagnostics;
      SpirvKernel K = emit(F, "W.run", Portable);
      expectValid(K, What);
      // Shared scratch and barriers instead of subgroup instructions; Wave.width() remains.
      EXPECT_EQ(groupCaps(K), std::set<std::string>({"GroupNonUniform"})) << What;
      EXPECT_GT(K.StaticSharedBytes, 0u) << What;
      std::string Dis = disassemble(K.Module);
      EXPECT_EQ(Dis.find("OpGroupNonUniform"), std::string::npos) << What;
      EXPECT_NE(Dis.find("OpControlBarrier"), std::string::npos) << What;
    }
}

TEST(SpirvWave, WidthAndLaneAreSubgroupBuiltinsInTheInterface) {
  driver::FrontendResult F = frontend("W.cj", R"(import cajeta.xpu.*;
public final class W {
    @Kernel
    public static void run(KernelBuffer<uint32> out) {
        uint32 i = KernelThread.globalIdX();
        out[i] = Wave.width() * 1000u + Wave.laneId();
    }
}
)");
  ASSERT_TRUE(F.Ok) << F.Diagnostics;
  SpirvKernel K = emit(F, "W.run");
  expectValid(K, "width/laneId");
  std::string Dis = disassemble(K.Module);
  EXPECT_NE(Dis.find("BuiltIn SubgroupSize"), std::string::npos) << Dis;
  EXPECT_NE(Dis.find("BuiltIn SubgroupLocalInvocationId"), std::string::npos) << Dis;
  EXPECT_EQ(groupCaps(K), std::set<std::string>({"GroupNonUniform"}));
}

/// The GroupNonUniform* capabilities of a one-op kernel over int32 (or bool for votes).
std::set<std::string> capsOf(const std::string& Method, const std::string& T) {
  for (const OpCase& C : Ops)
    if (Method == C.Method) {
      driver::FrontendResult F = frontend("W.cj", kernelSource(C, T));
      EXPECT_TRUE(F.Ok) << F.Diagnostics;
      SpirvKernel K = emit(F, "W.run");
      EXPECT_TRUE(K.Ok) << K.Error;
      return groupCaps(K);
    }
  ADD_FAILURE() << "no op " << Method;
  return {};
}

TEST(SpirvWave, DeclaresExactlyTheSubgroupFeaturesUsed) {
  using S = std::set<std::string>;
  const S Shuffle = {"GroupNonUniform", "GroupNonUniformShuffle"};
  const S Ballot = {"GroupNonUniform", "GroupNonUniformBallot"};
  const S Vote = {"GroupNonUniform", "GroupNonUniformVote"};
  const S Arith = {"GroupNonUniform", "GroupNonUniformArithmetic"};
  EXPECT_EQ(capsOf("shuffleXor", "int32"), Shuffle);
  EXPECT_EQ(capsOf("rotate", "float16"), Shuffle);
  EXPECT_EQ(capsOf("broadcastFirst", "float64"), Ballot);
  EXPECT_EQ(capsOf("ballot", "bool"), Ballot);
  EXPECT_EQ(capsOf("all", "bool"), Vote);
  EXPECT_EQ(capsOf("any", "bool"), Vote);
  // 32-bit integers: native arithmetic; floats and 64-bit integers: Kir.h's order over shuffles.
  EXPECT_EQ(capsOf("reduceSum", "int32"), Arith);
  EXPECT_EQ(capsOf("reduceXor", "uint32"), Arith);
  EXPECT_EQ(capsOf("exclusivePrefixSum", "uint32"), Arith);
  EXPECT_EQ(capsOf("reduceSum", "float32"), Shuffle);
  EXPECT_EQ(capsOf("reduceMin", "float64"), Shuffle);
  EXPECT_EQ(capsOf("reduceMax", "int64"), Shuffle);
  EXPECT_EQ(capsOf("inclusivePrefixSum", "float32"), Shuffle);
  EXPECT_EQ(capsOf("exclusivePrefixSum", "uint64"), Shuffle);
}

TEST(SpirvWave, NoWaveOpsNoSubgroupCapabilities) {
  driver::FrontendResult F = frontend("W.cj", R"(import cajeta.xpu.*;
public final class W {
    @Kernel
    public static void run(KernelBuffer<uint32> out) {
        out[KernelThread.globalIdX()] = Workgroup.dimX();
    }
}
)");
  ASSERT_TRUE(F.Ok) << F.Diagnostics;
  SpirvKernel K = emit(F, "W.run");
  ASSERT_TRUE(K.Ok) << K.Error;
  EXPECT_TRUE(groupCaps(K).empty());
}

const char* InHelperAndLoop = R"(import cajeta.xpu.*;
public final class W {
    @Device
    static float32 total(float32 v) {
        return Wave.reduceSum(v);
    }
    @Kernel
    public static void run(KernelBuffer<float32> out, KernelBuffer<float32> in, uint32 n) {
        uint32 i = KernelThread.globalIdX();
        float32 acc = 0.0f;
        for (uint32 r = 0u; r < n; r++) {
            float32 t = total(in[i] * (float32) r);
            acc = acc + t;
            acc = Wave.inclusivePrefixSum(acc);
        }
        if (n > 2u) {
            acc = Wave.shuffleDown(acc, 1);
        }
        out[i] = acc + (Wave.all(acc > 0.0f) ? 1.0f : 0.0f);
    }
}
)";

TEST(SpirvWave, WaveOpsInHelpersLoopsAndUniformBranchesValidate) {
  driver::FrontendResult F = frontend("W.cj", InHelperAndLoop);
  ASSERT_TRUE(F.Ok) << F.Diagnostics;
  expectValid(emit(F, "W.run"), "helper/loop");
  SpirvEmitOptions Bounds;
  Bounds.CheckBounds = true;
  expectValid(emit(F, "W.run", Bounds), "helper/loop --check-bounds");
}

TEST(SpirvWave, MalformedWaveExpressionIsAnErrorNotACrash) {
  driver::FrontendResult F = frontend("W.cj", R"(import cajeta.xpu.*;
public final class W {
    @Kernel
    public static void run(KernelBuffer<int32> out, KernelBuffer<int32> in) {
        uint32 i = KernelThread.globalIdX();
        out[i] = Wave.reduceSum(in[i]);
    }
}
)");
  ASSERT_TRUE(F.Ok) << F.Diagnostics;
  // Break the KIR: drop the reduction's operand.
  kir::Function* K = nullptr;
  for (auto& Fn : F.Kir->Functions)
    if (Fn->Name == "W.run")
      K = Fn.get();
  ASSERT_NE(K, nullptr);
  std::vector<kir::Expr*> Stack;
  std::function<void(kir::Stmt*)> Walk = [&](kir::Stmt* S) {
    if (!S)
      return;
    if (S->E)
      Stack.push_back(S->E);
    for (kir::Stmt* C : S->Body)
      Walk(C);
  };
  Walk(K->Body);
  kir::Expr* Wave = nullptr;
  while (!Stack.empty() && !Wave) {
    kir::Expr* E = Stack.back();
    Stack.pop_back();
    if (E->K == kir::Expr::Kind::Wave)
      Wave = E;
    for (kir::Expr* O : E->Ops)
      if (O)
        Stack.push_back(O);
  }
  ASSERT_NE(Wave, nullptr);
  Wave->Ops.clear();
  SpirvKernel Out = SpirvPayloadBuilder::emitKernel(*F.Kir, *K, {});
  EXPECT_FALSE(Out.Ok);
  EXPECT_NE(Out.Error.find("reduceSum"), std::string::npos) << Out.Error;
  EXPECT_NE(Out.Error.find("invalid KIR given to the vulkan pipeline"), std::string::npos)
      << Out.Error; // the verifier's, before the emitter
}

} // namespace
} // namespace cajeta::lowering::spirv::test
