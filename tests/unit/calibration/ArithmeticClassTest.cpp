// A submission's arithmetic class: its manifest's operations per byte against the device's
// measured ridge, once the device has a calibration record; unknown before.
#include <cajeta/xpu.hpp>

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

namespace xpu = cajeta::xpu;

namespace {

// scale: 1 operation per 8 bytes moved. polish: 64 fused multiply-adds (128 operations) per
// 8 bytes. Far apart on every device's ridge (a few to a few hundred FLOP/B).
const char* Source = R"(
import cajeta.xpu.*;
public final class Classes {
    @Kernel
    public static void scale(KernelBuffer<float32> y, KernelBuffer<float32> x, float32 a, uint32 n) {
        uint32 i = KernelThread.globalIdX();
        if (i < n) { y[i] = a * x[i]; }
    }
    @Kernel
    public static void polish(KernelBuffer<float32> y, KernelBuffer<float32> x, float32 a, uint32 n) {
        uint32 i = KernelThread.globalIdX();
        if (i < n) {
            float32 v = x[i];
            for (uint32 k = 0; k < 64; k++) { v = Math.fma(v, a, 1.0f); }
            y[i] = v;
        }
    }
}
)";

void freshCache() {
  std::string Dir = std::string(CAJETA_TEST_SCRATCH_DIR) + "/" +
                    ::testing::UnitTest::GetInstance()->current_test_info()->name();
  std::filesystem::remove_all(Dir);
  std::filesystem::create_directories(Dir);
  ::setenv("XDG_CACHE_HOME", Dir.c_str(), 1);
  ::setenv("HOME", Dir.c_str(), 1);
}

xpu::ResourceDescriptor submit(xpu::Program& P, const char* Kernel) {
  constexpr uint32_t N = 1 << 16;
  xpu::KernelBuffer<float> X(N), Y(N);
  xpu::KernelStream S;
  xpu::ResourceDescriptor D = P.kernel(Kernel).launch(xpu::KernelSubmission(S), xpu::grid(N / 256),
                                                      xpu::block(256))(Y, X, 0.5f, N);
  S.sync();
  return D;
}

} // namespace

TEST(ArithmeticClass, UnknownUntilTheDeviceIsCalibratedThenAgainstItsRidge) {
  freshCache();
  xpu::Program P = xpu::Program::compileSource(Source, "Classes.cj");
  xpu::ResourceDescriptor Before = submit(P, "Classes.scale");
  EXPECT_EQ(Before.arithmeticClass, xpu::ArithmeticClass::Unknown);
  EXPECT_FALSE(Before.ridge);
  ASSERT_TRUE(Before.intensity); // the costs are known without a calibration
  EXPECT_DOUBLE_EQ(*Before.intensity, 1.0 / 8.0);

  xpu::DeviceCalibration C = xpu::DeviceCalibration::current(P.device());
  ASSERT_TRUE(C.ridge());
  xpu::ResourceDescriptor Scale = submit(P, "Classes.scale");
  xpu::ResourceDescriptor Polish = submit(P, "Classes.polish");
  ASSERT_TRUE(Scale.ridge && Polish.ridge && Polish.intensity);
  EXPECT_EQ(*Scale.ridge, *C.ridge());
  EXPECT_GT(*Polish.intensity, 16.0); // 64 FMAs and the loop's steps per 8 bytes
  EXPECT_EQ(Scale.arithmeticClass, xpu::ArithmeticClass::MemoryBound) << *C.ridge();
  EXPECT_EQ(Polish.arithmeticClass, *Polish.intensity > *C.ridge()
                                        ? xpu::ArithmeticClass::ComputeBound
                                        : xpu::ArithmeticClass::MemoryBound)
      << *Polish.intensity << " against " << *C.ridge();
}

TEST(ArithmeticClass, ARecordInTheStoreClassesWithoutMeasuring) {
  freshCache();
  // Another process measures and stores; this one only reads the record.
  std::string Cmd = std::string(CAJETA_CLI_PATH) + " calibrate > /dev/null 2>&1";
  ASSERT_EQ(std::system(Cmd.c_str()), 0);
  xpu::Program P = xpu::Program::compileSource(Source, "Classes.cj");
  xpu::ResourceDescriptor D = submit(P, "Classes.scale");
  EXPECT_EQ(D.arithmeticClass, xpu::ArithmeticClass::MemoryBound);
  ASSERT_TRUE(D.ridge);
  EXPECT_EQ(*D.ridge, *xpu::DeviceCalibration::current(P.device()).ridge());
  EXPECT_EQ(xpu::DeviceCalibration::current(P.device()).source().rfind("the user cache", 0), 0u);
}
