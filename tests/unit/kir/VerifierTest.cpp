// The KIR verifier on hand-broken modules: each test breaks one invariant of Kir.h and checks
// that the verifier reports exactly that problem, naming the function, the location and the
// node kind. The emitters used to check these invariants themselves ("malformed KIR").
#include "compiler/kir/Verifier.h"
#include "compiler/kir/Builder.h"

#include <gtest/gtest.h>

namespace cajeta::kir {
namespace {

using bundle::ScalarType;

Type scalar(ScalarType T) {
  return Type::scalar(T);
}
const Type I32 = scalar(ScalarType::I32);
const Type U32 = scalar(ScalarType::U32);
const Type F32 = scalar(ScalarType::F32);
const Type Bool = scalar(ScalarType::Bool);

bool contains(const std::string& S, const std::string& Part) {
  return S.find(Part) != std::string::npos;
}

/// M fails to verify with exactly one problem, which contains every one of Parts.
void expectProblem(const Module& M, std::initializer_list<std::string> Parts) {
  std::vector<std::string> Problems = verifyProblems(M);
  ASSERT_EQ(Problems.size(), 1u) << testing::PrintToString(Problems);
  for (const std::string& P : Parts)
    EXPECT_TRUE(contains(Problems[0], P)) << "'" << P << "' not in: " << Problems[0];
  std::string Error;
  EXPECT_FALSE(verify(M, Error));
  EXPECT_EQ(Error, Problems[0]);
}

/// A kernel K.bad(out: buffer<int32>, x: int32, f: float32) with locals i (int32), b (bool).
struct Fixture {
  Module M;
  Builder K{M};
  uint32_t Out, X, F, LocalI, LocalB;
  Fixture() {
    K.kernel("K.bad");
    Out = K.param("out", Type::buffer(ScalarType::I32));
    X = K.param("x", I32);
    F = K.param("f", F32);
    LocalI = K.local("i", I32);
    LocalB = K.local("b", Bool);
    K.setLoc({2, 3});
  }
  /// out[0] = V
  Stmt* storeOut(Expr* V) { return K.eval(K.store(Out, K.i32(0), V)); }
};

TEST(KirVerifier, WellFormedModulesVerify) {
  Fixture T;
  Builder& K = T.K;
  uint32_t S = K.shared("tile", ScalarType::I32, 64);
  uint32_t Loop = K.newLoopId();
  Expr* Lid = K.geom(IntrinsicOp::LocalId, 0);
  K.body({
      K.eval(K.assign(T.LocalI, K.p(T.X))),
      K.eval(K.storeAt(K.sharedRef(S), Lid, K.l(T.LocalI))),
      K.barrier(),
      K.loop(Loop, K.bin(BinaryOp::Lt, K.l(T.LocalI), K.i32(10)),
             K.block({K.ifThen(K.bin(BinaryOp::Eq, K.l(T.LocalI), K.i32(5)), K.brk(Loop)),
                      K.eval(K.atomic(AtomicOp::Add, MemoryOrder::Relaxed,
                                      {K.p(T.Out), K.i32(0), K.i32(1)}))}),
             K.eval(K.assign(T.LocalI, K.bin(BinaryOp::Add, K.l(T.LocalI), K.i32(1))))),
      T.storeOut(K.cast(I32, K.math(IntrinsicOp::Sqrt, {K.p(T.F)}))),
      K.eval(K.cast(I32, K.lengthOf(K.sharedRef(S)))),
      K.ret(),
  });
  uint32_t H = K.function("K.twice", false, I32);
  uint32_t A = K.param("a", I32);
  K.param("buf", Type::buffer(ScalarType::I32));
  K.body({K.ret(K.bin(BinaryOp::Mul, K.p(A), K.i32(2)))});
  Builder K2(T.M, *T.M.Functions[0]);
  T.M.Functions[0]->Body->Body.push_back(K2.eval(K2.call(H, {K2.p(T.X), K2.p(T.Out)})));
  T.M.Functions[0]->Body->Body.push_back(
      K2.eval(K2.dispatch(I32, {H, H}, {K2.u32(1), K2.p(T.X), K2.p(T.Out)})));
  std::string Error;
  EXPECT_TRUE(verify(T.M, Error)) << Error;
  EXPECT_TRUE(verifyProblems(T.M).empty());
}

// ---------------------------------------------------------------------------------------------
// Index ranges

TEST(KirVerifier, LocalOutOfRange) {
  Fixture T;
  Expr* BadLocal = T.K.expr(Expr::Kind::Local, I32);
  BadLocal->Index = 7; // no such local
  T.K.body({T.storeOut(BadLocal)});
  expectProblem(T.M, {"function 'K.bad' at 2:3: Local: ", "no local 7"});
}

TEST(KirVerifier, LocalReadWithTheWrongType) {
  Fixture T;
  Expr* L = T.K.l(T.LocalI);
  L->Ty = F32;
  T.K.body({T.K.eval(L)});
  expectProblem(T.M, {"Local: local 0 of type int32 read as float32"});
}

TEST(KirVerifier, ParamOutOfRangeOrMistyped) {
  Fixture T;
  Expr* P = T.K.expr(Expr::Kind::Param, I32);
  P->Index = 9;
  T.K.body({T.storeOut(P)});
  expectProblem(T.M, {"Param: no parameter 9"});

  Fixture T2;
  Expr* Q = T2.K.p(T2.X);
  Q->Ty = U32;
  T2.K.body({T2.K.eval(Q)});
  expectProblem(T2.M, {"Param: parameter 1 of type int32 read as uint32"});
}

TEST(KirVerifier, AssignToAMissingLocalOrOfTheWrongType) {
  Fixture T;
  Expr* A = T.K.assign(T.LocalI, T.K.i32(1));
  A->Index = 5;
  T.K.body({T.K.eval(A)});
  expectProblem(T.M, {"Assign: no local 5"});

  Fixture T2;
  T2.K.body({T2.K.eval(T2.K.assign(T2.LocalI, T2.K.constBool(true)))});
  expectProblem(T2.M, {"Assign: ", "bool assigned to local 0 of type int32"});
}

TEST(KirVerifier, SharedArrayOutOfRange) {
  Fixture T;
  Expr* S = T.K.expr(Expr::Kind::SharedRef, Type::shared(ScalarType::I32));
  S->Index = 3;
  T.K.body({T.K.eval(T.K.loadAt(S, T.K.i32(0)))});
  expectProblem(T.M, {"SharedRef: no shared array 3"});
}

TEST(KirVerifier, FieldOutOfRangeOrOfANonPod) {
  Fixture T;
  T.M.Pods.push_back({"P", {{"a", ScalarType::I32, 0}}, 4, 4});
  uint32_t Pp = T.K.param("p", Type::pod(0));
  Expr* Fd = T.K.field(Pp, 0);
  Fd->Index = 2;
  T.K.body({T.K.eval(Fd)});
  expectProblem(T.M, {"Field: POD 'P' has no field 2"});

  Fixture T2;
  Expr* Bad = T2.K.expr(Expr::Kind::Field, I32, {T2.K.p(T2.X)});
  T2.K.body({T2.K.eval(Bad)});
  expectProblem(T2.M, {"Param: expected a POD parameter, got int32"});
}

TEST(KirVerifier, PodFieldOutsideThePod) {
  Module M;
  M.Pods.push_back({"P", {{"a", ScalarType::F64, 4}}, 8, 8});
  expectProblem(M, {"POD 'P': field 'a' at offset 4 is not aligned to its 8 bytes"});

  Module M2;
  M2.Pods.push_back({"Q", {{"a", ScalarType::I32, 0}, {"b", ScalarType::F64, 8}}, 12, 8});
  expectProblem(M2, {"POD 'Q': field 'b' lies outside its 12 bytes"});
}

TEST(KirVerifier, CallOfAMissingFunction) {
  Fixture T;
  Expr* C = T.K.expr(Expr::Kind::Call, Type::voidTy());
  C->Index = 12;
  T.K.body({T.K.eval(C)});
  expectProblem(T.M, {"Call: call of function 12: no such function"});
}

// ---------------------------------------------------------------------------------------------
// Operators and types

TEST(KirVerifier, BinaryOperandsOfDifferentTypes) {
  Fixture T;
  T.K.body({T.storeOut(T.K.bin(BinaryOp::Add, T.K.i32(1), T.K.constFloat(ScalarType::F32, 1.0)))});
  expectProblem(T.M, {"Binary: 'add' on operands of different types int32 and float32"});
}

TEST(KirVerifier, ComparisonsYieldBool) {
  Fixture T;
  Expr* C = T.K.bin(BinaryOp::Lt, T.K.i32(1), T.K.i32(2));
  C->Ty = I32;
  T.K.body({T.storeOut(C)});
  expectProblem(T.M, {"Binary: ", "yields bool, not int32"});
}

TEST(KirVerifier, ArithmeticResultIsTheOperandType) {
  Fixture T;
  Expr* A = T.K.bin(BinaryOp::Mul, T.K.i32(1), T.K.i32(2));
  A->Ty = U32;
  T.K.body({T.K.eval(A)});
  expectProblem(T.M, {"Binary: ", "yields int32, not uint32"});
}

TEST(KirVerifier, OperatorsOnTypesThatLackThem) {
  Fixture T;
  T.K.body({T.K.eval(T.K.bin(BinaryOp::Shl, T.K.p(T.F), T.K.p(T.F)))});
  expectProblem(T.M, {"Binary: ", "on float32"});

  Fixture T2;
  T2.K.body({T2.K.eval(T2.K.bin(BinaryOp::LogicalAnd, T2.K.i32(1), T2.K.i32(1)))});
  expectProblem(T2.M, {"Binary: ", "(bool only)"});

  Fixture T3;
  T3.K.body({T3.K.eval(T3.K.un(UnaryOp::Not, T3.K.i32(1)))});
  expectProblem(T3.M, {"Unary: ", "on int32"});

  Fixture T4;
  Expr* U = T4.K.un(UnaryOp::Neg, T4.K.i32(1));
  U->Ty = F32;
  T4.K.body({T4.K.eval(U)});
  expectProblem(T4.M, {"Unary: operand of type int32 for a result of type float32"});
}

TEST(KirVerifier, OperandCounts) {
  Fixture T;
  Expr* B = T.K.bin(BinaryOp::Add, T.K.i32(1), T.K.i32(2));
  B->Ops.pop_back();
  T.K.body({T.K.eval(B)});
  expectProblem(T.M, {"Binary: expected 2 operands, got 1"});

  Fixture T2;
  Expr* N = T2.K.un(UnaryOp::Neg, T2.K.i32(1));
  N->Ops[0] = nullptr;
  T2.K.body({T2.K.eval(N)});
  expectProblem(T2.M, {"Unary: a null operand"});
}

TEST(KirVerifier, CastsAreBetweenScalars) {
  Fixture T;
  T.K.body({T.K.eval(T.K.cast(Type::buffer(ScalarType::I32), T.K.i32(1)))});
  std::vector<std::string> P = verifyProblems(T.M);
  ASSERT_FALSE(P.empty());
  EXPECT_TRUE(contains(P.back(), "Cast: a cast from int32 to KernelBuffer<int32>")) << P.back();
}

TEST(KirVerifier, SelectTyping) {
  Fixture T;
  T.K.body({T.K.eval(T.K.select(T.K.i32(1), T.K.i32(2), T.K.i32(3)))});
  expectProblem(T.M, {"Select: the condition is int32, not bool"});

  Fixture T2;
  T2.K.body({T2.K.eval(T2.K.select(T2.K.constBool(true), T2.K.i32(2), T2.K.p(T2.F)))});
  expectProblem(T2.M, {"Select: arms of types int32 and float32"});
}

TEST(KirVerifier, SeqTypeIsItsLastOperands) {
  Fixture T;
  Expr* S = T.K.seq({T.K.i32(1), T.K.p(T.F)});
  S->Ty = I32;
  T.K.body({T.K.eval(S)});
  expectProblem(T.M, {"Seq: type int32 differs from its last operand's (float32)"});
}

TEST(KirVerifier, IntrinsicRules) {
  Fixture T;
  T.K.body({T.K.eval(T.K.geom(IntrinsicOp::GroupId, 3))});
  expectProblem(T.M, {"Intrinsic: 'group_id' of dimension 3"});

  Fixture T2;
  T2.K.body({T2.K.eval(T2.K.math(IntrinsicOp::Sqrt, {T2.K.i32(4)}))});
  expectProblem(T2.M, {"Intrinsic: ", "on int32"});

  Fixture T3;
  T3.K.body({T3.K.eval(T3.K.math(IntrinsicOp::Pow, {T3.K.p(T3.F)}))});
  expectProblem(T3.M, {"Intrinsic: expected 2 operands, got 1"});

  Fixture T4;
  Expr* L = T4.K.length(T4.Out);
  L->Ty = U32;
  T4.K.body({T4.K.eval(L)});
  expectProblem(T4.M, {"Intrinsic: ", "yields uint64, not uint32"});
}

// An arrival once per wave is every work-item's (its `arrive` the constant true), and Dim says
// no more than that.
TEST(KirVerifier, MbarrierArrivalOncePerWave) {
  auto Arrive = [](Fixture& T, Expr* Flag, uint8_t Dim) {
    uint32_t Bars = T.K.shared("bars", ScalarType::U64, 2);
    Expr* E = T.K.intrinsic(IntrinsicOp::MbarrierArrive, Type::voidTy(),
                            {T.K.sharedRef(Bars), T.K.u32(1), Flag});
    E->Dim = Dim;
    T.K.body({T.K.eval(E)});
  };
  Fixture T;
  Arrive(T, T.K.constBool(true), 1);
  EXPECT_TRUE(verifyProblems(T.M).empty()) << testing::PrintToString(verifyProblems(T.M));

  Fixture T2;
  Arrive(T2, T2.K.bin(BinaryOp::Eq, T2.K.geom(IntrinsicOp::LocalId, 0), T2.K.u32(0)), 1);
  expectProblem(T2.M, {"once per wave (Dim 1) where not every work-item arrives"});

  Fixture T3;
  Arrive(T3, T3.K.constBool(true), 2);
  expectProblem(T3.M, {"once per wave (Dim 2)"});
}

// ---------------------------------------------------------------------------------------------
// Memory: loads, stores, atomics, where arrays may appear

TEST(KirVerifier, LoadAndStoreTyping) {
  Fixture T;
  Expr* L = T.K.load(T.Out, T.K.i32(0));
  L->Ty = F32;
  T.K.body({T.K.eval(L)});
  expectProblem(T.M, {"Load: type float32 differs from the element type int32"});

  Fixture T2;
  T2.K.body({T2.K.eval(T2.K.load(T2.Out, T2.K.p(T2.F)))});
  expectProblem(T2.M, {"Load: the index is float32, not an integer"});

  Fixture T3;
  T3.K.body({T3.K.eval(T3.K.store(T3.Out, T3.K.i32(0), T3.K.p(T3.F)))});
  expectProblem(T3.M, {"Store: stored value of type float32 into elements of type int32"});

  Fixture T4;
  T4.K.body({T4.K.eval(T4.K.loadAt(T4.K.p(T4.X), T4.K.i32(0)))});
  expectProblem(T4.M, {"Param: expected a buffer parameter or a shared array, got int32"});
}

TEST(KirVerifier, SharedRefOnlyAsAnArrayOperand) {
  Fixture T;
  uint32_t S = T.K.shared("tile", ScalarType::I32, 8);
  T.K.body({T.K.eval(T.K.sharedRef(S))});
  expectProblem(T.M, {"SharedRef: a shared array outside the array operand"});
}

TEST(KirVerifier, BufferParamsOnlyWhereKirAllowsThem) {
  Fixture T;
  T.K.body({T.K.eval(T.K.p(T.Out))});
  expectProblem(T.M, {"Param: a buffer parameter used as a value"});

  Fixture T2;
  T2.K.body({T2.K.eval(T2.K.bin(BinaryOp::Eq, T2.K.p(T2.Out), T2.K.p(T2.Out)))});
  std::vector<std::string> P = verifyProblems(T2.M);
  ASSERT_FALSE(P.empty());
  EXPECT_TRUE(contains(P[0], "Param: a buffer parameter used as a value")) << P[0];
}

TEST(KirVerifier, AtomicOperandCountsAndTypes) {
  Fixture T;
  Expr* A = T.K.atomic(AtomicOp::CompareExchange, MemoryOrder::Relaxed,
                       {T.K.p(T.Out), T.K.i32(0), T.K.i32(1)});
  T.K.body({T.K.eval(A)});
  expectProblem(T.M, {"Atomic: expected 4 operands, got 3"});

  Fixture T2;
  T2.K.body({T2.K.eval(T2.K.atomic(AtomicOp::Add, MemoryOrder::Relaxed,
                                   {T2.K.p(T2.Out), T2.K.i32(0), T2.K.p(T2.F)}))});
  expectProblem(T2.M, {"Atomic: operand 2 is float32, the element type int32"});
}

TEST(KirVerifier, AtomicFloatRules) {
  Module M;
  Builder K(M);
  K.kernel("K.fx");
  uint32_t Buf = K.param("buf", Type::buffer(ScalarType::F32));
  K.body({K.eval(K.atomic(AtomicOp::Xor, MemoryOrder::Relaxed,
                          {K.p(Buf), K.i32(0), K.constFloat(ScalarType::F32, 1)}))});
  expectProblem(M, {"function 'K.fx'", "Atomic: atomic 'xor' on float32"});

  Module M2;
  Builder K2(M2);
  K2.kernel("K.fadd");
  uint32_t B2 = K2.param("buf", Type::buffer(ScalarType::F32));
  K2.body({K2.eval(K2.atomic(AtomicOp::Add, MemoryOrder::SeqCst,
                             {K2.p(B2), K2.i32(0), K2.constFloat(ScalarType::F32, 1)}))});
  std::string Error;
  EXPECT_TRUE(verify(M2, Error)) << Error; // add is allowed on floats
}

// ---------------------------------------------------------------------------------------------
// Control flow

TEST(KirVerifier, LoopIdsAreUniquePerFunction) {
  Fixture T;
  T.K.body({T.K.loop(4, nullptr, T.K.block({T.K.brk(4)})),
            T.K.loop(4, nullptr, T.K.block({T.K.brk(4)}))});
  expectProblem(T.M, {"Loop: loop id 4 is not unique"});
}

TEST(KirVerifier, BreakAndContinueTargetAnEnclosingLoop) {
  Fixture T;
  T.K.body({T.K.brk(42)});
  expectProblem(T.M, {"function 'K.bad' at 2:3: Break: target loop 42 does not enclose it"});

  Fixture T2;
  T2.K.body({T2.K.loop(1, nullptr, T2.K.block({T2.K.brk(1)})), T2.K.cont(1)});
  expectProblem(T2.M, {"Continue: target loop 1 does not enclose it"});
}

TEST(KirVerifier, ConditionsAreBool) {
  Fixture T;
  T.K.body({T.K.ifThen(T.K.i32(1), T.K.block({}))});
  expectProblem(T.M, {"If: if condition is int32, not bool"});

  Fixture T2;
  T2.K.body({T2.K.loop(1, T2.K.p(T2.F), T2.K.block({}))});
  expectProblem(T2.M, {"Loop: loop condition is float32, not bool"});

  Fixture T3;
  T3.K.body({T3.K.ifThen(T3.K.constBool(true), nullptr)});
  expectProblem(T3.M, {"If: no then-branch"});

  Fixture T4;
  T4.K.body({T4.K.eval(nullptr)});
  expectProblem(T4.M, {"Eval: no expression"});
}

TEST(KirVerifier, ReturnTyping) {
  Fixture T;
  T.K.body({T.K.ret(T.K.i32(0))});
  expectProblem(T.M, {"Return: a value returned from a void function"});

  Module M;
  Builder K(M);
  K.function("K.h", false, I32);
  K.setLoc({5, 1});
  K.body({K.ret(K.constFloat(ScalarType::F32, 1))});
  expectProblem(M, {"function 'K.h' at 5:1: Return: returns float32 from a function returning "
                    "int32"});

  Module M2;
  Builder K2(M2);
  K2.function("K.h", false, I32);
  K2.body({K2.ret()});
  expectProblem(M2, {"Return: no value returned from a function returning int32"});
}

TEST(KirVerifier, KernelsReturnVoid) {
  Module M;
  Builder K(M);
  K.function("K.k", true, I32);
  K.body({});
  expectProblem(M, {"function 'K.k' at 0:0: kernel: a kernel returns void, not int32"});
}

TEST(KirVerifier, FunctionShape) {
  Module M;
  Builder K(M);
  K.function("K.h", false);
  K.shared("t", ScalarType::F32, 4);
  K.body({});
  expectProblem(M, {"helper: a helper declares shared arrays"});

  Module M2;
  Builder K2(M2);
  K2.kernel("K.k");
  K2.local("l", Type::buffer(ScalarType::F32));
  K2.body({});
  expectProblem(M2, {"kernel: local 'l' has type KernelBuffer<float32>, not a scalar"});

  Module M3;
  Builder K3(M3);
  K3.kernel("K.k");
  expectProblem(M3, {"function 'K.k' at 0:0: kernel: no body"});

  Module M4;
  Builder K4(M4);
  K4.kernel("K.k");
  K4.shared("a", ScalarType::F32, 0);
  K4.shared("b", ScalarType::F32, 0);
  K4.body({});
  expectProblem(M4, {"kernel: 2 dynamic shared arrays (at most one)"});
}

TEST(KirVerifier, BarriersNeedTheHasBarrierMark) {
  Fixture T;
  T.K.body({T.K.barrier()});
  T.M.Functions[0]->HasBarrier = false;
  expectProblem(T.M, {"Barrier: a barrier in a function not marked HasBarrier"});
}

// ---------------------------------------------------------------------------------------------
// Calls and dispatch

/// A module with helper K.h(int32, buffer<int32>) -> int32 (index 0) and kernel K.bad (index 1).
struct CallFixture {
  Module M;
  Builder K{M};
  uint32_t H, Out, X;
  CallFixture() {
    H = K.function("K.h", false, I32);
    uint32_t A = K.param("a", I32);
    K.param("b", Type::buffer(ScalarType::I32));
    K.body({K.ret(K.p(A))});
    K.kernel("K.bad");
    Out = K.param("out", Type::buffer(ScalarType::I32));
    X = K.param("x", I32);
    K.setLoc({7, 9});
  }
};

TEST(KirVerifier, CallArgumentCountsAndTypes) {
  CallFixture T;
  T.K.body({T.K.eval(T.K.call(T.H, {T.K.p(T.X)}))});
  expectProblem(T.M, {"function 'K.bad' at 7:9: Call: call of function 0: 'K.h' takes 2 "
                      "arguments, got 1"});

  CallFixture T2;
  T2.K.body({T2.K.eval(T2.K.call(T2.H, {T2.K.constFloat(ScalarType::F32, 1), T2.K.p(T2.Out)}))});
  expectProblem(T2.M, {"Call: call of function 0: argument 0 of 'K.h' is float32, the parameter "
                       "int32"});

  CallFixture T3;
  Expr* C = T3.K.call(T3.H, {T3.K.p(T3.X), T3.K.p(T3.Out)});
  C->Ty = F32;
  T3.K.body({T3.K.eval(C)});
  expectProblem(T3.M, {"Call: ", "type float32 differs from the return type int32 of 'K.h'"});

  CallFixture T4;
  uint32_t Self = uint32_t(T4.M.Functions.size() - 1);
  Expr* K4 = T4.K.expr(Expr::Kind::Call, Type::voidTy(), {T4.K.p(T4.Out), T4.K.p(T4.X)});
  K4->Index = Self;
  T4.K.body({T4.K.eval(K4)});
  expectProblem(T4.M, {"Call: call of function 1: 'K.bad' is a kernel"});
}

TEST(KirVerifier, CallsOfHelpersWithBarriersOrWaves) {
  CallFixture T;
  T.M.Functions[0]->HasBarrier = true;
  T.K.body({T.K.eval(T.K.call(T.H, {T.K.p(T.X), T.K.p(T.Out)}))});
  expectProblem(T.M, {"Call: ", "'K.h' has a barrier, the caller is not marked HasBarrier"});

  CallFixture T2;
  T2.M.Functions[0]->Backends = {"cuda"};
  T2.K.body({T2.K.eval(T2.K.call(T2.H, {T2.K.p(T2.X), T2.K.p(T2.Out)}))});
  std::vector<std::string> P = verifyProblems(T2.M);
  ASSERT_EQ(P.size(), 3u) << testing::PrintToString(P); // cpu, hip, vulkan
  EXPECT_TRUE(contains(P[0], "'K.h' is not available on cpu, its caller is")) << P[0];
}

TEST(KirVerifier, DispatchTables) {
  CallFixture T;
  T.K.body({T.K.eval(T.K.dispatch(I32, {T.H}, {T.K.i32(0), T.K.p(T.X), T.K.p(T.Out)}))});
  expectProblem(T.M, {"Dispatch: the tag is int32, not uint32"});

  CallFixture T2;
  T2.K.body(
      {T2.K.eval(T2.K.dispatch(I32, {T2.H, 1}, {T2.K.u32(0), T2.K.p(T2.X), T2.K.p(T2.Out)}))});
  expectProblem(T2.M, {"Dispatch: dispatch target 1: 'K.bad' is a kernel"});

  CallFixture T3;
  T3.K.body({T3.K.eval(T3.K.dispatch(F32, {T3.H}, {T3.K.u32(0), T3.K.p(T3.X), T3.K.p(T3.Out)}))});
  expectProblem(T3.M, {"Dispatch: dispatch target 0: type float32 differs from the return type"});

  CallFixture T4;
  T4.K.body(
      {T4.K.eval(T4.K.dispatch(I32, {T4.H, 40}, {T4.K.u32(0), T4.K.p(T4.X), T4.K.p(T4.Out)}))});
  expectProblem(T4.M, {"Dispatch: dispatch target 1: no such function"});

  CallFixture T5;
  T5.K.body({T5.K.eval(T5.K.expr(Expr::Kind::Dispatch, I32))});
  expectProblem(T5.M, {"Dispatch: no tag operand"});
}

// ---------------------------------------------------------------------------------------------
// Wave operations: operand counts and the lane/distance operand (the operand and result type
// rules beyond that belong to the wave passes)

TEST(KirVerifier, WaveOperandCounts) {
  Fixture T;
  T.M.Functions[0]->UsesWave = true;
  T.K.body({T.storeOut(T.K.wave(WaveOp::ReduceSum, I32, {}))});
  expectProblem(T.M, {"Wave: 'Wave.reduceSum' takes 1 operands, got 0"});

  Fixture T2;
  T2.M.Functions[0]->UsesWave = true;
  T2.K.body({T2.storeOut(T2.K.wave(WaveOp::Shuffle, I32, {T2.K.p(T2.X), T2.K.i32(1)}))});
  expectProblem(T2.M, {"Wave: the lane or distance of 'Wave.shuffle' is int32, not uint32"});

  Fixture T3;
  T3.K.body({T3.K.eval(T3.K.wave(WaveOp::LaneId, U32))});
  expectProblem(T3.M, {"Wave: 'Wave.laneId' in a function not marked UsesWave"});
}

// MinNum / MaxNum: two floats of the result's type.
TEST(KirVerifier, MinNumTakesTwoFloatsOfItsType) {
  Fixture T;
  Builder& K = T.K;
  K.body({K.eval(K.intrinsic(IntrinsicOp::MinNum, F32, {K.p(T.F), K.p(T.F)}))});
  EXPECT_TRUE(verifyProblems(T.M).empty()) << testing::PrintToString(verifyProblems(T.M));
  Fixture A;
  A.K.body({A.K.eval(A.K.intrinsic(IntrinsicOp::MaxNum, I32, {A.K.p(A.X), A.K.p(A.X)}))});
  expectProblem(A.M, {"'max_num'", "needs two floats of the result's type"});
}

// Private arrays: loads and stores only, and never in a function with a barrier.
TEST(KirVerifier, PrivateArraysAreLoadAndStoreOperandsOnly) {
  Fixture T;
  Builder& K = T.K;
  uint32_t P = K.privateArray("stack", ScalarType::I32, 8);
  K.body({K.eval(K.storeAt(K.privateRef(P), K.i32(1), K.i32(7))),
          T.storeOut(K.loadAt(K.privateRef(P), K.i32(1)))});
  EXPECT_TRUE(verifyProblems(T.M).empty()) << testing::PrintToString(verifyProblems(T.M));

  Fixture A;
  uint32_t Q = A.K.privateArray("stack", ScalarType::I32, 8);
  A.K.body({A.K.eval(A.K.atomic(AtomicOp::Add, MemoryOrder::Relaxed,
                                {A.K.privateRef(Q), A.K.i32(0), A.K.i32(1)}))});
  expectProblem(A.M, {"private array outside the array operand of Load/Store"});

  Fixture B;
  B.K.privateArray("stack", ScalarType::I32, 8);
  B.K.current().HasBarrier = true;
  B.K.body({B.K.barrier()});
  expectProblem(B.M, {"a function with a barrier has private arrays"});
}

TEST(KirVerifier, NoWrapOnlyOnUnsignedAddAndMul) {
  Fixture T;
  Expr* Sum = T.K.bin(BinaryOp::Add, T.K.l(T.LocalI), T.K.l(T.LocalI));
  Sum->NoWrap = true; // int32: signed arithmetic always wraps in the language
  T.K.body({T.storeOut(Sum)});
  expectProblem(T.M, {"no-wrap 'add' on int32 (only + and * of unsigned integers)"});

  Fixture T2;
  Expr* Cmp = T2.K.bin(BinaryOp::Lt, T2.K.l(T2.LocalI), T2.K.l(T2.LocalI));
  Cmp->NoWrap = true;
  T2.K.body({T2.K.eval(Cmp)});
  expectProblem(T2.M, {"no-wrap 'lt' on bool"});
}

} // namespace
} // namespace cajeta::kir
