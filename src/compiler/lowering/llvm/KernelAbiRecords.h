// Beside each kernel entry of an LLVM module, its parameter list as the manifest marshals it
// (bundle/KernelAbiRecord.h): the loader holds the manifest it is given against the code's own
// record.
#pragma once

#include "compiler/kir/Kir.h"

namespace llvm {
class Module;
} // namespace llvm

namespace cajeta::lowering {

/// One constant NUL-terminated string per kernel of KM that M defines, named
/// bundle::kernelAbiRecordSymbol(entry), with external linkage in AddressSpace (the CPU: 0, a
/// dlsym-able symbol; NVPTX: 1, a .global the PTX text shows).
void addKernelAbiRecords(const kir::Module& KM, llvm::Module& M, unsigned AddressSpace);

} // namespace cajeta::lowering
