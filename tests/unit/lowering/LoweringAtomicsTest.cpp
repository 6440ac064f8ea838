// Lowering tests of atomics: every op x element type on a buffer and on a shared array, checked
// against a sequential model (one thread runs the work-items in order), float min/max with NaN
// and signed zeros, bitwise float compareExchange, and the memory orders in the emitted IR.
#include "KirBuilder.h"
#include "LoadedPayload.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

namespace cajeta::test {
namespace {

using kir::AtomicOp;
using kir::MemoryOrder;

constexpr uint32_t Items = 16, Slots = 4;

const AtomicOp IntOps[] = {AtomicOp::Add,  AtomicOp::Sub,      AtomicOp::Min,
                           AtomicOp::Max,  AtomicOp::And,      AtomicOp::Or,
                           AtomicOp::Xor,  AtomicOp::Exchange, AtomicOp::CompareExchange,
                           AtomicOp::Load, AtomicOp::Store};
const AtomicOp FloatOps[] = {
    AtomicOp::Add,  AtomicOp::Min,  AtomicOp::Max, AtomicOp::Exchange, AtomicOp::CompareExchange,
    AtomicOp::Load, AtomicOp::Store};

std::string symbolFor(ScalarType T, AtomicOp Op) {
  return std::string("cj_A_") + bundle::scalarTypeName(T) + "_" + kir::atomicOpName(Op);
}

/// One kernel per (type, op):
///   if (lid < 4) s[lid] = sinit[lid]; barrier;
///   old[gid] = atomic(buf, gid % 4, a[gid] [, b[gid]]); sold[gid] = atomic(s, lid % 4, ...);
///   barrier; if (lid < 4) sfinal[lid] = s[lid];
void addKernel(kir::Module& M, ScalarType T, AtomicOp Op, MemoryOrder Order) {
  KirBuilder K(M);
  std::string Name = symbolFor(T, Op).substr(3);
  for (char& C : Name)
    if (C == '_')
      C = '.';
  K.kernel(Name);
  M.Functions.back()->Symbol = symbolFor(T, Op);
  uint32_t Buf = K.param("buf", buffer(T)), A = K.param("a", buffer(T)),
           Bv = K.param("b", buffer(T)), Old = K.param("old", buffer(T)),
           SInit = K.param("sinit", buffer(T)), SOld = K.param("sold", buffer(T)),
           SFinal = K.param("sfinal", buffer(T));
  uint32_t S = K.shared("s", T, Slots);
  Expr* Lid = K.geom(IntrinsicOp::LocalId, 0);
  Expr* Gid = K.geom(IntrinsicOp::GlobalId, 0);
  auto Slot = [&](Expr* I) { return K.bin(BinaryOp::Rem, I, K.u32(Slots)); };
  auto AtomicOn = [&](Expr* Array, Expr* Index) {
    if (Op == AtomicOp::Load)
      return K.atomic(Op, Order, {Array, Index});
    if (Op == AtomicOp::CompareExchange)
      return K.atomic(Op, Order, {Array, Index, K.load(A, Gid), K.load(Bv, Gid)});
    return K.atomic(Op, Order, {Array, Index, K.load(A, Gid)});
  };
  Expr* Small = K.bin(BinaryOp::Lt, Lid, K.u32(Slots));
  K.body({
      K.ifThen(Small, K.eval(K.storeAt(K.sharedRef(S), Lid, K.load(SInit, Lid)))),
      K.barrier(),
      K.eval(K.store(Old, Gid, AtomicOn(K.p(Buf), Slot(Gid)))),
      K.eval(K.store(SOld, Gid, AtomicOn(K.sharedRef(S), Slot(Lid)))),
      K.barrier(),
      K.ifThen(Small, K.eval(K.store(SFinal, Lid, K.loadAt(K.sharedRef(S), Lid)))),
  });
}

/// Math.min/max: NaN wins, -0 < +0.
template <typename T> T javaMin(T X, T Y) {
  if (std::isnan(X) || std::isnan(Y))
    return std::numeric_limits<T>::quiet_NaN();
  if (X == 0 && Y == 0)
    return std::signbit(X) ? X : Y;
  return X < Y ? X : Y;
}
template <typename T> T javaMax(T X, T Y) {
  if (std::isnan(X) || std::isnan(Y))
    return std::numeric_limits<T>::quiet_NaN();
  if (X == 0 && Y == 0)
    return std::signbit(X) ? Y : X;
  return X > Y ? X : Y;
}

template <typename T> bool sameBits(T X, T Y) {
  if constexpr (std::is_floating_point_v<T>)
    if (std::isnan(X) && std::isnan(Y))
      return true;
  return std::memcmp(&X, &Y, sizeof(T)) == 0;
}

/// The sequential model: applies Op to *Cell with operands V, W; returns the value it yields.
template <typename T> T apply(AtomicOp Op, T& Cell, T V, T W) {
  T Old = Cell;
  switch (Op) {
  case AtomicOp::Add:
    if constexpr (std::is_floating_point_v<T>)
      Cell = Old + V;
    else
      Cell = T(std::make_unsigned_t<T>(Old) + std::make_unsigned_t<T>(V));
    break;
  case AtomicOp::Sub:
    if constexpr (!std::is_floating_point_v<T>)
      Cell = T(std::make_unsigned_t<T>(Old) - std::make_unsigned_t<T>(V));
    break;
  case AtomicOp::Min:
    if constexpr (std::is_floating_point_v<T>)
      Cell = javaMin(Old, V);
    else
      Cell = std::min(Old, V);
    break;
  case AtomicOp::Max:
    if constexpr (std::is_floating_point_v<T>)
      Cell = javaMax(Old, V);
    else
      Cell = std::max(Old, V);
    break;
  case AtomicOp::And:
    if constexpr (!std::is_floating_point_v<T>)
      Cell = Old & V;
    break;
  case AtomicOp::Or:
    if constexpr (!std::is_floating_point_v<T>)
      Cell = Old | V;
    break;
  case AtomicOp::Xor:
    if constexpr (!std::is_floating_point_v<T>)
      Cell = Old ^ V;
    break;
  case AtomicOp::Exchange:
    Cell = V;
    break;
  case AtomicOp::CompareExchange:
    if (std::memcmp(&Old, &V, sizeof(T)) == 0) // bitwise
      Cell = W;
    break;
  case AtomicOp::Load:
    break;
  case AtomicOp::Store:
    Cell = V;
    return V;
  }
  return Old;
}

/// Operand values: A mixes small, negative / high-bit and equal-to-current values so that signed
/// and unsigned min/max differ and some compareExchanges succeed.
template <typename T> void values(std::vector<T>& Init, std::vector<T>& A, std::vector<T>& B) {
  Init.resize(Slots);
  A.resize(Items);
  B.resize(Items);
  if constexpr (std::is_floating_point_v<T>) {
    const T Nan = std::numeric_limits<T>::quiet_NaN();
    Init = {T(1.5), T(-0.0), T(0.0), T(-4)};
    const T Pool[] = {T(2), T(0.0), T(-0.0), T(-7.25), Nan, T(1.5), T(3), T(-0.0)};
    for (uint32_t I = 0; I < Items; ++I) {
      A[I] = Pool[I % 8];
      B[I] = T(I) + T(0.5);
    }
    A[Slots + 0] = B[0]; // a compareExchange that matches a value an earlier item stored
    A[0] = Init[0];
  } else {
    Init = {T(1), T(-2), T(std::numeric_limits<T>::max()), T(12)};
    for (uint32_t I = 0; I < Items; ++I) {
      A[I] = T(I % 3 == 0 ? T(5 + I) : I % 3 == 1 ? T(0) - T(3 + I) : T(1) << (sizeof(T) * 8 - 1));
      B[I] = T(100 + I);
    }
    A[0] = Init[0];
    A[Slots + 1] = B[1]; // matches after item 1's exchange succeeded? only if item 1 matched
    A[1] = Init[1];
  }
}

template <typename T> void runAll(const LoadedPayload& P, ScalarType ST, AtomicOp Op) {
  std::vector<T> Init, A, B;
  values(Init, A, B);
  std::vector<T> Buf = Init, Old(Items), SOld(Items), SFinal(Slots), SInit = Init;
  P.run(symbolFor(ST, Op),
        {bufferArg(Buf), bufferArg(A), bufferArg(B), bufferArg(Old), bufferArg(SInit),
         bufferArg(SOld), bufferArg(SFinal)},
        1, Items);
  std::vector<T> RefBuf = Init, RefS = Init;
  for (uint32_t I = 0; I < Items; ++I) {
    T R = apply(Op, RefBuf[I % Slots], A[I], B[I]);
    ASSERT_TRUE(sameBits(Old[I], R)) << symbolFor(ST, Op) << " buffer item " << I;
    T RS = apply(Op, RefS[I % Slots], A[I], B[I]);
    ASSERT_TRUE(sameBits(SOld[I], RS)) << symbolFor(ST, Op) << " shared item " << I;
  }
  for (uint32_t S = 0; S < Slots; ++S) {
    EXPECT_TRUE(sameBits(Buf[S], RefBuf[S])) << symbolFor(ST, Op) << " buffer slot " << S;
    EXPECT_TRUE(sameBits(SFinal[S], RefS[S])) << symbolFor(ST, Op) << " shared slot " << S;
  }
}

MemoryOrder orderFor(size_t I) {
  return MemoryOrder(I % 5);
}

TEST(LoweringAtomics, EveryOpAndTypeOnBuffersAndSharedArrays) {
  kir::Module M;
  const ScalarType IntTypes[] = {ScalarType::I32, ScalarType::U32, ScalarType::I64,
                                 ScalarType::U64};
  const ScalarType FloatTypes[] = {ScalarType::F32, ScalarType::F64};
  size_t N = 0;
  for (ScalarType T : IntTypes)
    for (AtomicOp Op : IntOps)
      addKernel(M, T, Op, orderFor(N++));
  for (ScalarType T : FloatTypes)
    for (AtomicOp Op : FloatOps)
      addKernel(M, T, Op, orderFor(N++));
  std::string Error;
  auto P = LoadedPayload::build(M, Error);
  ASSERT_TRUE(P) << Error;
  for (AtomicOp Op : IntOps) {
    runAll<int32_t>(*P, ScalarType::I32, Op);
    runAll<uint32_t>(*P, ScalarType::U32, Op);
    runAll<int64_t>(*P, ScalarType::I64, Op);
    runAll<uint64_t>(*P, ScalarType::U64, Op);
  }
  for (AtomicOp Op : FloatOps) {
    runAll<float>(*P, ScalarType::F32, Op);
    runAll<double>(*P, ScalarType::F64, Op);
  }
}

TEST(LoweringAtomics, MemoryOrdersReachTheIr) {
  const std::pair<MemoryOrder, const char*> Orders[] = {{MemoryOrder::Relaxed, "monotonic"},
                                                        {MemoryOrder::Acquire, "acquire"},
                                                        {MemoryOrder::Release, "release"},
                                                        {MemoryOrder::AcqRel, "acq_rel"},
                                                        {MemoryOrder::SeqCst, "seq_cst"}};
  for (auto [Order, Name] : Orders) {
    kir::Module M;
    addKernel(M, ScalarType::U32, AtomicOp::Add, Order);
    std::string Ir = lowering::CpuPayloadBuilder::emitLlvmIr(M, {}, false);
    EXPECT_NE(Ir.find(std::string("atomicrmw add ptr")), std::string::npos) << Ir;
    EXPECT_NE(Ir.find(std::string(" ") + Name + ", align 4"), std::string::npos) << Name;
  }
  kir::Module M;
  addKernel(M, ScalarType::F32, AtomicOp::Min, MemoryOrder::SeqCst);
  std::string Ir = lowering::CpuPayloadBuilder::emitLlvmIr(M, {}, false);
  EXPECT_EQ(Ir.find("atomicrmw fmin"), std::string::npos); // minnum semantics: not used
  EXPECT_NE(Ir.find("cmpxchg ptr"), std::string::npos);
}

TEST(LoweringAtomics, RejectsFloatBitwiseOps) {
  kir::Module M;
  addKernel(M, ScalarType::F32, AtomicOp::Xor, MemoryOrder::Relaxed);
  std::string Error;
  EXPECT_FALSE(LoadedPayload::build(M, Error));
  EXPECT_NE(Error.find("atomic 'xor' on float32"), std::string::npos) << Error;
  EXPECT_NE(Error.find("invalid KIR given to the cpu pipeline"), std::string::npos) << Error;
}

} // namespace
} // namespace cajeta::test
