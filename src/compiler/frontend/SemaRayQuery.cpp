// Sema for inline ray query (kir::RayQueryOp): `AccelerationStructure` parameters, `RayQuery`
// locals and their methods, and the RayFlags.* and RayQuery.* constants. The query's walk is
// kir::RayQueryLowering's; Sema only types the calls.
#include "compiler/frontend/Sema.h"

#include <map>

namespace cajeta::frontend {

using bundle::ScalarType;
using kir::RayQueryOp;
using kir::Type;

namespace {

/// RayFlags.* (Vulkan's gl_RayFlags*EXT values) and RayQuery.* (the intersection types).
const std::map<std::string, int32_t>& rayFlags() {
  static const std::map<std::string, int32_t> Flags = {
      {"None", 0},
      {"Opaque", 0x1},
      {"NoOpaque", 0x2},
      {"TerminateOnFirstHit", 0x4},
      {"CullBackFacingTriangles", 0x10},
      {"CullFrontFacingTriangles", 0x20},
      {"CullOpaque", 0x40},
      {"CullNoOpaque", 0x80},
      {"SkipTriangles", 0x100},
      {"SkipAabbs", 0x200},
  };
  return Flags;
}

const std::map<std::string, int32_t>& intersectionTypes() {
  static const std::map<std::string, int32_t> Types = {
      {"CandidateTriangle", 0}, {"CandidateAabb", 1},      {"CommittedNone", 0},
      {"CommittedTriangle", 1}, {"CommittedGenerated", 2},
  };
  return Types;
}

std::string names(const std::map<std::string, int32_t>& M) {
  std::string S;
  for (const auto& [Name, Unused] : M)
    S += (S.empty() ? "" : ", ") + Name;
  return S;
}

/// The getters: candidateX() and committedX().
struct Getter {
  RayQueryOp Op;
  const char* Stem;
};
constexpr Getter Getters[] = {
    {RayQueryOp::Type, "Type"},
    {RayQueryOp::T, "T"},
    {RayQueryOp::U, "BarycentricU"},
    {RayQueryOp::V, "BarycentricV"},
    {RayQueryOp::PrimitiveIndex, "PrimitiveIndex"},
    {RayQueryOp::FrontFace, "FrontFace"},
};

const char* MethodList = "initialize, proceed, confirm, generateIntersection, terminate, and "
                         "candidate / committed Type, T, BarycentricU, BarycentricV, "
                         "PrimitiveIndex, FrontFace";

} // namespace

std::optional<Type> Sema::resolveAccelType(const TypeRef& T, bool AllowParam, const char* Where) {
  if (!isImported(T.Name)) {
    Diags.error(T.Range,
                "'" + T.Name + "' is not imported; add 'import cajeta.xpu." + T.Name + ";'");
    return std::nullopt;
  }
  if (!T.Args.empty()) {
    Diags.error(T.Range, "'" + T.Name + "' takes no type arguments");
    return std::nullopt;
  }
  if (T.Name == "RayQuery") {
    Diags.error(T.Range, std::string("a RayQuery cannot be used as ") + Where +
                             "; declare it as a local variable: 'RayQuery q = new RayQuery();'");
    return std::nullopt;
  }
  if (InHost) // a runtime object: heap AccelerationStructure(vertices, indices)
    return Type::handle(Type::AccelHandle);
  if (!AllowParam) {
    Diags.error(T.Range, std::string("an AccelerationStructure cannot be used as ") + Where +
                             "; acceleration structures are kernel and helper parameters");
    return std::nullopt;
  }
  return Type::buffer(ScalarType::U32); // Param::IsAccel marks it
}

kir::Stmt* Sema::buildRayQueryDecl(const Stmt* S) {
  if (!isImported("RayQuery")) {
    Diags.error(S->VarType.Range, "'RayQuery' is not imported; add 'import cajeta.xpu.RayQuery;'");
    return nullptr;
  }
  if (S->VarType.ArrayDims > 0 || !S->VarType.Args.empty()) {
    Diags.error(S->VarType.Range, "a RayQuery is declared as 'RayQuery q = new RayQuery();'");
    return nullptr;
  }
  for (const Stmt::Declarator& D : S->Vars) {
    const Expr* I = D.Init;
    bool NewQuery = I && I->K == Expr::Kind::Call && I->Ops.size() == 1 &&
                    I->Ops[0]->K == Expr::Kind::Name && I->Ops[0]->Text == "RayQuery";
    bool NewAlloc = I && I->K == Expr::Kind::Alloc && I->CastType.Name == "RayQuery";
    if (I && !NewQuery && !NewAlloc) {
      Diags.error(I->Range, "a RayQuery is initialised with 'new RayQuery()' (or not at all); "
                            "queries are not copied by '='");
      continue;
    }
    declareLocal(D.Name, Type::rayQuery(), D.Range);
  }
  return makeBlock({}, S->Range);
}

bool Sema::buildRayConstant(const Expr* E, Value& Out) {
  const Expr* Obj = E->Ops[0];
  if (Obj->K != Expr::Kind::Name || lookupLocal(Obj->Text) ||
      (Obj->Text != "RayFlags" && Obj->Text != "RayQuery"))
    return false;
  bool Flags = Obj->Text == "RayFlags";
  const auto& Table = Flags ? rayFlags() : intersectionTypes();
  if (!isImported(Obj->Text)) {
    Diags.error(Obj->Range,
                "'" + Obj->Text + "' is not imported; add 'import cajeta.xpu." + Obj->Text + ";'");
    Out = {};
    return true;
  }
  auto It = Table.find(E->Text);
  if (It == Table.end()) {
    Diags.error(E->Range, "'" + Obj->Text + "' has no constant '" + E->Text + "' (it has " +
                              names(Table) + ")");
    Out = {};
    return true;
  }
  Out = value(intConst(Type::scalar(ScalarType::I32), It->second, E->Range), E->Range);
  return true;
}

kir::Expr* Sema::buildAccelOperand(const Expr* E, const std::string& Context) {
  if (E->K == Expr::Kind::Name && !lookupLocal(E->Text) && AccelParams.count(E->Text)) {
    kir::Expr* P = M->newExpr(kir::Expr::Kind::Param, Type::buffer(ScalarType::U32), loc(E->Range));
    P->Index = AccelParams[E->Text];
    return P;
  }
  Diags.error(E->Range, Context + " is an AccelerationStructure parameter of this method");
  return nullptr;
}

Sema::Value Sema::buildRayQueryMethod(const Expr* E, uint32_t Query, const std::string& Method) {
  size_t Given = E->Ops.size() - 1;
  const std::string& Name = Fn().Locals[Query].Name;
  auto Make = [&](RayQueryOp Op, std::vector<kir::Expr*> Ops, uint8_t Committed = 0) {
    kir::Expr* R =
        M->newExpr(kir::Expr::Kind::RayQuery, kir::rayQueryResultType(Op), loc(E->Range));
    R->RQOp = Op;
    R->Index = Query;
    R->Dim = Committed;
    R->Ops = std::move(Ops);
    return value(R, E->Range);
  };
  auto NoArgs = [&]() {
    if (Given == 0)
      return true;
    Diags.error(E->Range, "'" + Name + "." + Method + "' takes no arguments");
    return false;
  };
  auto Float = [&](const Expr* A, const std::string& What) -> kir::Expr* {
    Value V = buildExpr(A);
    if (!V)
      return nullptr;
    std::string Ctx = "the " + What + " of '" + Name + "." + Method + "'";
    return convert(V, Type::scalar(ScalarType::F32), A->Range, Ctx.c_str());
  };
  if (Method == "initialize") {
    if (Given != 10) {
      Diags.error(E->Range, "'" + Name +
                                ".initialize' takes (scene, flags, originX, originY, originZ, "
                                "tMin, directionX, directionY, directionZ, tMax), " +
                                std::to_string(Given) + " arguments given");
      return {};
    }
    std::vector<kir::Expr*> Ops;
    Ops.push_back(buildAccelOperand(E->Ops[1], "the scene of '" + Name + ".initialize'"));
    Value Flags = buildExpr(E->Ops[2]);
    kir::Expr* FlagsE = nullptr;
    if (Flags) {
      kir::Expr* X = materialize(Flags);
      if (X && X->Ty.isInteger())
        FlagsE = castTo(X, Type::scalar(ScalarType::U32));
      else if (X)
        Diags.error(E->Ops[2]->Range, "the flags of '" + Name +
                                          ".initialize' are an integer (RayFlags.* combined "
                                          "with |), not " +
                                          X->Ty.str());
    }
    Ops.push_back(FlagsE);
    const char* What[] = {"origin x",    "origin y",    "origin z",    "tMin",
                          "direction x", "direction y", "direction z", "tMax"};
    for (int I = 0; I < 8; ++I)
      Ops.push_back(Float(E->Ops[3 + I], What[I]));
    for (kir::Expr* O : Ops)
      if (!O)
        return {};
    // The walk reads one buffer: every initialize of a query names the same scene.
    auto [It, New] = QueryScenes.emplace(Query, Ops[0]->Index);
    if (!New && It->second != Ops[0]->Index) {
      Diags.error(E->Ops[1]->Range, "ray query '" + Name + "' walks '" +
                                        Fn().Params[It->second].Name +
                                        "' already; a query walks one acceleration structure "
                                        "(declare a second query for '" +
                                        Fn().Params[Ops[0]->Index].Name + "')");
      return {};
    }
    return Make(RayQueryOp::Initialize, std::move(Ops));
  }
  if (Method == "proceed" || Method == "confirm" || Method == "terminate") {
    if (!NoArgs())
      return {};
    return Make(Method == "proceed"   ? RayQueryOp::Proceed
                : Method == "confirm" ? RayQueryOp::Confirm
                                      : RayQueryOp::Terminate,
                {});
  }
  if (Method == "generateIntersection") {
    if (Given != 1) {
      Diags.error(E->Range, "'" + Name + ".generateIntersection' takes the hit's t");
      return {};
    }
    kir::Expr* T = Float(E->Ops[1], "t");
    if (!T)
      return {};
    return Make(RayQueryOp::Generate, {T});
  }
  for (const Getter& G : Getters)
    for (uint8_t Committed : {0, 1})
      if (Method == std::string(Committed ? "committed" : "candidate") + G.Stem) {
        if (!NoArgs())
          return {};
        return Make(G.Op, {}, Committed);
      }
  Diags.error(E->Ops[0]->Range,
              "RayQuery has no method '" + Method + "' (it has " + MethodList + ")");
  return {};
}

} // namespace cajeta::frontend
