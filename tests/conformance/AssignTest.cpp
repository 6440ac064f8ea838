// Conformance of assignments: compound operators (incl. implicit narrowing), ++/--, evaluation
// order.
#include "ConformanceSupport.h"

namespace conformance {
namespace {

constexpr size_t N = 555;
constexpr uint32_t Block = 50;

template <class T> T shlW(T X, unsigned C) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(static_cast<U>(X) << C));
}

TEST(Assign, CompoundInt32) {
  xpu::Program P = compileProgram("CompoundAssign");
  std::vector<int32_t> Xs = intData<int32_t>(N, 300), Ys = intData<int32_t>(N, 301);
  Rng R(302);
  for (size_t I = 12; I < N; I += 2)
    Ys[I] = static_cast<int32_t>(R.next() % 41) - 20;
  auto DX = toDevice(Xs), DY = toDevice(Ys);
  auto Out = filledBuffer<int32_t>(N * 12, 0x55);
  run1D(P.kernel("CompoundAssign.run"), N, Block, Out, DX, DY, uint32_t(N));
  std::vector<int32_t> Want(N * 12);
  for (size_t I = 0; I < N; ++I) {
    int32_t a = Xs[I], b = Ys[I], r = a;
    int32_t* W = &Want[I * 12];
    r = wrapAdd(r, b);
    W[0] = r;
    r = wrapSub(r, wrapMul(3, b));
    W[1] = r;
    r = wrapMul(r, b);
    W[2] = r;
    r = cjDiv(r, b);
    W[3] = r;
    r = cjRem(r, 7);
    W[4] = r;
    r &= a;
    W[5] = r;
    r |= 0x100;
    W[6] = r;
    r ^= b;
    W[7] = r;
    r = shlW(r, unsigned(b) & 31);
    W[8] = r;
    r >>= 3;
    W[9] = r;
    r = static_cast<int32_t>(static_cast<uint32_t>(r) >> (unsigned(b) & 31));
    W[10] = r;
    r = wrapAdd(r, 5);
    W[11] = wrapAdd(wrapMul(r, 2), r);
  }
  expectSame(fromDevice(Out), Want, "CompoundAssign.run");
}

TEST(Assign, CompoundNarrowLocals) {
  xpu::Program P = compileProgram("CompoundNarrow");
  std::vector<int32_t> Xs = intData<int32_t>(N, 310);
  auto DX = toDevice(Xs);
  auto Out = filledBuffer<int32_t>(N * 8, 0x55);
  run1D(P.kernel("CompoundNarrow.locals"), N, Block, Out, DX, uint32_t(N));
  std::vector<int32_t> Want(N * 8);
  for (size_t I = 0; I < N; ++I) {
    int32_t x = Xs[I];
    int32_t* W = &Want[I * 8];
    W[0] = static_cast<uint8_t>(static_cast<uint8_t>(x) + 10);
    int8_t s = static_cast<int8_t>(static_cast<int8_t>(x) * 3);
    W[1] = static_cast<int8_t>(s - 100);
    W[2] = static_cast<int16_t>(shlW(int32_t(static_cast<int16_t>(x)), 3));
    W[3] = static_cast<uint16_t>(static_cast<uint16_t>(x) >> 2);
    // Java: the int8 is promoted to int32, shifted logically, then narrowed.
    W[4] = static_cast<int8_t>(static_cast<uint32_t>(int32_t(static_cast<int8_t>(x))) >> 2);
    W[5] = static_cast<uint8_t>(static_cast<uint8_t>(x) - 1);
    W[6] = static_cast<uint8_t>(x) / 3;
    W[7] = static_cast<int8_t>(static_cast<int8_t>(x) ^ 0x7F);
  }
  expectSame(fromDevice(Out), Want, "CompoundNarrow.locals");
}

