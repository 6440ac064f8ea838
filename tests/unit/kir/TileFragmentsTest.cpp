// The mma.sync fragment layouts (TileFragments): over a warp's 32 lanes every element of a tile
// is held exactly once, and sample registers sit where the PTX ISA's fragment figures put them
// (m16n8k16 for 16-bit inputs, m16n8k32 for 8-bit inputs, whose registers hold four).
#include "compiler/kir/transforms/TileFragments.h"

#include <gtest/gtest.h>

#include <set>

using namespace cajeta::kir;
using namespace cajeta::kir::tiles;

namespace {

/// Element J of lane L's fragment of a Rows x Cols tile of role R packing P inputs a register.
std::pair<uint32_t, uint32_t> where(Role R, uint32_t Rows, uint32_t Cols, uint32_t P, uint32_t L,
                                    size_t J) {
  const FragmentElement E = fragmentLayout(R, Rows, Cols, P)[J];
  const uint32_t G = L / 4, T = (L % 4) * E.TScale;
  return E.RowFromLaneGroup ? std::make_pair(E.RowConst + G, E.ColConst + T)
                            : std::make_pair(E.RowConst + T, E.ColConst + G);
}

/// Every element of the tile held by exactly one (lane, element) pair.
void expectCoversOnce(Role R, uint32_t Rows, uint32_t Cols, uint32_t P) {
  const size_t PerLane = fragmentLayout(R, Rows, Cols, P).size();
  ASSERT_EQ(PerLane * 32, size_t(Rows) * Cols);
  std::set<std::pair<uint32_t, uint32_t>> Seen;
  for (uint32_t L = 0; L < 32; ++L)
    for (size_t J = 0; J < PerLane; ++J) {
      auto At = where(R, Rows, Cols, P, L, J);
      EXPECT_LT(At.first, Rows);
      EXPECT_LT(At.second, Cols);
      EXPECT_TRUE(Seen.insert(At).second) << roleName(R) << " " << Rows << "x" << Cols << " P " << P
                                          << ": (" << At.first << ", " << At.second << ") twice";
    }
}

} // namespace

TEST(TileFragments, EveryElementIsHeldOnce) {
  for (uint32_t P : {2u, 4u}) {
    const uint32_t K = 8 * P;
    expectCoversOnce(Role::A, 16, K, P);
    expectCoversOnce(Role::A, 64, 2 * K, P);
    expectCoversOnce(Role::B, K, 8, P);
    expectCoversOnce(Role::B, 2 * K, 64, P);
  }
  expectCoversOnce(Role::Acc, 16, 8, 1);
  expectCoversOnce(Role::Acc, 64, 64, 1);
}

TEST(TileFragments, RegistersSitWherePtxPutsThem) {
  // Lane 5: groupID g = 1, threadID_in_group t = 1.
  // m16n8k16 a (float16): a0,a1 at (g, 2t..), a2,a3 at (g+8, 2t..), a4,a5 at (g, 2t+8..).
  EXPECT_EQ(where(Role::A, 16, 16, 2, 5, 0), std::make_pair(1u, 2u));
  EXPECT_EQ(where(Role::A, 16, 16, 2, 5, 3), std::make_pair(9u, 3u));
  EXPECT_EQ(where(Role::A, 16, 16, 2, 5, 4), std::make_pair(1u, 10u));
  // m16n8k16 b: b0,b1 at (2t.., g), b2,b3 at (2t+8.., g).
  EXPECT_EQ(where(Role::B, 16, 8, 2, 5, 1), std::make_pair(3u, 1u));
  EXPECT_EQ(where(Role::B, 16, 8, 2, 5, 2), std::make_pair(10u, 1u));
  // m16n8k32 a (8-bit): a0..a3 at (g, 4t..), a4..a7 at (g+8, 4t..), a8..a11 at (g, 4t+16..).
  EXPECT_EQ(where(Role::A, 16, 32, 4, 5, 0), std::make_pair(1u, 4u));
  EXPECT_EQ(where(Role::A, 16, 32, 4, 5, 7), std::make_pair(9u, 7u));
  EXPECT_EQ(where(Role::A, 16, 32, 4, 5, 8), std::make_pair(1u, 20u));
  EXPECT_EQ(where(Role::A, 16, 32, 4, 5, 15), std::make_pair(9u, 23u));
  // m16n8k32 b: b0..b3 at (4t.., g), b4..b7 at (4t+16.., g).
  EXPECT_EQ(where(Role::B, 32, 8, 4, 5, 0), std::make_pair(4u, 1u));
  EXPECT_EQ(where(Role::B, 32, 8, 4, 5, 4), std::make_pair(20u, 1u));
  // Accumulators (both shapes): c0,c1 at (g, 2t..), c2,c3 at (g+8, 2t..).
  EXPECT_EQ(where(Role::Acc, 16, 8, 1, 5, 1), std::make_pair(1u, 3u));
  EXPECT_EQ(where(Role::Acc, 16, 8, 1, 5, 2), std::make_pair(9u, 2u));
}

TEST(TileFragments, BlocksFollowTheInputWidth) {
  const Type A8 = Type::tile(ScalarType::I8, 16, 32), A16 = Type::tile(ScalarType::F16, 16, 16);
  EXPECT_EQ(fragmentBlock(Role::A, A8), std::make_pair(16u, 32u));
  EXPECT_EQ(fragmentBlock(Role::A, A16), std::make_pair(16u, 16u));
  EXPECT_EQ(fragmentBlock(Role::B, Type::tile(ScalarType::U8, 32, 8)), std::make_pair(32u, 8u));
  EXPECT_EQ(fragmentBlock(Role::Acc, Type::tile(ScalarType::I32, 16, 8)), std::make_pair(16u, 8u));
  EXPECT_TRUE(shapeFits(Role::A, A8));
  EXPECT_FALSE(shapeFits(Role::A, Type::tile(ScalarType::I8, 16, 16))); // half a k32 block
  EXPECT_EQ(inputsPerRegister(ScalarType::I8), 4u);
  EXPECT_EQ(inputsPerRegister(ScalarType::BF16), 2u);
  EXPECT_EQ(inputsPerRegister(ScalarType::F32), 1u);
}
