#include "compiler/lowering/llvm/KernelAbiRecords.h"

#include "bundle/KernelAbiRecord.h"
#include "compiler/kir/ManifestParams.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/GlobalVariable.h>
#include <llvm/IR/Module.h>

namespace cajeta::lowering {

void addKernelAbiRecords(const kir::Module& KM, llvm::Module& M, unsigned AddressSpace) {
  for (const auto& KF : KM.Functions) {
    llvm::Function* Entry = KF->IsKernel ? M.getFunction(KF->Symbol) : nullptr;
    if (!Entry || Entry->isDeclaration())
      continue;
    llvm::Constant* Record = llvm::ConstantDataArray::getString(
        M.getContext(), bundle::kernelAbiRecord(kir::manifestParams(KM, *KF)));
    new llvm::GlobalVariable(M, Record->getType(), /*isConstant=*/true,
                             llvm::GlobalValue::ExternalLinkage, Record,
                             bundle::kernelAbiRecordSymbol(KF->Symbol), nullptr,
                             llvm::GlobalValue::NotThreadLocal, AddressSpace);
  }
}

} // namespace cajeta::lowering
