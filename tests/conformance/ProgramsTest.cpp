// Conformance of whole programs: the canonical saxpy, the spec's example with its host method,
// wildcard imports, @Backend, a 2D matrix multiply and a stencil.
#include "ConformanceSupport.h"

namespace conformance {
namespace {

void checkSaxpy(const std::string& Name) {
  xpu::Program P = compileProgram(Name);
  const size_t N = 1000; // 4 x 256 work-items, the last 24 idle
  std::vector<float> X = floatData<float>(N, 900, -10, 10), Y = floatData<float>(N, 901, -10, 10);
  auto DX = toDevice(X), DY = toDevice(Y);
  runKernel(P.kernel("K.saxpy"), xpu::grid(4), xpu::block(256), DY, DX, 3.0f, uint32_t(N));
  std::vector<float> Want(N);
  for (size_t I = 0; I < N; ++I)
    Want[I] = 3.0f * X[I] + Y[I];
  expectSame(fromDevice(DY), Want, Name + " K.saxpy");
}

TEST(Programs, Saxpy) {
  CONFORMANCE_REQUIRE_DEVICE(Float32Denormals); // the data include subnormals
  checkSaxpy("Saxpy");
}
TEST(Programs, SpecExampleWithHostMethod) {
  CONFORMANCE_REQUIRE_DEVICE(Float32Denormals); // the data include subnormals
  checkSaxpy("HostMethodSkipped");
  xpu::Program P = compileProgram("HostMethodSkipped");
  EXPECT_EQ(P.kernelNames(), std::vector<std::string>{"K.saxpy"}); // run() is not a kernel
}

TEST(Programs, WildcardImport) {
  xpu::Program P = compileProgram("ImportWildcard");
  const size_t N = 300;
  auto Out = filledBuffer<uint32_t>(N, 0);
  run1D(P.kernel("ImportWildcard.run"), N, 64, Out, uint32_t(N));
  std::vector<uint32_t> Want(N);
  for (uint32_t I = 0; I < N; ++I)
    Want[I] = (I / 64) * 1000 + I % 64;
  expectSame(fromDevice(Out), Want, "ImportWildcard.run");
}

TEST(Programs, BackendAnnotationAccepted) {
  xpu::Program P = compileProgram("BackendAnnotation");
  const size_t N = 257;
  std::vector<int32_t> In = intData<int32_t>(N, 910);
  auto DIn = toDevice(In);
  auto Out = filledBuffer<int32_t>(N, 0x55);
  run1D(P.kernel("BackendAnnotation.run"), N, 32, Out, DIn, uint32_t(N));
  std::vector<int32_t> Want(N);
  for (size_t I = 0; I < N; ++I)
    Want[I] = wrapSub(wrapAdd(In[I], In[I]), 1);
  expectSame(fromDevice(Out), Want, "BackendAnnotation.run");
}

TEST(Programs, MatMul2D) {
  xpu::Program P = compileProgram("MatMul");
  const uint32_t Rows = 45, Inner = 33, Cols = 51, BX = 16, BY = 8;
  std::vector<float> A = uniformData<float>(Rows * Inner, 920, -2, 2);
  std::vector<float> B = uniformData<float>(Inner * Cols, 921, -2, 2);
  auto DA = toDevice(A), DB = toDevice(B);
  auto C = filledBuffer<float>(Rows * Cols, 0.0f);
  runKernel(P.kernel("MatMul.run"), xpu::grid(groupsFor(Cols, BX), groupsFor(Rows, BY)),
            xpu::block(BX, BY), C, DA, DB, Rows, Inner, Cols);
  std::vector<float> Want(Rows * Cols);
  for (uint32_t R = 0; R < Rows; ++R)
    for (uint32_t Col = 0; Col < Cols; ++Col) {
      float S = 0.0f;
      for (uint32_t K = 0; K < Inner; ++K)
        S += A[R * Inner + K] * B[K * Cols + Col];
      Want[R * Cols + Col] = S;
    }
  expectSame(fromDevice(C), Want, "MatMul.run");
}

TEST(Programs, Stencil) {
  xpu::Program P = compileProgram("Stencil");
  const size_t N = 999;
  std::vector<double> In = uniformData<double>(N, 930, -100, 100);
  auto DIn = toDevice(In);
  auto Out = filledBuffer<double>(N, 0.0);
  run1D(P.kernel("Stencil.run"), N, 128, Out, DIn, uint32_t(N));
  std::vector<double> Want(N);
  for (size_t I = 0; I < N; ++I) {
    double L = I == 0 ? In[I] : In[I - 1];
    double R = I + 1 == N ? In[I] : In[I + 1];
    Want[I] = 0.25 * L + 0.5 * In[I] + 0.25 * R;
  }
  expectSame(fromDevice(Out), Want, "Stencil.run");
}

TEST(Programs, ACompileErrorSaysEachMessageOnce) {
  // what() is a summary (the first error and how many more); diagnostics() has them all, so a
  // program that prints both shows each message once.
  const char* Source = "import cajeta.xpu.*;\n"
                       "class K {\n"
                       "    @Kernel\n"
                       "    static void k(KernelBuffer<int32> out) {\n"
                       "        out[0] = undefinedA;\n"
                       "        out[1] = undefinedB;\n"
                       "    }\n"
                       "}\n";
  try {
    xpu::Program::compileSource(Source, "twice.cj");
    FAIL() << "no CompileError";
  } catch (const xpu::CompileError& E) {
    std::string What = E.what(), Diags = E.diagnostics();
    EXPECT_NE(What.find("twice.cj:5:"), std::string::npos) << What;
    EXPECT_NE(What.find("and 1 more error"), std::string::npos) << What;
    EXPECT_EQ(What.find("undefinedB"), std::string::npos) << What;
    EXPECT_NE(Diags.find("twice.cj:5:"), std::string::npos) << Diags;
    EXPECT_NE(Diags.find("twice.cj:6:"), std::string::npos) << Diags;
  } catch (const xpu::Error& E) {
    // A machine without the compiler library (the GPU machine runs from a JIT cache filled
    // elsewhere) cannot compile a new source; there is no compile error to look at.
    GTEST_SKIP() << "no compiler here: " << E.what();
  }
}

} // namespace
} // namespace conformance
