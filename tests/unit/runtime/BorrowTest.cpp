// Deferred borrow until sync: cross-stream copies of a borrowed buffer fail; release is deferred.
#include "TestProgram.h"

#include <gtest/gtest.h>

using namespace cajeta::xpu;
using namespace cajeta::xpu::test;

TEST(Borrow, UploadFromAnotherStreamNamesKernelAndStream) {
  Program P = loadTestProgram();
  KernelBuffer<float> Out(8);
  KernelStream Other;
  P.kernel("K.sleepy").launch(Other, grid(1), block(1))(Out, 30u, 1.0f);
  std::vector<float> H(8, 0.0f);
  std::string M = messageOf<BorrowError>([&] { Out.upload(H); }); // on the current stream
  EXPECT_TRUE(contains(M, "borrowed by kernel 'K.sleepy'"));
  EXPECT_TRUE(contains(M, Other.name()));
  EXPECT_TRUE(contains(messageOf<BorrowError>([&] { Out.download(H); }), "K.sleepy"));
  EXPECT_TRUE(contains(messageOf<BorrowError>([&] { Out.resize(4); }), "resize"));
  Other.sync(); // ends the borrow
  Out.download(H);
  EXPECT_EQ(H, std::vector<float>(8, 1.0f));
}

TEST(Borrow, BorrowLastsUntilSyncNotJustCompletion) {
  Program P = loadTestProgram();
  KernelBuffer<float> Out(4);
  KernelStream Other;
  P.kernel("K.sleepy").launch(Other, grid(1), block(1))(Out, 0u, 1.0f);
  Event E = Other.record();
  E.sync(); // the kernel is done, but its stream has not been synced
  std::vector<float> H(4);
  EXPECT_THROW(Out.download(H), BorrowError);
  Other.sync();
  EXPECT_NO_THROW(Out.download(H));
}

TEST(Borrow, SameStreamCopiesAreOrderedAfterTheKernel) {
  Program P = loadTestProgram();
  KernelBuffer<float> Out(4);
  KernelStream S;
  P.kernel("K.sleepy").launch(S, grid(1), block(1))(Out, 20u, 3.0f);
  std::vector<float> H(4, 0.0f);
  Out.downloadAsync(S, H.data(), H.size()); // no BorrowError: same stream
  S.sync();
  EXPECT_EQ(H, std::vector<float>(4, 3.0f));
}

TEST(Borrow, DestroyingABorrowedBufferDefersItsRelease) {
  Program P = loadTestProgram();
  Device D = defaultDevice();
  KernelStream S;
  uint64_t Before = D.allocatedBytes();
  {
    KernelBuffer<float> Doomed(1 << 16);
    EXPECT_GE(D.allocatedBytes(), Before + (4u << 16));
    P.kernel("K.sleepy").launch(S, grid(1), block(1))(Doomed, 40u, 1.0f);
  } // the handle goes; the kernel still writes into the memory
  EXPECT_GE(D.allocatedBytes(), Before + (4u << 16)) << "released while a kernel used it";
  S.sync();
  EXPECT_EQ(D.allocatedBytes(), Before);
}

TEST(Borrow, ResizeKeepsThePrefix) {
  KernelBuffer<int32_t> B(4);
  B.upload(std::vector<int32_t>{1, 2, 3, 4});
  B.resize(6);
  EXPECT_EQ(B.size(), 6u);
  std::vector<int32_t> R;
  B.download(R);
  ASSERT_EQ(R.size(), 6u);
  EXPECT_EQ(std::vector<int32_t>(R.begin(), R.begin() + 4), (std::vector<int32_t>{1, 2, 3, 4}));
  B.resize(2);
  B.download(R);
  EXPECT_EQ(R, (std::vector<int32_t>{1, 2}));
}

TEST(Memory, BuffersAre64ByteAligned) {
  Program P = loadTestProgram();
  KernelStream S;
  for (size_t N : {1, 3, 17, 1000}) {
    KernelBuffer<uint64_t> B(N);
    P.kernel("K.align").launch(S, grid(1), block(1))(B);
    S.sync();
    std::vector<uint64_t> R;
    B.download(R);
    EXPECT_EQ(R[0], 0u) << "buffer of " << N;
  }
}

TEST(Memory, HugeBuffersFailNamingTheSize) {
  EXPECT_TRUE(
      contains(messageOf<OutOfDeviceMemory>([] { KernelBuffer<double> B(size_t(1) << 61); }),
               "out of device memory"));
  std::string M = messageOf<OutOfDeviceMemory>([] { KernelBuffer<float> B(size_t(1) << 60); });
  EXPECT_TRUE(contains(M, "4611686018427387904 bytes"));
}