TEST(Assign, CompoundNarrowElements) {
  xpu::Program P = compileProgram("CompoundNarrow");
  std::vector<uint8_t> Bytes = intData<uint8_t>(N, 320);
  std::vector<int16_t> Shorts = intData<int16_t>(N, 321);
  std::vector<int8_t> Tiny = intData<int8_t>(N, 322);
  auto DB = toDevice(Bytes);
  auto DS = toDevice(Shorts);
  auto DT = toDevice(Tiny);
  run1D(P.kernel("CompoundNarrow.elements"), N, Block, DB, DS, DT, uint32_t(N));
  std::vector<uint8_t> WantB(N);
  std::vector<int16_t> WantS(N);
  std::vector<int8_t> WantT(N);
  for (size_t I = 0; I < N; ++I) {
    WantB[I] = static_cast<uint8_t>(Bytes[I] + 200);
    WantS[I] = static_cast<int16_t>(Shorts[I] * -3);
    WantT[I] = static_cast<int8_t>((Tiny[I] >> 1) - 120);
  }
  expectSame(fromDevice(DB), WantB, "CompoundNarrow bytes");
  expectSame(fromDevice(DS), WantS, "CompoundNarrow shorts");
  expectSame(fromDevice(DT), WantT, "CompoundNarrow tiny");
}

TEST(Assign, CompoundFloat) {
  CONFORMANCE_REQUIRE_DEVICE(Float32Denormals); // the data include subnormals
  xpu::Program P = compileProgram("CompoundFloat");
  std::vector<float> Fs = floatData<float>(N, 330, -50, 50);
  std::vector<double> Ds = floatData<double>(N, 331, -50, 50);
  std::vector<int32_t> Xs = intData<int32_t>(N, 332);
  auto DFs = toDevice(Fs);
  auto DDs = toDevice(Ds);
  auto DXs = toDevice(Xs);
  auto F = filledBuffer<float>(N * 2, 0.0f);
  auto D = filledBuffer<double>(N, 0.0);
  auto Q = filledBuffer<int32_t>(N * 2, 0x55);
  run1D(P.kernel("CompoundFloat.run"), N, Block, F, D, Q, DFs, DDs, DXs, uint32_t(N));
  std::vector<float> WantF(N * 2);
  std::vector<double> WantD(N);
  std::vector<int32_t> WantQ(N * 2);
  for (size_t I = 0; I < N; ++I) {
    float g = Fs[I];
    g += 1.5f;
    g -= Fs[I] * 0.25f;
    g *= 2.0f;
    g /= 3.0f;
    g = std::fmod(g, 5.0f);
    WantF[I * 2] = g;
    g = static_cast<float>(static_cast<double>(g) + 0.1);
    WantF[I * 2 + 1] = g;
    double e = Ds[I];
    e += g;
    e *= e;
    WantD[I] = e;
    int32_t k = cjFloatToInt<int32_t>(static_cast<float>(Xs[I]) * 1.5f);
    WantQ[I * 2] = k;
    WantQ[I * 2 + 1] = cjFloatToInt<int32_t>(static_cast<double>(k) + 0.7);
  }
  expectSame(fromDevice(F), WantF, "CompoundFloat float32");
  expectSame(fromDevice(D), WantD, "CompoundFloat float64");
  expectSame(fromDevice(Q), WantQ, "CompoundFloat int32");
}

TEST(Assign, IncDecLocals) {
  xpu::Program P = compileProgram("IncDec");
  std::vector<int32_t> Xs = intData<int32_t>(N, 340);
  auto DX = toDevice(Xs);
  auto Out = filledBuffer<int32_t>(N * 10, 0x55);
  run1D(P.kernel("IncDec.locals"), N, Block, Out, DX, uint32_t(N));
  std::vector<int32_t> Want(N * 10);
  for (size_t I = 0; I < N; ++I) {
    int32_t a = Xs[I];
    int32_t* W = &Want[I * 10];
    W[0] = a;
    a = wrapAdd(a, 1);
    a = wrapAdd(a, 1);
    W[1] = a;
    W[2] = a;
    a = wrapSub(a, 1);
    a = wrapSub(a, 1);
    W[3] = a;
    W[4] = wrapAdd(a, wrapAdd(a, 2)); // a++ + ++a
    a = wrapAdd(a, 2);
    W[5] = 2; // a-- - --a
    a = wrapSub(a, 2);
    W[6] = a;
    W[7] = static_cast<uint8_t>(static_cast<uint8_t>(a) + 2);
    W[8] = static_cast<int8_t>(static_cast<int8_t>(a) - 1);
    W[9] = static_cast<int32_t>((int64_t(a) + 1) >> 1);
  }
  expectSame(fromDevice(Out), Want, "IncDec.locals");
}

