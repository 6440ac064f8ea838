// A stand-in libcajeta_compiler.so for the JIT tests: "compiles" any source into the test bundle.
#include "TestBundle.h"
#include "cajeta/compiler.h"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <string>

#define FAKE_API extern "C" __attribute__((visibility("default")))

static std::atomic<int> Calls{0};

/// How many times cajeta_compile_to_bundle ran in this process.
FAKE_API int fake_compiler_calls(void) {
  return Calls.load();
}

FAKE_API const char* cajeta_compiler_version(void) {
  return "fake-compiler 1";
}

FAKE_API void cajeta_compiler_free(void* P) {
  std::free(P);
}

static char* copyString(const std::string& S) {
  char* Out = static_cast<char*>(std::malloc(S.size() + 1));
  std::memcpy(Out, S.c_str(), S.size() + 1);
  return Out;
}

/// A source containing "error" fails with one diagnostic; any other yields the test bundle.
FAKE_API int cajeta_compile_to_bundle(const cajeta_compile_request* R, void** Bytes, size_t* Size,
                                      char** Diagnostics) {
  ++Calls;
  *Bytes = nullptr;
  *Size = 0;
  *Diagnostics = nullptr;
  std::string Source(R->source, R->source_length);
  if (Source.find("error") != std::string::npos) {
    *Diagnostics =
        copyString(std::string(R->file_name) +
                   ":1:1: error: the fake compiler was asked to fail\n" + Source + "\n^\n");
    return 1;
  }
  std::vector<uint8_t> Out = cajeta::xpu::test::testBundleBytes();
  *Bytes = std::malloc(Out.size());
  std::memcpy(*Bytes, Out.data(), Out.size());
  *Size = Out.size();
  return 0;
}
