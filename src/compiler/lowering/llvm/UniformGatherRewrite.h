// After the loop vectorizer on the CPU: a masked gather whose lanes all read one address becomes
// one scalar load and a broadcast. The vectorizer emits such a gather for a load at a work-item-
// uniform address inside a branch that only some work-items take (`if (j > k) ... q[i * n + k]`):
// it may not load unconditionally, and a 16-lane gather of one address costs about as much as 16
// loads. The rewrite loads from the address when any lane is active and from a stack slot of the
// function's own when none is, so it never touches memory the kernel would not have read.
#pragma once

#include <llvm/IR/PassManager.h>

namespace cajeta::lowering {

class UniformGatherRewrite : public llvm::PassInfoMixin<UniformGatherRewrite> {
public:
  llvm::PreservedAnalyses run(llvm::Function& F, llvm::FunctionAnalysisManager& AM);
};

} // namespace cajeta::lowering
