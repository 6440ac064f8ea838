// Ray queries to plain KIR (RayQueryLowering.h): the stackless BVH walk, the ray tests and the
// commit rules over the buffer layout of bundle/AccelLayout.h.
#include "compiler/kir/transforms/RayQueryLowering.h"

#include "bundle/AccelLayout.h"
#include "compiler/kir/Builder.h"
#include "compiler/kir/Walk.h"
#include "compiler/kir/transforms/StatementHoister.h"

#include <array>
#include <map>

namespace cajeta::kir {
namespace {

namespace accel = bundle::accel;

/// The ray flags of the language (RayFlags.*): Vulkan's values (gl_RayFlags*EXT).
enum RayFlag : uint32_t {
  FlagOpaque = 0x1,
  FlagNoOpaque = 0x2,
  FlagTerminateOnFirstHit = 0x4,
  FlagCullBackFacing = 0x10,
  FlagCullFrontFacing = 0x20,
  FlagCullOpaque = 0x40,
  FlagCullNoOpaque = 0x80,
  FlagSkipTriangles = 0x100,
  FlagSkipAabbs = 0x200,
};

/// How the walk reached its current node; Finished: the root was a leaf and has been entered.
enum WalkState : uint32_t {
  FromParent = 0,
  FromSibling = 1,
  FromChild = 2,
  AtRoot = 3,
  Finished = 4
};

/// Candidate and committed types (RayQueryOp::Type).
enum : int64_t { CandidateTriangle = 0, CandidateAabb = 1 };
enum : int64_t { CommittedNone = 0, CommittedTriangle = 1, CommittedGenerated = 2 };

const Type U32 = Type::scalar(ScalarType::U32);
const Type I32 = Type::scalar(ScalarType::I32);
const Type F32 = Type::scalar(ScalarType::F32);
const Type Bool = Type::scalar(ScalarType::Bool);

std::string at(SourceLoc L) {
  return "line " + std::to_string(L.Line);
}

bool isQueryOp(const Expr* E, RayQueryOp Op) {
  return E && E->K == Expr::Kind::RayQuery && E->RQOp == Op;
}

bool containsProceed(const Expr* E) {
  bool Found = false;
  forEachExpr(E, [&](const Expr* X) { Found = Found || isQueryOp(X, RayQueryOp::Proceed); });
  return Found;
}

/// An intersection's locals: the candidate's or the committed one's.
struct HitLocals {
  uint32_t Type = 0, T = 0, U = 0, V = 0, Prim = 0, Front = 0;
};

/// What a query local becomes.
struct QueryLocals {
  uint32_t Accel = 0; // the AccelerationStructure parameter
  bool Bound = false;
  SourceLoc FirstUse;
  uint32_t Node = 0, State = 0, Cursor = 0, LeafEnd = 0, Done = 0, Pending = 0, Flags = 0, Sign = 0,
           TMin = 0;
  std::array<uint32_t, 3> O{}, D{}, Inv{};
  // The watertight test's frame: the axes (Kz: the direction's largest), the shear, and the
  // origin's components in that order.
  uint32_t Kx = 0, Ky = 0, Kz = 0;
  std::array<uint32_t, 3> Shear{}, OK{};
  uint32_t NodeBase = 0, ParentBase = 0, PrimBase = 0;
  HitLocals Candidate, Committed;
  // The stack walk's: the far children still to visit (a private array), the distance at which
  // the ray enters each one's box (another), and their count.
  uint32_t Stack = 0, StackT = 0, Sp = 0;
  // The children-at-the-node walk's: the words 6 and 7 of the node it visits next (Node), read
  // with the node's box by its parent's step, so a step loads only the children's boxes.
  uint32_t NodeChild = 0, NodeInfo = 0;
};

class Lowerer : public StatementHoister {
public:
  // A function with a barrier (the CPU floor's work-item fission keeps scalars only) or a wave
  // op (the portable wave tier inlines it into its kernel) walks without a stack.
  Lowerer(Module& M, Function& F, RayQueryLowering::Form Walk)
      : StatementHoister(M), F(F), B(M, F), UseStack(!F.HasBarrier && !F.UsesWave),
        ChildrenAtParent(Walk.ChildrenAtParent), WordViews(Walk.WordViews) {}

  bool run(std::string& Err) {
    makeLocals();
    if (!bindAccelerationStructures() || !restructureLoops(F.Body)) {
      Err = Error;
      return false;
    }
    F.Body = expandStatements(F.Body);
    F.Body = rewriteStmt(F.Body);
    if (!Error.empty()) {
      Err = Error;
      return false;
    }
    std::vector<Stmt*> Body = prologue();
    Body.push_back(F.Body);
    B.setLoc(F.Loc);
    F.Body = B.block(Body);
    return true;
  }

protected:
  // proceed() on the right of && or || (or in an arm of ?:) walks only when it would be called.
  bool hoistsConditionalOperands() const override { return true; }
  uint32_t newLocal(const std::string& Name, Type T) override { return B.local(Name, T); }

  Expr* rewriteNode(Expr* E, std::vector<Stmt*>& Pre, bool Hoist) override {
    if (E->K != Expr::Kind::RayQuery)
      return E;
    QueryLocals& Q = Queries.at(E->Index);
    B.setLoc(E->Loc);
    const HitLocals& H = E->Dim ? Q.Committed : Q.Candidate;
    switch (E->RQOp) {
    case RayQueryOp::Proceed: {
      if (!Hoist) {
        Error = at(E->Loc) + ": proceed() cannot run its walk first here; call it in a "
                             "statement of its own";
        return E;
      }
      uint32_t Result = B.local("rq.more", Bool);
      proceed(Q, Result, Pre);
      return B.l(Result);
    }
    case RayQueryOp::Type:
      return B.l(H.Type);
    case RayQueryOp::T:
      return B.l(H.T);
    case RayQueryOp::U:
      return B.l(H.U);
    case RayQueryOp::V:
      return B.l(H.V);
    case RayQueryOp::PrimitiveIndex:
      return B.l(H.Prim);
    case RayQueryOp::FrontFace:
      return B.l(H.Front);
    default:
      Error = at(E->Loc) + ": ray query '" + std::string(rayQueryOpName(E->RQOp)) +
              "' inside an expression (it is a statement of its own)";
      return E;
    }
  }

private:
  // ---- locals --------------------------------------------------------------------------------

