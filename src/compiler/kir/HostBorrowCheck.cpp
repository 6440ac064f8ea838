// The host borrow check (HostBorrowCheck.h).
#include "compiler/kir/HostBorrowCheck.h"

#include "compiler/kir/Walk.h"

#include <map>
#include <optional>

namespace cajeta::kir {

namespace {

/// A stream as the check knows it: the current stream, or a local holding its own new stream.
struct StreamId {
  enum Kind { Current, Own } K = Current;
  uint32_t Local = 0;
  bool operator==(const StreamId& O) const {
    return K == O.K && (K == Current || Local == O.Local);
  }
};

struct Borrow {
  StreamId Stream;
  SourceLoc Launch;
  std::string Kernel;
};

class Checker {
public:
  Checker(const Module& M, const Function& F, std::vector<BorrowProblem>& Out)
      : M(M), F(F), Out(Out) {
    classifyStreamLocals();
  }

  void run() { block(F.Body); }

private:
  /// Locals of stream type whose every assignment is `heap KernelStream()` (own) or
  /// `KernelStream.current()` (current): only those name a known stream.
  void classifyStreamLocals() {
    std::map<uint32_t, int> Kind; // 0 own, 1 current, 2 unknown
    forEachExprIn(F.Body, [&](const Expr* E) {
      if (E->K != Expr::Kind::Assign || !E->Ty.isHandle(Type::StreamHandle))
        return;
      const Expr* V = E->Ops[0];
      int K = V->K == Expr::Kind::Host && V->HOp == HostOp::StreamNew       ? 0
              : V->K == Expr::Kind::Host && V->HOp == HostOp::StreamCurrent ? 1
                                                                            : 2;
      auto [It, New] = Kind.emplace(E->Index, K);
      if (!New && It->second != K)
        It->second = 2;
    });
    for (auto [Local, K] : Kind)
      if (K == 0)
        Own.emplace(Local, StreamId{StreamId::Own, Local});
      else if (K == 1)
        Own.emplace(Local, StreamId{StreamId::Current, 0});
    // A parameter of stream type is unknown: it has no entry.
  }

  std::optional<StreamId> streamOf(const Expr* E) const {
    if (!E) // the synchronous transfer forms run on the current stream
      return StreamId{};
    if (E->K == Expr::Kind::Host && E->HOp == HostOp::StreamCurrent)
      return StreamId{};
    if (E->K == Expr::Kind::Local)
      if (auto It = Own.find(E->Index); It != Own.end())
        return It->second;
    return std::nullopt;
  }

  static std::optional<uint32_t> bufferLocal(const Expr* E) {
    if (E->K == Expr::Kind::Local && E->Ty.isHandle(Type::BufferHandle))
      return E->Index;
    return std::nullopt;
  }

  static std::string describe(const StreamId& S, const Function& F) {
    return S.K == StreamId::Current ? "the current stream"
                                    : "stream '" + F.Locals[S.Local].Name + "'";
  }

  void block(const Stmt* S) {
    if (!S)
      return;
    if (S->K == Stmt::Kind::Block) {
      for (const Stmt* C : S->Body)
        block(C);
      return;
    }
    if (S->K == Stmt::Kind::Eval) {
      expr(S->E);
      return;
    }
    // Control flow: its inside is checked with what is known here, and afterwards nothing is
    // assumed about borrows (a sync inside may or may not have run).
    std::map<uint32_t, Borrow> Before = Borrows;
    for (const Stmt* C : {S->Then, S->Else, S->LoopBody, S->Step}) {
      Borrows = Before;
      block(C);
    }
    for (const Stmt* C : S->Body) {
      Borrows = Before;
      block(C);
    }
    if (S->E)
      expr(S->E);
    Borrows.clear();
  }

