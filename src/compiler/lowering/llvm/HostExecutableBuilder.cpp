// Host code + embedded bundle + generated main -> object -> linked executable
// (HostExecutableBuilder.h).
#include "compiler/lowering/llvm/HostExecutableBuilder.h"

#include "compiler/lowering/llvm/CpuMachine.h"
#include "compiler/lowering/llvm/HostModuleBuilder.h"
#include "compiler/lowering/llvm/LlvmPipeline.h"

#include <llvm/ADT/SmallString.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/FileUtilities.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/Program.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include <filesystem>
#include <memory>

namespace cajeta::lowering {

namespace {

constexpr const char* RuntimeLibrary = "libcajeta_xpu.so";

/// A constant global of M with external linkage (so tools can find it in the executable).
llvm::GlobalVariable* addConstant(llvm::Module& M, llvm::Constant* Init, const char* Name,
                                  unsigned Align) {
  auto* G = new llvm::GlobalVariable(M, Init->getType(), /*isConstant=*/true,
                                     llvm::GlobalValue::ExternalLinkage, Init, Name);
  G->setAlignment(llvm::Align(Align));
  G->setDSOLocal(true);
  return G;
}

/// `int main(int argc, char** argv)`: what `cajeta run` does once the program is compiled
/// (tools/cajeta/RunCommand.cpp), in IR, so the object needs no C source or compiler. Init is
/// the static initialiser (kir::Module::StaticInit), or null.
bool addMain(llvm::Module& M, const kir::Function& Entry, const kir::Function* Init,
             const std::vector<uint8_t>& Bundle, const std::string& SourceFile,
             std::string& Error) {
  auto Defined = [&](const kir::Function& F) -> llvm::Function* {
    llvm::Function* Fn = M.getFunction(F.Symbol);
    if (Fn && !Fn->isDeclaration() && Fn->arg_size() == 0)
      return Fn;
    Error = "internal error: '" + F.Name + "' (" + F.Symbol +
            ") is not a parameterless function of the host code";
    return nullptr;
  };
  llvm::Function* EntryFn = Defined(Entry);
  llvm::Function* InitFn = Init ? Defined(*Init) : nullptr;
  if (!EntryFn || (Init && !InitFn))
    return false;
  if (M.getNamedValue("main")) {
    Error = "internal error: the host code already defines 'main'";
    return false;
  }
  llvm::LLVMContext& Ctx = M.getContext();
  llvm::Type* I32 = llvm::Type::getInt32Ty(Ctx);
  llvm::Type* Ptr = llvm::PointerType::getUnqual(Ctx);
  llvm::Type* Size = M.getDataLayout().getIntPtrType(Ctx);
  llvm::Type* Void = llvm::Type::getVoidTy(Ctx);

  llvm::Constant* Bytes = llvm::ConstantDataArray::get(Ctx, llvm::ArrayRef<uint8_t>(Bundle));
  llvm::GlobalVariable* BundleG = addConstant(M, Bytes, "cajeta_embedded_bundle", 16);
  addConstant(M, llvm::ConstantInt::get(Size, Bundle.size()), "cajeta_embedded_bundle_size", 8);

  auto Declare = [&](const char* Name, llvm::Type* Ret, std::vector<llvm::Type*> Params,
                     bool VarArg = false) {
    return M.getOrInsertFunction(Name, llvm::FunctionType::get(Ret, Params, VarArg));
  };
  llvm::FunctionCallee LoadMemory =
      Declare("cajeta_xpu_program_load_memory", I32, {Ptr, Size, Ptr});
  llvm::FunctionCallee Release = Declare("cajeta_xpu_program_release", Void, {Ptr});
  llvm::FunctionCallee LastError = Declare("cajeta_xpu_last_error", Ptr, {});
  llvm::FunctionCallee Begin = Declare("cajeta_host_begin", I32, {Ptr, Ptr});
  llvm::FunctionCallee End = Declare("cajeta_host_end", I32, {});
  // dprintf to fd 2: unbuffered like stderr, without naming libc's `stderr` object.
  llvm::FunctionCallee Dprintf = Declare("dprintf", I32, {I32, Ptr}, /*VarArg=*/true);

  llvm::Function* Main = llvm::Function::Create(llvm::FunctionType::get(I32, {I32, Ptr}, false),
                                                llvm::GlobalValue::ExternalLinkage, "main", M);
  llvm::Argument* Argc = Main->getArg(0);
  llvm::Argument* Argv = Main->getArg(1);
  auto Block = [&](const char* Name) { return llvm::BasicBlock::Create(Ctx, Name, Main); };
  llvm::BasicBlock* EntryBB = Block("entry");
  llvm::BasicBlock* ArgsBB = Block("arguments");
  llvm::BasicBlock* LoadBB = Block("load");
  llvm::BasicBlock* BeginBB = Block("begin");
  llvm::BasicBlock* FailBB = Block("fail");
  llvm::BasicBlock* RunBB = Block("run");
  llvm::BasicBlock* EntryCallBB = Block("call.entry");
  llvm::BasicBlock* EndBB = Block("end");
  llvm::IRBuilder<> B(EntryBB);

  llvm::Value* Slot = B.CreateAlloca(Ptr, nullptr, "program");
  B.CreateStore(llvm::ConstantPointerNull::get(llvm::cast<llvm::PointerType>(Ptr)), Slot);
  // Messages start with the executable's name, as the C tools' do.
  llvm::Value* HasName = B.CreateICmpSGT(Argc, B.getInt32(0));
  llvm::Value* Argv0 = B.CreateLoad(Ptr, Argv, "argv0");
  llvm::Value* Self = B.CreateSelect(
      HasName, Argv0, B.CreateGlobalString(SourceFile.empty() ? "cajeta" : SourceFile, "self"));
  // main(String[] args) sees argv[1..].
  B.CreateCondBr(B.CreateICmpSGT(Argc, B.getInt32(1)), ArgsBB, LoadBB);

  B.SetInsertPoint(ArgsBB);
  llvm::FunctionCallee SetArgs = M.getOrInsertFunction(
      "cajeta_host_set_args", llvm::FunctionType::get(B.getVoidTy(), {I32, Ptr}, false));
  B.CreateCall(SetArgs,
               {B.CreateSub(Argc, B.getInt32(1)), B.CreateConstInBoundsGEP1_64(Ptr, Argv, 1)});
  B.CreateBr(LoadBB);

  B.SetInsertPoint(LoadBB);
  llvm::Value* Loaded = B.CreateCall(
      LoadMemory, {BundleG, llvm::ConstantInt::get(Size, Bundle.size()), Slot}, "loaded");
  B.CreateCondBr(B.CreateICmpEQ(Loaded, B.getInt32(0)), BeginBB, FailBB);

  B.SetInsertPoint(BeginBB);
  llvm::Value* Program = B.CreateLoad(Ptr, Slot, "program");
  llvm::Value* Began =
      B.CreateCall(Begin, {B.CreateGlobalString(SourceFile, "source.file"), Program}, "began");
  B.CreateCondBr(B.CreateICmpEQ(Began, B.getInt32(0)), RunBB, FailBB);

  // The message is valid until the next call into the runtime: print it before the release.
  B.SetInsertPoint(FailBB);
  llvm::Value* Message = B.CreateCall(LastError, {}, "message");
  B.CreateCall(Dprintf, {B.getInt32(2), B.CreateGlobalString("%s: error: %s\n", "fail.message"),
                         Self, Message});
  B.CreateCall(Release, {B.CreateLoad(Ptr, Slot)}); // null when the load failed: a no-op
  B.CreateRet(B.getInt32(1));

  // The static fields first (they may allocate: inside the session); an exception there leaves
  // the entry point unrun, as a failed class initialisation does in Java.
  B.SetInsertPoint(RunBB);
  B.CreateCall(Release, {Program}); // the session holds it
  if (InitFn) {
    B.CreateCall(InitFn);
    llvm::FunctionCallee Pending = Declare("cajeta_host_pending", I32, {});
    llvm::Value* Raised = B.CreateICmpNE(B.CreateCall(Pending, {}, "pending"), B.getInt32(0));
    B.CreateCondBr(Raised, EndBB, EntryCallBB);
  } else {
    B.CreateBr(EntryCallBB);
  }

  B.SetInsertPoint(EntryCallBB);
  llvm::Value* Returned = B.CreateCall(EntryFn);
  if (Entry.ReturnType.isVoid() || Returned->getType() != I32)
    Returned = B.getInt32(0);
  B.CreateBr(EndBB);

  // An uncaught exception (or a failure of unsynced work) that the end reports makes it 1.
  B.SetInsertPoint(EndBB);
  llvm::PHINode* Status = B.CreatePHI(I32, 2, "status");
  Status->addIncoming(Returned, EntryCallBB);
  if (InitFn)
    Status->addIncoming(B.getInt32(0), RunBB);
  llvm::Value* Reported = B.CreateICmpNE(B.CreateCall(End, {}, "reported"), B.getInt32(0));
  B.CreateRet(B.CreateSelect(Reported, B.getInt32(1), Status));

  std::string Problems;
  llvm::raw_string_ostream OS(Problems);
  if (llvm::verifyModule(M, &OS)) {
    Error = "internal error: the generated main is invalid LLVM IR: " + OS.str();
    return false;
  }
  return true;
}

/// The folder Path is written into; a clear error when it is missing, as bundles have.
bool checkOutputFolder(const std::string& Path, std::string& Error) {
  std::filesystem::path Folder = std::filesystem::path(Path).parent_path();
  if (Folder.empty())
    return true;
  std::error_code EC;
  if (!std::filesystem::exists(Folder, EC)) {
    Error = "cannot write executable '" + Path + "': the folder '" + Folder.string() +
            "' does not exist";
    return false;
  }
  if (!std::filesystem::is_directory(Folder, EC)) {
    Error = "cannot write executable '" + Path + "': '" + Folder.string() + "' is not a folder";
    return false;
  }
  return true;
}

} // namespace

bool HostExecutableBuilder::emitObject(const kir::Module& Host, const kir::Function& Entry,
                                       const std::vector<uint8_t>& Bundle,
                                       const HostExecutableOptions& O, std::string& Object,
                                       std::string& Error) {
  // The machine the executable runs on: as the kernels' CPU payload, for O.Cpu; the executable
  // is a PIE, and there is no FP contraction, as in the JIT and the kernels.
  CpuMachine Mach;
  if (!createCpuMachine(O.Cpu, Mach, Error))
    return false;
  llvm::TargetMachine* TM = Mach.TM.get();
  llvm::LLVMContext Ctx;
  std::string LlvmErrors;
  Ctx.setDiagnosticHandler(LlvmPipeline::quietDiagnostics(LlvmErrors));
  std::unique_ptr<llvm::Module> M = HostModuleBuilder(*TM).build(Host, Ctx, Error);
  if (!M)
    return false;
  // An executable's own definitions cannot be preempted: direct, not GOT, accesses.
  M->setPICLevel(llvm::PICLevel::BigPIC);
  M->setPIELevel(llvm::PIELevel::Large);
  const kir::Function* Init =
      Host.StaticInit >= 0 && size_t(Host.StaticInit) < Host.Functions.size()
          ? Host.Functions[size_t(Host.StaticInit)].get()
          : nullptr;
  if (!addMain(*M, Entry, Init, Bundle, O.SourceFile, Error))
    return false;
  if (!LlvmPipeline::emit(*M, *TM, /*Assembly=*/false, Object, Error))
    return false;
  if (!LlvmErrors.empty()) {
    Error = "LLVM: " + LlvmErrors;
    return false;
  }
  return true;
}

std::string HostExecutableBuilder::findCompilerDriver() {
  for (const char* Name : {"c++", "cc"})
    if (llvm::ErrorOr<std::string> Path = llvm::sys::findProgramByName(Name))
      return *Path;
  return {};
}

bool HostExecutableBuilder::build(const kir::Module& Host, const kir::Function& Entry,
                                  const std::vector<uint8_t>& Bundle,
                                  const HostExecutableOptions& O, const std::string& Output,
                                  std::string& Error) {
  std::string Driver = findCompilerDriver();
  if (Driver.empty()) {
    Error = "cannot link '" + Output +
            "': no C/C++ compiler driver (c++ or cc) on PATH; install one (g++ or clang)";
    return false;
  }
  std::error_code EC;
  if (O.RuntimeLibraryDir.empty() ||
      !std::filesystem::exists(std::filesystem::path(O.RuntimeLibraryDir) / RuntimeLibrary, EC)) {
    Error =
        "cannot link '" + Output + "': no " + RuntimeLibrary + " in '" + O.RuntimeLibraryDir + "'";
    return false;
  }
  if (!checkOutputFolder(Output, Error))
    return false;
  std::string Object;
  if (!emitObject(Host, Entry, Bundle, O, Object, Error))
    return false;

  llvm::SmallString<128> ObjectPath, LogPath;
  int Fd = -1;
  if (std::error_code E = llvm::sys::fs::createTemporaryFile("cajeta-exe", "o", Fd, ObjectPath)) {
    Error = "cannot create a temporary object file: " + E.message();
    return false;
  }
  llvm::FileRemover RemoveObject(ObjectPath);
  {
    llvm::raw_fd_ostream OS(Fd, /*shouldClose=*/true);
    OS << Object;
    OS.close();
    if (OS.has_error()) {
      Error = "cannot write '" + ObjectPath.str().str() + "': " + OS.error().message();
      OS.clear_error();
      return false;
    }
  }
  if (std::error_code E = llvm::sys::fs::createTemporaryFile("cajeta-link", "log", LogPath)) {
    Error = "cannot create a temporary file for the linker's output: " + E.message();
    return false;
  }
  llvm::FileRemover RemoveLog(LogPath);

  const std::string& Lib = O.RuntimeLibraryDir;
  std::vector<std::string> Args = {Driver,
                                   ObjectPath.str().str(),
                                   "-o",
                                   Output,
                                   "-pie",
                                   "-L" + Lib,
                                   "-lcajeta_xpu",
                                   "-Wl,-rpath," + Lib,
                                   "-Wl,-rpath,$ORIGIN", // not a shell: $ORIGIN stays literal
                                   "-lm"};
  std::vector<llvm::StringRef> ArgRefs(Args.begin(), Args.end());
  std::optional<llvm::StringRef> Redirects[] = {llvm::StringRef(""), LogPath.str(), LogPath.str()};
  std::string ExecError;
  bool ExecFailed = false;
  int Rc = llvm::sys::ExecuteAndWait(Driver, ArgRefs, std::nullopt, Redirects, 0, 0, &ExecError,
                                     &ExecFailed);
  if (ExecFailed || Rc != 0) {
    std::string Log;
    if (auto Buf = llvm::MemoryBuffer::getFile(LogPath))
      Log = (*Buf)->getBuffer().str();
    std::string Command;
    for (const std::string& A : Args)
      Command += (Command.empty() ? "" : " ") + A;
    Error = "linking '" + Output + "' failed (" +
            (ExecFailed ? "cannot run " + Driver + ": " + ExecError
                        : Driver + " exited with status " + std::to_string(Rc)) +
            ")\n  command: " + Command + (Log.empty() ? "" : "\n" + Log);
    while (!Error.empty() && Error.back() == '\n')
      Error.pop_back();
    return false;
  }
  return true;
}

} // namespace cajeta::lowering
