// The access-mode analysis (placeholder until written).
#include "compiler/kir/AccessAnalysis.h"
namespace cajeta::kir {
void analyzeAccess(Module& M) {}
} // namespace cajeta::kir
