// Lowering tests of the rest of the device subset on the CPU: POD parameters (C layout with
// padding, passed on to helpers), function-tag dispatch (in and out of range), @Backend gating.
#include "KirBuilder.h"
#include "LoadedPayload.h"

#include <gtest/gtest.h>

namespace cajeta::test {
namespace {

const Type I32 = scalar(ScalarType::I32);
const Type F64 = scalar(ScalarType::F64);

struct HostPod { // the C layout the KIR PodType below describes
  uint8_t Small;
  double Scale;
  int32_t Offset;
};
static_assert(offsetof(HostPod, Scale) == 8 && offsetof(HostPod, Offset) == 16 &&
              sizeof(HostPod) == 24);

TEST(LoweringDevice, PodFieldsWithPadding) {
  kir::Module M;
  M.Pods.push_back({"Params",
                    {{"small", ScalarType::U8, 0},
                     {"scale", ScalarType::F64, 8},
                     {"offset", ScalarType::I32, 16}},
                    24,
                    8});
  KirBuilder K(M);
  // float64 scaleOf(Params p) { return p.scale; }   (a helper gets the POD's pointer)
  uint32_t ScaleOf = K.function("H.scaleOf", false, F64);
  uint32_t HP = K.param("p", Type::pod(0));
  K.body({K.ret(K.field(HP, 1))});
  K.kernel("K.pod");
  uint32_t Out = K.param("out", buffer(ScalarType::F64));
  uint32_t P = K.param("p", Type::pod(0));
  Expr* Gid = K.geom(IntrinsicOp::GlobalId, 0);
  // out[i] = scaleOf(p) * i + p.small + p.offset
  K.body({K.eval(K.store(Out, Gid,
                         K.bin(BinaryOp::Add,
                               K.bin(BinaryOp::Add,
                                     K.bin(BinaryOp::Mul, K.call(ScaleOf, {K.p(P)}),
                                           K.cast(F64, K.geom(IntrinsicOp::GlobalId, 0))),
                                     K.cast(F64, K.field(P, 0))),
                               K.cast(F64, K.field(P, 2)))))});
  std::string Error;
  auto Lp = LoadedPayload::build(M, Error);
  ASSERT_TRUE(Lp) << Error;
  HostPod Pod{200, 0.5, -40};
  CajetaCpuArg PodArg{};
  PodArg.Ptr = &Pod;
  PodArg.Length = sizeof(Pod);
  std::vector<double> Data(16, -1);
  Lp->run("cj_K_pod", {bufferArg(Data), PodArg}, 2, 8);
  for (uint32_t I = 0; I < Data.size(); ++I)
    EXPECT_EQ(Data[I], 0.5 * I + 200 - 40) << I;
}

TEST(LoweringDevice, DispatchInAndOutOfRange) {
  kir::Module M;
  KirBuilder K(M);
  std::vector<uint32_t> Targets;
  const BinaryOp Ops[] = {BinaryOp::Mul, BinaryOp::Sub, BinaryOp::Add};
  for (int F = 0; F < 3; ++F) { // square(x) = x * x, neg(x) = 0 - x, inc(x) = x + 1
    Targets.push_back(K.function("H.f" + std::to_string(F), false, I32));
    uint32_t X = K.param("x", I32);
    Expr* L = F == 1 ? K.i32(0) : K.p(X);
    Expr* R = F == 0 ? K.p(X) : F == 1 ? K.p(X) : K.i32(1);
    K.body({K.ret(K.bin(Ops[F], L, R))});
  }
  // A void target set too: store(buf, i, v) or nothing.
  uint32_t Put = K.function("H.put", false);
  uint32_t PB = K.param("buf", buffer(ScalarType::I32));
  uint32_t PI = K.param("i", scalar(ScalarType::U32));
  K.body({K.eval(K.store(PB, K.p(PI), K.i32(77)))});
  K.kernel("K.dispatch");
  uint32_t Out = K.param("out", buffer(ScalarType::I32));
  uint32_t Marks = K.param("marks", buffer(ScalarType::I32));
  uint32_t Tag = K.param("f", scalar(ScalarType::U32));
  Expr* Gid = K.geom(IntrinsicOp::GlobalId, 0);
  K.body({K.eval(K.store(Out, Gid,
                         K.dispatch(I32, Targets,
                                    {K.p(Tag), K.bin(BinaryOp::Add, K.cast(I32, Gid), K.i32(3))}))),
          K.eval(K.dispatch(Type::voidTy(), {Put}, {K.p(Tag), K.p(Marks), Gid}))});
  std::string Error;
  auto P = LoadedPayload::build(M, Error);
  ASSERT_TRUE(P) << Error;
  for (uint32_t T : {0u, 1u, 2u, 3u, 1000u}) {
    std::vector<int32_t> Data(8, -1), MarkData(8, -1);
    P->run("cj_K_dispatch", {bufferArg(Data), bufferArg(MarkData), scalarArg(T)}, 1, 8);
    for (int32_t I = 0; I < 8; ++I) {
      int32_t X = I + 3;
      int32_t Ref = T == 0 ? X * X : T == 1 ? -X : T == 2 ? X + 1 : 0;
      EXPECT_EQ(Data[I], Ref) << "tag " << T << " item " << I;
      EXPECT_EQ(MarkData[I], T == 0 ? 77 : -1) << "tag " << T << " item " << I;
    }
  }
}

TEST(LoweringDevice, CudaOnlyKernelIsAbsentFromTheCpuPayload) {
  kir::Module M;
  KirBuilder K(M);
  uint32_t Helper = K.function("H.gpuOnly", false, I32);
  K.body({K.ret(K.i32(1))});
  // Valid KIR: the helper exists wherever its caller does (Kir.h, Function::Backends).
  M.Functions[Helper]->Backends = {"cuda", "vulkan"};
  uint32_t Gpu = K.kernel("K.gpu");
  uint32_t GOut = K.param("out", buffer(ScalarType::I32));
  K.body({K.eval(K.store(GOut, K.u32(0), K.call(Helper, {})))});
  M.Functions[Gpu]->Backends = {"cuda", "vulkan"};
  uint32_t Cpu = K.kernel("K.cpu");
  uint32_t COut = K.param("out", buffer(ScalarType::I32));
  K.body({K.eval(K.store(COut, K.u32(0), K.i32(5)))});
  M.Functions[Cpu]->Backends = {"cpu", "cuda"};
  K.kernel("K.any");
  uint32_t AOut = K.param("out", buffer(ScalarType::I32));
  K.body({K.eval(K.store(AOut, K.u32(0), K.i32(6)))});
  std::string Error;
  auto P = LoadedPayload::build(M, Error);
  ASSERT_TRUE(P) << Error;
  const auto& Manifests = P->result().Manifests;
  EXPECT_EQ(Manifests.count("K.gpu"), 0u);
  EXPECT_EQ(Manifests.count("K.cpu"), 1u);
  EXPECT_EQ(Manifests.count("K.any"), 1u);
  EXPECT_EQ(P->kernel("cj_K_gpu"), nullptr);
  std::vector<int32_t> Data(1, 0);
  P->run("cj_K_cpu", {bufferArg(Data)}, 1, 1);
  EXPECT_EQ(Data[0], 5);
  P->run("cj_K_any", {bufferArg(Data)}, 1, 1);
  EXPECT_EQ(Data[0], 6);
}

} // namespace
} // namespace cajeta::test