  void expr(const Expr* E) {
    if (!E)
      return;
    if (E->K == Expr::Kind::Select) { // only one arm runs: forget what either does
      expr(E->Ops[0]);
      Borrows.clear();
      return;
    }
    for (const Expr* O : E->Ops)
      expr(O);
    if (E->K == Expr::Kind::Assign && E->Ty.isHandle(Type::BufferHandle)) {
      if (auto It = Borrows.find(E->Index); It != Borrows.end())
        problem(E->Loc, "assigning '" + F.Locals[E->Index].Name +
                            "' drops the buffer that the launch of '" + It->second.Kernel +
                            "' at line " + std::to_string(It->second.Launch.Line) + " on " +
                            describe(It->second.Stream, F) +
                            " still borrows; sync that stream first");
      Borrows.erase(E->Index);
      return;
    }
    if (E->K == Expr::Kind::Call) {
      // A callee given a stream may sync it; one given a buffer may do anything with it.
      for (const Expr* A : E->Ops) {
        if (auto S = A->Ty.isHandle(Type::StreamHandle) ? streamOf(A) : std::nullopt)
          forgetStream(*S);
        if (auto B = bufferLocal(A))
          Borrows.erase(*B);
        if (A->Ty.isHandle(Type::StreamHandle) && !streamOf(A))
          Borrows.clear();
      }
      return;
    }
    if (E->K != Expr::Kind::Host)
      return;
    switch (E->HOp) {
    case HostOp::Launch: {
      std::optional<StreamId> S = streamOf(E->Ops[0]);
      for (size_t I = 7; I < E->Ops.size(); ++I)
        if (auto B = bufferLocal(E->Ops[I])) {
          if (S)
            Borrows[*B] = {*S, E->Loc, M.Kernels[E->Index].Name};
          else
            Borrows.erase(*B);
        }
      return;
    }
    case HostOp::StreamSync:
      if (auto S = streamOf(E->Ops[0]))
        forgetStream(*S);
      else
        Borrows.clear();
      return;
    case HostOp::EventSync: // the event may cover any stream
      Borrows.clear();
      return;
    case HostOp::BufferUpload:
    case HostOp::BufferDownload: {
      auto B = bufferLocal(E->Ops[0]);
      if (!B)
        return;
      auto It = Borrows.find(*B);
      std::optional<StreamId> S = streamOf(E->Ops.size() == 3 ? E->Ops[2] : nullptr);
      if (It == Borrows.end() || !S || *S == It->second.Stream)
        return; // unborrowed, unknown, or ordered after the launch on its own stream
      bool Up = E->HOp == HostOp::BufferUpload;
      const std::string& Name = F.Locals[*B].Name;
      problem(E->Loc, std::string(Up ? "upload into" : "download from") + " '" + Name + "' on " +
                          describe(*S, F) + " while the launch of '" + It->second.Kernel +
                          "' at line " + std::to_string(It->second.Launch.Line) + " on " +
                          describe(It->second.Stream, F) +
                          " still borrows it; sync that stream first, or transfer on it (" + Name +
                          (Up ? ".uploadAsync" : ".downloadAsync") + "(..., " +
                          (It->second.Stream.K == StreamId::Current
                               ? std::string("KernelStream.current()")
                               : F.Locals[It->second.Stream.Local].Name) +
                          "))");
      return;
    }
    default:
      return;
    }
  }

  void forgetStream(const StreamId& S) {
    for (auto It = Borrows.begin(); It != Borrows.end();)
      It = It->second.Stream == S ? Borrows.erase(It) : std::next(It);
  }

  void problem(SourceLoc At, std::string Message) { Out.push_back({At, std::move(Message)}); }

  const Module& M;
  const Function& F;
  std::vector<BorrowProblem>& Out;
  std::map<uint32_t, StreamId> Own;   // stream locals with a known stream
  std::map<uint32_t, Borrow> Borrows; // buffer local -> the launch that borrows it
};

} // namespace

std::vector<BorrowProblem> checkHostBorrows(const Module& M) {
  std::vector<BorrowProblem> Out;
  if (!M.IsHost)
    return Out;
  for (const auto& F : M.Functions)
    if (F->Body)
      Checker(M, *F, Out).run();
  return Out;
}

} // namespace cajeta::kir