  void makeLocals() {
    size_t Count = F.Locals.size();
    for (uint32_t L = 0; L < Count; ++L) {
      if (!F.Locals[L].Ty.isRayQuery())
        continue;
      std::string N = F.Locals[L].Name + ".";
      QueryLocals Q;
      auto Scalar = [&](const char* What, Type T) { return B.local(N + What, T); };
      Q.Node = Scalar("node", U32);
      Q.State = Scalar("state", U32);
      if (UseStack) {
        Q.Stack = B.privateArray(N + "stack", ScalarType::U32, accel::MaxDepth);
        if (ChildrenAtParent) {
          Q.StackT = B.privateArray(N + "stackT", ScalarType::F32, accel::MaxDepth);
          Q.NodeChild = Scalar("nodeChild", U32);
          Q.NodeInfo = Scalar("nodeInfo", U32);
        }
        Q.Sp = Scalar("sp", U32);
      }
      Q.Cursor = Scalar("cursor", U32);
      Q.LeafEnd = Scalar("leafEnd", U32);
      Q.Done = Scalar("done", Bool);
      Q.Pending = Scalar("pending", Bool);
      Q.Flags = Scalar("flags", U32);
      Q.Sign = Scalar("sign", U32);
      Q.TMin = Scalar("tmin", F32);
      for (int I = 0; I < 3; ++I) {
        std::string Axis(1, "xyz"[I]);
        Q.O[I] = B.local(N + "o" + Axis, F32);
        Q.D[I] = B.local(N + "d" + Axis, F32);
        Q.Inv[I] = B.local(N + "inv" + Axis, F32);
      }
      Q.Kx = Scalar("kx", U32);
      Q.Ky = Scalar("ky", U32);
      Q.Kz = Scalar("kz", U32);
      for (int I = 0; I < 3; ++I) {
        Q.Shear[I] = B.local(N + "shear" + std::to_string(I), F32);
        Q.OK[I] = B.local(N + "ok" + std::to_string(I), F32);
      }
      Q.NodeBase = Scalar("nodeBase", U32);
      Q.ParentBase = Scalar("parentBase", U32);
      Q.PrimBase = Scalar("primBase", U32);
      for (auto [H, What] : {std::pair{&Q.Candidate, "candidate."}, {&Q.Committed, "committed."}}) {
        std::string P = N + What;
        H->Type = B.local(P + "type", I32);
        H->T = B.local(P + "t", F32);
        H->U = B.local(P + "u", F32);
        H->V = B.local(P + "v", F32);
        H->Prim = B.local(P + "primitive", I32);
        H->Front = B.local(P + "frontFace", Bool);
      }
      F.Locals[L].Ty = U32; // unused from here on; indices keep
      Queries.emplace(L, Q);
    }
    // Scratch for the tests, shared by every site (each assigns before it reads).
    for (int I = 0; I < 3; ++I) {
      std::string Axis(1, "xyz"[I]);
      Lo[I] = B.local(std::string("rq.lo") + Axis, F32);
      Hi[I] = B.local(std::string("rq.hi") + Axis, F32);
      X[I] = B.local(std::string("rq.x") + std::to_string(I), F32);
      Y[I] = B.local(std::string("rq.y") + std::to_string(I), F32);
      Z[I] = B.local(std::string("rq.z") + std::to_string(I), F32);
      Edge[I] = B.local(std::string("rq.edge") + std::to_string(I), F32);
      Abs[I] = B.local(std::string("rq.abs") + std::to_string(I), F32);
    }
    for (int K = 0; K < 9; ++K)
      Vertex[K] = B.local("rq.v" + std::to_string(K / 3) + "xyz"[K % 3], F32);
    Swap = B.local("rq.swap", U32);
    SlotIndex = B.local("rq.slotIndex", U32);
    SlotKind = B.local("rq.slotKind", U32);
    SlotFlags = B.local("rq.slotFlags", U32);
    TNear = B.local("rq.tnear", F32);
    TFar = B.local("rq.tfar", F32);
    Det = B.local("rq.det", F32);
    InvDet = B.local("rq.invDet", F32);
    Tu = B.local("rq.u", F32);
    Tv = B.local("rq.v", F32);
    Tt = B.local("rq.t", F32);
    Hit = B.local("rq.hit", Bool);
    Opaque = B.local("rq.opaque", Bool);
    Front = B.local("rq.front", Bool);
    Base = B.local("rq.base", U32);
    Info = B.local("rq.info", U32);
    Child = B.local("rq.child", U32);
    Parent = B.local("rq.parent", U32);
    if (ChildrenAtParent) {
      FirstHit = B.local("rq.firstHit", Bool);
      FirstNear = B.local("rq.firstNear", F32);
      FirstWords = {B.local("rq.firstChild", U32), B.local("rq.firstInfo", U32)};
      SecondWords = {B.local("rq.secondChild", U32), B.local("rq.secondInfo", U32)};
    } else {
      Side = B.local("rq.side", U32);
    }
  }

  /// Every query reads one acceleration structure: the parameter its initialize() names.
  bool bindAccelerationStructures() {
    bool Ok = true;
    forEachExprIn(F.Body, [&](const Expr* E) {
      if (!Ok || E->K != Expr::Kind::RayQuery)
        return;
      QueryLocals& Q = Queries.at(E->Index);
      if (!Q.Bound && Q.FirstUse.Line == 0)
        Q.FirstUse = E->Loc;
      if (E->RQOp != RayQueryOp::Initialize)
        return;
      uint32_t P = E->Ops[0]->Index;
      if (Q.Bound && Q.Accel != P) {
        Error = at(E->Loc) + ": ray query '" + F.Locals[E->Index].Name + "' is initialized with '" +
                F.Params[P].Name + "' here and with '" + F.Params[Q.Accel].Name +
                "' before; a query walks one acceleration structure (use a second query)";
        Ok = false;
      }
      Q.Accel = P;
      Q.Bound = true;
    });
    for (auto& [L, Q] : Queries)
      if (Ok && !Q.Bound && Q.FirstUse.Line != 0) {
        Error = at(Q.FirstUse) + ": ray query '" + F.Locals[L].Name +
                "' is used but never initialized (call initialize(scene, flags, origin, tmin, "
                "direction, tmax) first)";
        Ok = false;
      }
    return Ok;
  }

  // ---- statement shapes ----------------------------------------------------------------------

  /// `while (q.proceed())`: the condition's walk must run before every test, so the test moves
  /// into the body as `if (!cond) break;` (a continue runs the step, then the body's test).
  bool restructureLoops(Stmt* St) {
    bool Ok = true;
    forEachStmt(St, [&](const Stmt* C) {
      Stmt* L = const_cast<Stmt*>(C);
      if (!Ok || L->K != Stmt::Kind::Loop || !containsProceed(L->E))
        return;
      if (L->TestAtEnd) {
        Error = at(L->E->Loc) + ": proceed() in a do-while condition; write "
                                "'while (q.proceed()) { ... }'";
        Ok = false;
        return;
      }
      B.setLoc(L->E->Loc);
      Stmt* Exit = B.ifThen(B.un(UnaryOp::Not, L->E), B.brk(L->LoopId));
      L->LoopBody = L->LoopBody ? B.block({Exit, L->LoopBody}) : Exit;
      L->E = nullptr;
    });
    return Ok;
  }

