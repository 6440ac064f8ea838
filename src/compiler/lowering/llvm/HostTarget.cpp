// The host target (HostTarget.h).
#include "compiler/lowering/llvm/HostTarget.h"

namespace cajeta::lowering {

namespace {

class HostTarget final : public LoweringTarget {
public:
  explicit HostTarget(llvm::TargetMachine& TM) : TM(TM) {}

  llvm::TargetMachine& targetMachine() override { return TM; }

  llvm::Function* emitKernel(llvm::Module&, const kir::Function& KF, BodyEmitter,
                             std::string& Error) override {
    Error = "internal error: kernel '" + KF.Name + "' in a host module";
    return nullptr;
  }
  std::vector<llvm::Type*> helperHiddenParams(llvm::LLVMContext&) const override { return {}; }
  // A verified host module has no coordinate reads and no kernel buffers (its arrays are
  // checked by the walk itself), so these leaves are never reached.
  llvm::Value* coordinate(llvm::IRBuilder<>& B, const WorkItemContext&, kir::IntrinsicOp,
                          unsigned) override {
    return B.getInt32(0);
  }
  void emitBoundsFailure(llvm::IRBuilder<>&, const WorkItemContext&, llvm::Value*, llvm::Value*,
                         llvm::Value*) override {}
  llvm::Value* emitHasFailed(llvm::IRBuilder<>& B, const WorkItemContext&) override {
    return B.getFalse();
  }

private:
  llvm::TargetMachine& TM;
};

} // namespace

std::unique_ptr<LoweringTarget> createHostTarget(llvm::TargetMachine& TM) {
  return std::make_unique<HostTarget>(TM);
}

} // namespace cajeta::lowering
