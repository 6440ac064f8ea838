// Loads the test kernels' bundle through the public API, for the runtime tests.
#pragma once

#include "TestBundle.h"

#include <cajeta/xpu.hpp>
#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

namespace cajeta::xpu::test {

inline Program loadTestProgram() {
  std::vector<uint8_t> Bytes = testBundleBytes();
  return Program::loadMemory(Bytes.data(), Bytes.size());
}

/// Runs the test kernels' K.saxpy (y = 2x + y over 3 elements) from P and checks the result.
inline void expectSaxpyRuns(const Program& P) {
  KernelBuffer<float> X(3), Y(3);
  X.upload(std::vector<float>{1, 2, 3});
  Y.upload(std::vector<float>{1, 1, 1});
  KernelStream S;
  P.kernel("K.saxpy").launch(S, grid(1), block(3))(Y, X, 2.0f, 3u);
  S.sync();
  std::vector<float> R;
  Y.download(R);
  EXPECT_EQ(R, (std::vector<float>{3, 5, 7}));
}

/// Whether Text contains Part; for messages in EXPECT_TRUE with the text shown on failure.
inline testing::AssertionResult contains(const std::string& Text, const std::string& Part) {
  if (Text.find(Part) != std::string::npos)
    return testing::AssertionSuccess();
  return testing::AssertionFailure() << "'" << Text << "' does not contain '" << Part << "'";
}

/// Runs Body and returns the message of the exception of type E it throws ("" if none).
template <class E, class Fn> std::string messageOf(Fn&& Body) {
  try {
    Body();
  } catch (const E& Ex) {
    return Ex.what();
  }
  return "";
}

/// Sets (or, with nullptr, unsets) an environment variable for a scope, then restores it.
class EnvGuard {
public:
  EnvGuard(const char* Name, const char* Value) : Name(Name) {
    if (const char* Old = std::getenv(Name))
      Saved = Old;
    if (Value)
      setenv(Name, Value, 1);
    else
      unsetenv(Name);
  }
  ~EnvGuard() {
    if (Saved)
      setenv(Name, Saved->c_str(), 1);
    else
      unsetenv(Name);
  }
  EnvGuard(const EnvGuard&) = delete;
  EnvGuard& operator=(const EnvGuard&) = delete;

private:
  const char* Name;
  std::optional<std::string> Saved;
};

} // namespace cajeta::xpu::test
