// Linked into the lowering test executables: every KIR pipeline they run verifies the module
// after each pass (as a debug build's pipelines do), so a pass that breaks KIR fails the tests
// at the pass rather than in an emitter.
#include "compiler/kir/transforms/Pipeline.h"

namespace {
[[maybe_unused]] const bool VerifyEachPass = (cajeta::kir::setVerifyEachPassByDefault(true), true);
} // namespace
