// The readable KIR dump (`cajeta emit --target=kir`): one statement per line, expressions as
// typed prefix trees, locals named `%name.id`.
#include "compiler/kir/Kir.h"

#include <cstdio>
#include <sstream>

namespace cajeta::kir {

namespace {

class Printer {
public:
  explicit Printer(const Module& M) : M(M) {}

  std::string run() {
    Out << "; KIR of " << M.SourceFile << "\n";
    for (const auto& F : M.Functions)
      function(*F);
    return Out.str();
  }

private:
  void function(const Function& F) {
    Cur = &F;
    Out << "\n" << (F.IsKernel ? "kernel " : "device ") << F.Name << "(";
    for (size_t I = 0; I < F.Params.size(); ++I) {
      if (I)
        Out << ", ";
      Out << F.Params[I].Ty.str() << " " << F.Params[I].Name;
      if (F.Params[I].Ty.isBuffer() && I < F.ParamAccess.size())
        Out << " [" << bundle::accessName(F.ParamAccess[I]) << "]";
      if (F.Params[I].IsFunction) {
        Out << " [fn";
        for (uint32_t T : F.Params[I].FunctionTable)
          Out << " " << (T < M.Functions.size() ? M.Functions[T]->Name : "?");
        Out << "]";
      }
      if (F.Params[I].Ty.isPod() && F.Params[I].Ty.PodIndex < M.Pods.size())
        Out << " [pod " << M.Pods[F.Params[I].Ty.PodIndex].Name << "]";
    }
    Out << ") -> " << F.ReturnType.str() << (F.FastMath ? " fastmath" : "") << "  ; symbol "
        << F.Symbol << "\n";
    if (!F.Backends.empty()) {
      Out << "  backends";
      for (const std::string& B : F.Backends)
        Out << " " << B;
      Out << "\n";
    }
    for (size_t I = 0; I < F.SharedArrays.size(); ++I)
      Out << "  shared @" << F.SharedArrays[I].Name << " : "
          << bundle::scalarTypeName(F.SharedArrays[I].Elem) << "["
          << (F.SharedArrays[I].Count ? std::to_string(F.SharedArrays[I].Count) : "dynamic")
          << "]\n";
    for (const PrivateArray& P : F.PrivateArrays)
      Out << "  private @" << P.Name << " : " << bundle::scalarTypeName(P.Elem) << "[" << P.Count
          << "]\n";
    for (size_t I = 0; I < F.Locals.size(); ++I)
      Out << "  local " << local(I) << " : " << F.Locals[I].Ty.str() << "\n";
    stmt(F.Body, 1);
  }

  std::string local(size_t I) const { return "%" + Cur->Locals[I].Name + "." + std::to_string(I); }

  void indent(int D) {
    for (int I = 0; I < D; ++I)
      Out << "  ";
  }

  void stmt(const Stmt* S, int D) {
    if (!S)
      return;
    switch (S->K) {
    case Stmt::Kind::Block:
      indent(D);
      Out << "{\n";
      for (const Stmt* C : S->Body)
        stmt(C, D + 1);
      indent(D);
      Out << "}\n";
      return;
    case Stmt::Kind::Eval:
      indent(D);
      Out << expr(S->E) << "\n";
      return;
    case Stmt::Kind::If:
      indent(D);
      Out << "if " << expr(S->E) << "\n";
      stmt(S->Then, D + 1);
      if (S->Else) {
        indent(D);
        Out << "else\n";
        stmt(S->Else, D + 1);
      }
      return;
    case Stmt::Kind::Loop:
      indent(D);
      Out << "loop#" << S->LoopId << (S->TestAtEnd ? " do-while " : " while ")
          << (S->E ? expr(S->E) : "true") << "\n";
      stmt(S->LoopBody, D + 1);
      if (S->Step) {
        indent(D);
        Out << "step#" << S->LoopId << "\n";
        stmt(S->Step, D + 1);
      }
      return;
    case Stmt::Kind::Break:
      indent(D);
      Out << "break #" << S->LoopId << "\n";
      return;
    case Stmt::Kind::Continue:
      indent(D);
      Out << "continue #" << S->LoopId << "\n";
      return;
    case Stmt::Kind::Return:
      indent(D);
      Out << "return" << (S->E ? " " + expr(S->E) : "") << "\n";
      return;
    case Stmt::Kind::Barrier:
      indent(D);
      Out << "barrier\n";
      return;
    case Stmt::Kind::Try:
      indent(D);
      Out << "try\n";
      stmt(S->Then, D + 1);
      for (size_t I = 0; I < S->Body.size(); ++I) {
        indent(D);
        Out << "catch " << (I < S->Catches.size() ? S->Catches[I] : "?") << "\n";
        stmt(S->Body[I], D + 1);
      }
      return;
    }
  }

