// Lowering tests of workgroup memory and barriers on the CPU (work-item loop fission): tree
// reduction, several and nested barrier loops, barriers in inlined helpers (with early returns),
// work-items that return before a barrier, static and dynamic shared arrays, --check-bounds.
#include "KirBuilder.h"
#include "LoadedPayload.h"

#include <gtest/gtest.h>

namespace cajeta::test {
namespace {

const Type U32 = scalar(ScalarType::U32);
const Type I32 = scalar(ScalarType::I32);
const Type F32 = scalar(ScalarType::F32);
const Type U64 = scalar(ScalarType::U64);

Expr* add(KirBuilder& K, Expr* A, Expr* B) {
  return K.bin(BinaryOp::Add, A, B);
}
Expr* mul(KirBuilder& K, Expr* A, Expr* B) {
  return K.bin(BinaryOp::Mul, A, B);
}
Expr* rem(KirBuilder& K, Expr* A, Expr* B) {
  return K.bin(BinaryOp::Rem, A, B);
}
Expr* lid(KirBuilder& K) {
  return K.geom(IntrinsicOp::LocalId, 0);
}
Expr* gid(KirBuilder& K) {
  return K.geom(IntrinsicOp::GlobalId, 0);
}
Expr* dim(KirBuilder& K) {
  return K.geom(IntrinsicOp::GroupDim, 0);
}
Stmt* inc(KirBuilder& K, uint32_t Local, Expr* By) {
  return K.eval(K.assign(Local, add(K, K.l(Local), By)));
}

CajetaCpuLaunch launch1d(uint32_t Groups, uint32_t Block, uint32_t DynamicBytes = 0) {
  CajetaCpuLaunch L{};
  L.GridDim[0] = Groups;
  L.GridDim[1] = L.GridDim[2] = 1;
  L.BlockDim[0] = Block;
  L.BlockDim[1] = L.BlockDim[2] = 1;
  L.DynamicSharedBytes = DynamicBytes;
  return L;
}

/// docs/language.md's reduction: tile[t] = in[i]; barrier; for (s = dim/2; s > 0; s >>= 1)
/// { if (t < s) tile[t] += tile[t + s]; barrier; } if (t == 0) partial[group] = tile[0].
void buildReduce(kir::Module& M) {
  KirBuilder K(M);
  K.kernel("K.reduce");
  uint32_t In = K.param("in", buffer(ScalarType::F32));
  uint32_t Partial = K.param("partial", buffer(ScalarType::F32));
  uint32_t N = K.param("n", U32);
  uint32_t Tile = K.shared("tile", ScalarType::F32, 256);
  uint32_t T = K.local("t", U32), I = K.local("i", U32), S = K.local("s", U32);
  Stmt* Loop = K.loop(
      1, K.bin(BinaryOp::Gt, K.l(S), K.u32(0)),
      K.block(
          {K.ifThen(K.bin(BinaryOp::Lt, K.l(T), K.l(S)),
                    K.eval(K.storeAt(K.sharedRef(Tile), K.l(T),
                                     add(K, K.loadAt(K.sharedRef(Tile), K.l(T)),
                                         K.loadAt(K.sharedRef(Tile), add(K, K.l(T), K.l(S))))))),
           K.barrier()}),
      K.eval(K.assign(S, K.bin(BinaryOp::Shr, K.l(S), K.u32(1)))));
  K.body({
      K.eval(K.assign(T, lid(K))),
      K.eval(K.assign(I, gid(K))),
      K.eval(K.storeAt(K.sharedRef(Tile), K.l(T),
                       K.select(K.bin(BinaryOp::Lt, K.l(I), K.p(N)), K.load(In, K.l(I)),
                                K.constFloat(ScalarType::F32, 0)))),
      K.barrier(),
      K.eval(K.assign(S, K.bin(BinaryOp::Div, dim(K), K.u32(2)))),
      Loop,
      K.ifThen(K.bin(BinaryOp::Eq, K.l(T), K.u32(0)),
               K.eval(K.store(Partial, K.geom(IntrinsicOp::GroupId, 0),
                              K.loadAt(K.sharedRef(Tile), K.u32(0))))),
  });
}

TEST(LoweringBarrier, TreeReductionWithBarriersInALoop) {
  kir::Module M;
  buildReduce(M);
  std::string Error;
  auto P = LoadedPayload::build(M, Error);
  ASSERT_TRUE(P) << Error;
  EXPECT_EQ(P->result().Manifests.at("K.reduce").StaticSharedBytes, 256u * 4);
  for (auto [Groups, Block] : {std::pair<uint32_t, uint32_t>{5, 256}, {7, 64}}) {
    uint32_t N = Groups * Block - 5;
    std::vector<float> In(Groups * Block), Partial(Groups, -1.0f);
    for (uint32_t I = 0; I < In.size(); ++I)
      In[I] = float(I % 17);
    P->run("cj_K_reduce", {bufferArg(In), bufferArg(Partial), scalarArg(N)}, Groups, Block);
    for (uint32_t G = 0; G < Groups; ++G) {
      float Ref = 0;
      for (uint32_t I = G * Block; I < (G + 1) * Block && I < N; ++I)
        Ref += In[I];
      EXPECT_EQ(Partial[G], Ref) << "block " << Block << " group " << G;
    }
  }
}

TEST(LoweringBarrier, SeveralBarriersInNestedLoops) {
  kir::Module M;
  KirBuilder K(M);
  K.kernel("K.nested");
  uint32_t Out = K.param("out", buffer(ScalarType::I32));
  uint32_t A = K.shared("a", ScalarType::I32, 64);
  uint32_t R = K.local("r", I32), Kv = K.local("k", I32), Acc = K.local("acc", I32),
           V = K.local("v", I32), Lx = K.local("lx", U32);
  auto Sa = [&] { return K.sharedRef(A); };
  Stmt* Inner = K.loop(
      2, K.bin(BinaryOp::Lt, K.l(Kv), K.i32(2)),
      K.block({
          K.eval(K.storeAt(Sa(), K.l(Lx), add(K, mul(K, K.cast(I32, K.l(Lx)), K.l(R)), K.l(Kv)))),
          K.barrier(),
          K.eval(K.assign(V, K.loadAt(Sa(), rem(K, add(K, K.l(Lx), K.u32(1)), dim(K))))),
          K.barrier(),
          K.eval(K.storeAt(Sa(), K.l(Lx), mul(K, K.l(V), K.i32(2)))),
          K.barrier(),
          inc(K, Acc, K.loadAt(Sa(), rem(K, add(K, K.l(Lx), K.u32(2)), dim(K)))),
          K.barrier(),
      }),
      inc(K, Kv, K.i32(1)));
  Stmt* Outer = K.loop(1, K.bin(BinaryOp::Lt, K.l(R), K.i32(3)),
                       K.block({K.eval(K.assign(Kv, K.i32(0))), Inner}), inc(K, R, K.i32(1)));
  K.body({K.eval(K.assign(Lx, lid(K))), K.eval(K.assign(Acc, K.i32(0))),
          K.eval(K.assign(R, K.i32(0))), Outer, K.eval(K.store(Out, gid(K), K.l(Acc)))});
  std::string Error;
  auto P = LoadedPayload::build(M, Error);
  ASSERT_TRUE(P) << Error;
  for (uint32_t Block : {64u, 48u}) {
    const uint32_t Groups = 3;
    std::vector<int32_t> Data(Groups * Block, -1);
    P->run("cj_K_nested", {bufferArg(Data)}, Groups, Block);
    for (uint32_t G = 0; G < Data.size(); ++G) {
      int32_t Lx = int32_t(G % Block), Bd = int32_t(Block), Ref = 0;
      for (int32_t Rr = 0; Rr < 3; ++Rr)
        for (int32_t Kk = 0; Kk < 2; ++Kk)
          Ref += 2 * ((((Lx + 2) % Bd + 1) % Bd) * Rr + Kk);
      ASSERT_EQ(Data[G], Ref) << "block " << Block << " item " << G;
    }
  }
}

TEST(LoweringBarrier, BarriersInInlinedHelpersWithEarlyReturns) {
  kir::Module M;
  KirBuilder K(M);
  // int32 rotate(buf, v, k) { buf[gid] = v; barrier; if (k == 0) return v;
  //                            return buf[group * dim + (lid + k) % dim]; }
  uint32_t Rotate = K.function("H.rotate", false, I32);
  uint32_t Buf = K.param("buf", buffer(ScalarType::I32));
  uint32_t Vp = K.param("v", I32), Kp = K.param("k", U32);
  uint32_t G = K.local("g", U32);
  K.body({K.eval(K.assign(G, gid(K))), K.eval(K.store(Buf, K.l(G), K.p(Vp))), K.barrier(),
          K.ifThen(K.bin(BinaryOp::Eq, K.p(Kp), K.u32(0)), K.ret(K.p(Vp))),
          K.ret(K.load(Buf, add(K, mul(K, K.geom(IntrinsicOp::GroupId, 0), dim(K)),
                                rem(K, add(K, lid(K), K.p(Kp)), dim(K)))))});
  // void half(buf, tmp) { if (lid % 2 == 1) return; tmp[gid] = buf[gid] + 100; barrier;
  //                       buf[gid] = tmp[group * dim + (lid + 2) % dim]; }  (divergent return)
  uint32_t Half = K.function("H.half", false);
  uint32_t HBuf = K.param("buf", buffer(ScalarType::I32));
  uint32_t HTmp = K.param("tmp", buffer(ScalarType::I32));
  K.body({K.ifThen(K.bin(BinaryOp::Eq, rem(K, lid(K), K.u32(2)), K.u32(1)), K.ret()),
          K.eval(K.store(HTmp, gid(K), add(K, K.load(HBuf, gid(K)), K.i32(100)))), K.barrier(),
          K.eval(K.store(HBuf, gid(K),
                         K.load(HTmp, add(K, mul(K, K.geom(IntrinsicOp::GroupId, 0), dim(K)),
                                          rem(K, add(K, lid(K), K.u32(2)), dim(K))))))});
  K.kernel("K.helpers");
  uint32_t Tmp = K.param("tmp", buffer(ScalarType::I32));
  uint32_t Out = K.param("out", buffer(ScalarType::I32));
  uint32_t Kk = K.param("k", U32);
  uint32_t R1 = K.local("r1", I32), R2 = K.local("r2", I32);
  K.body({K.eval(K.assign(
              R1, K.call(Rotate, {K.p(Tmp), mul(K, K.cast(I32, gid(K)), K.i32(10)), K.p(Kk)}))),
          K.barrier(), K.eval(K.assign(R2, K.call(Rotate, {K.p(Tmp), K.l(R1), K.u32(0)}))),
          K.eval(K.store(Out, gid(K), add(K, mul(K, K.l(R1), K.i32(1000)), K.l(R2)))),
          K.eval(K.call(Half, {K.p(Out), K.p(Tmp)}))});
  M.Functions[Rotate]->HasBarrier = M.Functions[Half]->HasBarrier = true;
  std::string Error;
  auto P = LoadedPayload::build(M, Error);
  ASSERT_TRUE(P) << Error;
  const uint32_t Groups = 3, Block = 8, Kv = 3;
  std::vector<int32_t> TmpData(Groups * Block, 0), OutData(Groups * Block, -1);
  P->run("cj_K_helpers", {bufferArg(TmpData), bufferArg(OutData), scalarArg(Kv)}, Groups, Block);
  auto Before = [&](uint32_t Gi) {
    uint32_t Gr = Gi / Block, Lx = Gi % Block;
    int32_t R1v = int32_t(Gr * Block + (Lx + Kv) % Block) * 10;
    return R1v * 1000 + R1v;
  };
  for (uint32_t Gi = 0; Gi < OutData.size(); ++Gi) {
    uint32_t Gr = Gi / Block, Lx = Gi % Block;
    int32_t Ref = Lx % 2 ? Before(Gi) : Before(Gr * Block + (Lx + 2) % Block) + 100;
    ASSERT_EQ(OutData[Gi], Ref) << "item " << Gi;
  }
}

TEST(LoweringBarrier, WorkItemsReturningBeforeABarrier) {
  // if (lid < lo || lid >= hi) return; tile[lid] = lid * 7;
  // for (it = 0; it < 2; ++it) { barrier; tile[lid] += 1; barrier; }
  // out[gid] = tile[lo + (lid - lo + 1) % (hi - lo)];
  // Work-item 0 returns, so the loop condition must be read from the first running one.
  kir::Module M;
  KirBuilder K(M);
  K.kernel("K.early");
  uint32_t Out = K.param("out", buffer(ScalarType::U32));
  uint32_t Lo = K.param("lo", U32), Hi = K.param("hi", U32);
  uint32_t Tile = K.shared("tile", ScalarType::U32, 64);
  uint32_t It = K.local("it", U32);
  auto T = [&] { return K.sharedRef(Tile); };
  K.body({
      K.ifThen(K.bin(BinaryOp::LogicalOr, K.bin(BinaryOp::Lt, lid(K), K.p(Lo)),
                     K.bin(BinaryOp::Ge, lid(K), K.p(Hi))),
               K.ret()),
      K.eval(K.storeAt(T(), lid(K), mul(K, lid(K), K.u32(7)))),
      K.eval(K.assign(It, K.u32(0))),
      K.loop(1, K.bin(BinaryOp::Lt, K.l(It), K.u32(2)),
             K.block({K.barrier(),
                      K.eval(K.storeAt(T(), lid(K), add(K, K.loadAt(T(), lid(K)), K.u32(1)))),
                      K.barrier()}),
             inc(K, It, K.u32(1))),
      K.eval(
          K.store(Out, gid(K),
                  K.loadAt(T(), add(K, K.p(Lo),
                                    rem(K, add(K, K.bin(BinaryOp::Sub, lid(K), K.p(Lo)), K.u32(1)),
                                        K.bin(BinaryOp::Sub, K.p(Hi), K.p(Lo))))))),
  });
  std::string Error;
  auto P = LoadedPayload::build(M, Error);
  ASSERT_TRUE(P) << Error;
  const uint32_t Groups = 2, Block = 16, LoV = 3, HiV = 13;
  std::vector<uint32_t> Data(Groups * Block, 0xdead);
  P->run("cj_K_early", {bufferArg(Data), scalarArg(LoV), scalarArg(HiV)}, Groups, Block);
  for (uint32_t Gi = 0; Gi < Data.size(); ++Gi) {
    uint32_t Lx = Gi % Block;
    uint32_t Ref = Lx < LoV || Lx >= HiV ? 0xdead : (LoV + (Lx - LoV + 1) % (HiV - LoV)) * 7 + 2;
    EXPECT_EQ(Data[Gi], Ref) << "item " << Gi;
  }
}

TEST(LoweringBarrier, StaticAndDynamicSharedArrays) {
  // lens[group] = d.length(); s[lid] = lid + 1000; if (lid < d.length()) d[lid] = lid * 3;
  // barrier; out[gid] = s[(lid + 1) % dim] + d[(lid + 1) % d.length()];
  kir::Module M;
  KirBuilder K(M);
  K.kernel("K.shared");
  uint32_t Out = K.param("out", buffer(ScalarType::U32));
  uint32_t Lens = K.param("lens", buffer(ScalarType::U64));
  uint32_t S = K.shared("s", ScalarType::U32, 32);
  uint32_t D = K.shared("d", ScalarType::U32, 0);
  K.body({
      K.ifThen(K.bin(BinaryOp::Eq, lid(K), K.u32(0)),
               K.eval(K.store(Lens, K.geom(IntrinsicOp::GroupId, 0), K.lengthOf(K.sharedRef(D))))),
      K.eval(K.storeAt(K.sharedRef(S), lid(K), add(K, lid(K), K.u32(1000)))),
      K.ifThen(K.bin(BinaryOp::Lt, K.cast(U64, lid(K)), K.lengthOf(K.sharedRef(D))),
               K.eval(K.storeAt(K.sharedRef(D), lid(K), mul(K, lid(K), K.u32(3))))),
      K.barrier(),
      K.eval(K.store(Out, gid(K),
                     add(K, K.loadAt(K.sharedRef(S), rem(K, add(K, lid(K), K.u32(1)), dim(K))),
                         K.loadAt(K.sharedRef(D), rem(K, K.cast(U64, add(K, lid(K), K.u32(1))),
                                                      K.lengthOf(K.sharedRef(D))))))),
  });
  std::string Error;
  auto P = LoadedPayload::build(M, Error);
  ASSERT_TRUE(P) << Error;
  EXPECT_EQ(P->result().Manifests.at("K.shared").StaticSharedBytes, 32u * 4);
  for (auto [Block, Bytes] : {std::pair<uint32_t, uint32_t>{32, 4 * 20 + 3}, {16, 4 * 16}}) {
    const uint32_t Groups = 3, Len = Bytes / 4;
    std::vector<uint32_t> Data(Groups * Block, 0);
    std::vector<uint64_t> LenData(Groups, 0);
    CajetaCpuLaunch L = P->launch("cj_K_shared", {bufferArg(Data), bufferArg(LenData)},
                                  launch1d(Groups, Block, Bytes));
    EXPECT_EQ(L.Failed, 0u);
    EXPECT_EQ(LenData, std::vector<uint64_t>(Groups, Len));
    for (uint32_t Gi = 0; Gi < Data.size(); ++Gi) {
      uint32_t Lx = Gi % Block;
      ASSERT_EQ(Data[Gi], (Lx + 1) % Block + 1000 + (Lx + 1) % Len * 3) << "item " << Gi;
    }
  }
}

TEST(LoweringBarrier, CheckBoundsOnASharedArray) {
  kir::Module M;
  KirBuilder K(M);
  K.kernel("K.oob");
  uint32_t Out = K.param("out", buffer(ScalarType::U32));
  uint32_t S0 = K.shared("s0", ScalarType::U32, 16);
  uint32_t S1 = K.shared("s1", ScalarType::U32, 8);
  K.body({K.eval(K.storeAt(K.sharedRef(S0), lid(K), lid(K))),
          K.eval(K.storeAt(K.sharedRef(S1), lid(K), lid(K))), K.barrier(),
          K.eval(K.store(Out, gid(K), K.loadAt(K.sharedRef(S0), K.u32(0))))});
  std::string Error;
  auto P = LoadedPayload::build(M, Error, /*CheckBounds=*/true);
  ASSERT_TRUE(P) << Error;
  std::vector<uint32_t> Data(32, 7);
  CajetaCpuLaunch L = P->run("cj_K_oob", {bufferArg(Data)}, 2, 16);
  EXPECT_EQ(L.Failed, 1u);
  EXPECT_EQ(L.FailedParam, CAJETA_CPU_SHARED_PARAM_BIT | 1u);
  EXPECT_EQ(L.FailedIndex, 8u);
  EXPECT_EQ(L.FailedLength, 8u);
  // Block 8 fits: no failure, every item reads s0[0] == 0.
  std::vector<uint32_t> Ok(16, 7);
  CajetaCpuLaunch L2 = P->run("cj_K_oob", {bufferArg(Ok)}, 2, 8);
  EXPECT_EQ(L2.Failed, 0u);
  EXPECT_EQ(Ok, std::vector<uint32_t>(16, 0));
}

TEST(LoweringBarrier, RegionLoopsStillVectorize) {
  // tile[lid] = in[gid] * 2; barrier; out[gid] = tile[dim - 1 - lid] + 1
  kir::Module M;
  KirBuilder K(M);
  K.kernel("K.flip");
  uint32_t In = K.param("in", buffer(ScalarType::F32));
  uint32_t Out = K.param("out", buffer(ScalarType::F32));
  uint32_t Tile = K.shared("tile", ScalarType::F32, 1024);
  K.body({K.eval(K.storeAt(K.sharedRef(Tile), lid(K),
                           mul(K, K.load(In, gid(K)), K.constFloat(ScalarType::F32, 2)))),
          K.barrier(),
          K.eval(K.store(
              Out, gid(K),
              add(K,
                  K.loadAt(K.sharedRef(Tile),
                           K.bin(BinaryOp::Sub, K.bin(BinaryOp::Sub, dim(K), K.u32(1)), lid(K))),
                  K.constFloat(ScalarType::F32, 1))))});
  std::string Opt = lowering::CpuPayloadBuilder::emitLlvmIr(M, {}, true);
  EXPECT_NE(Opt.find(" x float>"), std::string::npos) << Opt;
  std::string Error;
  auto P = LoadedPayload::build(M, Error);
  ASSERT_TRUE(P) << Error;
  std::vector<float> InData(2 * 64), OutData(2 * 64);
  for (size_t I = 0; I < InData.size(); ++I)
    InData[I] = float(I);
  P->run("cj_K_flip", {bufferArg(InData), bufferArg(OutData)}, 2, 64);
  for (uint32_t Gi = 0; Gi < OutData.size(); ++Gi)
    ASSERT_EQ(OutData[Gi], InData[Gi / 64 * 64 + 63 - Gi % 64] * 2 + 1) << Gi;
}

} // namespace
} // namespace cajeta::test
