// kir::KnownMultiple on small kernels compiled from source: the power of two each tile load's
// offset is a multiple of, through constants, products, sums, remainders, shifts, selects and
// locals assigned more than once, and nothing where a parameter, a quotient or an odd step
// enters.
#include "compiler/kir/KnownMultiple.h"
#include "compiler/kir/Walk.h"

#include "KirFromSource.h"

#include <gtest/gtest.h>

#include <map>

namespace cajeta::kir {
namespace {

/// For a kernel whose body is Body, the known multiple of each tile load's offset, by the
/// loaded tile's name.
std::map<std::string, uint64_t> offsets(const std::string& Body) {
  std::string Diags;
  std::unique_ptr<Module> M =
      kirFromSource("t.cj",
                    "import cajeta.xpu.*;\nclass K {\n@Kernel public static void k(KernelBuffer<"
                    "float32> c, uint32 n, uint32 steps) {\n"
                    "  Shared<float16> s = shared float16[4096];\n"
                    "  uint32 tid = KernelThread.x();\n"
                    "  Tile<float32, 16, 16> acc;\n" +
                        Body + "\n  acc.store(c, 0, 16);\n}\n}\n",
                    Diags);
  EXPECT_TRUE(M) << Diags;
  std::map<std::string, uint64_t> Out;
  if (!M)
    return Out;
  const Function& F = *M->Functions.front();
  const KnownMultiple Known(F);
  forEachExprIn(F.Body, [&](const Expr* E) {
    if (E->K == Expr::Kind::Tile && E->TOp == TileOp::Load)
      Out[F.Locals[E->Index].Name] = Known.of(E->Ops[1]);
  });
  return Out;
}

TEST(KnownMultiple, ConstantsProductsSumsAndShifts) {
  auto Of = offsets("Tile<float16, 16, 16> a = Tile.load(s, 48, 16);\n"
                    "Tile<float16, 16, 16> b = Tile.load(s, tid * 24 + 64, 16);\n"
                    "Tile<float16, 16, 16> z = Tile.load(s, 0, 16);\n"
                    "Tile<float16, 16, 16> h = Tile.load(s, (tid << 3) - 8, 16);\n"
                    "Tile<float16, 16, 16> q = Tile.load(s, tid / 2 * 8 + 1, 16);\n"
                    "Tile<float16, 16, 16> p = Tile.load(s, n * 8, 16);\n"
                    "Group.mac(acc, a, b);");
  EXPECT_EQ(Of["a"], 16u);
  EXPECT_EQ(Of["b"], 8u);
  EXPECT_EQ(Of["z"], KnownMultiple::Any);
  EXPECT_EQ(Of["h"], 8u);
  EXPECT_EQ(Of["q"], 1u) << "an odd term";
  EXPECT_EQ(Of["p"], 8u) << "a parameter times eight";
}

// The bench's ring: a stage's start from the counter's remainder, a local assigned twice, the
// counter itself known only as a multiple of one.
TEST(KnownMultiple, LocalsThroughEveryAssignment) {
  auto Of = offsets("for (uint32 kt = 0; kt < steps; kt++) {\n"
                    "  uint32 sa = kt % 2 * 1184;\n"
                    "  uint32 wr = tid / 64;\n"
                    "  sa = sa + wr * 640;\n"
                    "  Tile<float16, 16, 16> a = Tile.load(s, sa + 16, 40);\n"
                    "  uint32 odd = sa;\n"
                    "  if (kt > 3) { odd = odd + 4; }\n"
                    "  Tile<float16, 16, 16> b = Tile.load(s, odd, 40);\n"
                    "  Tile<float16, 16, 16> e = Tile.load(s, kt * 8, 16);\n"
                    "  uint32 sel = kt > 1 ? tid * 64 : tid * 32;\n"
                    "  Tile<float16, 16, 16> d = Tile.load(s, sel, 16);\n"
                    "  Group.mac(acc, a, b);\n"
                    "}");
  EXPECT_EQ(Of["a"], 16u);
  EXPECT_EQ(Of["b"], 4u) << "the lower of its two assignments";
  EXPECT_EQ(Of["e"], 8u);
  EXPECT_EQ(Of["d"], 32u);
}

TEST(KnownMultiple, ACounterStepsByItsStep) {
  auto Of = offsets("for (uint32 i = 0; i < steps; i += 16) {\n"
                    "  Tile<float16, 16, 16> a = Tile.load(s, i, 16);\n"
                    "  Tile<float16, 16, 16> b = Tile.load(s, i + 8, 16);\n"
                    "  Group.mac(acc, a, b);\n"
                    "}\n"
                    "for (uint32 j = 8; j < steps; j += 3) {\n"
                    "  Tile<float16, 16, 16> e = Tile.load(s, j, 16);\n"
                    "  Tile<float16, 16, 16> f = Tile.load(s, 0, 16);\n"
                    "  Group.mac(acc, e, f);\n"
                    "}");
  EXPECT_EQ(Of["a"], 16u);
  EXPECT_EQ(Of["b"], 8u);
  EXPECT_EQ(Of["e"], 1u);
}

} // namespace
} // namespace cajeta::kir
