// libFuzzer entry point for the front end (source text -> Lexer, Parser, Sema -> KIR), as
// driver::Compiler::runFrontend runs it, without LLVM. Any input must end in a module or in
// diagnostics, never in a crash, a hang or a leak; a module the front end accepts must verify
// (an invalid one is a compiler bug, reported by aborting).
#include "compiler/Diagnostics.h"
#include "compiler/frontend/Lexer.h"
#include "compiler/frontend/Parser.h"
#include "compiler/frontend/Sema.h"
#include "compiler/frontend/SourceFile.h"
#include "compiler/kir/AccessAnalysis.h"
#include "compiler/kir/SchedulingAnalysis.h"
#include "compiler/kir/Verifier.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

using namespace cajeta;

static void mustVerify(const kir::Module& M, const char* What) {
  std::string Invalid;
  if (kir::verify(M, Invalid))
    return;
  std::fprintf(stderr, "the front end produced invalid %s KIR:\n%s\n", What, Invalid.c_str());
  std::abort();
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* Data, size_t Size) {
  frontend::SourceFile File("fuzz.cj", std::string(reinterpret_cast<const char*>(Data), Size));
  Diagnostics Diags(File);
  frontend::AstContext Ctx;
  frontend::Lexer Lex(File, Diags);
  frontend::Parser P(Lex.lexAll(), Ctx, Diags);
  frontend::CompilationUnit Unit = P.parseUnit();
  frontend::Sema S(Unit, Diags);
  std::unique_ptr<kir::Module> Kir = S.run();
  std::unique_ptr<kir::Module> HostKir = S.takeHostModule();
  if (!Kir || !HostKir)
    std::abort(); // Sema returns both modules even with errors
  std::string Rendered = Diags.render();
  if (Diags.hasErrors()) {
    if (Rendered.find("error") == std::string::npos)
      std::abort(); // an error must be rendered
    return 0;
  }
  mustVerify(*Kir, "kernel");
  mustVerify(*HostKir, "host");
  // What the driver does next on every target: the access modes, the scheduling manifest.
  kir::analyzeAccess(*Kir);
  kir::SchedulingAnalysis Scheduling(*Kir);
  for (const auto& Fn : Kir->Functions)
    if (Fn->IsKernel)
      (void)Scheduling.analyze(*Fn);
  (void)kir::dump(*Kir); // `cajeta emit --target=kir`
  return 0;
}
