// Deep copies of KIR: the per-target pass pipeline rewrites a copy of Sema's module, so every
// target starts from the same KIR and no pass sees another target's rewrites.
#pragma once

#include "compiler/kir/Kir.h"

#include <memory>

namespace cajeta::kir {

/// A copy of M whose every node is new (owned by the copy); indices are unchanged.
std::unique_ptr<Module> cloneModule(const Module& M);
/// A copy of F whose nodes are allocated in Into (F may belong to any module).
std::unique_ptr<Function> cloneFunction(const Function& F, Module& Into);
Expr* cloneExpr(const Expr* E, Module& Into);
Stmt* cloneStmt(const Stmt* S, Module& Into);

} // namespace cajeta::kir
