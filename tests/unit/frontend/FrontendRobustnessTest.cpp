// No input crashes the compiler: every program of the test suites, mutated many ways
// (truncated, bytes dropped, duplicated, replaced by other tokens), goes through the frontend;
// each must end either in KIR or in diagnostics. A sample of mutants that still compile is also
// lowered, which must never fail LLVM's verifier.
#include "compiler/driver/Compiler.h"
#include "compiler/lowering/llvm/CpuPayloadBuilder.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

namespace fs = std::filesystem;
using cajeta::driver::Compiler;

namespace {

std::vector<std::pair<std::string, std::string>> corpus() {
  std::vector<std::pair<std::string, std::string>> Files;
  for (const char* Dir :
       {CAJETA_TESTS_DIR "/conformance/programs", CAJETA_TESTS_DIR "/diagnostics/cases"}) {
    if (!fs::exists(Dir))
      continue;
    for (const auto& E : fs::directory_iterator(Dir)) {
      if (E.path().extension() != ".cj")
        continue;
      std::ifstream In(E.path(), std::ios::binary);
      std::ostringstream S;
      S << In.rdbuf();
      Files.push_back({E.path().filename().string(), S.str()});
    }
  }
  std::sort(Files.begin(), Files.end());
  return Files;
}

/// Runs the frontend; a result must be consistent: Ok without errors, or errors rendered.
void checkFrontend(const std::string& Name, const std::string& Src, unsigned& Compiled,
                   std::vector<std::string>* Survivors = nullptr) {
  auto R = Compiler::runFrontend(Name, Src);
  if (R.Ok) {
    ASSERT_NE(R.Kir, nullptr);
    ++Compiled;
    if (Survivors)
      Survivors->push_back(Src);
    return;
  }
  ASSERT_NE(R.Diagnostics.find("error: "), std::string::npos) << "failed without an error";
}

TEST(FrontendRobustness, CorpusIsPresent) {
  EXPECT_GE(corpus().size(), 60u);
}

TEST(FrontendRobustness, EveryTruncationIsHandled) {
  unsigned Compiled = 0;
  for (const auto& [Name, Src] : corpus())
    for (size_t Len = 0; Len < Src.size(); Len += 5)
      checkFrontend(Name, Src.substr(0, Len), Compiled);
  SUCCEED() << Compiled << " truncations still compiled";
}

TEST(FrontendRobustness, RandomEditsAreHandled) {
  std::mt19937 Rng(12345);
  static const char* Inserts[] = {"(",
                                  ")",
                                  "{",
                                  "}",
                                  ";",
                                  "[",
                                  "]",
                                  "<",
                                  ">>",
                                  "@",
                                  "#",
                                  "\"",
                                  "'",
                                  "/*",
                                  "0x",
                                  "1e",
                                  "KernelBuffer<",
                                  "for (i, ",
                                  "break ",
                                  "return ",
                                  "++",
                                  "-2147483648",
                                  "\xff\xfe",
                                  "\0",
                                  "shared ",
                                  "Math.",
                                  ".",
                                  ",",
                                  "?",
                                  ":",
                                  "=",
                                  "uint8 ",
                                  "(float32)"};
  unsigned Compiled = 0;
  std::vector<std::string> Survivors;
  for (const auto& [Name, Src] : corpus()) {
    for (int Round = 0; Round < 40; ++Round) {
      std::string S = Src;
      int Edits = 1 + Rng() % 3;
      for (int E = 0; E < Edits && !S.empty(); ++E) {
        size_t At = Rng() % S.size();
        switch (Rng() % 4) {
        case 0: // delete a span
          S.erase(At, 1 + Rng() % 12);
          break;
        case 1: // insert a token
          S.insert(At, Inserts[Rng() % (sizeof Inserts / sizeof *Inserts)]);
          break;
        case 2: // duplicate a span
          S.insert(At, S.substr(Rng() % S.size(), 1 + Rng() % 20));
          break;
        default: // flip a byte
          S[At] = static_cast<char>(Rng() % 256);
          break;
        }
      }
      checkFrontend(Name, S, Compiled, &Survivors);
    }
  }
  // Mutants that still pass the frontend must lower to valid LLVM (verifier clean).
  cajeta::lowering::CpuBuildOptions O;
  for (size_t I = 0; I < Survivors.size() && I < 25; ++I) {
    auto F = Compiler::runFrontend("mutant.cj", Survivors[I]);
    ASSERT_TRUE(F.Ok);
    std::string Ir, Error;
    EXPECT_TRUE(cajeta::lowering::CpuPayloadBuilder::emitLlvmIr(*F.Kir, O, false, Ir, Error))
        << Error << "\n"
        << Survivors[I];
  }
}

TEST(FrontendRobustness, DeepNestingDoesNotOverflowTheStack) {
  // Deep but bounded nesting; the frontend recurses per level.
  std::string Expr(2000, '(');
  Expr += "1";
  Expr += std::string(2000, ')');
  std::string Src = "class K { @Kernel static void k() { int32 a = " + Expr + "; } }";
  unsigned Compiled = 0;
  checkFrontend("deep.cj", Src, Compiled);
}

} // namespace