  /// The statement-level ops (initialize, confirm, generateIntersection, terminate) in place.
  Stmt* expandStatements(Stmt* St) {
    if (!St)
      return St;
    if (St->K == Stmt::Kind::Eval && St->E && St->E->K == Expr::Kind::RayQuery &&
        St->E->RQOp != RayQueryOp::Proceed && St->E->Ty.isVoid()) {
      const Expr* E = St->E;
      QueryLocals& Q = Queries.at(E->Index);
      B.setLoc(E->Loc);
      switch (E->RQOp) {
      case RayQueryOp::Initialize:
        return initialize(Q, E);
      case RayQueryOp::Confirm:
        return confirm(Q);
      case RayQueryOp::Generate:
        return generate(Q, E);
      default: // Terminate
        return set(Q.Done, B.constBool(true));
      }
    }
    for (Stmt*& C : St->Body)
      C = expandStatements(C);
    St->Then = expandStatements(St->Then);
    St->Else = expandStatements(St->Else);
    St->LoopBody = expandStatements(St->LoopBody);
    St->Step = expandStatements(St->Step);
    return St;
  }

  // ---- small builders ------------------------------------------------------------------------

  Stmt* set(uint32_t L, Expr* V) { return B.eval(B.assign(L, V)); }
  Expr* l(uint32_t L) { return B.l(L); }
  Expr* u(uint64_t V) { return B.u32(V); }
  Expr* f(double V) { return B.constFloat(ScalarType::F32, V); }
  Expr* add(Expr* A, Expr* C) { return B.bin(BinaryOp::Add, A, C); }
  Expr* sub(Expr* A, Expr* C) { return B.bin(BinaryOp::Sub, A, C); }
  Expr* mul(Expr* A, Expr* C) { return B.bin(BinaryOp::Mul, A, C); }
  Expr* both(Expr* A, Expr* C) { return B.bin(BinaryOp::And, A, C); }
  /// Word-index arithmetic in the structure: it never wraps (a BVH is below 2^32 words), which
  /// lets the lowering fold constant offsets into one address and load adjacent words together.
  Expr* plus(Expr* A, Expr* C) {
    Expr* E = B.bin(BinaryOp::Add, A, C);
    E->NoWrap = true;
    return E;
  }
  Expr* times(Expr* A, Expr* C) {
    Expr* E = B.bin(BinaryOp::Mul, A, C);
    E->NoWrap = true;
    return E;
  }
  /// The first word of node N and of primitive slot N.
  Expr* nodeAt(QueryLocals& Q, Expr* N) {
    return plus(l(Q.NodeBase), times(N, u(accel::NodeWords)));
  }
  Expr* primAt(QueryLocals& Q, Expr* N) {
    return plus(l(Q.PrimBase), times(N, u(accel::PrimWords)));
  }
  Expr* notE(Expr* A) { return B.un(UnaryOp::Not, A); }
  Expr* cmp(BinaryOp Op, Expr* A, Expr* C) { return B.bin(Op, A, C); }
  Expr* flag(QueryLocals& Q, uint32_t Bit) {
    return cmp(BinaryOp::Ne, B.bin(BinaryOp::And, l(Q.Flags), u(Bit)), u(0));
  }
  /// Word I of the query's acceleration structure.
  Expr* word(QueryLocals& Q, Expr* I) { return B.load(Q.Accel, I); }
  Expr* fword(QueryLocals& Q, Expr* I) {
    return B.intrinsic(IntrinsicOp::Bitcast, F32, {word(Q, I)});
  }
  /// Word Offset of the node or slot whose first word is BaseLocal (a multiple of 4: the layout
  /// aligns both). Through the 4-word view each read names the whole 16 bytes; the emitter
  /// loads them once.
  Expr* wordAt(QueryLocals& Q, uint32_t BaseLocal, uint32_t Offset) {
    if (!WordViews)
      return word(Q, Offset ? plus(l(BaseLocal), u(Offset)) : l(BaseLocal));
    Expr* Chunk = B.bin(BinaryOp::Shr, l(BaseLocal), u(2));
    if (Offset >= 4)
      Chunk = plus(Chunk, u(Offset / 4));
    Expr* Load = B.intrinsic(IntrinsicOp::LoadWord, U32, {B.p(Q.Accel), Chunk}, Offset % 4);
    Load->Index = 4;
    return Load;
  }
  Expr* fwordAt(QueryLocals& Q, uint32_t BaseLocal, uint32_t Offset) {
    return B.intrinsic(IntrinsicOp::Bitcast, F32, {wordAt(Q, BaseLocal, Offset)});
  }
  /// min and max as one machine instruction each (minNum: a NaN operand gives the other).
  Expr* minL(uint32_t A, uint32_t C) { return B.intrinsic(IntrinsicOp::MinNum, F32, {l(A), l(C)}); }
  Expr* maxL(uint32_t A, uint32_t C) { return B.intrinsic(IntrinsicOp::MaxNum, F32, {l(A), l(C)}); }

  // ---- the ops -------------------------------------------------------------------------------

  std::vector<Stmt*> clearHit(const HitLocals& H) {
    return {set(H.Type, B.i32(0)), set(H.T, f(0)),         set(H.U, f(0)),
            set(H.V, f(0)),        set(H.Prim, B.i32(-1)), set(H.Front, B.constBool(false))};
  }

  /// Every query starts finished, with nothing committed.
  std::vector<Stmt*> prologue() {
    std::vector<Stmt*> Out;
    for (auto& [L, Q] : Queries) {
      B.setLoc(F.Locals[L].Loc);
      for (Stmt* St : clearHit(Q.Candidate))
        Out.push_back(St);
      for (Stmt* St : clearHit(Q.Committed))
        Out.push_back(St);
      Out.push_back(set(Q.Done, B.constBool(true)));
      Out.push_back(set(Q.Pending, B.constBool(false)));
      for (uint32_t X : {Q.Node, Q.State, Q.Cursor, Q.LeafEnd, Q.Flags, Q.Sign, Q.NodeBase,
                         Q.ParentBase, Q.PrimBase})
        Out.push_back(set(X, u(0)));
      for (int I = 0; I < 3; ++I)
        for (uint32_t X : {Q.O[I], Q.D[I], Q.Inv[I]})
          Out.push_back(set(X, f(0)));
      Out.push_back(set(Q.TMin, f(0)));
    }
    return Out;
  }

