// Tests the xxh3 hash helpers against the reference values of the xxHash project.
#include "bundle/Hash.h"

#include <gtest/gtest.h>

#include <string>

using namespace cajeta::bundle;

TEST(Hash, KnownValuesOfEmptyInput) {
  EXPECT_EQ(hash64(nullptr, 0), 0x2D06800538D394C2ull);
  EXPECT_EQ(hash128Hex(nullptr, 0), "99aa06d3014798d86001c324468d497f");
}

TEST(Hash, DistinguishesInputs) {
  std::string A = "kernel void saxpy";
  std::string B = "kernel void saxpz";
  EXPECT_NE(hash64(A.data(), A.size()), hash64(B.data(), B.size()));
  EXPECT_EQ(hash64(A.data(), A.size()), hash64(A.data(), A.size()));
  std::string HexA = hash128Hex(A.data(), A.size());
  EXPECT_EQ(HexA.size(), 32u);
  EXPECT_EQ(HexA.find_first_not_of("0123456789abcdef"), std::string::npos);
  EXPECT_NE(HexA, hash128Hex(B.data(), B.size()));
}
