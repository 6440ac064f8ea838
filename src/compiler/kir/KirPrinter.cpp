// The readable KIR dump (`cajeta emit --target=kir`).
#include "compiler/kir/Kir.h"

namespace cajeta::kir {
std::string dump(const Module& M) { return "; KIR dump not implemented yet\n"; }
} // namespace cajeta::kir