  Stmt* initialize(QueryLocals& Q, const Expr* E) {
    std::vector<Stmt*> Out;
    // The operands once each, in order.
    Out.push_back(set(Q.Flags, E->Ops[1]));
    for (int I = 0; I < 3; ++I)
      Out.push_back(set(Q.O[I], E->Ops[2 + I]));
    Out.push_back(set(Q.TMin, E->Ops[5]));
    for (int I = 0; I < 3; ++I)
      Out.push_back(set(Q.D[I], E->Ops[6 + I]));
    for (Stmt* St : clearHit(Q.Committed))
      Out.push_back(St);
    Out.push_back(set(Q.Committed.T, E->Ops[9])); // tmax: the committed t bounds every test
    for (Stmt* St : clearHit(Q.Candidate))
      Out.push_back(St);
    // 1 / d with each zero component replaced by a tiny one of its sign, so that a box test
    // never multiplies 0 by infinity; a NaN anywhere in the ray ends the query at once.
    Expr* Valid = cmp(BinaryOp::Le, l(Q.TMin), l(Q.Committed.T));
    Expr* Sign = u(0);
    for (int I = 0; I < 3; ++I) {
      Valid = both(Valid, both(cmp(BinaryOp::Eq, l(Q.O[I]), l(Q.O[I])),
                               cmp(BinaryOp::Eq, l(Q.D[I]), l(Q.D[I]))));
      Expr* Safe =
          B.select(cmp(BinaryOp::Ge, l(Q.D[I]), f(0)),
                   B.select(cmp(BinaryOp::Gt, l(Q.D[I]), f(1e-20)), l(Q.D[I]), f(1e-20)),
                   B.select(cmp(BinaryOp::Lt, l(Q.D[I]), f(-1e-20)), l(Q.D[I]), f(-1e-20)));
      Out.push_back(set(Q.Inv[I], B.bin(BinaryOp::Div, f(1), Safe)));
      Sign =
          B.bin(BinaryOp::Or, Sign, B.select(cmp(BinaryOp::Lt, l(Q.D[I]), f(0)), u(1u << I), u(0)));
    }
    Out.push_back(set(Q.Sign, Sign));
    // The watertight test's frame, once per ray.
    for (int I = 0; I < 3; ++I)
      Out.push_back(set(Abs[I], B.select(cmp(BinaryOp::Lt, l(Q.D[I]), f(0)),
                                         B.un(UnaryOp::Neg, l(Q.D[I])), l(Q.D[I]))));
    Out.push_back(
        set(Q.Kz, B.select(cmp(BinaryOp::Ge, l(Abs[0]), l(Abs[1])),
                           B.select(cmp(BinaryOp::Ge, l(Abs[0]), l(Abs[2])), u(0), u(2)),
                           B.select(cmp(BinaryOp::Ge, l(Abs[1]), l(Abs[2])), u(1), u(2)))));
    auto Next = [&](uint32_t K) {
      return B.select(cmp(BinaryOp::Eq, l(K), u(2)), u(0), add(l(K), u(1)));
    };
    Out.push_back(set(Q.Kx, Next(Q.Kz)));
    Out.push_back(set(Q.Ky, Next(Q.Kx)));
    Out.push_back(set(Abs[2], component(Q.D, Q.Kz))); // d[kz]
    // A negative d[kz] swaps kx and ky, which keeps the sign of det the triangle's facing.
    Out.push_back(set(Swap, l(Q.Kx)));
    Out.push_back(B.ifThen(cmp(BinaryOp::Lt, l(Abs[2]), f(0)),
                           B.block({set(Q.Kx, l(Q.Ky)), set(Q.Ky, l(Swap))})));
    Out.push_back(set(Q.Shear[0], B.bin(BinaryOp::Div, component(Q.D, Q.Kx), l(Abs[2]))));
    Out.push_back(set(Q.Shear[1], B.bin(BinaryOp::Div, component(Q.D, Q.Ky), l(Abs[2]))));
    Out.push_back(set(Q.Shear[2], B.bin(BinaryOp::Div, f(1), l(Abs[2]))));
    Out.push_back(set(Q.OK[0], component(Q.O, Q.Kx)));
    Out.push_back(set(Q.OK[1], component(Q.O, Q.Ky)));
    Out.push_back(set(Q.OK[2], component(Q.O, Q.Kz)));
    // The layout aligns both bases (AccelLayout.h); saying so lets a node's and a slot's words
    // load as vectors.
    Out.push_back(set(Q.NodeBase, B.bin(BinaryOp::And, word(Q, u(accel::HNodeBase)),
                                        u(~(accel::NodeBaseAlign - 1) & 0xFFFFFFFFu))));
    Out.push_back(set(Q.ParentBase, word(Q, u(accel::HParentBase))));
    Out.push_back(set(Q.PrimBase, B.bin(BinaryOp::And, word(Q, u(accel::HPrimBase)),
                                        u(~(accel::PrimBaseAlign - 1) & 0xFFFFFFFFu))));
    Out.push_back(set(Q.Cursor, u(0)));
    Out.push_back(set(Q.LeafEnd, u(0)));
    Out.push_back(set(Q.Node, u(0)));
    Out.push_back(set(Q.State, u(AtRoot)));
    if (UseStack)
      Out.push_back(set(Q.Sp, u(0)));
    Out.push_back(set(Q.Pending, B.constBool(false)));
    Out.push_back(
        set(Q.Done, notE(both(Valid, cmp(BinaryOp::Ne, word(Q, u(accel::HNodeCount)), u(0))))));
    if (UseStack && ChildrenAtParent) {
      // The walk tests a node's children where it visits the node: the root's box here.
      std::vector<Stmt*> Root = {set(Base, l(Q.NodeBase))};
      boxTest(Q, Base, Root);
      Root.push_back(set(Q.NodeChild, wordAt(Q, Base, accel::NodeChild)));
      Root.push_back(set(Q.NodeInfo, wordAt(Q, Base, accel::NodeInfo)));
      Root.push_back(B.ifThen(notE(l(Hit)), set(Q.Node, u(accel::NoParent))));
      Out.push_back(B.ifThen(notE(l(Q.Done)), B.block(Root)));
    }
    return B.block(Out);
  }

  /// A terminate-on-first-hit query ends at its first commit.
  Stmt* endIfFirstHit(QueryLocals& Q) {
    return B.ifThen(flag(Q, FlagTerminateOnFirstHit), set(Q.Done, B.constBool(true)));
  }

  Stmt* confirm(QueryLocals& Q) {
    const HitLocals &K = Q.Candidate, &C = Q.Committed;
    Expr* Ok = both(l(Q.Pending), cmp(BinaryOp::Eq, l(K.Type), B.i32(CandidateTriangle)));
    return B.ifThen(
        Ok, B.block({set(C.Type, B.i32(CommittedTriangle)), set(C.T, l(K.T)), set(C.U, l(K.U)),
                     set(C.V, l(K.V)), set(C.Prim, l(K.Prim)), set(C.Front, l(K.Front)),
                     set(Q.Pending, B.constBool(false)), endIfFirstHit(Q)}));
  }

