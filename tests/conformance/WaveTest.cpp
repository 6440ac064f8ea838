// Conformance of wave operations (Kir.h WaveOp): geometry, shuffles, reductions, prefix sums and
// votes, checked width-agnostically — each test asks the device for its wave width (a kernel
// writes Wave.width()) and builds the reference for that width. Float reductions and scans are
// compared bit for bit against the defined butterfly / Hillis-Steele orders.
#include "ConformanceSupport.h"

#include <cstdlib>
#include <functional>
#include <string>

namespace conformance {
namespace {

const uint32_t Block = 128; // a multiple of every wave width (4..64)

/// The wave width of the default device for these programs, read from a kernel.
uint32_t waveWidth(xpu::Program& P) {
  auto Lanes = filledBuffer<uint32_t>(Block, 0);
  auto Width = filledBuffer<uint32_t>(1, 0);
  runKernel(P.kernel("WaveShuffles.lanes"), xpu::grid(1), xpu::block(Block), Lanes, Width);
  uint32_t W = fromDevice(Width)[0];
  EXPECT_TRUE(W >= 4 && W <= 64 && (W & (W - 1)) == 0) << "Wave.width() = " << W;
  return W;
}

/// For each wave of width W over Values: Out[lane] = F(the wave's values, lane).
template <class T, class R>
std::vector<R> perLane(const std::vector<T>& Values, uint32_t W,
                       const std::function<R(const T*, uint32_t)>& F) {
  std::vector<R> Out(Values.size());
  for (size_t I = 0; I < Values.size(); ++I)
    Out[I] = F(&Values[I - I % W], uint32_t(I % W));
  return Out;
}

/// The butterfly of Kir.h: for m = 1, 2, ..., W/2: v = op(v, v of lane ^ m).
template <class T> T butterfly(const T* Wave, uint32_t W, uint32_t Lane, T (*Op)(T, T)) {
  std::vector<T> V(Wave, Wave + W), Next(W);
  for (uint32_t M = 1; M < W; M <<= 1) {
    for (uint32_t L = 0; L < W; ++L)
      Next[L] = Op(V[L], V[L ^ M]);
    V.swap(Next);
  }
  return V[Lane];
}

/// Hillis-Steele of Kir.h: for d = 1, 2, ..., W/2: if (lane >= d) v = (v of lane - d) + v.
template <class T> T hillisSteele(const T* Wave, uint32_t W, uint32_t Lane) {
  std::vector<T> V(Wave, Wave + W), Next(W);
  for (uint32_t D = 1; D < W; D <<= 1) {
    for (uint32_t L = 0; L < W; ++L)
      Next[L] = L >= D ? T(V[L - D] + V[L]) : V[L];
    V.swap(Next);
  }
  return V[Lane];
}

TEST(Wave, WidthAndLanesIn1DAnd2DGroups) {
  CONFORMANCE_REQUIRE_DEVICE(WaveOps);
  xpu::Program P = compileProgram("WaveShuffles");
  uint32_t W = waveWidth(P);
  for (xpu::Dim3 B : {xpu::block(128), xpu::block(16, 8), xpu::block(8, 4, 4)}) {
    uint32_t Groups = 3, N = Groups * 128;
    auto Lanes = filledBuffer<uint32_t>(N, 999);
    auto Width = filledBuffer<uint32_t>(1, 0);
    runKernel(P.kernel("WaveShuffles.lanes"), xpu::grid(Groups), B, Lanes, Width);
    std::vector<uint32_t> Want(N);
    for (uint32_t I = 0; I < N; ++I)
      Want[I] = I % 128 % W;
    expectSame(fromDevice(Lanes), Want, "laneId");
    EXPECT_EQ(fromDevice(Width)[0], W);
  }
}

TEST(Wave, ShufflesOfInt32WithPerLaneOperands) {
  CONFORMANCE_REQUIRE_DEVICE(WaveOps);
  xpu::Program P = compileProgram("WaveShuffles");
  uint32_t W = waveWidth(P);
  const uint32_t N = 4 * Block;
  std::vector<int32_t> V = intData<int32_t>(N, 7001);
  std::vector<uint32_t> S(N);
  Rng R(7002);
  for (uint32_t I = 0; I < N; ++I) // mostly in range, some far out, some just past the wave
    S[I] = I % 5 == 0 ? uint32_t(R.next()) : uint32_t(R.next() % (W + 3));
  auto Out = filledBuffer<int32_t>(N * 6, 0);
  runKernel(P.kernel("WaveShuffles.int32s"), xpu::grid(N / Block), xpu::block(Block), toDevice(V),
            toDevice(S), Out);
  std::vector<int32_t> Want(N * 6);
  for (uint32_t I = 0; I < N; ++I) {
    uint32_t Base = I - I % W, L = I % W, K = S[I];
    Want[I * 6] = V[Base + (K & (W - 1))];
    Want[I * 6 + 1] = K <= L ? V[Base + L - K] : V[I];
    Want[I * 6 + 2] = K < W - L ? V[Base + L + K] : V[I];
    Want[I * 6 + 3] = (L ^ K) < W ? V[Base + (L ^ K)] : V[I];
    Want[I * 6 + 4] = V[Base + ((L + K) & (W - 1))];
    Want[I * 6 + 5] = V[Base];
  }
  expectSame(fromDevice(Out), Want, "shuffle / Up / Down / Xor / rotate / broadcastFirst");
}

TEST(Wave, ShufflesOfEveryValueType) {
  CONFORMANCE_REQUIRE_DEVICE(WaveOps);
  xpu::Program P = compileProgram("WaveShuffles");
  CONFORMANCE_REQUIRE(P, Float16);
  CONFORMANCE_REQUIRE(P, Float64);
  uint32_t W = waveWidth(P);
  const uint32_t N = 2 * Block;
  std::vector<uint8_t> Bools(N);
  std::vector<int8_t> I8 = intData<int8_t>(N, 7011);
  std::vector<int64_t> I64 = intData<int64_t>(N, 7012);
  std::vector<float> F = floatData<float>(N, 7013, -10, 10);
  std::vector<double> D = floatData<double>(N, 7014, -1e5, 1e5);
  std::vector<uint16_t> H(N);
  for (uint32_t I = 0; I < N; ++I) {
    Bools[I] = (I * 7 + 3) % 3 == 0;
    H[I] = uint16_t(0x3c00 + I * 37); // float16 bit patterns incl. non-trivial mantissas
  }
  for (uint32_t M : {1u, 3u, W - 1, W, 100u}) {
    uint32_t Down = M % 5;
    auto DB = boolsToDevice(Bools);
    auto DI8 = toDevice(I8);
    auto DI64 = toDevice(I64);
    xpu::KernelBuffer<xpu::float16> DH(N);
    DH.upload(reinterpret_cast<const xpu::float16*>(H.data()), N);
    auto DF = toDevice(F);
    auto DD = toDevice(D);
    runKernel(P.kernel("WaveShuffles.types"), xpu::grid(N / Block), xpu::block(Block), DB, DI8,
              DI64, DH, DF, DD, M, Down);
    auto Src = [&](uint32_t I) { // shuffleDown(shuffleXor(v, M), Down): the lane read
      uint32_t Base = I - I % W, L = I % W;
      uint32_t AfterDown = Down < W - L ? L + Down : L;
      uint32_t X = (AfterDown ^ M) < W ? (AfterDown ^ M) : AfterDown;
      return Base + X;
    };
    std::vector<uint8_t> WB(N);
    std::vector<int8_t> WI8(N);
    std::vector<int64_t> WI64(N);
    std::vector<uint16_t> WH(N);
    std::vector<float> WF(N);
    std::vector<double> WD(N);
    for (uint32_t I = 0; I < N; ++I) {
      uint32_t J = Src(I);
      WB[I] = Bools[J], WI8[I] = I8[J], WI64[I] = I64[J], WH[I] = H[J], WF[I] = F[J], WD[I] = D[J];
    }
    std::string Tag = " (mask " + std::to_string(M) + ", down " + std::to_string(Down) + ")";
    expectSame(boolsFromDevice(DB), WB, "bool" + Tag);
    expectSame(fromDevice(DI8), WI8, "int8" + Tag);
    expectSame(fromDevice(DI64), WI64, "int64" + Tag);
    std::vector<uint16_t> GotH(N);
    DH.download(reinterpret_cast<xpu::float16*>(GotH.data()), N);
    expectSame(GotH, WH, "float16 bits" + Tag);
    expectSame(fromDevice(DF), WF, "float32" + Tag);
    expectSame(fromDevice(DD), WD, "float64" + Tag);
  }
}

template <class T> void checkIntReductions(const char* Kernel, uint64_t Seed) {
  CONFORMANCE_REQUIRE_DEVICE(WaveOps);
  xpu::Program P = compileProgram("WaveReductions");
  xpu::Program Geo = compileProgram("WaveShuffles");
  uint32_t W = waveWidth(Geo);
  const uint32_t N = 4 * Block;
  std::vector<T> V = intData<T>(N, Seed);
  auto Out = filledBuffer<T>(N * 8, 0);
  runKernel(P.kernel(Kernel), xpu::grid(N / Block), xpu::block(Block), toDevice(V), Out);
  std::vector<T> Want(N * 8);
  for (uint32_t I = 0; I < N; ++I) {
    const T* Wave = &V[I - I % W];
    uint32_t L = I % W;
    T Sum = 0, Min = Wave[0], Max = Wave[0], And = T(~T(0)), Or = 0, Xor = 0, Incl = 0, Excl = 0;
    for (uint32_t K = 0; K < W; ++K) {
      Sum = wrapAdd(Sum, Wave[K]);
      Min = std::min(Min, Wave[K]);
      Max = std::max(Max, Wave[K]);
      And &= Wave[K];
      Or |= Wave[K];
      Xor ^= Wave[K];
      if (K <= L)
        Incl = wrapAdd(Incl, Wave[K]);
      if (K < L)
        Excl = wrapAdd(Excl, Wave[K]);
    }
    T Row[8] = {Sum, Min, Max, And, Or, Xor, Incl, Excl};
    std::copy(Row, Row + 8, &Want[I * 8]);
  }
  expectSame(fromDevice(Out), Want, std::string(Kernel) + " (sum min max and or xor incl excl)");
}

TEST(Wave, ReductionsAndScansOfInt32) {
  checkIntReductions<int32_t>("WaveReductions.int32s", 7021);
}
TEST(Wave, ReductionsAndScansOfUint32) {
  CONFORMANCE_REQUIRE_DEVICE(WaveOps);
  checkIntReductions<uint32_t>("WaveReductions.uint32s", 7022);
}
TEST(Wave, ReductionsAndScansOfInt64) {
  checkIntReductions<int64_t>("WaveReductions.int64s", 7023);
}

template <class F> F addOp(F A, F B) {
  return A + B;
}

template <class F> void checkFloatReductions(const char* Kernel, uint64_t Seed, bool Edges) {
  CONFORMANCE_REQUIRE_DEVICE(WaveOps);
  xpu::Program P = compileProgram("WaveReductions");
  if constexpr (sizeof(F) == 8)
    CONFORMANCE_REQUIRE(P, Float64);
  xpu::Program Geo = compileProgram("WaveShuffles");
  uint32_t W = waveWidth(Geo);
  const uint32_t N = 4 * Block;
  // Values of mixed magnitude make the summation order visible in the last bits; with Edges the
  // first wave also holds +-0, infinities and NaN.
  std::vector<F> V = Edges ? floatData<F>(N, Seed, -1e3, 1e3) : uniformData<F>(N, Seed, -1e3, 1e3);
  for (uint32_t I = 0; I < N; I += 3)
    V[I] *= F(1e-4);
  auto Out = filledBuffer<F>(N * 5, 0);
  runKernel(P.kernel(Kernel), xpu::grid(N / Block), xpu::block(Block), toDevice(V), Out);
  std::vector<F> Want(N * 5);
  for (uint32_t I = 0; I < N; ++I) {
    const F* Wave = &V[I - I % W];
    uint32_t L = I % W;
    Want[I * 5] = butterfly<F>(Wave, W, L, addOp<F>);
    Want[I * 5 + 1] = butterfly<F>(Wave, W, L, ieeeMin<F>);
    Want[I * 5 + 2] = butterfly<F>(Wave, W, L, ieeeMax<F>);
    Want[I * 5 + 3] = hillisSteele<F>(Wave, W, L);
    Want[I * 5 + 4] = L == 0 ? F(0) : hillisSteele<F>(Wave, W, L - 1);
  }
  expectSame(fromDevice(Out), Want, std::string(Kernel) + " (sum min max incl excl)");
}

TEST(Wave, Float32ReductionsAndScansInTheDefinedOrder) {
  CONFORMANCE_REQUIRE_DEVICE(WaveOps);
  checkFloatReductions<float>("WaveReductions.float32s", 7031, false);
  checkFloatReductions<float>("WaveReductions.float32s", 7032, true);
}
TEST(Wave, Float64ReductionsAndScansInTheDefinedOrder) {
  CONFORMANCE_REQUIRE_DEVICE(WaveOps);
  checkFloatReductions<double>("WaveReductions.float64s", 7033, false);
  checkFloatReductions<double>("WaveReductions.float64s", 7034, true);
}

TEST(Wave, BFloat16ShufflesAndWidenedReductions) {
  CONFORMANCE_REQUIRE_DEVICE(WaveOps);
  xpu::Program P = compileProgram("WaveReductions");
  xpu::Program Geo = compileProgram("WaveShuffles");
  uint32_t W = waveWidth(Geo);
  const uint32_t N = 4 * Block;
  std::vector<float> V = uniformData<float>(N, 7035, -100, 100);
  std::vector<xpu::bfloat16> In;
  for (uint32_t I = 0; I < N; ++I) {
    In.push_back(xpu::bfloat16(I % 3 ? V[I] : V[I] * 1e-3f));
    V[I] = float(In.back());
  }
  auto Out = filledBuffer<xpu::bfloat16>(N * 4, xpu::bfloat16(7.0f));
  runKernel(P.kernel("WaveReductions.bfloat16s"), xpu::grid(N / Block), xpu::block(Block),
            toDevice(In), Out);
  std::vector<float> Want(N * 4), Got;
  for (uint32_t I = 0; I < N; ++I) {
    const float* Wave = &V[I - I % W];
    uint32_t L = I % W;
    Want[I * 4] = float(xpu::bfloat16(butterfly<float>(Wave, W, L, addOp<float>)));
    Want[I * 4 + 1] = butterfly<float>(Wave, W, L, ieeeMax<float>);
    Want[I * 4 + 2] = L + 1 < W ? Wave[L + 1] : Wave[L];
    Want[I * 4 + 3] = Wave[L ^ 1];
  }
  for (xpu::bfloat16 H : fromDevice(Out))
    Got.push_back(float(H));
  expectSame(Got, Want, "WaveReductions.bfloat16s (sum max shuffleDown shuffleXor)");
}

TEST(Wave, BallotAllAny) {
  CONFORMANCE_REQUIRE_DEVICE(WaveOps);
  xpu::Program P = compileProgram("WaveReductions");
  xpu::Program Geo = compileProgram("WaveShuffles");
  uint32_t W = waveWidth(Geo);
  const uint32_t N = 4 * Block;
  std::vector<uint8_t> Pred(N);
  Rng R(7041);
  for (uint32_t I = 0; I < N; ++I) {
    uint32_t Wave = I / W;
    // wave 0: all false, wave 1: all true, then random
    Pred[I] = Wave == 0 ? 0 : Wave == 1 ? 1 : uint8_t(R.next() & 1);
  }
  auto Ballot = filledBuffer<uint64_t>(N, 0);
  auto Votes = filledBuffer<uint32_t>(N, 99);
  runKernel(P.kernel("WaveReductions.votes"), xpu::grid(N / Block), xpu::block(Block),
            boolsToDevice(Pred), Ballot, Votes);
  std::vector<uint64_t> WantBallot(N);
  std::vector<uint32_t> WantVotes(N);
  for (uint32_t I = 0; I < N; ++I) {
    uint32_t Base = I - I % W;
    uint64_t B = 0;
    for (uint32_t K = 0; K < W; ++K)
      B |= uint64_t(Pred[Base + K]) << K;
    WantBallot[I] = B;
    bool All = W == 64 ? B == ~0ull : B == (1ull << W) - 1;
    WantVotes[I] = (All ? 1 : 0) + (B != 0 ? 2 : 0);
  }
  expectSame(fromDevice(Ballot), WantBallot, "ballot");
  expectSame(fromDevice(Votes), WantVotes, "all + 2 * any");
}

TEST(Wave, ShuffleSyncAndBallotSyncAreShuffleAndBallot) {
  CONFORMANCE_REQUIRE_DEVICE(WaveOps);
  xpu::Program P = compileProgram("WaveSyncNames");
  xpu::Program Geo = compileProgram("WaveShuffles");
  uint32_t W = waveWidth(Geo);
  const uint32_t N = 4 * Block;
  std::vector<int32_t> V = intData<int32_t>(N, 7071);
  std::vector<uint32_t> S(N);
  std::vector<uint8_t> Pred(N);
  Rng R(7072);
  for (uint32_t I = 0; I < N; ++I) {
    S[I] = I % 7 == 0 ? uint32_t(R.next()) : uint32_t(R.next() % W);
    Pred[I] = I / W == 0 ? 0 : I / W == 1 ? 1 : uint8_t(R.next() & 1);
  }
  auto Out = filledBuffer<int32_t>(N * 2, 0);
  auto Ballots = filledBuffer<uint64_t>(N * 2, 0);
  runKernel(P.kernel("WaveSyncNames.pairs"), xpu::grid(N / Block), xpu::block(Block), toDevice(V),
            toDevice(S), boolsToDevice(Pred), Out, Ballots);
  std::vector<int32_t> WantOut(N * 2);
  std::vector<uint64_t> WantBallots(N * 2);
  for (uint32_t I = 0; I < N; ++I) {
    uint32_t Base = I - I % W;
    WantOut[I * 2] = WantOut[I * 2 + 1] = V[Base + (S[I] & (W - 1))];
    uint64_t B = 0;
    for (uint32_t K = 0; K < W; ++K)
      B |= uint64_t(Pred[Base + K]) << K;
    WantBallots[I * 2] = WantBallots[I * 2 + 1] = B;
  }
  expectSame(fromDevice(Out), WantOut, "shuffle, shuffleSync");
  expectSame(fromDevice(Ballots), WantBallots, "ballot, ballotSync");
}

TEST(Wave, BlockSumFromWaveSumsHelperAndAtomics) {
  CONFORMANCE_REQUIRE_DEVICE(WaveOps);
  xpu::Program P = compileProgram("WaveBlockSum");
  for (uint32_t B : {64u, 256u, 1024u}) {
    if (B > P.device().maxWorkgroupSize())
      continue;
    const uint32_t N = 5000, Groups = groupsFor(N, B);
    std::vector<int32_t> X = intData<int32_t>(N, 7051);
    auto Partial = filledBuffer<int32_t>(Groups, 0);
    auto Total = filledBuffer<int32_t>(1, 0);
    runKernel(P.kernel("WaveBlockSum.sum"), xpu::grid(Groups), xpu::block(B), toDevice(X), Partial,
              Total, N);
    std::vector<int32_t> WantPartial(Groups, 0);
    int32_t WantTotal = 0;
    for (uint32_t I = 0; I < N; ++I) {
      WantPartial[I / B] = wrapAdd(WantPartial[I / B], X[I]);
      WantTotal = wrapAdd(WantTotal, X[I]);
    }
    expectSame(fromDevice(Partial), WantPartial, "group sums, block " + std::to_string(B));
    EXPECT_EQ(fromDevice(Total)[0], WantTotal) << "block " << B;
  }
}

TEST(Wave, LaunchWithPartialWaveIsRejected) {
  CONFORMANCE_REQUIRE_DEVICE(WaveOps);
  xpu::Program P = compileProgram("WaveShuffles");
  uint32_t W = waveWidth(P);
  auto Lanes = filledBuffer<uint32_t>(256, 0);
  auto Width = filledBuffer<uint32_t>(1, 0);
  try {
    runKernel(P.kernel("WaveShuffles.lanes"), xpu::grid(1), xpu::block(W + W / 2), Lanes, Width);
    ADD_FAILURE() << "a block of " << W + W / 2 << " work-items was accepted with waves of " << W;
  } catch (const xpu::LaunchError& E) {
    std::string Msg = E.what();
    EXPECT_NE(Msg.find("WaveShuffles.lanes"), std::string::npos) << Msg;
    EXPECT_NE(Msg.find("multiple of the wave width " + std::to_string(W)), std::string::npos)
        << Msg;
  }
}

} // namespace
} // namespace conformance

