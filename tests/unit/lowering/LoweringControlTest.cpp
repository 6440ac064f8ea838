// Lowering tests of control flow and the CPU kernel shape: coordinates, labeled break/continue,
// do-while, lazy && / || / ?:, return in a kernel, device helpers, and --check-bounds reports.
#include "KirBuilder.h"
#include "LoadedPayload.h"

#include <gtest/gtest.h>

namespace cajeta::test {
namespace {

const Type U32 = scalar(ScalarType::U32);
const Type I32 = scalar(ScalarType::I32);

/// The slot-th entry of a work-item's stride-wide output record: out[i * stride + slot].
Expr* slotIndex(KirBuilder& K, uint32_t Item, uint32_t Stride, uint32_t Slot) {
  return K.bin(BinaryOp::Add, K.bin(BinaryOp::Mul, K.l(Item), K.u32(Stride)), K.u32(Slot));
}

Expr* digits(KirBuilder& K, IntrinsicOp Op) {
  return K.bin(BinaryOp::Add, K.geom(Op, 0),
               K.bin(BinaryOp::Add, K.bin(BinaryOp::Mul, K.u32(10), K.geom(Op, 1)),
                     K.bin(BinaryOp::Mul, K.u32(100), K.geom(Op, 2))));
}

TEST(LoweringControl, ThreeDimensionalCoordinates) {
  kir::Module M;
  KirBuilder K(M);
  K.kernel("K.coords");
  uint32_t Out = K.param("out", buffer(ScalarType::U32));
  uint32_t I = K.local("i", U32);
  Expr* Linear = K.bin(BinaryOp::Add,
                       K.bin(BinaryOp::Mul,
                             K.bin(BinaryOp::Add,
                                   K.bin(BinaryOp::Mul, K.geom(IntrinsicOp::GlobalId, 2),
                                         K.geom(IntrinsicOp::GlobalSize, 1)),
                                   K.geom(IntrinsicOp::GlobalId, 1)),
                             K.geom(IntrinsicOp::GlobalSize, 0)),
                       K.geom(IntrinsicOp::GlobalId, 0));
  K.body({
      K.eval(K.assign(I, Linear)),
      K.eval(K.store(Out, slotIndex(K, I, 4, 0), digits(K, IntrinsicOp::LocalId))),
      K.eval(K.store(Out, slotIndex(K, I, 4, 1), digits(K, IntrinsicOp::GroupId))),
      K.eval(K.store(Out, slotIndex(K, I, 4, 2), digits(K, IntrinsicOp::GroupDim))),
      K.eval(K.store(Out, slotIndex(K, I, 4, 3), digits(K, IntrinsicOp::GridDim))),
  });
  std::string Error;
  auto P = LoadedPayload::build(M, Error);
  ASSERT_TRUE(P) << Error;
  const uint32_t G[3] = {3, 2, 2}, Bd[3] = {4, 3, 2};
  const uint32_t SX = G[0] * Bd[0], SY = G[1] * Bd[1], SZ = G[2] * Bd[2];
  std::vector<uint32_t> Data(SX * SY * SZ * 4, 0xdeadbeef);
  P->run("cj_K_coords", {bufferArg(Data)}, G[0], Bd[0], G[1], Bd[1], G[2], Bd[2]);
  for (uint32_t Z = 0; Z < SZ; ++Z)
    for (uint32_t Y = 0; Y < SY; ++Y)
      for (uint32_t X = 0; X < SX; ++X) {
        uint32_t Idx = ((Z * SY + Y) * SX + X) * 4;
        ASSERT_EQ(Data[Idx + 0], X % Bd[0] + 10 * (Y % Bd[1]) + 100 * (Z % Bd[2]));
        ASSERT_EQ(Data[Idx + 1], X / Bd[0] + 10 * (Y / Bd[1]) + 100 * (Z / Bd[2]));
        ASSERT_EQ(Data[Idx + 2], 4u + 30 + 200);
        ASSERT_EQ(Data[Idx + 3], 3u + 20 + 200);
      }
}

TEST(LoweringControl, LabeledBreakAndContinue) {
  kir::Module M;
  KirBuilder K(M);
  K.kernel("K.loops");
  uint32_t Out = K.param("out", buffer(ScalarType::I32));
  uint32_t Sum = K.local("sum", I32), Iv = K.local("i", I32), Jv = K.local("j", I32);
  auto Eq = [&](Expr* A, int32_t V) { return K.bin(BinaryOp::Eq, A, K.i32(V)); };
  Stmt* Inner = K.loop(
      2, K.bin(BinaryOp::Lt, K.l(Jv), K.i32(10)),
      K.block({
          K.ifThen(Eq(K.l(Jv), 3), K.cont(2)),
          K.ifThen(Eq(K.bin(BinaryOp::Add, K.l(Iv), K.l(Jv)), 12), K.cont(1)),
          K.ifThen(Eq(K.l(Iv), 8), K.brk(1)),
          K.ifThen(Eq(K.l(Jv), 7), K.brk(2)),
          K.eval(K.assign(
              Sum, K.bin(BinaryOp::Add, K.l(Sum),
                         K.bin(BinaryOp::Add, K.bin(BinaryOp::Mul, K.l(Iv), K.i32(10)), K.l(Jv))))),
      }),
      K.eval(K.assign(Jv, K.bin(BinaryOp::Add, K.l(Jv), K.i32(1)))));
  Stmt* Outer = K.loop(1, K.bin(BinaryOp::Lt, K.l(Iv), K.i32(10)),
                       K.block({K.eval(K.assign(Jv, K.i32(0))), Inner}),
                       K.eval(K.assign(Iv, K.bin(BinaryOp::Add, K.l(Iv), K.i32(1)))));
  K.body({K.eval(K.assign(Sum, K.i32(0))), K.eval(K.assign(Iv, K.i32(0))), Outer,
          K.eval(K.store(Out, K.geom(IntrinsicOp::GlobalId, 0), K.l(Sum)))});
  std::string Error;
  auto P = LoadedPayload::build(M, Error);
  ASSERT_TRUE(P) << Error;

  int32_t Ref = 0;
  for (int I = 0; I < 10; ++I) {
    bool ContinueOuter = false, BreakOuter = false;
    for (int J = 0; J < 10; ++J) {
      if (J == 3)
        continue;
      if (I + J == 12) {
        ContinueOuter = true;
        break;
      }
      if (I == 8) {
        BreakOuter = true;
        break;
      }
      if (J == 7)
        break;
      Ref += I * 10 + J;
    }
    if (BreakOuter)
      break;
    if (ContinueOuter)
      continue;
  }
  std::vector<int32_t> Data(4, -1);
  P->run("cj_K_loops", {bufferArg(Data)}, 1, 4);
  EXPECT_EQ(Data, (std::vector<int32_t>(4, Ref)));
}

TEST(LoweringControl, DoWhileRunsItsBodyFirst) {
  kir::Module M;
  KirBuilder K(M);
  K.kernel("K.dowhile");
  uint32_t Starts = K.param("starts", buffer(ScalarType::I32));
  uint32_t Out = K.param("out", buffer(ScalarType::I32));
  uint32_t Item = K.local("i", U32), Kv = K.local("k", I32), N = K.local("n", I32);
  Stmt* Loop = K.loop(5, K.bin(BinaryOp::Gt, K.l(Kv), K.i32(0)),
                      K.block({K.eval(K.assign(N, K.bin(BinaryOp::Add, K.l(N), K.i32(1)))),
                               K.ifThen(K.bin(BinaryOp::Eq, K.l(N), K.i32(2)), K.cont(5)),
                               K.eval(K.assign(Kv, K.bin(BinaryOp::Sub, K.l(Kv), K.i32(1))))}),
                      nullptr, /*TestAtEnd=*/true);
  K.body({K.eval(K.assign(Item, K.geom(IntrinsicOp::GlobalId, 0))),
          K.eval(K.assign(Kv, K.load(Starts, K.l(Item)))), K.eval(K.assign(N, K.i32(0))), Loop,
          K.eval(K.store(Out, slotIndex(K, Item, 2, 0), K.l(N))),
          K.eval(K.store(Out, slotIndex(K, Item, 2, 1), K.l(Kv)))});
  std::string Error;
  auto P = LoadedPayload::build(M, Error);
  ASSERT_TRUE(P) << Error;
  std::vector<int32_t> Starts_ = {0, 3, -4, 1}, Data(8, 99);
  P->run("cj_K_dowhile", {bufferArg(Starts_), bufferArg(Data)}, 1, 4);
  for (size_t I = 0; I < Starts_.size(); ++I) {
    int32_t Kr = Starts_[I], Nr = 0;
    do {
      ++Nr;
      if (Nr == 2)
        continue;
      --Kr;
    } while (Kr > 0);
    EXPECT_EQ(Data[2 * I], Nr) << "start " << Starts_[I];
    EXPECT_EQ(Data[2 * I + 1], Kr) << "start " << Starts_[I];
  }
}

TEST(LoweringControl, LogicalOperatorsAndSelectAreLazy) {
  kir::Module M;
  KirBuilder K(M);
  K.kernel("K.lazy");
  uint32_t Flags = K.param("flags", buffer(ScalarType::Bool));
  uint32_t Out = K.param("out", buffer(ScalarType::I32));
  uint32_t Item = K.local("i", U32);
  auto Flag = [&] { return K.load(Flags, K.l(Item)); };
  auto Put = [&](uint32_t Slot, int32_t V) {
    return K.store(Out, slotIndex(K, Item, 5, Slot), K.i32(V));
  };
  auto Is = [&](Expr* E, int32_t V) { return K.bin(BinaryOp::Eq, E, K.i32(V)); };
  K.body({
      K.eval(K.assign(Item, K.geom(IntrinsicOp::GlobalId, 0))),
      K.ifThen(K.bin(BinaryOp::LogicalAnd, Flag(), Is(Put(0, 11), 11)), K.eval(Put(1, 1))),
      K.eval(K.bin(BinaryOp::LogicalOr, Flag(), Is(Put(2, 22), 22))),
      K.eval(K.select(Flag(), Put(3, 33), Put(4, 44))),
  });
  std::string Error;
  auto P = LoadedPayload::build(M, Error);
  ASSERT_TRUE(P) << Error;
  std::vector<uint8_t> F = {1, 0};
  std::vector<int32_t> Data(10, 0);
  P->run("cj_K_lazy", {bufferArg(F), bufferArg(Data)}, 1, 2);
  EXPECT_EQ(Data, (std::vector<int32_t>{11, 1, 0, 33, 0, 0, 0, 22, 0, 44}));
}

TEST(LoweringControl, ReturnEndsOnlyThisWorkItem) {
  kir::Module M;
  KirBuilder K(M);
  K.kernel("K.ret");
  uint32_t Out = K.param("out", buffer(ScalarType::U32));
  uint32_t Item = K.local("i", U32);
  K.body(
      {K.eval(K.assign(Item, K.geom(IntrinsicOp::GlobalId, 0))),
       K.ifThen(K.bin(BinaryOp::Eq, K.bin(BinaryOp::Rem, K.l(Item), K.u32(3)), K.u32(1)), K.ret()),
       K.eval(K.store(Out, K.l(Item), K.bin(BinaryOp::Add, K.l(Item), K.u32(1))))});
  std::string Error;
  auto P = LoadedPayload::build(M, Error);
  ASSERT_TRUE(P) << Error;
  std::vector<uint32_t> Data(24, 0);
  P->run("cj_K_ret", {bufferArg(Data)}, 3, 8);
  for (uint32_t I = 0; I < 24; ++I)
    EXPECT_EQ(Data[I], I % 3 == 1 ? 0u : I + 1) << I;
}

/// H.bump(KernelBuffer<float32> b, uint32 i, float32 v): b[i] = b[i] + v; return b[i] * 2;
/// K.usehelper(KernelBuffer<float32> data, float32 v, KernelBuffer<float32> out):
///   i = globalIdX; if (i < out.length()) out[i] = H.bump(data, i, v);
uint32_t addBumpHelper(KirBuilder& K) {
  uint32_t H = K.function("H.bump", false, scalar(ScalarType::F32));
  uint32_t Bb = K.param("b", buffer(ScalarType::F32));
  uint32_t I = K.param("i", U32);
  uint32_t V = K.param("v", scalar(ScalarType::F32));
  K.body({K.eval(K.store(Bb, K.p(I), K.bin(BinaryOp::Add, K.load(Bb, K.p(I)), K.p(V)))),
          K.ret(K.bin(BinaryOp::Mul, K.load(Bb, K.p(I)), K.constFloat(ScalarType::F32, 2.0)))});
  return H;
}

void addHelperKernel(KirBuilder& K, uint32_t H) {
  K.kernel("K.usehelper");
  uint32_t Data = K.param("data", buffer(ScalarType::F32));
  uint32_t V = K.param("v", scalar(ScalarType::F32));
  uint32_t Out = K.param("out", buffer(ScalarType::F32));
  uint32_t Item = K.local("i", U32);
  K.body({K.eval(K.assign(Item, K.geom(IntrinsicOp::GlobalId, 0))),
          K.ifThen(K.bin(BinaryOp::Lt, K.cast(scalar(ScalarType::U64), K.l(Item)), K.length(Out)),
                   K.eval(K.store(Out, K.l(Item), K.call(H, {K.p(Data), K.l(Item), K.p(V)}))))});
}

TEST(LoweringControl, DeviceHelperWithABufferParameter) {
  kir::Module M;
  KirBuilder K(M);
  addHelperKernel(K, addBumpHelper(K));
  std::string Error;
  auto P = LoadedPayload::build(M, Error);
  ASSERT_TRUE(P) << Error;
  std::vector<float> Data(20), Out(20, -1.0f);
  for (int I = 0; I < 20; ++I)
    Data[I] = float(I) * 0.5f;
  std::vector<float> Ref = Data;
  P->run("cj_K_usehelper", {bufferArg(Data), scalarArg(1.25f), bufferArg(Out)}, 3, 8);
  for (int I = 0; I < 20; ++I) {
    EXPECT_EQ(Data[I], Ref[I] + 1.25f) << I;
    EXPECT_EQ(Out[I], (Ref[I] + 1.25f) * 2.0f) << I;
  }
  // The helper is inlined and gone; only the kernel is exported.
  EXPECT_EQ(P->kernel("cj_H_bump"), nullptr);
}

TEST(LoweringControl, CheckBoundsReportsParamIndexAndLength) {
  kir::Module M;
  KirBuilder K(M);
  K.kernel("K.fill");
  uint32_t In = K.param("in", buffer(ScalarType::I32));
  uint32_t Out = K.param("out", buffer(ScalarType::I32));
  uint32_t Item = K.local("i", U32);
  K.body({K.eval(K.assign(Item, K.geom(IntrinsicOp::GlobalId, 0))),
          K.eval(K.store(Out, K.l(Item),
                         K.bin(BinaryOp::Add, K.load(In, K.u32(0)), K.cast(I32, K.l(Item)))))});
  std::string Error;
  auto P = LoadedPayload::build(M, Error, /*CheckBounds=*/true);
  ASSERT_TRUE(P) << Error;
  std::vector<int32_t> Src = {100}, Data(32, -7);
  CajetaCpuLaunch L = P->run("cj_K_fill", {bufferArg(Src), bufferArg(Data, 10)}, 4, 8);
  EXPECT_EQ(L.Failed, 1u);
  EXPECT_EQ(L.FailedParam, 1u);
  EXPECT_EQ(L.FailedIndex, 10u);
  EXPECT_EQ(L.FailedLength, 10u);
  for (int I = 0; I < 32; ++I)
    EXPECT_EQ(Data[I], I < 10 ? 100 + I : -7) << "at " << I;

  // In range: no report.
  std::vector<int32_t> Full(32, 0);
  L = P->run("cj_K_fill", {bufferArg(Src), bufferArg(Full)}, 4, 8);
  EXPECT_EQ(L.Failed, 0u);
  EXPECT_EQ(Full[31], 131);

  // A launch that has already failed starts no further workgroups.
  std::vector<int32_t> Untouched(32, 5);
  std::vector<CajetaCpuArg> Args = {bufferArg(Src), bufferArg(Untouched)};
  CajetaCpuLaunch Pre{};
  Pre.GridDim[0] = 4;
  Pre.GridDim[1] = Pre.GridDim[2] = 1;
  Pre.BlockDim[0] = 8;
  Pre.BlockDim[1] = Pre.BlockDim[2] = 1;
  Pre.Failed = 1;
  P->kernel("cj_K_fill")(Args.data(), &Pre, 0, 4);
  EXPECT_EQ(Untouched, std::vector<int32_t>(32, 5));
}

TEST(LoweringControl, CheckBoundsThroughAHelperNamesTheKernelParameter) {
  kir::Module M;
  KirBuilder K(M);
  uint32_t H = K.function("H.put", false);
  uint32_t Bb = K.param("b", buffer(ScalarType::I32));
  uint32_t Idx = K.param("i", I32);
  K.body({K.eval(K.store(Bb, K.p(Idx), K.i32(7)))});
  K.kernel("K.viahelper");
  K.param("unused", buffer(ScalarType::F32));
  K.param("n", U32);
  uint32_t Out = K.param("out", buffer(ScalarType::I32));
  // Index i - 2 as int32: the first two work-items index -2 and -1.
  K.body({K.eval(
      K.call(H, {K.p(Out),
                 K.bin(BinaryOp::Sub, K.cast(I32, K.geom(IntrinsicOp::GlobalId, 0)), K.i32(2))}))});
  std::string Error;
  auto P = LoadedPayload::build(M, Error, /*CheckBounds=*/true);
  ASSERT_TRUE(P) << Error;
  std::vector<float> Unused(1);
  std::vector<int32_t> Data(8, 0);
  CajetaCpuLaunch L =
      P->run("cj_K_viahelper", {bufferArg(Unused), scalarArg(8u), bufferArg(Data)}, 1, 8);
  EXPECT_EQ(L.Failed, 1u);
  EXPECT_EQ(L.FailedParam, 2u);
  EXPECT_EQ(L.FailedIndex, uint64_t(-2));
  EXPECT_EQ(L.FailedLength, 8u);
  EXPECT_EQ(Data, std::vector<int32_t>(8, 0)); // the entry returned at the first failure
}

TEST(LoweringControl, CheckBoundsVersionsTheWorkItemLoop) {
  // out[i] = in[i + 1] * 2: the loop over work-items gets a copy without the checks, entered
  // when both indices of the whole row are proved in range; the checked loop stays for the rest.
  kir::Module M;
  KirBuilder K(M);
  K.kernel("K.shiftcopy");
  uint32_t In = K.param("in", buffer(ScalarType::I32));
  uint32_t Out = K.param("out", buffer(ScalarType::I32));
  uint32_t Item = K.local("i", U32);
  K.body({K.eval(K.assign(Item, K.geom(IntrinsicOp::GlobalId, 0))),
          K.eval(K.store(Out, K.l(Item),
                         K.bin(BinaryOp::Mul, K.load(In, K.bin(BinaryOp::Add, K.l(Item), K.u32(1))),
                               K.i32(2))))});
  lowering::CpuBuildOptions O;
  O.CheckBounds = true;
  std::string Checked = lowering::CpuPayloadBuilder::emitLlvmIr(M, O, true);
  EXPECT_NE(Checked.find(".bounds.inrange"), std::string::npos) << Checked;
  // The checked copy: its failure report (its preheader's name may be folded away).
  EXPECT_NE(Checked.find("bounds.report"), std::string::npos) << Checked;
  std::string Plain = lowering::CpuPayloadBuilder::emitLlvmIr(M, {}, true);
  EXPECT_EQ(Plain.find(".bounds."), std::string::npos);

  std::string Error;
  auto P = LoadedPayload::build(M, Error, /*CheckBounds=*/true);
  ASSERT_TRUE(P) << Error;
  // In range everywhere: the versioned copy's results.
  std::vector<int32_t> Src(33), Dst(32, -7);
  for (int I = 0; I < 33; ++I)
    Src[I] = I * 3;
  CajetaCpuLaunch L = P->run("cj_K_shiftcopy", {bufferArg(Src), bufferArg(Dst)}, 4, 8);
  EXPECT_EQ(L.Failed, 0u);
  for (int I = 0; I < 32; ++I)
    EXPECT_EQ(Dst[I], (I + 1) * 6) << "at " << I;
  // The source one short: the last workgroup's row cannot be proved and reports index 32.
  std::vector<int32_t> Short(Src.begin(), Src.end() - 1);
  std::fill(Dst.begin(), Dst.end(), -7);
  L = P->run("cj_K_shiftcopy", {bufferArg(Short), bufferArg(Dst)}, 4, 8);
  EXPECT_EQ(L.Failed, 1u);
  EXPECT_EQ(L.FailedParam, 0u);
  EXPECT_EQ(L.FailedIndex, 32u);
  EXPECT_EQ(L.FailedLength, 32u);
  for (int I = 0; I < 31; ++I)
    EXPECT_EQ(Dst[I], (I + 1) * 6) << "at " << I;
}

} // namespace
} // namespace cajeta::test
