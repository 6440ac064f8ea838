// kir::TileLowering's cooperative-matrix form on small kernels compiled from source: a tile load
// or store whose operands' form proves it whole and 16-byte aligned is one instruction per
// fragment with no test and no scratch; others keep the per-wave test and the scratch path.
#include "compiler/kir/transforms/TileLowering.h"
#include "compiler/kir/Walk.h"

#include "KirFromSource.h"

#include <gtest/gtest.h>

namespace cajeta::kir {
namespace {

struct Lowered {
  unsigned Tests = 0;               // wave-wide `all` votes (the run-time whole-and-aligned tests)
  unsigned MatrixLoads = 0;         // IntrinsicOp::MatrixLoad
  std::vector<std::string> Scratch; // the per-wave scratch arrays' names
};

/// Kernel k (body Body) after the tile lowering's CoopMatrix form.
Lowered lower(const std::string& Body) {
  std::string Diags;
  std::unique_ptr<Module> M =
      kirFromSource("t.cj",
                    "import cajeta.xpu.*;\nclass K {\n@Kernel public static void k(KernelBuffer<"
                    "float32> c, uint32 n, uint32 steps) {\n"
                    "  Shared<float16> s = shared float16[8192];\n"
                    "  uint32 tid = KernelThread.x();\n"
                    "  uint32 wave = tid / Wave.width();\n"
                    "  Tile<float32, 16, 32> acc;\n" +
                        Body + "\n}\n}\n",
                    Diags);
  EXPECT_TRUE(M) << Diags;
  Lowered Out;
  if (!M)
    return Out;
  Function& F = *M->Functions.front();
  TileLoweringConfig C;
  C.F = TileLoweringConfig::Form::CoopMatrix;
  C.ScratchSizedAtLaunch = true;
  std::string Error;
  bool DoesNotFit = false;
  EXPECT_TRUE(TileLowering::run(*M, F, C, Error, DoesNotFit)) << Error;
  forEachExprIn(F.Body, [&](const Expr* E) {
    Out.Tests += E->K == Expr::Kind::Wave && E->WOp == WaveOp::All;
    Out.MatrixLoads += E->K == Expr::Kind::Intrinsic && E->IOp == IntrinsicOp::MatrixLoad;
  });
  for (const SharedArray& S : F.SharedArrays)
    if (S.PerWave)
      Out.Scratch.push_back(S.Name);
  return Out;
}

TEST(TileLoweringMatrices, LoadsProvedWholeAndAlignedTakeNoTestAndNoScratch) {
  Lowered L = lower("for (uint32 kt = 0; kt < steps; kt++) {\n"
                    "  uint32 sa = kt % 2 * 2560 + wave * 1280;\n"
                    "  Tile<float16, 16, 16> a = Tile.load(s, sa + 16, 40);\n"
                    "  Tile<float16, 16, 32> b = Tile.load(s, sa + 640, 40);\n"
                    "  Group.mac(acc, a, b);\n"
                    "}\n"
                    "acc.store(c, 0, 32);");
  EXPECT_EQ(L.Tests, 0u);
  EXPECT_EQ(L.MatrixLoads, 3u) << "one a fragment and two b fragments";
  EXPECT_TRUE(L.Scratch.empty()) << L.Scratch.front();
}

// An odd offset, a stride from a parameter, valid rows, and a store with valid columns each keep
// their test; only float16's scratch is needed where the stores are proved.
TEST(TileLoweringMatrices, WhatIsNotProvedKeepsItsTest) {
  Lowered L = lower("Tile<float16, 16, 16> a = Tile.load(s, wave * 256 + 4, 16);\n"
                    "Tile<float16, 16, 32> b = Tile.load(s, 512, n);\n"
                    "Tile<float16, 16, 16> a2 = Tile.load(s, 1024, 16, 15, 16);\n"
                    "Group.mac(acc, a, b);\n"
                    "Group.mac(acc, a2, b);\n"
                    "acc.store(c, 0, 32, 16, n);");
  EXPECT_EQ(L.Tests, 4u);
  EXPECT_EQ(L.Scratch.size(), 2u);
  Lowered P = lower("Tile<float16, 16, 16> a = Tile.load(s, wave * 256 + 4, 16);\n"
                    "Tile<float16, 16, 32> b = Tile.load(s, 512, 32);\n"
                    "Group.mac(acc, a, b);\n"
                    "acc.store(c, wave * 512, 32);");
  EXPECT_EQ(P.Tests, 1u);
  ASSERT_EQ(P.Scratch.size(), 1u);
  EXPECT_NE(P.Scratch.front().find("float16"), std::string::npos) << P.Scratch.front();
}

} // namespace
} // namespace cajeta::kir
