#include "KirFromSource.h"

#include "compiler/Diagnostics.h"
#include "compiler/frontend/Lexer.h"
#include "compiler/frontend/Parser.h"
#include "compiler/frontend/Sema.h"

#include <gtest/gtest.h>

namespace cajeta::kir {

std::unique_ptr<Module> kirFromSource(const std::string& FileName, const std::string& Source,
                                      std::string& Diags) {
  frontend::SourceFile File(FileName, Source);
  Diagnostics D(File);
  frontend::AstContext Ctx;
  frontend::Lexer Lex(File, D);
  frontend::Parser P(Lex.lexAll(), Ctx, D);
  frontend::CompilationUnit Unit = P.parseUnit();
  frontend::Sema S(Unit, D);
  std::unique_ptr<Module> M = S.run();
  Diags = D.render();
  return D.hasErrors() ? nullptr : std::move(M);
}

std::unique_ptr<Module> kirOfClassK(const std::string& Body) {
  std::string Diags;
  std::unique_ptr<Module> M =
      kirFromSource("t.cj", "import cajeta.xpu.*;\nclass K {\n" + Body + "\n}\n", Diags);
  EXPECT_TRUE(M) << Diags;
  return M;
}

} // namespace cajeta::kir
