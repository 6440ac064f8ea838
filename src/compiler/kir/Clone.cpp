// Deep copies of KIR (Clone.h).
#include "compiler/kir/Clone.h"

namespace cajeta::kir {

Expr* cloneExpr(const Expr* E, Module& Into) {
  if (!E)
    return nullptr;
  Expr* C = Into.newExpr(E->K, E->Ty, E->Loc);
  *C = *E;
  for (Expr*& O : C->Ops)
    O = cloneExpr(O, Into);
  return C;
}

Stmt* cloneStmt(const Stmt* S, Module& Into) {
  if (!S)
    return nullptr;
  Stmt* C = Into.newStmt(S->K, S->Loc);
  *C = *S;
  C->E = cloneExpr(S->E, Into);
  for (Stmt*& B : C->Body)
    B = cloneStmt(B, Into);
  C->Then = cloneStmt(S->Then, Into);
  C->Else = cloneStmt(S->Else, Into);
  C->LoopBody = cloneStmt(S->LoopBody, Into);
  C->Step = cloneStmt(S->Step, Into);
  return C;
}

std::unique_ptr<Function> cloneFunction(const Function& F, Module& Into) {
  auto C = std::make_unique<Function>(F);
  C->Body = cloneStmt(F.Body, Into);
  return C;
}

std::unique_ptr<Module> cloneModule(const Module& M) {
  auto C = std::make_unique<Module>();
  C->SourceFile = M.SourceFile;
  C->Pods = M.Pods;
  C->IsHost = M.IsHost;
  C->Strings = M.Strings;
  C->Kernels = M.Kernels;
  C->Globals = M.Globals;
  C->StaticInit = M.StaticInit;
  for (const auto& F : M.Functions)
    C->Functions.push_back(cloneFunction(*F, *C));
  return C;
}

} // namespace cajeta::kir
