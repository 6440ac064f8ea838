// Sema for asynchronous global -> shared copies: AsyncCopy.copy(dst, dstIndex, src, srcIndex,
// count[, valid]), the group's AsyncCopy.copyBlock(dst, dstIndex, src, row, col, height, width,
// stride, rows, cols), AsyncCopy.commit() and AsyncCopy.wait(n) (kir::IntrinsicOp::AsyncCopy...).
#include "compiler/frontend/Sema.h"

namespace cajeta::frontend {

using bundle::ScalarType;
using kir::IntrinsicOp;
using kir::Type;

bool Sema::buildAsyncCopyArrays(const Expr* E, const std::string& Method, kir::Expr*& DstE,
                                kir::Expr*& SrcE) {
  const std::string Name = "'AsyncCopy." + Method + "'";
  const Expr* Dst = E->Ops[1];
  const Expr* Src = E->Ops[3];
  if (Dst->K != Expr::Kind::Name || !SharedByName.count(Dst->Text) || lookupLocal(Dst->Text)) {
    Diags.error(Dst->Range, Name + " copies into a shared array (its first argument)");
    return false;
  }
  if (Src->K != Expr::Kind::Name || !BufferParams.count(Src->Text) || lookupLocal(Src->Text)) {
    Diags.error(Src->Range, Name + " copies from a KernelBuffer parameter (its third argument)");
    return false;
  }
  DstE = buildBufferOperand(Dst);
  SrcE = buildBufferOperand(Src);
  if (!DstE || !SrcE)
    return false;
  if (DstE->Ty.Elem != SrcE->Ty.Elem) {
    Diags.error(E->Range, Name + " from " + SrcE->Ty.str() + " into " + DstE->Ty.str() +
                              ": the element types differ");
    return false;
  }
  return true;
}

Sema::Value Sema::buildAsyncCopy(const Expr* E, const std::string& Method) {
  size_t Given = E->Ops.size() - 1;
  kir::Expr* R = M->newExpr(kir::Expr::Kind::Intrinsic, Type::voidTy(), loc(E->Range));
  auto Literal = [&](const Expr* A, const char* What, int64_t Lo,
                     int64_t Hi) -> std::optional<uint32_t> {
    Value V = buildExpr(A);
    if (!V)
      return std::nullopt;
    if (V.Lit != Value::IntLit || V.IntValue < Lo || V.IntValue > Hi) {
      Diags.error(A->Range, std::string("the ") + What + " of 'AsyncCopy." + Method +
                                "' is an integer constant from " + std::to_string(Lo) + " to " +
                                std::to_string(Hi));
      return std::nullopt;
    }
    return uint32_t(V.IntValue);
  };
  if (Method == "commit") {
    if (Given != 0) {
      Diags.error(E->Range, "'AsyncCopy.commit' takes no arguments");
      return {};
    }
    R->IOp = IntrinsicOp::AsyncCommit;
    return value(R, E->Range);
  }
  if (Method == "wait") {
    if (Given != 1) {
      Diags.error(E->Range, "'AsyncCopy.wait' takes one argument: how many of this work-item's "
                            "committed groups may still be in flight (0 waits for all)");
      return {};
    }
    auto N = Literal(E->Ops[1], "group count", 0, 7);
    if (!N)
      return {};
    R->IOp = IntrinsicOp::AsyncWait;
    R->Index = *N;
    return value(R, E->Range);
  }
  if (Method == "copyBlock")
    return buildAsyncCopyBlock(E);
  if (Method != "copy") {
    Diags.error(E->Ops[0]->Range, "'AsyncCopy' has no method '" + Method +
                                      "' (it has copy, copyBlock, commit and wait)");
    return {};
  }
  if (Given != 5 && Given != 6) {
    Diags.error(E->Range, "'AsyncCopy.copy' takes (shared, dstIndex, buffer, srcIndex, count) or "
                          "(..., count, valid), " +
                              std::to_string(Given) + " arguments given");
    return {};
  }
  kir::Expr *DstE = nullptr, *SrcE = nullptr;
  if (!buildAsyncCopyArrays(E, "copy", DstE, SrcE))
    return {};
  unsigned Size = bundle::scalarTypeSize(DstE->Ty.Elem);
  auto Count = Literal(E->Ops[5], "element count", 1, 16);
  if (!Count)
    return {};
  unsigned Bytes = *Count * Size;
  if (Bytes != 4 && Bytes != 8 && Bytes != 16) {
    Diags.error(E->Ops[5]->Range, "'AsyncCopy.copy' moves 4, 8 or 16 bytes per work-item; " +
                                      std::to_string(*Count) + " " +
                                      bundle::scalarTypeName(DstE->Ty.Elem) + " elements are " +
                                      std::to_string(Bytes));
    return {};
  }
  kir::Expr* Idx[3] = {nullptr, nullptr, nullptr};
  const char* Names[] = {"destination index", "source index", "valid count"};
  const Expr* Args[] = {E->Ops[2], E->Ops[4], Given == 6 ? E->Ops[6] : nullptr};
  for (int I = 0; I < 3; ++I) {
    if (!Args[I]) {
      Idx[I] = intConst(Type::scalar(ScalarType::U32), *Count, E->Range);
      continue;
    }
    if (!(Idx[I] = tileIndexArg(Args[I], Names[I], "AsyncCopy.copy")))
      return {};
  }
  R->IOp = IntrinsicOp::AsyncCopy;
  R->Index = *Count;
  R->Ops = {DstE, Idx[0], SrcE, Idx[1], Idx[2]};
  return value(R, E->Range);
}

Sema::Value Sema::buildAsyncCopyBlock(const Expr* E) {
  const size_t Given = E->Ops.size() - 1;
  if (Given != 10) {
    Diags.error(E->Range, "'AsyncCopy.copyBlock' takes (shared, dstIndex, buffer, row, col, "
                          "height, width, stride, rows, cols), " +
                              std::to_string(Given) + " arguments given");
    return {};
  }
  kir::Expr *DstE = nullptr, *SrcE = nullptr;
  if (!buildAsyncCopyArrays(E, "copyBlock", DstE, SrcE))
    return {};
  if (DstE->Ty.Elem == ScalarType::Bool) {
    Diags.error(E->Range, "'AsyncCopy.copyBlock' copies numbers, not bool");
    return {};
  }
  // The block's shape is the program's: rows and cols are constants (a TMA box's are too).
  uint32_t Shape[2] = {0, 0};
  for (int I = 0; I < 2; ++I) {
    const Expr* A = E->Ops[9 + I];
    Value V = buildExpr(A);
    if (!V)
      return {};
    if (V.Lit != Value::IntLit || V.IntValue < 1 || V.IntValue > 256) {
      Diags.error(A->Range, std::string("the block's ") + (I ? "column" : "row") +
                                " count of 'AsyncCopy.copyBlock' is an integer constant from 1 "
                                "to 256");
      return {};
    }
    Shape[I] = uint32_t(V.IntValue);
  }
  const unsigned Size = bundle::scalarTypeSize(DstE->Ty.Elem);
  if (Shape[1] * Size % 4 != 0) {
    Diags.error(E->Ops[10]->Range,
                "a row of an 'AsyncCopy.copyBlock' block is a multiple of 4 bytes; " +
                    std::to_string(Shape[1]) + " " + bundle::scalarTypeName(DstE->Ty.Elem) +
                    " elements are " + std::to_string(Shape[1] * Size));
    return {};
  }
  const char* Names[] = {"destination index", "row", "column", "height", "width", "stride"};
  const Expr* Args[] = {E->Ops[2], E->Ops[4], E->Ops[5], E->Ops[6], E->Ops[7], E->Ops[8]};
  kir::Expr* Idx[6] = {};
  for (int I = 0; I < 6; ++I)
    if (!(Idx[I] = tileIndexArg(Args[I], Names[I], "AsyncCopy.copyBlock")))
      return {};
  kir::Expr* R = M->newExpr(kir::Expr::Kind::Intrinsic, Type::voidTy(), loc(E->Range));
  R->IOp = IntrinsicOp::AsyncCopyBlock;
  R->Index = Shape[0];
  R->Ops = {DstE,   Idx[0], SrcE,
            Idx[1], Idx[2], Idx[3],
            Idx[4], Idx[5], intConst(Type::scalar(ScalarType::U32), Shape[1], E->Range)};
  return value(R, E->Range);
}

} // namespace cajeta::frontend