namespace conformance {
namespace {

/// The reference of WaveBlockScan.scan for one workgroup of Size work-items and waves of W.
std::vector<uint32_t> blockScanReference(std::vector<uint32_t> V, uint32_t W, uint32_t Rounds) {
  const uint32_t Size = uint32_t(V.size());
  for (uint32_t R = 0; R < Rounds; ++R) {
    std::vector<uint32_t> Before(Size), Totals(Size / W), Max(Size / W, 0);
    for (uint32_t Wave = 0; Wave < Size / W; ++Wave) {
      uint32_t Sum = 0;
      for (uint32_t L = 0; L < W; ++L) {
        Before[Wave * W + L] = Sum;
        Sum += V[Wave * W + L];
        Max[Wave] = std::max(Max[Wave], V[Wave * W + L]);
      }
      Totals[Wave] = Sum;
    }
    for (uint32_t T = 0; T < Size; ++T) {
      uint32_t Offset = 0;
      for (uint32_t K = 0; K < T / W; ++K)
        Offset += Totals[K];
      V[T] = Before[T] + Offset + (Max[T / W] & 7u);
    }
  }
  return V;
}

void checkBlockScan(const xpu::CompileOptions* Options) {
  CONFORMANCE_REQUIRE_DEVICE(WaveOps);
  xpu::Program P =
      Options ? compileProgram("WaveBlockScan", *Options) : compileProgram("WaveBlockScan");
  xpu::Program Geo = compileProgram("WaveShuffles");
  uint32_t W = waveWidth(Geo);
  const uint32_t Groups = 3;
  for (xpu::Dim3 B : {xpu::block(128), xpu::block(64, 2), xpu::block(8, 4, 4), xpu::block(256)}) {
    uint32_t Size = B.x * B.y * B.z, N = Groups * Size;
    std::vector<uint32_t> X(N);
    Rng R(7061);
    for (uint32_t& E : X)
      E = uint32_t(R.next() % 1000);
    for (uint32_t Rounds : {0u, 1u, 3u}) {
      auto Out = filledBuffer<uint32_t>(N, 0);
      runKernel(P.kernel("WaveBlockScan.scan"), xpu::grid(Groups), B, toDevice(X), Out, Rounds);
      std::vector<uint32_t> Want(N);
      for (uint32_t G = 0; G < Groups; ++G) {
        std::vector<uint32_t> Part(X.begin() + G * Size, X.begin() + (G + 1) * Size);
        std::vector<uint32_t> Done = blockScanReference(Part, W, Rounds);
        std::copy(Done.begin(), Done.end(), Want.begin() + G * Size);
      }
      expectSame(fromDevice(Out), Want,
                 "block (" + std::to_string(B.x) + ", " + std::to_string(B.y) + ", " +
                     std::to_string(B.z) + "), rounds " + std::to_string(Rounds));
    }
  }
}

TEST(Wave, ScansAndBarriersComposedInALoopWithAHelper) {
  checkBlockScan(nullptr);
}

TEST(Wave, ScansAndBarriersWithCheckBounds) {
  xpu::CompileOptions O;
  O.checkBounds = true;
  checkBlockScan(&O);
}

/// Runs WaveTiersAgree.mix compiled in the tier CAJETA_GPU_WAVE_IMPL names (null: the backend's
/// best) on block B, returning every output as bytes.
std::vector<uint8_t> runTier(const char* Impl, xpu::Dim3 B, uint32_t Groups, uint32_t Rounds,
                             const xpu::CompileOptions& Options = {}) {
  const char* Was = std::getenv("CAJETA_GPU_WAVE_IMPL");
  std::string Saved = Was ? Was : "";
  if (Impl)
    setenv("CAJETA_GPU_WAVE_IMPL", Impl, 1);
  else
    unsetenv("CAJETA_GPU_WAVE_IMPL");
  xpu::Program P = compileProgram("WaveTiersAgree", Options);
  if (Was)
    setenv("CAJETA_GPU_WAVE_IMPL", Saved.c_str(), 1);
  else
    unsetenv("CAJETA_GPU_WAVE_IMPL");
  const uint32_t N = Groups * B.x * B.y * B.z;
  Rng R(7121);
  std::vector<float> F(N);
  std::vector<int64_t> W(N);
  std::vector<uint32_t> U(N);
  for (uint32_t I = 0; I < N; ++I) {
    F[I] = float(int32_t(R.next() % 2001) - 1000) / 64.0f;
    W[I] = int64_t(R.next()) >> 20;
    U[I] = uint32_t(R.next());
  }
  auto DF = toDevice(F);
  auto DW = toDevice(W);
  auto DU = toDevice(U);
  auto Masks = filledBuffer<uint64_t>(N, 0);
  runKernel(P.kernel("WaveTiersAgree.mix"), xpu::grid(Groups), B, DF, DW, DU, Masks, Rounds);
  std::vector<uint8_t> Out;
  auto Append = [&](const auto& V) {
    const uint8_t* Bytes = reinterpret_cast<const uint8_t*>(V.data());
    Out.insert(Out.end(), Bytes, Bytes + V.size() * sizeof(V[0]));
  };
  Append(fromDevice(DF));
  Append(fromDevice(DW));
  Append(fromDevice(DU));
  Append(fromDevice(Masks));
  return Out;
}

/// The native and the portable tier of WaveTiersAgree.mix, compiled with Options, on shapes of
/// every kind for the width W the options give.
void checkTiersAgree(const xpu::CompileOptions& Options) {
  xpu::Program Geo = compileProgram("WaveShuffles", Options);
  const uint32_t W = waveWidth(Geo);
  // Rows of whole waves, rows of one and a half waves, and waves that span rows and planes. A
  // device that starts a wave at each row (llvmpipe) must refuse the native tier a group whose
  // rows do not hold whole waves, naming why, rather than run it with other waves.
  for (xpu::Dim3 B : {xpu::block(4 * W), xpu::block(2 * W, 2), xpu::block(3 * W / 2, 2),
                      xpu::block(W / 2, 4), xpu::block(W / 4, 2, 4)}) {
    for (uint32_t Rounds : {1u, 3u}) {
      std::vector<uint8_t> Portable = runTier("software", B, 3, Rounds, Options);
      std::vector<uint8_t> Native;
      try {
        Native = runTier(nullptr, B, 3, Rounds, Options);
      } catch (const xpu::LaunchError& E) {
        EXPECT_NE(B.x % W, 0u) << E.what();
        EXPECT_NE(std::string(E.what()).find("starts a wave at each row"), std::string::npos)
            << E.what();
        continue;
      }
      ASSERT_EQ(Native.size(), Portable.size());
      size_t Differ = 0;
      for (size_t I = 0; I < Native.size(); ++I)
        Differ += Native[I] != Portable[I];
      EXPECT_EQ(Differ, 0u) << "cpu " << Options.cpu << ", width " << W << ", block (" << B.x
                            << ", " << B.y << ", " << B.z << "), rounds " << Rounds << ": "
                            << Differ << " bytes differ";
    }
  }
}

TEST(Wave, NativeAndPortableTiersComputeTheSameBitsOnEveryGroupShape) {
  CONFORMANCE_REQUIRE_DEVICE(WaveOps);
  checkTiersAgree({});
}

TEST(Wave, TheCpusNativeTierOnNarrowerVectorsToo) {
  // The CPU's wave is as wide as the vectors the payload is built for: 8 lanes with AVX2
  // (x86-64-v3: vpermd on ymm) and 4 with SSE2 (x86-64: permutes element by element), both of
  // which run on any x86-64 host.
  CONFORMANCE_REQUIRE_DEVICE(WaveOps);
  if (std::string(xpu::defaultDevice().backend()) != "cpu")
    GTEST_SKIP() << "CPU payloads only";
  for (const char* Cpu : {"x86-64-v3", "x86-64"}) {
    xpu::CompileOptions O;
    O.cpu = Cpu;
    xpu::Program Geo = compileProgram("WaveShuffles", O);
    EXPECT_EQ(waveWidth(Geo), std::string(Cpu) == "x86-64" ? 4u : 8u) << Cpu;
    checkTiersAgree(O);
  }
}

} // namespace
} // namespace conformance