  Stmt* generate(QueryLocals& Q, const Expr* E) {
    const HitLocals &K = Q.Candidate, &C = Q.Committed;
    uint32_t T = B.local("rq.generated", F32);
    Expr* Ok = both(both(l(Q.Pending), cmp(BinaryOp::Eq, l(K.Type), B.i32(CandidateAabb))),
                    both(cmp(BinaryOp::Ge, l(T), l(Q.TMin)), cmp(BinaryOp::Lt, l(T), l(C.T))));
    return B.block({set(T, E->Ops[0]),
                    B.ifThen(Ok, B.block({set(C.Type, B.i32(CommittedGenerated)), set(C.T, l(T)),
                                          set(C.U, f(0)), set(C.V, f(0)), set(C.Prim, l(K.Prim)),
                                          set(C.Front, B.constBool(false)),
                                          set(Q.Pending, B.constBool(false)), endIfFirstHit(Q)}))});
  }

  /// Hit = the ray's [tmin, committed t] overlaps the box at words BaseLocal + 0..5; TNear =
  /// where it enters.
  void boxTest(QueryLocals& Q, uint32_t BaseLocal, std::vector<Stmt*>& Out) {
    boxTest(
        Q, [&](int I) { return fwordAt(Q, BaseLocal, I); }, Out);
  }
  /// The same for the box whose min xyz and max xyz are Plane(0..5).
  template <class PlaneFn> void boxTest(QueryLocals& Q, PlaneFn Plane, std::vector<Stmt*>& Out) {
    for (int I = 0; I < 3; ++I) {
      Out.push_back(set(Lo[I], mul(sub(Plane(I), l(Q.O[I])), l(Q.Inv[I]))));
      Out.push_back(set(Hi[I], mul(sub(Plane(3 + I), l(Q.O[I])), l(Q.Inv[I]))));
      // Lo = min, Hi = max of the two slab distances (TNear as the swap temporary).
      Out.push_back(set(TNear, minL(Lo[I], Hi[I])));
      Out.push_back(set(Hi[I], maxL(Lo[I], Hi[I])));
      Out.push_back(set(Lo[I], l(TNear)));
    }
    Out.push_back(set(TNear, maxL(Lo[0], Lo[1])));
    Out.push_back(set(TNear, maxL(TNear, Lo[2])));
    Out.push_back(set(TNear, maxL(TNear, Q.TMin)));
    Out.push_back(set(TFar, minL(Hi[0], Hi[1])));
    Out.push_back(set(TFar, minL(TFar, Hi[2])));
    // Widened by a few ulps (Ize, "Robust BVH Ray Traversal", 2013) so that rounding never
    // culls a box that holds a hit on its face: TFar + |TFar| 4e-7, one fma where the target has
    // an absolute-value operand (PTX, SASS).
    Out.push_back(set(
        TFar, B.intrinsic(IntrinsicOp::Fma, F32,
                          {B.intrinsic(IntrinsicOp::Abs, F32, {l(TFar)}), f(4.0e-7f), l(TFar)})));
    Out.push_back(set(TFar, minL(TFar, Q.Committed.T)));
    Out.push_back(set(Hit, cmp(BinaryOp::Le, l(TNear), l(TFar))));
  }

  /// V[K] for a uint32 local K in 0..2.
  Expr* component(const std::array<uint32_t, 3>& V, uint32_t K) {
    return B.select(cmp(BinaryOp::Eq, l(K), u(0)), l(V[0]),
                    B.select(cmp(BinaryOp::Eq, l(K), u(1)), l(V[1]), l(V[2])));
  }

  /// The watertight ray-triangle test (Woop, Benthin and Wald, "Watertight Ray/Triangle
  /// Intersection", 2013) on the triangle at slot Base: each vertex moved into the ray's sheared
  /// frame, then edge functions whose signs decide. Neighbours compute a shared edge's function
  /// from the same bits, so a ray through an edge or a vertex hits at least one of them.
  /// Sets Hit, Tt, Tu, Tv, Front, Opaque.
  void triangleTest(QueryLocals& Q, std::vector<Stmt*>& Out) {
    // Each vertex's coordinates (leafStep loaded them) in the ray's axis order.
    for (int K = 0; K < 3; ++K) {
      auto Coord = [&](uint32_t Axis) {
        return component({Vertex[3 * K], Vertex[3 * K + 1], Vertex[3 * K + 2]}, Axis);
      };
      Out.push_back(set(Z[K], sub(Coord(Q.Kz), l(Q.OK[2]))));
      Out.push_back(set(X[K], sub(sub(Coord(Q.Kx), l(Q.OK[0])), mul(l(Q.Shear[0]), l(Z[K])))));
      Out.push_back(set(Y[K], sub(sub(Coord(Q.Ky), l(Q.OK[1])), mul(l(Q.Shear[1]), l(Z[K])))));
      Out.push_back(set(Z[K], mul(l(Q.Shear[2]), l(Z[K]))));
    }
    auto EdgeFn = [&](int A, int C) { // X[A] Y[C] - Y[A] X[C]
      return sub(mul(l(X[A]), l(Y[C])), mul(l(Y[A]), l(X[C])));
    };
    Out.push_back(set(Edge[0], EdgeFn(2, 1)));
    Out.push_back(set(Edge[1], EdgeFn(0, 2)));
    Out.push_back(set(Edge[2], EdgeFn(1, 0)));
    Expr* AnyNeg = B.bin(BinaryOp::Or,
                         B.bin(BinaryOp::Or, cmp(BinaryOp::Lt, l(Edge[0]), f(0)),
                               cmp(BinaryOp::Lt, l(Edge[1]), f(0))),
                         cmp(BinaryOp::Lt, l(Edge[2]), f(0)));
    Expr* AnyPos = B.bin(BinaryOp::Or,
                         B.bin(BinaryOp::Or, cmp(BinaryOp::Gt, l(Edge[0]), f(0)),
                               cmp(BinaryOp::Gt, l(Edge[1]), f(0))),
                         cmp(BinaryOp::Gt, l(Edge[2]), f(0)));
    Out.push_back(set(Det, add(add(l(Edge[0]), l(Edge[1])), l(Edge[2]))));
    Out.push_back(set(InvDet, B.bin(BinaryOp::Div, f(1), l(Det))));
    Out.push_back(set(Tt, mul(add(add(mul(l(Edge[0]), l(Z[0])), mul(l(Edge[1]), l(Z[1]))),
                                  mul(l(Edge[2]), l(Z[2]))),
                              l(InvDet))));
    Out.push_back(set(Tu, mul(l(Edge[1]), l(InvDet))));
    Out.push_back(set(Tv, mul(l(Edge[2]), l(InvDet))));
    // det > 0: the ray meets the side (v1 - v0) x (v2 - v0) points to.
    Out.push_back(set(Front, cmp(BinaryOp::Gt, l(Det), f(0))));
    Expr* H = both(notE(both(AnyNeg, AnyPos)), cmp(BinaryOp::Ne, l(Det), f(0)));
    H = both(H,
             both(cmp(BinaryOp::Ge, l(Tt), l(Q.TMin)), cmp(BinaryOp::Lt, l(Tt), l(Q.Committed.T))));
    H = both(H, notE(both(flag(Q, FlagCullBackFacing), notE(l(Front)))));
    H = both(H, notE(both(flag(Q, FlagCullFrontFacing), l(Front))));
    Out.push_back(set(Hit, H));
    // Opacity, read only for a hit: the geometry's, unless the ray's flags force it.
    Expr* Own = cmp(BinaryOp::Ne, B.bin(BinaryOp::And, l(SlotFlags), u(accel::PrimOpaque)), u(0));
    Stmt* Opacity =
        B.block({set(Opaque, B.bin(BinaryOp::Or, flag(Q, FlagOpaque),
                                   both(Own, notE(flag(Q, FlagNoOpaque))))),
                 set(Hit, both(notE(both(flag(Q, FlagCullOpaque), l(Opaque))),
                               notE(both(flag(Q, FlagCullNoOpaque), notE(l(Opaque))))))});
    Out.push_back(B.ifThen(l(Hit), Opacity));
  }

