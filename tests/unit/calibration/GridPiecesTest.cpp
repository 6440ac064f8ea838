// A grid in pieces of about one wave, for pacing: the pieces cover every workgroup once, in
// launch order, each at most the limit where a row allows it.
#include "runtime/scheduler/GridPieces.h"

#include <gtest/gtest.h>

#include <set>
#include <tuple>

using cajeta::xpu::rt::GridPiece;
using cajeta::xpu::rt::gridPieces;

namespace {

/// Every workgroup of the grid exactly once, pieces in launch order, none over Most.
void expectCover(uint32_t X, uint32_t Y, uint32_t Z, uint64_t Most) {
  const uint32_t Grid[3] = {X, Y, Z};
  std::vector<GridPiece> Pieces = gridPieces(Grid, Most);
  std::set<std::tuple<uint32_t, uint32_t, uint32_t>> Seen;
  uint64_t Last = 0;
  bool First = true;
  for (const GridPiece& P : Pieces) {
    uint64_t Groups = uint64_t(P.Count[0]) * P.Count[1] * P.Count[2];
    ASSERT_GT(Groups, 0u);
    if (Most && uint64_t(X) * Y * Z > Most) {
      EXPECT_LE(Groups, Most) << X << "x" << Y << "x" << Z << " in " << Most;
    }
    uint64_t Start = (uint64_t(P.Base[2]) * Y + P.Base[1]) * X + P.Base[0];
    EXPECT_TRUE(First || Start > Last); // launch order
    First = false;
    Last = Start;
    for (uint32_t K = 0; K < P.Count[2]; ++K)
      for (uint32_t J = 0; J < P.Count[1]; ++J)
        for (uint32_t I = 0; I < P.Count[0]; ++I) {
          auto G = std::make_tuple(P.Base[0] + I, P.Base[1] + J, P.Base[2] + K);
          ASSERT_LT(std::get<0>(G), X);
          ASSERT_LT(std::get<1>(G), Y);
          ASSERT_LT(std::get<2>(G), Z);
          EXPECT_TRUE(Seen.insert(G).second) << "a workgroup twice";
        }
  }
  EXPECT_EQ(Seen.size(), uint64_t(X) * Y * Z);
}

} // namespace

TEST(GridPieces, AGridWithinTheLimitIsOnePiece) {
  const uint32_t Grid[3] = {1056, 1, 1};
  ASSERT_EQ(gridPieces(Grid, 1056).size(), 1u);
  ASSERT_EQ(gridPieces(Grid, 0).size(), 1u); // no limit
  EXPECT_EQ(gridPieces(Grid, 0)[0].Count[0], 1056u);
}

TEST(GridPieces, AOneDimensionalGridIsCutAlongItsRow) {
  const uint32_t Grid[3] = {211200, 1, 1};
  std::vector<GridPiece> P = gridPieces(Grid, 1056);
  ASSERT_EQ(P.size(), 200u);
  EXPECT_EQ(P[1].Base[0], 1056u);
  EXPECT_EQ(P[1].Count[0], 1056u);
  expectCover(211200, 1, 1, 1056);
  expectCover(1000, 1, 1, 7); // a short last piece
}

TEST(GridPieces, WholeRowsAndPlanesWhereTheyFit) {
  const uint32_t Rows[3] = {64, 100, 1};
  std::vector<GridPiece> P = gridPieces(Rows, 1056); // 16 rows of 64 a piece
  ASSERT_EQ(P.size(), 7u);
  EXPECT_EQ(P[0].Count[1], 16u);
  EXPECT_EQ(P[6].Count[1], 4u);
  const uint32_t Planes[3] = {8, 8, 100};
  EXPECT_EQ(gridPieces(Planes, 1056).size(), 7u); // 16 planes of 64 a piece
}

TEST(GridPieces, EveryShapeIsCoveredOnceInLaunchOrder) {
  for (uint32_t X : {1u, 3u, 64u, 1057u})
    for (uint32_t Y : {1u, 5u, 33u})
      for (uint32_t Z : {1u, 2u, 7u})
        for (uint64_t Most : {1ull, 3ull, 64ull, 1056ull, 100000ull})
          expectCover(X, Y, Z, Most);
}