TEST(Assign, IncDecBufferElements) {
  xpu::Program P = compileProgram("IncDecBuffer");
  std::vector<int32_t> Vals = intData<int32_t>(N, 350);
  std::vector<uint8_t> Bytes = intData<uint8_t>(N, 351);
  std::vector<float> Fl = floatData<float>(N, 352, -1e8, 1e8);
  std::vector<int64_t> Big = intData<int64_t>(N, 353);
  auto DV = toDevice(Vals);
  auto DB = toDevice(Bytes);
  auto DF = toDevice(Fl);
  auto DG = toDevice(Big);
  auto Seen = filledBuffer<int32_t>(N * 3, 0x55);
  run1D(P.kernel("IncDecBuffer.run"), N, Block, DV, Seen, DB, DF, DG, uint32_t(N));
  std::vector<int32_t> WantSeen(N * 3);
  std::vector<uint8_t> WantB(N);
  std::vector<float> WantF(N);
  std::vector<int64_t> WantG(N);
  for (size_t I = 0; I < N; ++I) {
    WantSeen[I * 3] = Vals[I];
    WantSeen[I * 3 + 1] = wrapAdd(Vals[I], 2);
    WantSeen[I * 3 + 2] = 2;
    WantB[I] = static_cast<uint8_t>(Bytes[I] + 2);
    WantF[I] = ((Fl[I] + 1.0f) - 1.0f) - 1.0f;
    WantG[I] = wrapSub(Big[I], int64_t(1));
  }
  expectSame(fromDevice(DV), Vals, "IncDecBuffer vals (net zero)");
  expectSame(fromDevice(Seen), WantSeen, "IncDecBuffer seen");
  expectSame(fromDevice(DB), WantB, "IncDecBuffer bytes");
  expectSame(fromDevice(DF), WantF, "IncDecBuffer floats");
  expectSame(fromDevice(DG), WantG, "IncDecBuffer int64");
}

TEST(Assign, EvaluationOrder) {
  xpu::Program P = compileProgram("EvalOrder");
  std::vector<int32_t> Xs = intData<int32_t>(N, 360);
  auto DX = toDevice(Xs);
  auto Out = filledBuffer<int32_t>(N * 7, 0x55);
  auto Slots = filledBuffer<int32_t>(N * 2, -9);
  run1D(P.kernel("EvalOrder.run"), N, Block, Out, Slots, DX, uint32_t(N));
  std::vector<int32_t> Want(N * 7), WantSlots(N * 2);
  for (size_t I = 0; I < N; ++I) {
    int32_t x = Xs[I];
    int32_t* W = &Want[I * 7];
    W[0] = wrapAdd(wrapMul(x, 10), x);
    W[1] = wrapAdd(wrapMul(x, 10), wrapAdd(x, 1));
    W[2] = wrapAdd(x, 25);
    W[3] = 123;
    W[4] = wrapMul(x, 3);
    W[5] = 6;
    W[6] = 15;
    WantSlots[I * 2] = static_cast<int32_t>(I * 2 + 1);
    WantSlots[I * 2 + 1] = x;
  }
  expectSame(fromDevice(Out), Want, "EvalOrder.run");
  expectSame(fromDevice(Slots), WantSlots, "EvalOrder slots");
}

} // namespace
} // namespace conformance