  std::vector<Stmt*> setHit(const HitLocals& H, int64_t Type, Expr* T, Expr* U, Expr* V, Expr* Prim,
                            Expr* FrontFace) {
    return {set(H.Type, B.i32(Type)),
            set(H.T, T),
            set(H.U, U),
            set(H.V, V),
            set(H.Prim, B.cast(I32, Prim)),
            set(H.Front, FrontFace)};
  }

  /// One primitive of the current leaf (the slot at Cursor).
  Stmt* leafStep(QueryLocals& Q, uint32_t Result, uint32_t LoopId) {
    std::vector<Stmt*> Out;
    Out.push_back(set(Base, primAt(Q, l(Q.Cursor))));
    Out.push_back(set(Q.Cursor, add(l(Q.Cursor), u(1))));
    // The slot's twelve words at once (three 128-bit loads where the target has them): the
    // coordinates or the box, the index, the kind and the flags.
    for (int K = 0; K < 9; ++K)
      Out.push_back(set(Vertex[K], fwordAt(Q, Base, K)));
    Out.push_back(set(SlotIndex, wordAt(Q, Base, accel::PrimIndex)));
    Out.push_back(set(SlotKind, wordAt(Q, Base, accel::PrimKind)));
    Out.push_back(set(SlotFlags, wordAt(Q, Base, accel::PrimFlags)));
    // A triangle.
    std::vector<Stmt*> Tri;
    triangleTest(Q, Tri);
    std::vector<Stmt*> Commit =
        setHit(Q.Committed, CommittedTriangle, l(Tt), l(Tu), l(Tv), l(SlotIndex), l(Front));
    Commit.push_back(B.ifThen(flag(Q, FlagTerminateOnFirstHit),
                              B.block({set(Q.Done, B.constBool(true)), B.brk(LoopId)})));
    std::vector<Stmt*> Offer =
        setHit(Q.Candidate, CandidateTriangle, l(Tt), l(Tu), l(Tv), l(SlotIndex), l(Front));
    Offer.push_back(set(Q.Pending, B.constBool(true)));
    Offer.push_back(set(Result, B.constBool(true)));
    Offer.push_back(B.brk(LoopId));
    Tri.push_back(B.ifThen(l(Hit), B.ifThen(l(Opaque), B.block(Commit), B.block(Offer))));
    // A box: always the kernel's to decide.
    std::vector<Stmt*> Box;
    boxTest(
        Q, [&](int I) { return l(Vertex[I]); }, Box);
    std::vector<Stmt*> BoxOffer =
        setHit(Q.Candidate, CandidateAabb, l(TNear), f(0), f(0), l(SlotIndex), B.constBool(false));
    BoxOffer.push_back(set(Q.Pending, B.constBool(true)));
    BoxOffer.push_back(set(Result, B.constBool(true)));
    BoxOffer.push_back(B.brk(LoopId));
    Box.push_back(B.ifThen(l(Hit), B.block(BoxOffer)));
    Expr* IsTriangle = cmp(BinaryOp::Eq, l(SlotKind), u(accel::PrimTriangle));
    Out.push_back(B.ifThen(IsTriangle, B.ifThen(notE(flag(Q, FlagSkipTriangles)), B.block(Tri)),
                           B.ifThen(notE(flag(Q, FlagSkipAabbs)), B.block(Box))));
    return B.block(Out);
  }

  /// Node's first child on the ray's side of its split axis (Info holds the axis).
  Expr* nearChild(QueryLocals& Q, Expr* FirstChild, Expr* Axis) {
    return add(FirstChild, B.bin(BinaryOp::And, B.bin(BinaryOp::Shr, l(Q.Sign), Axis), u(1)));
  }
  /// The other child of N's parent: children are adjacent, the first at an odd index.
  Expr* sibling(uint32_t N) {
    return B.select(cmp(BinaryOp::Eq, B.bin(BinaryOp::And, l(N), u(1)), u(1)), add(l(N), u(1)),
                    sub(l(N), u(1)));
  }
  /// Whether the node whose word 7 is the local InfoL is a leaf (Info: the scratch one).
  Expr* isLeaf(uint32_t InfoL) {
    return cmp(BinaryOp::Eq, B.bin(BinaryOp::And, l(InfoL), u(3)), u(accel::LeafTag));
  }
  Expr* isLeaf() { return isLeaf(Info); }
  /// The leaf whose words 6 and 7 are the locals ChildL and InfoL becomes the one tested.
  Stmt* enterLeaf(QueryLocals& Q, uint32_t ChildL, uint32_t InfoL) {
    return B.block({set(Q.Cursor, l(ChildL)),
                    set(Q.LeafEnd, add(l(ChildL), B.bin(BinaryOp::Shr, l(InfoL), u(2))))});
  }
  Stmt* enterLeaf(QueryLocals& Q) { return enterLeaf(Q, Child, Info); }
  Stmt* finish(QueryLocals& Q, uint32_t LoopId) {
    return B.block({set(Q.Done, B.constBool(true)), B.brk(LoopId)});
  }

