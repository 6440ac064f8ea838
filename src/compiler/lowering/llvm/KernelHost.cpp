// The body walk's host leaves: heap arrays and kir::HostOp, each one call into the host support
// ABI (cajeta/xpu/cajeta_host.h), whose functions the host program's loader resolves.
#include "cajeta/xpu/cajeta_host.h"
#include "compiler/lowering/llvm/KernelLowering.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/GlobalVariable.h>

namespace cajeta::lowering {

using kir::Expr;
using kir::HostOp;
using kir::Type;

static_assert(unsigned(kir::ScalarType::F64) == CAJETA_XPU_FLOAT64 &&
                  unsigned(kir::ScalarType::BF16) == CAJETA_XPU_BFLOAT16 &&
                  unsigned(kir::ScalarType::Bool) == CAJETA_XPU_BOOL,
              "KIR scalar types are numbered as the runtime's");

llvm::Value* KernelLowering::lineOf(const Expr* E) {
  return B.getInt32(E->Loc.Line);
}

llvm::FunctionCallee KernelLowering::hostFunction(const char* Name, llvm::FunctionType* FT) {
  return LM.getOrInsertFunction(Name, FT);
}

const BufferValue* KernelLowering::hostArrayOf(const Expr* E) {
  llvm::Value* Header = emitExpr(E);
  BufferValue& V = Cur->HostArrays.emplace_back();
  V.Length = B.CreateLoad(B.getInt64Ty(), Header, "length");
  V.Ptr = B.CreateInBoundsGEP(B.getInt8Ty(), Header, B.getInt64(CAJETA_HOST_ARRAY_DATA_OFFSET));
  V.HostArray = true;
  return &V;
}

void KernelLowering::emitHostIndexFailure(const Expr* IndexExpr, llvm::Value* Index,
                                          llvm::Value* Length) {
  auto* FT = llvm::FunctionType::get(B.getVoidTy(),
                                     {B.getInt64Ty(), B.getInt64Ty(), B.getInt32Ty()}, false);
  B.CreateCall(hostFunction("cajeta_host_index_fail", FT), {Index, Length, lineOf(IndexExpr)});
  B.CreateBr(unwindTarget()); // it always raises
}

llvm::BasicBlock* KernelLowering::unwindTarget() {
  if (!Cur->Unwind.empty())
    return Cur->Unwind.back();
  if (!Cur->ReturnPending) {
    Cur->ReturnPending = llvm::BasicBlock::Create(Ctx, "unwind.return", Cur->F);
    llvm::IRBuilder<> RB(Cur->ReturnPending);
    llvm::Type* Ret = Cur->F->getReturnType();
    if (Ret->isVoidTy())
      RB.CreateRetVoid();
    else
      RB.CreateRet(llvm::Constant::getNullValue(Ret));
  }
  return Cur->ReturnPending;
}

void KernelLowering::checkPending() {
  auto* FT = llvm::FunctionType::get(B.getInt32Ty(), {}, false);
  llvm::Value* Pending = B.CreateCall(hostFunction("cajeta_host_pending", FT), {});
  llvm::BasicBlock* Go = newBlock("no.exception");
  B.CreateCondBr(B.CreateICmpNE(Pending, B.getInt32(0)), unwindTarget(), Go);
  B.SetInsertPoint(Go);
}

void KernelLowering::emitTry(const kir::Stmt* S) {
  llvm::BasicBlock* Dispatch = newBlock("catch.dispatch");
  llvm::BasicBlock* End = newBlock("try.end");
  Cur->Unwind.push_back(Dispatch);
  emitStmt(S->Then);
  Cur->Unwind.pop_back();
  branchTo(End);
  // The first clause whose classes the pending exception is an instance of; else outward.
  B.SetInsertPoint(Dispatch);
  auto* FT = llvm::FunctionType::get(B.getInt32Ty(), {B.getPtrTy()}, false);
  for (size_t I = 0; I < S->Body.size(); ++I) {
    llvm::Value* Classes = B.CreateGlobalString(S->Catches[I], "catch", 0, &LM);
    llvm::Value* Caught = B.CreateCall(hostFunction("cajeta_host_catch", FT), {Classes});
    llvm::BasicBlock* Handler = newBlock("catch");
    llvm::BasicBlock* Next = newBlock("catch.next");
    B.CreateCondBr(B.CreateICmpNE(Caught, B.getInt32(0)), Handler, Next);
    B.SetInsertPoint(Handler);
    emitStmt(S->Body[I]);
    branchTo(End);
    B.SetInsertPoint(Next);
  }
  B.CreateBr(unwindTarget());
  B.SetInsertPoint(End);
}

llvm::GlobalVariable* KernelLowering::global(uint32_t Index) {
  assert(Index < KM.Globals.size() && "verified KIR: static fields");
  if (Globals.size() < KM.Globals.size())
    Globals.resize(KM.Globals.size(), nullptr);
  if (!Globals[Index]) {
    llvm::Type* T = valueType(Ctx, KM.Globals[Index].Ty);
    Globals[Index] = new llvm::GlobalVariable(LM, T, false, llvm::GlobalValue::InternalLinkage,
                                              llvm::Constant::getNullValue(T),
                                              "static." + KM.Globals[Index].Name);
  }
  return Globals[Index];
}

llvm::Value* KernelLowering::emitStringConst(const Expr* E) {
  assert(E->Index < KM.Strings.size() && "verified KIR: string constants");
  return B.CreateGlobalString(KM.Strings[E->Index], "str", 0, &LM);
}

/// Whether the ABI function of Op can raise an exception (it takes a line).
static bool raises(HostOp Op) {
  switch (Op) {
  case HostOp::ArrayLength:
  case HostOp::BufferLength:
  case HostOp::Supports:
  case HostOp::Print:
  case HostOp::PrintFormatted:
  case HostOp::PrintNewline:
  case HostOp::PrintCaught:
  case HostOp::Exit:
  case HostOp::ArgCount:
  case HostOp::StringLength:
  case HostOp::StringEquals:
    return false;
  default:
    return true;
  }
}

llvm::Value* KernelLowering::emitHost(const Expr* E) {
  llvm::Value* V = emitHostOp(E);
  if (raises(E->HOp) && !B.GetInsertBlock()->getTerminator())
    checkPending();
  return V;
}

llvm::Value* KernelLowering::emitHostOp(const Expr* E) {
  llvm::Type* Ptr = B.getPtrTy();
  llvm::Type* I32 = B.getInt32Ty();
  llvm::Type* I64 = B.getInt64Ty();
  llvm::Type* Void = B.getVoidTy();
  auto Call = [&](const char* Name, llvm::Type* Ret, llvm::ArrayRef<llvm::Value*> Args) {
    std::vector<llvm::Type*> Types;
    for (llvm::Value* A : Args)
      Types.push_back(A->getType());
    return B.CreateCall(hostFunction(Name, llvm::FunctionType::get(Ret, Types, false)), Args);
  };
  auto Op = [&](size_t I) { return emitExpr(E->Ops[I]); };
  llvm::Value* Line = lineOf(E);
  switch (E->HOp) {
  case HostOp::ArrayNew: {
    unsigned Size = bundle::scalarTypeSize(E->Ty.Elem);
    return Call("cajeta_host_array_new", Ptr, {Op(0), B.getInt32(Size), Line});
  }
  case HostOp::ArrayLength: {
    llvm::Value* Header = Op(0);
    return B.CreateTrunc(B.CreateLoad(I64, Header, "length"), I32);
  }
  case HostOp::BufferNew:
    return Call("cajeta_host_buffer_new", Ptr, {Op(0), B.getInt32(unsigned(E->Ty.Elem)), Line});
  case HostOp::BufferUpload:
  case HostOp::BufferDownload: {
    llvm::Value* Buf = Op(0);
    llvm::Value* Array = Op(1);
    llvm::Value* Stream = E->Ops.size() == 3 ? Op(2) : llvm::ConstantPointerNull::get(B.getPtrTy());
    Call(E->HOp == HostOp::BufferUpload ? "cajeta_host_buffer_upload"
                                        : "cajeta_host_buffer_download",
         Void, {Buf, Array, Stream, Line});
    return nullptr;
  }
  case HostOp::BufferLength:
    return Call("cajeta_host_buffer_length", I64, {Op(0)});
  case HostOp::AccelNew: {
    llvm::Value* Vertices = Op(0);
    return Call("cajeta_host_accel_new", Ptr, {Vertices, Op(1), Line});
  }
  case HostOp::StreamCurrent:
    return Call("cajeta_host_stream_current", Ptr, {Line});
  case HostOp::StreamNew:
    return Call("cajeta_host_stream_new", Ptr, {Line});
  case HostOp::StreamSync:
    Call("cajeta_host_stream_sync", Void, {Op(0), Line});
    return nullptr;
  case HostOp::StreamRecord:
    return Call("cajeta_host_stream_record", Ptr, {Op(0), Line});
  case HostOp::StreamWait: {
    llvm::Value* S = Op(0);
    Call("cajeta_host_stream_wait", Void, {S, Op(1), Line});
    return nullptr;
  }
  case HostOp::EventSync:
    Call("cajeta_host_event_sync", Void, {Op(0), Line});
    return nullptr;
  case HostOp::Launch: {
    assert(E->Index < KM.Kernels.size() && "verified KIR: launches of known kernels");
    const kir::KernelRef& K = KM.Kernels[E->Index];
    // The geometry and the argument array live in the entry block's frame, not per launch.
    llvm::IRBuilder<> AB(&Cur->F->getEntryBlock(), Cur->F->getEntryBlock().begin());
    llvm::Value* Stream = Op(0);
    auto* Geometry = AB.CreateAlloca(llvm::ArrayType::get(I32, 6), nullptr, "geometry");
    for (unsigned I = 0; I < 6; ++I)
      B.CreateStore(Op(1 + I),
                    B.CreateConstInBoundsGEP2_32(Geometry->getAllocatedType(), Geometry, 0, I));
    // cajeta_xpu_arg: {uint32 kind, uint32 type, 16 bytes of value}.
    auto* ArgTy = llvm::StructType::get(Ctx, {I32, I32, I64, I64});
    size_t N = K.Params.size();
    llvm::AllocaInst* Args =
        AB.CreateAlloca(llvm::ArrayType::get(ArgTy, N ? N : 1), nullptr, "args");
    for (size_t I = 0; I < N; ++I) {
      Type P = K.Params[I];
      llvm::Value* V = Op(7 + I);
      llvm::Value* Slot = B.CreateConstInBoundsGEP2_32(Args->getAllocatedType(), Args, 0, I);
      auto Field = [&](unsigned F) { return B.CreateStructGEP(ArgTy, Slot, F); };
      bool Accel = P.isHandle(Type::AccelHandle); // its value: the scene's buffer
      B.CreateStore(B.getInt32(Accel          ? CAJETA_XPU_ARG_ACCEL
                               : P.isBuffer() ? CAJETA_XPU_ARG_BUFFER
                                              : CAJETA_XPU_ARG_SCALAR),
                    Field(0));
      B.CreateStore(B.getInt32(unsigned(P.Elem)), Field(1));
      B.CreateStore(B.getInt64(0), Field(3));
      if (P.isBuffer() || Accel) {
        B.CreateStore(V, Field(2));
        continue;
      }
      // The scalar's bits, little-endian in the low bytes.
      llvm::Value* Bits = V;
      if (P.isFloat())
        Bits = B.CreateBitCast(V, B.getIntNTy(P.bits()));
      Bits = P.isSigned() ? B.CreateSExt(Bits, I64) : B.CreateZExt(Bits, I64);
      B.CreateStore(Bits, Field(2));
    }
    llvm::Value* Name = B.CreateGlobalString(K.Name, "kernel", 0, &LM);
    Call("cajeta_host_launch", Void, {Name, Stream, Geometry, Args, B.getInt32(N), Line});
    return nullptr;
  }
  case HostOp::Supports:
    return B.CreateICmpNE(Call("cajeta_host_supports", I32, {B.getInt32(E->Index)}), B.getInt32(0));
  case HostOp::Print: {
    const Expr* A = E->Ops[0];
    llvm::Value* V = Op(0);
    Type T = A->Ty;
    if (T.isString())
      Call("cajeta_host_print_str", Void, {V});
    else if (T.isBool())
      Call("cajeta_host_print_bool", Void, {B.CreateZExt(V, I32)});
    else if (T.Elem == kir::ScalarType::F32)
      Call("cajeta_host_print_f32", Void, {V});
    else if (T.Elem == kir::ScalarType::F64)
      Call("cajeta_host_print_f64", Void, {V});
    else if (T.isSigned())
      Call("cajeta_host_print_i64", Void, {B.CreateSExt(V, I64)});
    else
      Call("cajeta_host_print_u64", Void, {B.CreateZExt(V, I64)});
    return nullptr;
  }
  case HostOp::PrintNewline:
    Call("cajeta_host_print_newline", Void, {});
    return nullptr;
  case HostOp::PrintFormatted: {
    assert(E->Index < KM.Strings.size() && "verified KIR: format strings");
    Type T = E->Ops[0]->Ty;
    llvm::Value* V = Op(0);
    llvm::Value* Bits = T.isFloat() ? B.CreateBitCast(V, B.getIntNTy(T.bits())) : V;
    Bits = T.isSigned() ? B.CreateSExt(Bits, I64) : B.CreateZExt(Bits, I64);
    llvm::Value* Spec = B.CreateGlobalString(KM.Strings[E->Index], "format", 0, &LM);
    Call("cajeta_host_printf", Void, {Spec, B.getInt32(unsigned(T.Elem)), Bits});
    return nullptr;
  }
  case HostOp::PrintCaught:
    Call("cajeta_host_print_caught", Void, {});
    return nullptr;
  case HostOp::ArgCount:
    return Call("cajeta_host_arg_count", I32, {});
  case HostOp::ArgAt:
    return Call("cajeta_host_arg", Ptr, {Op(0), Line});
  case HostOp::ParseInt:
    return Call(E->Ty.bits() == 64 ? "cajeta_host_parse_i64" : "cajeta_host_parse_i32",
                valueType(Ctx, E->Ty), {Op(0), Line});
  case HostOp::ParseFloat:
    return Call(E->Ty.bits() == 64 ? "cajeta_host_parse_f64" : "cajeta_host_parse_f32",
                valueType(Ctx, E->Ty), {Op(0), Line});
  case HostOp::StringLength:
    return Call("cajeta_host_string_length", I32, {Op(0)});
  case HostOp::StringEquals: {
    llvm::Value* A = Op(0);
    return B.CreateICmpNE(Call("cajeta_host_string_equals", I32, {A, Op(1)}), B.getInt32(0));
  }
  case HostOp::Exit: {
    llvm::CallInst* C = Call("cajeta_host_exit", Void, {Op(0)});
    C->setDoesNotReturn();
    B.CreateUnreachable();
    startDeadBlock();
    return nullptr;
  }
  }
  return unsupported(E, "unknown host operation");
}

} // namespace cajeta::lowering
