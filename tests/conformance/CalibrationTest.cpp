// DeviceCalibration on the device the suite runs on (the CPU, lavapipe, the H200 through CUDA
// and through Vulkan): every fact measured or absent with its reason, the derived facts
// consistent with the measured ones, and submissions classed against the measured ridge. The
// facts are printed, so each device run records them.
#include "ConformanceSupport.h"

#include <cmath>
#include <iostream>

namespace conformance {
namespace {

/// A test run's measurements stay in memory (no store), unless another test of this process read
/// a record first: then the default store serves, which is as good.
void keepMeasurementsInMemory() {
  try {
    xpu::Scheduler::calibrationStore(nullptr);
  } catch (const xpu::Error&) {
  }
}

TEST(Calibration, MeasuresTheDeviceTheSuiteRunsOn) {
  xpu::Device D = xpu::defaultDevice();
  keepMeasurementsInMemory();
  xpu::DeviceCalibration C = xpu::DeviceCalibration::measure(D);
  std::cout << "calibration of " << D.backend() << " '" << D.name() << "' in "
            << C.measuringSeconds() << " s (" << C.source() << ")\n";
  for (const std::string& Name : C.factNames()) {
    std::optional<double> V = C.fact(Name);
    std::cout << "  " << Name << ": ";
    if (V)
      std::cout << *V << " " << C.unit(Name) << "  (" << C.note(Name) << ")\n";
    else
      std::cout << "absent: " << C.absentReason(Name) << "\n";
    if (V)
      EXPECT_TRUE(std::isfinite(*V) && *V >= 0) << Name << " = " << *V;
    else
      EXPECT_FALSE(C.absentReason(Name).empty()) << Name;
  }
  // Every backend runs the calibration kernels (the tiles at worst on the software tile), so
  // each of these is measured everywhere.
  for (const char* Name : {"fp32-fma-flops", "fp16-tile-flops", "bf16-tile-flops", "int8-tile-ops",
                           "read-bandwidth", "write-bandwidth", "copy-bandwidth", "memory-latency",
                           "bytes-in-flight", "launch-cost", "launch-round-trip", "event-cost",
                           "inter-queue-cost", "scheduling-delay", "resident-workgroups", "ridge"})
    EXPECT_TRUE(C.fact(Name)) << Name << ": " << C.absentReason(Name);
  if (C.fp32Flops() && C.readBandwidth() && C.ridge()) {
    EXPECT_DOUBLE_EQ(*C.ridge(), *C.fp32Flops() / *C.readBandwidth());
  }
  if (C.readBandwidth() && C.memoryLatency() && C.bytesInFlight()) {
    EXPECT_DOUBLE_EQ(*C.bytesInFlight(), *C.readBandwidth() * *C.memoryLatency());
  }
  if (C.residentWorkgroups()) {
    EXPECT_GE(*C.residentWorkgroups(), 1.0);
  }
  EXPECT_GT(C.measuringSeconds(), 0.0);
}

/// Each submission's arithmetic class against the ridge measured on the device the suite runs on:
/// the kernel moving 8 bytes per operation is memory-bound on every device, the one doing 128
/// operations per 8 bytes on the side of the ridge its intensity falls.
TEST(Calibration, ClassesSubmissionsAgainstTheMeasuredRidge) {
  xpu::Device D = xpu::defaultDevice();
  keepMeasurementsInMemory();
  xpu::DeviceCalibration C = xpu::DeviceCalibration::current(D);
  ASSERT_TRUE(C.ridge()) << C.absentReason("ridge");
  xpu::Program P = compileProgram("ArithmeticClasses");
  constexpr uint32_t N = 1 << 16;
  xpu::KernelBuffer<float> X(N), Y(N);
  xpu::KernelStream S;
  auto submit = [&](const char* Kernel) {
    xpu::ResourceDescriptor R = P.kernel(Kernel).launch(
        xpu::KernelSubmission(S), xpu::grid(N / 256), xpu::block(256))(Y, X, 0.5f, N);
    S.sync();
    return R;
  };
  xpu::ResourceDescriptor Scale = submit("ArithmeticClasses.scale");
  xpu::ResourceDescriptor Polish = submit("ArithmeticClasses.polish");
  ASSERT_TRUE(Scale.ridge && Scale.intensity && Polish.ridge && Polish.intensity);
  EXPECT_EQ(*Scale.ridge, *C.ridge());
  EXPECT_DOUBLE_EQ(*Scale.intensity, 1.0 / 8.0);
  EXPECT_GT(*Polish.intensity, 16.0);
  EXPECT_EQ(Scale.arithmeticClass, xpu::ArithmeticClass::MemoryBound) << *C.ridge();
  EXPECT_EQ(Polish.arithmeticClass, *Polish.intensity > *C.ridge()
                                        ? xpu::ArithmeticClass::ComputeBound
                                        : xpu::ArithmeticClass::MemoryBound)
      << *Polish.intensity << " against " << *C.ridge();
  std::cout << D.backend() << " ridge " << *C.ridge() << " operations/byte: scale "
            << *Scale.intensity << ", polish " << *Polish.intensity << "\n";
}

} // namespace
} // namespace conformance