  /// One step of the stack walk where each node tests its own box (the CPU's: it ran 10-20 %
  /// faster there than testing the children at the parent): visit Node (NoParent: the next on
  /// the stack), then descend to its child on the ray's side of the split axis with the other
  /// pushed, or enter it as a leaf. The stack holds at most one entry per level, and no tree is
  /// accel::MaxDepth deep.
  Stmt* stackWalkStepOwnBox(QueryLocals& Q, uint32_t LoopId) {
    Expr* Empty = cmp(BinaryOp::Eq, l(Q.Node), u(accel::NoParent));
    Stmt* Pop =
        B.ifThen(Empty, B.block({B.ifThen(cmp(BinaryOp::Eq, l(Q.Sp), u(0)), finish(Q, LoopId)),
                                 set(Q.Sp, sub(l(Q.Sp), u(1))),
                                 set(Q.Node, B.loadAt(B.privateRef(Q.Stack), l(Q.Sp)))}));
    std::vector<Stmt*> Out = {Pop};
    Out.push_back(set(Base, nodeAt(Q, l(Q.Node))));
    boxTest(Q, Base, Out);
    Out.push_back(set(Info, wordAt(Q, Base, accel::NodeInfo)));
    Out.push_back(set(Child, wordAt(Q, Base, accel::NodeChild)));
    Stmt* Descend = B.block(
        {set(Side, B.bin(BinaryOp::And, B.bin(BinaryOp::Shr, l(Q.Sign), l(Info)), u(1))),
         B.eval(B.storeAt(B.privateRef(Q.Stack), l(Q.Sp), sub(add(l(Child), u(1)), l(Side)))),
         set(Q.Sp, add(l(Q.Sp), u(1))), set(Q.Node, add(l(Child), l(Side)))});
    Out.push_back(
        B.ifThen(both(l(Hit), notE(isLeaf())), Descend,
                 B.block({B.ifThen(l(Hit), enterLeaf(Q)), set(Q.Node, u(accel::NoParent))})));
    return B.block(Out);
  }

  /// One step of the stack walk where a node's children are tested at the node (the GPUs': 11 %
  /// faster primary rays on the H200): visit Node (NoParent: the next on the stack), whose box
  /// the ray enters: a leaf is entered; an inner node's two children have their boxes tested here,
  /// the walk goes on into the nearer one that the ray enters and pushes the other with its
  /// distance. A pushed node whose box starts beyond the committed hit by the time it is popped is
  /// dropped unvisited. The stack holds at most one entry per level, and no tree is
  /// accel::MaxDepth deep. A child's words 6 and 7 are read with its box (one 32-byte node), so
  /// the step into it loads nothing more; a popped node's are read when it is popped.
  Stmt* stackWalkStepChildren(QueryLocals& Q, uint32_t LoopId) {
    Expr* Empty = cmp(BinaryOp::Eq, l(Q.Node), u(accel::NoParent));
    // An empty stack ends the walk once the leaf being tested beside it is done.
    Stmt* Pop = B.ifThen(
        cmp(BinaryOp::Eq, l(Q.Sp), u(0)),
        B.ifThen(cmp(BinaryOp::Ge, l(Q.Cursor), l(Q.LeafEnd)), finish(Q, LoopId)),
        B.block(
            {set(Q.Sp, sub(l(Q.Sp), u(1))),
             set(Q.Node, B.select(cmp(BinaryOp::Le, B.loadAt(B.privateRef(Q.StackT), l(Q.Sp)),
                                      l(Q.Committed.T)),
                                  B.loadAt(B.privateRef(Q.Stack), l(Q.Sp)), u(accel::NoParent))),
             B.ifThen(cmp(BinaryOp::Ne, l(Q.Node), u(accel::NoParent)),
                      B.block({set(Base, nodeAt(Q, l(Q.Node))),
                               set(Q.NodeChild, wordAt(Q, Base, accel::NodeChild)),
                               set(Q.NodeInfo, wordAt(Q, Base, accel::NodeInfo))}))}));
    // An inner node: both children's boxes (adjacent nodes) and their words 6 and 7.
    std::vector<Stmt*> Inner;
    Inner.push_back(set(Child, l(Q.NodeChild)));
    Inner.push_back(set(Base, nodeAt(Q, l(Child))));
    boxTest(Q, Base, Inner);
    Inner.push_back(set(FirstHit, l(Hit)));
    Inner.push_back(set(FirstNear, l(TNear)));
    Inner.push_back(set(FirstWords[0], wordAt(Q, Base, accel::NodeChild)));
    Inner.push_back(set(FirstWords[1], wordAt(Q, Base, accel::NodeInfo)));
    Inner.push_back(set(Base, plus(l(Base), u(accel::NodeWords))));
    boxTest(Q, Base, Inner);
    Inner.push_back(set(SecondWords[0], wordAt(Q, Base, accel::NodeChild)));
    Inner.push_back(set(SecondWords[1], wordAt(Q, Base, accel::NodeInfo)));
    auto into = [&](bool Second) {
      const std::array<uint32_t, 2>& W = Second ? SecondWords : FirstWords;
      return B.block({set(Q.Node, Second ? add(l(Child), u(1)) : l(Child)),
                      set(Q.NodeChild, l(W[0])), set(Q.NodeInfo, l(W[1]))});
    };
    // Both: into the nearer (the first on a tie), the other pushed.
    Expr* SecondNearer = cmp(BinaryOp::Lt, l(TNear), l(FirstNear));
    Stmt* Both =
        B.block({B.eval(B.storeAt(B.privateRef(Q.Stack), l(Q.Sp),
                                  B.select(SecondNearer, l(Child), add(l(Child), u(1))))),
                 B.eval(B.storeAt(B.privateRef(Q.StackT), l(Q.Sp),
                                  B.select(SecondNearer, l(FirstNear), l(TNear)))),
                 set(Q.Sp, add(l(Q.Sp), u(1))),
                 set(Q.Node, B.select(SecondNearer, add(l(Child), u(1)), l(Child))),
                 set(Q.NodeChild, B.select(SecondNearer, l(SecondWords[0]), l(FirstWords[0]))),
                 set(Q.NodeInfo, B.select(SecondNearer, l(SecondWords[1]), l(FirstWords[1])))});
    Inner.push_back(B.ifThen(l(FirstHit), B.ifThen(l(Hit), Both, into(false)),
                             B.ifThen(l(Hit), into(true), set(Q.Node, u(accel::NoParent)))));
    Stmt* Visit =
        B.ifThen(isLeaf(Q.NodeInfo),
                 B.block({enterLeaf(Q, Q.NodeChild, Q.NodeInfo), set(Q.Node, u(accel::NoParent))}),
                 B.block(Inner));
    return B.ifThen(Empty, Pop, Visit);
  }

