// A group's block copies as each work-item's chunk copies (AsyncBlockCopyLowering.h).
#include "compiler/kir/transforms/AsyncBlockCopyLowering.h"

#include "compiler/kir/BlockCopyCheck.h"
#include "compiler/kir/Builder.h"
#include "compiler/kir/Walk.h"

namespace cajeta::kir {
namespace {

bool isBlockCopy(const Stmt* S) {
  return BlockCopyCheck::isBlockCopy(S) && S->E->Dim == 0;
}

// for (c = linear id; c < chunks; c += group size) {
//   r = c / perRow; cc = c % perRow * chunk; gr = row + r; gc = col + cc;
//   valid = gr < height && gc < width ? min(chunk, width - gc) : 0;
//   AsyncCopy(s, dst + r * cols + cc, buf, valid != 0 ? gr * stride + gc : 0, valid)
// }
Stmt* lowerBlockWith(Builder& B, const Expr* E) {
  B.setLoc(E->Loc);
  const Type U32 = Type::scalar(ScalarType::U32);
  const uint32_t Rows = E->Index, Cols = uint32_t(E->Ops[8]->IntValue);
  const uint32_t Size = bundle::scalarTypeSize(E->Ops[0]->Ty.Elem), RowBytes = Cols * Size;
  const uint32_t ChunkBytes = RowBytes % 16 == 0 ? 16 : RowBytes % 8 == 0 ? 8 : 4;
  const uint32_t Chunk = ChunkBytes / Size, PerRow = Cols / Chunk;
  std::vector<Stmt*> Out;
  auto Def = [&](const char* Name, Expr* V) {
    uint32_t L = B.local(Name, U32);
    Out.push_back(B.eval(B.assign(L, V)));
    return L;
  };
  const uint32_t Dst = Def("block.dst", E->Ops[1]), Row = Def("block.row", E->Ops[3]),
                 Col = Def("block.col", E->Ops[4]), Height = Def("block.height", E->Ops[5]),
                 Width = Def("block.width", E->Ops[6]), Stride = Def("block.stride", E->Ops[7]);
  const uint32_t C = Def("block.chunk", B.linearLocalId());
  Expr* Group = B.bin(
      BinaryOp::Mul, B.geom(IntrinsicOp::GroupDim, 0),
      B.bin(BinaryOp::Mul, B.geom(IntrinsicOp::GroupDim, 1), B.geom(IntrinsicOp::GroupDim, 2)));
  const uint32_t Step = Def("block.group", Group);

  std::vector<Stmt*> Body;
  auto Let = [&](const char* Name, Expr* V) {
    uint32_t L = B.local(Name, U32);
    Body.push_back(B.eval(B.assign(L, V)));
    return L;
  };
  const uint32_t R = Let("block.r", B.bin(BinaryOp::Div, B.l(C), B.u32(PerRow)));
  const uint32_t Cc = Let(
      "block.c", B.bin(BinaryOp::Mul, B.bin(BinaryOp::Rem, B.l(C), B.u32(PerRow)), B.u32(Chunk)));
  const uint32_t Gr = Let("block.gr", B.bin(BinaryOp::Add, B.l(Row), B.l(R)));
  const uint32_t Gc = Let("block.gc", B.bin(BinaryOp::Add, B.l(Col), B.l(Cc)));
  Expr* Inside = B.bin(BinaryOp::And, B.bin(BinaryOp::Lt, B.l(Gr), B.l(Height)),
                       B.bin(BinaryOp::Lt, B.l(Gc), B.l(Width)));
  Expr* Left = B.bin(BinaryOp::Sub, B.l(Width), B.l(Gc));
  Expr* Part = B.select(B.bin(BinaryOp::Lt, Left, B.u32(Chunk)),
                        B.bin(BinaryOp::Sub, B.l(Width), B.l(Gc)), B.u32(Chunk));
  const uint32_t Valid = Let("block.valid", B.select(Inside, Part, B.u32(0)));
  Expr* From = B.bin(BinaryOp::Add, B.bin(BinaryOp::Mul, B.l(Gr), B.l(Stride)), B.l(Gc));
  Expr* Src = B.select(B.bin(BinaryOp::Ne, B.l(Valid), B.u32(0)), From, B.u32(0));
  Expr* To = B.bin(BinaryOp::Add, B.l(Dst),
                   B.bin(BinaryOp::Add, B.bin(BinaryOp::Mul, B.l(R), B.u32(Cols)), B.l(Cc)));
  Expr* Copy =
      B.intrinsic(IntrinsicOp::AsyncCopy, Type::voidTy(),
                  {B.shallowCopy(E->Ops[0]), To, B.shallowCopy(E->Ops[2]), Src, B.l(Valid)});
  Copy->Index = Chunk;
  Body.push_back(B.eval(Copy));
  Stmt* Next = B.eval(B.assign(C, B.bin(BinaryOp::Add, B.l(C), B.l(Step))));
  Out.push_back(B.loop(B.bin(BinaryOp::Lt, B.l(C), B.u32(Rows * PerRow)), B.block(Body), Next));
  return B.block(Out);
}

class Rewriter {
public:
  Rewriter(Module& M, Function& F) : B(M, F) {}

  Stmt* rewrite(Stmt* S) {
    return rewriteStmts(
        S, [&](Stmt* X) { return isBlockCopy(X) ? lowerBlockWith(B, X->E) : nullptr; });
  }

private:
  Builder B;
};

} // namespace

Stmt* AsyncBlockCopyLowering::lowerBlock(Builder& B, const Expr* E) {
  return lowerBlockWith(B, E);
}

bool AsyncBlockCopyLowering::run(Module& M, Function& F, std::string& Error) {
  bool Any = false;
  forEachStmt(F.Body, [&](const Stmt* S) { Any |= isBlockCopy(S); });
  if (!Any)
    return true;
  if (std::vector<UniformityProblem> P = BlockCopyCheck::problems(M, F); !P.empty()) {
    Error = "line " + std::to_string(P[0].Loc.Line) + ": " + P[0].Message;
    return false;
  }
  Rewriter R(M, F);
  F.Body = R.rewrite(F.Body);
  return true;
}

} // namespace cajeta::kir
