// The compiler driver.
#include "compiler/driver/Compiler.h"

#include "compiler/frontend/Diagnostics.h"
#include "compiler/frontend/Lexer.h"
#include "compiler/frontend/Parser.h"
#include "compiler/frontend/Sema.h"
#include "compiler/kir/AccessAnalysis.h"
#include "compiler/lowering/llvm/CpuPayloadBuilder.h"

namespace cajeta::driver {

const char* Compiler::version() {
  return "cajeta-compiler 0.1.0 (kir 1, cpu-abi 1, llvm 19)";
}

FrontendResult Compiler::runFrontend(const std::string& FileName, const std::string& Source) {
  FrontendResult R;
  R.File = std::make_unique<frontend::SourceFile>(FileName, Source);
  frontend::Diagnostics Diags(*R.File);
  frontend::AstContext Ctx;
  frontend::Lexer Lex(*R.File, Diags);
  frontend::Parser P(Lex.lexAll(), Ctx, Diags);
  frontend::CompilationUnit Unit = P.parseUnit();
  frontend::Sema S(Unit, Diags);
  R.Kir = S.run();
  if (!Diags.hasErrors()) {
    kir::analyzeAccess(*R.Kir);
    bool AnyKernel = false;
    for (const auto& F : R.Kir->Functions)
      AnyKernel |= F->IsKernel;
    if (!AnyKernel)
      Diags.warning({0, 0}, "no @Kernel methods in this file; the bundle will be empty");
  }
  R.Ok = !Diags.hasErrors();
  R.Diagnostics = Diags.render();
  return R;
}

CompileResult Compiler::compile(const std::string& FileName, const std::string& Source,
                                const CompileOptions& Options) {
  CompileResult R;
  FrontendResult F = runFrontend(FileName, Source);
  R.Diagnostics = F.Diagnostics;
  if (!F.Ok)
    return R;
  lowering::CpuBuildOptions CpuOpts;
  CpuOpts.Cpu = Options.Cpu;
  CpuOpts.CheckBounds = Options.CheckBounds;
  lowering::CpuBuildResult Cpu = lowering::CpuPayloadBuilder::build(*F.Kir, CpuOpts);
  if (!Cpu.Ok) {
    R.Diagnostics += FileName + ": error: CPU code generation failed: " + Cpu.Error + "\n";
    return R;
  }
  bundle::Program& P = R.Program;
  P.CompilerVersion = version();
  for (const auto& Fn : F.Kir->Functions) {
    if (!Fn->IsKernel)
      continue;
    bundle::KernelInfo K;
    K.Name = Fn->Name;
    K.SourceFile = FileName;
    K.SourceLine = Fn->Loc.Line;
    for (size_t I = 0; I < Fn->Params.size(); ++I) {
      const kir::Param& Par = Fn->Params[I];
      bundle::ParamInfo PI;
      PI.Name = Par.Name;
      PI.Kind = Par.Ty.isBuffer() ? bundle::ParamKind::Buffer : bundle::ParamKind::Scalar;
      PI.Type = Par.Ty.Elem;
      PI.Mode = Par.Ty.isBuffer() ? Fn->ParamAccess[I] : bundle::Access::None;
      K.Params.push_back(PI);
    }
    auto It = Cpu.Manifests.find(Fn->Name);
    if (It != Cpu.Manifests.end())
      K.Targets[Cpu.Payload.Target] = It->second;
    P.Kernels.push_back(std::move(K));
  }
  P.Payloads.push_back(std::move(Cpu.Payload));
  R.Ok = true;
  return R;
}

} // namespace cajeta::driver