  /// One step of the stackless walk.
  Stmt* walkStep(QueryLocals& Q, uint32_t LoopId) {
    if (UseStack)
      return ChildrenAtParent ? stackWalkStepChildren(Q, LoopId) : stackWalkStepOwnBox(Q, LoopId);
    auto nodeWord = [&](Expr* N, uint32_t W) { return word(Q, plus(nodeAt(Q, N), u(W))); };
    // The root.
    std::vector<Stmt*> Root;
    Root.push_back(set(Base, l(Q.NodeBase)));
    boxTest(Q, Base, Root);
    Root.push_back(B.ifThen(notE(l(Hit)), finish(Q, LoopId)));
    Root.push_back(set(Info, nodeWord(u(0), accel::NodeInfo)));
    Root.push_back(set(Child, nodeWord(u(0), accel::NodeChild)));
    Root.push_back(B.ifThen(
        isLeaf(), B.block({enterLeaf(Q), set(Q.State, u(Finished))}),
        B.block({set(Q.Node, nearChild(Q, l(Child), l(Info))), set(Q.State, u(FromParent))})));
    // Back from a child: on to its sibling if it was the near one, else up.
    std::vector<Stmt*> Up;
    Up.push_back(B.ifThen(cmp(BinaryOp::Eq, l(Q.Node), u(0)), finish(Q, LoopId)));
    Up.push_back(set(Parent, word(Q, plus(l(Q.ParentBase), l(Q.Node)))));
    Up.push_back(set(Info, nodeWord(l(Parent), accel::NodeInfo)));
    Up.push_back(set(Child, nodeWord(l(Parent), accel::NodeChild)));
    Up.push_back(B.ifThen(cmp(BinaryOp::Eq, l(Q.Node), nearChild(Q, l(Child), l(Info))),
                          B.block({set(Q.Node, sibling(Q.Node)), set(Q.State, u(FromSibling))}),
                          B.block({set(Q.Node, l(Parent)), set(Q.State, u(FromChild))})));
    // Arrived from the parent or the sibling: test the node's box.
    std::vector<Stmt*> Visit;
    Visit.push_back(set(Base, nodeAt(Q, l(Q.Node))));
    boxTest(Q, Base, Visit);
    Visit.push_back(set(Info, wordAt(Q, Base, accel::NodeInfo)));
    Visit.push_back(set(Child, wordAt(Q, Base, accel::NodeChild)));
    Stmt* Leave = B.ifThen(cmp(BinaryOp::Eq, l(Q.State), u(FromParent)),
                           B.block({set(Q.Node, sibling(Q.Node)), set(Q.State, u(FromSibling))}),
                           B.block({set(Q.Node, word(Q, plus(l(Q.ParentBase), l(Q.Node)))),
                                    set(Q.State, u(FromChild))}));
    Visit.push_back(B.ifThen(
        both(l(Hit), notE(isLeaf())),
        B.block({set(Q.Node, nearChild(Q, l(Child), l(Info))), set(Q.State, u(FromParent))}),
        B.block({B.ifThen(l(Hit), enterLeaf(Q)), Leave})));
    return B.ifThen(cmp(BinaryOp::Eq, l(Q.State), u(AtRoot)), B.block(Root),
                    B.ifThen(cmp(BinaryOp::Eq, l(Q.State), u(Finished)), finish(Q, LoopId),
                             B.ifThen(cmp(BinaryOp::Eq, l(Q.State), u(FromChild)), B.block(Up),
                                      B.block(Visit))));
  }

  /// proceed(): walks until a candidate for the kernel (Result true) or the end (false).
  void proceed(QueryLocals& Q, uint32_t Result, std::vector<Stmt*>& Pre) {
    uint32_t LoopId = B.newLoopId();
    Pre.push_back(set(Result, B.constBool(false)));
    Pre.push_back(set(Q.Pending, B.constBool(false)));
    // One primitive or one walk step per iteration. On the H200 an inner loop for each
    // ("while-while", Aila and Laine 2009) ran 0.88x as fast over the stackless walk, and an
    // inner loop over a leaf's primitives alone 0.93x as fast over the stack walk.
    Expr* InLeaf = cmp(BinaryOp::Lt, l(Q.Cursor), l(Q.LeafEnd));
    Stmt* Body = B.ifThen(InLeaf, leafStep(Q, Result, LoopId), walkStep(Q, LoopId));
    if (UseStack && ChildrenAtParent) {
      // The GPUs' walk takes a step beside each primitive ("if-if"): a lane whose leaf is not
      // done yet goes on down the tree unless the next node is a leaf too, so the lanes of a
      // wave run the box tests and the triangle tests more often together. The step culls with
      // the committed t from before the primitive: it may visit more, never less.
      Expr* NextIsLeaf = both(cmp(BinaryOp::Ne, l(Q.Node), u(accel::NoParent)), isLeaf(Q.NodeInfo));
      Body = B.block({B.ifThen(InLeaf, leafStep(Q, Result, LoopId)),
                      B.ifThen(notE(both(cmp(BinaryOp::Lt, l(Q.Cursor), l(Q.LeafEnd)), NextIsLeaf)),
                               walkStep(Q, LoopId))});
    }
    Pre.push_back(B.ifThen(notE(l(Q.Done)), B.loop(LoopId, nullptr, Body)));
  }

  Function& F;
  Builder B;
  const bool UseStack;
  const bool ChildrenAtParent;             // the stack walk's form (RayQueryLowering::Form)
  const bool WordViews;                    // node and slot words through 4-word views
  std::map<uint32_t, QueryLocals> Queries; // by query local
  std::array<uint32_t, 3> Lo{}, Hi{}, X{}, Y{}, Z{}, Edge{}, Abs{};
  std::array<uint32_t, 9> Vertex{}; // a slot's coordinates (a box: min, max) as stored
  uint32_t SlotIndex = 0, SlotKind = 0, SlotFlags = 0; // and its other words
  uint32_t Swap = 0;
  uint32_t TNear = 0, TFar = 0, Det = 0, InvDet = 0, Tu = 0, Tv = 0, Tt = 0, Hit = 0, Opaque = 0,
           Front = 0, Base = 0, Info = 0, Child = 0, Parent = 0;
  uint32_t Side = 0; // the own-box stack walk: the near child's side (0: the first child)
  // The children-at-the-parent walk: whether the ray enters a node's first child, and where.
  uint32_t FirstHit = 0, FirstNear = 0;
  std::array<uint32_t, 2> FirstWords{}, SecondWords{}; // each child's words 6 and 7
};

} // namespace

bool RayQueryLowering::uses(const Function& F) {
  for (const Local& L : F.Locals)
    if (L.Ty.isRayQuery())
      return true;
  return false;
}

bool RayQueryLowering::run(Module& M, Function& F, Form Walk, std::string& Error) {
  if (!uses(F))
    return true;
  return Lowerer(M, F, Walk).run(Error);
}

} // namespace cajeta::kir
