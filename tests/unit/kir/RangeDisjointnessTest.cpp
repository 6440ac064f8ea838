// kir::RangeDisjointness on small kernels compiled from source: a tile's rows in one stage of a
// ring and a copy into another stage are apart for groups small enough to keep each work-item's
// copy in its stage, and not where the stages are the same, the counter moved between, a local
// is assigned twice, or its one assignment does not reach the copy.
#include "compiler/kir/RangeDisjointness.h"
#include "compiler/kir/Walk.h"

#include "KirFromSource.h"

#include <gtest/gtest.h>

namespace cajeta::kir {
namespace {

struct Kernel {
  std::unique_ptr<Module> M;
  Function* F = nullptr;
  const Stmt* Load = nullptr; // the tile load of b
  const Stmt* Copy = nullptr; // the last copy
};

/// Kernel k of a class whose kernel body is Body, with its tile load of b and its last copy.
Kernel compile(const std::string& Body) {
  Kernel K;
  std::string Diags;
  K.M = kirFromSource("t.cj",
                      "import cajeta.xpu.*;\nclass K {\n@Kernel public static void k(KernelBuffer<"
                      "float32> c, KernelBuffer<float16> a, uint32 steps) {\n"
                      "  Shared<float16> s = shared float16[];\n"
                      "  uint32 tid = KernelThread.x();\n"
                      "  Tile<float32, 16, 64> acc;\n" +
                          Body + "\n  acc.store(c, 0, 64);\n}\n}\n",
                      Diags);
  EXPECT_TRUE(K.M) << Diags;
  if (!K.M)
    return K;
  K.F = K.M->Functions.front().get();
  forEachStmt(K.F->Body, [&](const Stmt* S) {
    if (S->K != Stmt::Kind::Eval || !S->E)
      return;
    if (S->E->K == Expr::Kind::Tile && S->E->TOp == TileOp::Load &&
        K.F->Locals[S->E->Index].Name == "b")
      K.Load = S;
    if (S->E->K == Expr::Kind::Intrinsic && S->E->IOp == IntrinsicOp::AsyncCopy)
      K.Copy = S;
  });
  EXPECT_TRUE(K.Load && K.Copy);
  return K;
}

/// The largest group (a power of two from 1024 down to 128) for which b's rows and the last
/// copy are proved apart; 0 for none.
uint32_t largestGroup(const Kernel& K) {
  if (!K.Load || !K.Copy)
    return 0;
  RangeDisjointness R(*K.F);
  const RangeDisjointness::Range Read{K.Load->E->Ops[1], K.Load, 15 * 64 + 64};
  const RangeDisjointness::Range Write{K.Copy->E->Ops[1], K.Copy, K.Copy->E->Index};
  for (uint32_t G = 1024; G >= 128; G /= 2)
    if (R.disjoint(Read, Write, 512, G))
      return G;
  return 0;
}

/// The loop of a two-stage ring: products of step kt from stage kt % 2, then the copies of step
/// kt + 1 into the other stage (Copy: the copy statements; Between: statements before them).
std::string ring(const std::string& Copy, const std::string& Between = "",
                 const std::string& Read = "kt % 2 * 3072") {
  return "for (uint32 kt = 0; kt < steps; kt++) {\n"
         "  uint32 st = " +
         Read +
         ";\n"
         "  Tile<float16, 16, 16> ta = Tile.load(s, st, 16);\n"
         "  Tile<float16, 16, 64> b = Tile.load(s, st + 2048, 64);\n"
         "  Group.mac(acc, ta, b);\n" +
         Between + "  uint32 sc = (kt + 1) % 2 * 3072;\n" + Copy + "\n}";
}

TEST(RangeDisjointness, AStageAndTheNextAreApartForGroupsThatStayInTheirStage) {
  // a's rows: tid / 2 * 16 + tid % 2 * 8 + 8 <= 3072 while tid < 384.
  EXPECT_EQ(largestGroup(compile(ring("AsyncCopy.copy(s, sc + tid / 2 * 16 + tid % 2 * 8, a, "
                                      "tid * 8, 8, 8);"))),
            256u);
  // b's rows (after a's 2048) with a constant addend, for tid < 128.
  EXPECT_EQ(largestGroup(compile(ring("AsyncCopy.copy(s, sc + 2048 + tid % 128 / 8 * 64 + tid % 8 "
                                      "* 8, a, tid * 8, 8, 8);"))),
            1024u);
  EXPECT_EQ(largestGroup(compile(ring("AsyncCopy.copy(s, sc + 2048 + tid / 8 * 64 + tid % 8 * 8, "
                                      "a, tid * 8, 8, 8);"))),
            128u);
  // Four stages, the copies three steps ahead of the products (kt - 3 wraps below 3, modulo 4
  // alike), and one stage behind them: the one being read.
  EXPECT_EQ(largestGroup(compile(ring("uint32 s4 = kt % 4 * 3072;\n"
                                      "AsyncCopy.copy(s, s4 + tid % 256 * 8, a, 0, 8, 8);",
                                      "", "(kt - 3) % 4 * 3072"))),
            1024u);
  EXPECT_EQ(largestGroup(compile(ring("uint32 s4 = (kt + 1) % 4 * 3072;\n"
                                      "AsyncCopy.copy(s, s4 + tid % 256 * 8, a, 0, 8, 8);",
                                      "", "(kt - 3) % 4 * 3072"))),
            0u);
}

TEST(RangeDisjointness, NotWhereTheyCanMeet) {
  // The same stage (two steps apart in a ring of two).
  EXPECT_EQ(largestGroup(compile(ring("AsyncCopy.copy(s, (kt + 2) % 2 * 3072 + tid % 128 * 8, a, "
                                      "0, 8, 8);"))),
            0u);
  // Past the stage's end: a copy 8 elements from the period's end, 16 long.
  EXPECT_EQ(largestGroup(compile(
                ring("AsyncCopy.copy(s, sc + 3064, a, 0, 8, 8);\nAsyncCopy.copy(s, sc + 3066, a, "
                     "0, 8, 8);"))),
            0u);
  // The counter moved between the load and the copy.
  EXPECT_EQ(largestGroup(compile(
                ring("AsyncCopy.copy(s, sc + tid % 128 * 8, a, 0, 8, 8);", "  kt = kt + 1;\n"))),
            0u);
  // A ring whose stage count is not a power of two (the unsigned wrap breaks the modulus).
  EXPECT_EQ(largestGroup(compile(ring("AsyncCopy.copy(s, (kt + 1) % 3 * 3072 + tid % 128 * 8, a, "
                                      "0, 8, 8);",
                                      "", "kt % 3 * 3072"))),
            0u);
}

TEST(RangeDisjointness, LocalsReadThroughTheirOneAssignment) {
  // Assigned twice: not read through.
  EXPECT_EQ(largestGroup(compile(ring("uint32 d = sc;\nd = sc + 0;\nAsyncCopy.copy(s, d + tid % "
                                      "128 * 8, a, 0, 8, 8);"))),
            0u);
  EXPECT_EQ(largestGroup(compile(ring("uint32 d = sc + tid % 128 * 8;\nAsyncCopy.copy(s, d, a, 0, "
                                      "8, 8);"))),
            1024u);
}

TEST(RangeDisjointness, TwoPartsOfOneStage) {
  // a's part of the stage being read, below b's rows; and b's rows themselves.
  EXPECT_EQ(largestGroup(compile(ring("AsyncCopy.copy(s, st + tid % 128 * 8, a, 0, 8, 8);"))),
            1024u);
  EXPECT_EQ(largestGroup(compile(ring("AsyncCopy.copy(s, st + 2048 + tid % 128 * 8, a, 0, 8, "
                                      "8);"))),
            0u);
}

/// The largest group for which b's rows and the last copy one turn of the loop later are proved
/// apart; 0 for none.
uint32_t largestGroupNextTurn(const Kernel& K) {
  if (!K.Load || !K.Copy)
    return 0;
  const Stmt* Loop = nullptr;
  forEachStmt(K.F->Body, [&](const Stmt* S) {
    if (S->K == Stmt::Kind::Loop)
      Loop = S;
  });
  EXPECT_TRUE(Loop);
  RangeDisjointness R(*K.F);
  const RangeDisjointness::Range Read{K.Load->E->Ops[1], K.Load, 15 * 64 + 64};
  const RangeDisjointness::Range Write{K.Copy->E->Ops[1], K.Copy, K.Copy->E->Index};
  for (uint32_t G = 1024; G >= 128; G /= 2)
    if (R.disjointNextTurn(Read, Write, Loop, 512, G))
      return G;
  return 0;
}

/// A ring of four stages: products of turn kt from stage kt % 4, copies into stage `Copy` (an
/// expression of kt), the counter stepped by Step.
std::string ring4(const std::string& Copy, const std::string& Step = "kt++",
                  const std::string& Between = "") {
  return "for (uint32 kt = 0; kt < steps; " + Step +
         ") {\n"
         "  uint32 st = kt % 4 * 3072;\n"
         "  Tile<float16, 16, 16> ta = Tile.load(s, st, 16);\n"
         "  Tile<float16, 16, 64> b = Tile.load(s, st + 2048, 64);\n"
         "  Group.mac(acc, ta, b);\n" +
         Between + "  AsyncCopy.copy(s, " + Copy + " % 4 * 3072 + tid % 128 * 8, a, 0, 8, 8);\n}";
}

TEST(RangeDisjointness, TheNextTurnsCopiesMissTheStageBeingRead) {
  // Copies two turns ahead: the next turn's go to kt + 3, not kt.
  EXPECT_EQ(largestGroupNextTurn(compile(ring4("(kt + 2)"))), 1024u);
  // This turn's stage is the next turn's, when copies are three ahead (or with a step of two,
  // two ahead).
  EXPECT_EQ(largestGroupNextTurn(compile(ring4("(kt + 3)"))), 0u);
  EXPECT_EQ(largestGroupNextTurn(compile(ring4("(kt + 2)", "kt += 2"))), 0u);
  EXPECT_EQ(largestGroupNextTurn(compile(ring4("(kt + 1)", "kt += 2"))), 1024u);
  // The counter changed in the body too: what the next turn writes is not known.
  EXPECT_EQ(largestGroupNextTurn(compile(ring4("(kt + 2)", "kt++", "  kt = kt + 0;\n"))), 0u);
  // A counter other than the loop's, changed in the body.
  EXPECT_EQ(
      largestGroupNextTurn(compile("uint32 j = 0;\n" + ring4("(j + 2)", "kt++", "  j = j + 2;\n"))),
      0u);
}

} // namespace
} // namespace cajeta::kir