  std::string expr(const Expr* E) {
    if (!E)
      return "<null>";
    std::string T = E->Ty.str();
    auto ops = [&](size_t From = 0) {
      std::string S;
      for (size_t I = From; I < E->Ops.size(); ++I)
        S += " " + expr(E->Ops[I]);
      return S;
    };
    switch (E->K) {
    case Expr::Kind::Const: {
      if (E->Ty.isFloat()) {
        char Buf[64];
        std::snprintf(Buf, sizeof Buf, "%.17g", E->FloatValue);
        return T + " " + Buf;
      }
      if (E->Ty.isBool())
        return E->IntValue ? "true" : "false";
      if (E->Ty.isSigned())
        return T + " " + std::to_string(static_cast<int64_t>(E->IntValue));
      return T + " " + std::to_string(E->IntValue);
    }
    case Expr::Kind::Local:
      return local(E->Index);
    case Expr::Kind::Param:
      return "$" + Cur->Params[E->Index].Name;
    case Expr::Kind::Unary:
      return "(" + std::string(unaryOpName(E->UOp)) + " " + T + ops() + ")";
    case Expr::Kind::Binary:
      return "(" + std::string(binaryOpName(E->BOp)) + (E->NoWrap ? " nuw " : " ") + T + ops() +
             ")";
    case Expr::Kind::Cast:
      return "(cast " + T + ops() + ")";
    case Expr::Kind::Select:
      return "(select " + T + ops() + ")";
    case Expr::Kind::Load:
      return "(load " + T + ops() + ")";
    case Expr::Kind::Store:
      return "(store " + T + ops() + ")";
    case Expr::Kind::Assign:
      return "(set " + local(E->Index) + ops() + ")";
    case Expr::Kind::Seq:
      return "(seq" + ops() + ")";
    case Expr::Kind::Call:
      return "(call " + T + " " +
             (E->Index < M.Functions.size() ? M.Functions[E->Index]->Name : "?") + ops() + ")";
    case Expr::Kind::PrivateRef:
      return "@" + Cur->PrivateArrays[E->Index].Name;
    case Expr::Kind::SharedRef:
      return "@" + Cur->SharedArrays[E->Index].Name;
    case Expr::Kind::Atomic:
      return "(atomic." + std::string(atomicOpName(E->AOp)) + " " + memoryOrderName(E->Order) +
             " " + T + ops() + ")";
    case Expr::Kind::Wave:
      return "(wave." + std::string(waveOpName(E->WOp)) + " " + T + ops() + ")";
    case Expr::Kind::Tile: {
      std::string S = "(tile." + std::string(tileOpName(E->TOp)) + " " + local(E->Index);
      if (E->TOp == TileOp::Load && E->Dim == 1)
        S += " col-major";
      return S + ops() + ")";
    }
    case Expr::Kind::RayQuery: {
      std::string S = "(rayquery." + std::string(rayQueryOpName(E->RQOp));
      if (E->RQOp >= RayQueryOp::Type)
        S += E->Dim ? ".committed" : ".candidate";
      return S + " " + local(E->Index) + ops() + ")";
    }
    case Expr::Kind::Host: {
      std::string S = "(host." + std::string(hostOpName(E->HOp)) + " " + T;
      if (E->HOp == HostOp::Launch)
        S += " " + (E->Index < M.Kernels.size() ? M.Kernels[E->Index].Name : "?");
      if (E->HOp == HostOp::Supports)
        S += " #" + std::to_string(E->Index);
      return S + ops() + ")";
    }
    case Expr::Kind::Global:
      return "@" + (E->Index < M.Globals.size() ? M.Globals[E->Index].Name : "?");
    case Expr::Kind::GlobalAssign:
      return "(set @" + (E->Index < M.Globals.size() ? M.Globals[E->Index].Name : "?") + ops() +
             ")";
    case Expr::Kind::StringConst:
      return "\"" + (E->Index < M.Strings.size() ? M.Strings[E->Index] : "?") + "\"";
    case Expr::Kind::Field: {
      std::string Name = "?";
      const Type& PT = E->Ops[0]->Ty;
      if (PT.isPod() && PT.PodIndex < M.Pods.size() && E->Index < M.Pods[PT.PodIndex].Fields.size())
        Name = M.Pods[PT.PodIndex].Fields[E->Index].Name;
      return "(field " + T + ops() + " ." + Name + ")";
    }
    case Expr::Kind::Dispatch: {
      std::string S = "(dispatch " + T + " [";
      for (size_t I = 0; I < E->Targets.size(); ++I)
        S += (I ? ", " : "") +
             (E->Targets[I] < M.Functions.size() ? M.Functions[E->Targets[I]]->Name : "?");
      return S + "]" + ops() + ")";
    }
    case Expr::Kind::Intrinsic: {
      std::string S = "(" + std::string(intrinsicName(E->IOp)) + " " + T;
      if (E->IOp <= IntrinsicOp::GlobalSize)
        S += std::string(" ") + "xyz"[E->Dim];
      if (E->IOp == IntrinsicOp::MmaSync)
        S += std::string(" ") + mmaShapeName(MmaInput(E->Index)) + " d" + std::to_string(E->Dim);
      if (E->IOp == IntrinsicOp::Wgmma)
        S += " m64n" + std::to_string(8 * E->Dim) + "k16." +
             (MmaInput(E->Index) == MmaInput::BF16 ? "bf16" : "f16");
      if (E->IOp == IntrinsicOp::LdMatrix)
        S += " x" + std::to_string(E->Index & 7) + ((E->Index & 8) ? ".trans" : "") + " r" +
             std::to_string(E->Dim);
      return S + ops() + ")";
    }
    }
    return "?";
  }

  const Module& M;
  const Function* Cur = nullptr;
  std::ostringstream Out;
};

} // namespace

std::string dump(const Module& M) {
  return Printer(M).run();
}

} // namespace cajeta::kir
