// Sema for tiles (kir::TileOp): `Tile<T, Rows, Cols>` locals of kernels, their methods (fill,
// load, loadColMajor, store, scale, add, convertFrom), the `Tile.zero()/fill/load` initialisers
// and `Group.mac(c, a, b)`. A tile is held by a wave, so every tile op follows the wave rules:
// every work-item of the group reaches it (WavePlacement checks the placement).
#include "compiler/frontend/Sema.h"
#include "compiler/frontend/TypeRules.h"

namespace cajeta::frontend {

using bundle::ScalarType;
using kir::TileOp;
using kir::Type;

namespace {

constexpr uint32_t MaxTileDim = 256;
constexpr uint32_t MaxTileElements = 64 * 64;

bool tileElementAllowed(ScalarType T) {
  return T == ScalarType::F16 || T == ScalarType::BF16 || T == ScalarType::F32 ||
         T == ScalarType::I8 || T == ScalarType::U8 || T == ScalarType::I32;
}

} // namespace

std::optional<Type> Sema::resolveTileType(const TypeRef& T, kir::TileUse* Use) {
  bool Explicit = T.Name == "CooperativeMatrix";
  if (!isImported(T.Name)) {
    Diags.error(T.Range,
                "'" + T.Name + "' is not imported; add 'import cajeta.xpu." + T.Name + ";'");
    return std::nullopt;
  }
  const char* Shape = Explicit ? "CooperativeMatrix takes an element type, two sizes and a use, "
                                 "as in CooperativeMatrix<float16, 16, 16, MatrixA>"
                               : "Tile takes an element type and two sizes, as in "
                                 "Tile<float16, 16, 16>";
  if (T.Args.size() != (Explicit ? 4u : 3u) || T.Args[0].IsInteger || !T.Args[1].IsInteger ||
      !T.Args[2].IsInteger || (Explicit && T.Args[3].IsInteger)) {
    Diags.error(T.Range, Shape);
    return std::nullopt;
  }
  if (Explicit) {
    const std::string& U = T.Args[3].Name;
    kir::TileUse Declared = U == "MatrixA"       ? kir::TileUse::MatrixA
                            : U == "MatrixB"     ? kir::TileUse::MatrixB
                            : U == "Accumulator" ? kir::TileUse::Accumulator
                                                 : kir::TileUse::Inferred;
    if (Declared == kir::TileUse::Inferred) {
      Diags.error(T.Args[3].Range, "a cooperative matrix's use is MatrixA, MatrixB or "
                                   "Accumulator, not '" +
                                       U + "'");
      return std::nullopt;
    }
    if (Use)
      *Use = Declared;
  }
  auto Elem = primitiveByName(T.Args[0].Name);
  if (!Elem || !T.Args[0].Args.empty() || !tileElementAllowed(*Elem)) {
    Diags.error(T.Args[0].Range,
                "a tile holds float16, bfloat16, float32, int8, uint8 or int32, not '" +
                    T.Args[0].Name + "'");
    return std::nullopt;
  }
  uint32_t Dims[2] = {0, 0};
  for (int I = 0; I < 2; ++I) {
    const TypeRef& A = T.Args[1 + I];
    unsigned long long V = 0;
    try {
      V = std::stoull(A.Name, nullptr, 0);
    } catch (...) {
      V = 0;
    }
    if (V == 0 || V > MaxTileDim) {
      Diags.error(A.Range, std::string("a tile's ") + (I ? "column" : "row") +
                               " count is an integer from 1 to " + std::to_string(MaxTileDim) +
                               ", not " + A.Name);
      return std::nullopt;
    }
    Dims[I] = uint32_t(V);
  }
  if (Dims[0] * Dims[1] > MaxTileElements) {
    Diags.error(T.Range, "a tile holds at most " + std::to_string(MaxTileElements) +
                             " elements (64 x 64); this one has " +
                             std::to_string(Dims[0] * Dims[1]));
    return std::nullopt;
  }
  if (!Current->Fn->IsKernel) {
    Diags.error(T.Range, "tiles live in @Kernel methods only; pass offsets to helpers instead");
    return std::nullopt;
  }
  return Type::tile(*Elem, Dims[0], Dims[1]);
}

kir::Expr* Sema::tileOp(TileOp Op, uint32_t Tile, std::vector<kir::Expr*> Ops, SourceRange R) {
  kir::Expr* E = M->newExpr(kir::Expr::Kind::Tile, Type::voidTy(), loc(R));
  E->TOp = Op;
  E->Index = Tile;
  E->Ops = std::move(Ops);
  Fn().UsesWave = true; // a tile is held by a wave: the wave rules and the launch checks apply
  Fn().UsesTiles = true;
  return E;
}

kir::Expr* Sema::tileZero(ScalarType Elem, SourceRange R) {
  Type T = Type::scalar(Elem);
  return T.isFloat() ? floatConst(T, 0.0, R) : intConst(T, 0, R);
}

kir::Expr* Sema::tileLocalRef(uint32_t Local, SourceRange R) {
  kir::Expr* E = M->newExpr(kir::Expr::Kind::Local, Fn().Locals[Local].Ty, loc(R));
  E->Index = Local;
  return E;
}

/// An integer argument as uint32 (literals checked, other integers converted), or null.
kir::Expr* Sema::tileIndexArg(const Expr* A, const std::string& What, const std::string& Method) {
  Value V = buildExpr(A);
  if (!V)
    return nullptr;
  if (V.Lit == Value::IntLit) {
    if (V.IntValue < 0 || V.IntValue > int64_t(UINT32_MAX)) {
      Diags.error(A->Range, "the " + What + " of '" + Method + "' is out of the uint32 range");
      return nullptr;
    }
    return intConst(Type::scalar(ScalarType::U32), V.IntValue, A->Range);
  }
  if (!V.E->Ty.isInteger()) {
    Diags.error(A->Range,
                "the " + What + " of '" + Method + "' is an integer, found " + V.E->Ty.str());
    return nullptr;
  }
  return castTo(V.E, Type::scalar(ScalarType::U32));
}

/// load/loadColMajor/store arguments: (array, offset, stride[, validRows, validCols]).
kir::Expr* Sema::buildTileMemory(const Expr* Call, size_t First, TileOp Op, bool ColMajor,
                                 uint32_t Tile, const std::string& Method) {
  const Type T = Fn().Locals[Tile].Ty;
  size_t Given = Call->Ops.size() - First;
  if (Given != 3 && Given != 5) {
    Diags.error(Call->Range, "'" + Method +
                                 "' takes (array, offset, stride) or (array, offset, stride, "
                                 "rows, cols), " +
                                 std::to_string(Given) + " arguments given");
    return nullptr;
  }
  const Expr* ArrayArg = Call->Ops[First];
  if (ArrayArg->K != Expr::Kind::Name ||
      !(BufferParams.count(ArrayArg->Text) || SharedByName.count(ArrayArg->Text)) ||
      lookupLocal(ArrayArg->Text)) {
    Diags.error(ArrayArg->Range,
                "'" + Method + "' takes a KernelBuffer parameter or a shared array first");
    return nullptr;
  }
  kir::Expr* Array = buildBufferOperand(ArrayArg);
  if (!Array)
    return nullptr;
  if (Array->Ty.Elem != T.Elem) {
    Diags.error(ArrayArg->Range, "'" + Method + "' of a " + T.str() + " needs " +
                                     bundle::scalarTypeName(T.Elem) + " elements, but '" +
                                     ArrayArg->Text + "' holds " +
                                     bundle::scalarTypeName(Array->Ty.Elem) +
                                     "; use a tile of its type, then convertFrom");
    return nullptr;
  }
  std::vector<kir::Expr*> Ops = {Array};
  const char* Names[] = {"offset", "stride", "row count", "column count"};
  for (size_t I = 1; I < Given; ++I) {
    kir::Expr* X = tileIndexArg(Call->Ops[First + I], Names[I - 1], Method);
    if (!X)
      return nullptr;
    Ops.push_back(X);
  }
  if (Given == 3) {
    Ops.push_back(intConst(Type::scalar(ScalarType::U32), T.Rows, Call->Range));
    Ops.push_back(intConst(Type::scalar(ScalarType::U32), T.Cols, Call->Range));
  }
  kir::Expr* E = tileOp(Op, Tile, std::move(Ops), Call->Range);
  E->Dim = ColMajor ? 1 : 0;
  return E;
}

/// A tile local named by A, or nullopt (reported).
std::optional<uint32_t> Sema::tileArg(const Expr* A, const std::string& Method) {
  if (A->K == Expr::Kind::Name)
    if (auto L = lookupLocal(A->Text); L && Fn().Locals[*L].Ty.isTile())
      return L;
  Diags.error(A->Range, "'" + Method + "' takes a tile variable here");
  return std::nullopt;
}

kir::Expr* Sema::buildTileFill(const Expr* ValueArg, uint32_t Tile, TileOp Op,
                               const std::string& Method, SourceRange R) {
  Value V = buildExpr(ValueArg);
  if (!V)
    return nullptr;
  Type Elem = Type::scalar(Fn().Locals[Tile].Ty.Elem);
  kir::Expr* X = convert(V, Elem, ValueArg->Range, ("the argument of '" + Method + "'").c_str());
  if (!X)
    return nullptr;
  return tileOp(Op, Tile, {X}, R);
}

Sema::Value Sema::buildTileMethod(const Expr* E, uint32_t Tile, const std::string& Method) {
  const Type T = Fn().Locals[Tile].Ty;
  size_t Given = E->Ops.size() - 1;
  auto Arity = [&](size_t N) {
    if (Given == N)
      return true;
    Diags.error(E->Range, "'" + Method + "' takes " + std::to_string(N) + " argument" +
                              (N == 1 ? "" : "s") + ", " + std::to_string(Given) + " given");
    return false;
  };
  kir::Expr* R = nullptr;
  if (Method == "fill" || Method == "scale") {
    if (!Arity(1))
      return {};
    R = buildTileFill(E->Ops[1], Tile, Method == "fill" ? TileOp::Fill : TileOp::Scale, Method,
                      E->Range);
  } else if (Method == "load" || Method == "loadColMajor") {
    R = buildTileMemory(E, 1, TileOp::Load, Method == "loadColMajor", Tile, Method);
  } else if (Method == "store") {
    R = buildTileMemory(E, 1, TileOp::Store, false, Tile, Method);
  } else if (Method == "add" || Method == "convertFrom") {
    if (!Arity(1))
      return {};
    auto U = tileArg(E->Ops[1], Method);
    if (!U)
      return {};
    const Type UT = Fn().Locals[*U].Ty;
    bool Add = Method == "add";
    if (UT.Rows != T.Rows || UT.Cols != T.Cols || (Add && UT != T)) {
      Diags.error(E->Ops[1]->Range, "'" + Method + "' of a " + UT.str() + " into a " + T.str() +
                                        (Add ? ": add needs the same type and shape; convert first"
                                             : ": the shapes differ"));
      return {};
    }
    R = tileOp(Add ? TileOp::Add : TileOp::Convert, Tile, {tileLocalRef(*U, E->Ops[1]->Range)},
               E->Range);
  } else {
    Diags.error(E->Ops[0]->Range, "a tile has no method '" + Method +
                                      "' (it has fill, load, loadColMajor, store, scale, add and "
                                      "convertFrom; Group.mac multiplies)");
    return {};
  }
  if (!R)
    return {};
  return value(R, E->Range);
}

Sema::Value Sema::buildGroup(const Expr* E, const std::string& Method) {
  if (Method != "mac") {
    Diags.error(E->Ops[0]->Range,
                "'Group' has no method '" + Method + "' (Group.mac(c, a, b) computes c = a.b + c)");
    return {};
  }
  if (E->Ops.size() != 4) {
    Diags.error(E->Range, "'Group.mac' takes three tiles (c, a, b), " +
                              std::to_string(E->Ops.size() - 1) + " given");
    return {};
  }
  std::optional<uint32_t> L[3];
  for (int I = 0; I < 3; ++I)
    if (!(L[I] = tileArg(E->Ops[1 + I], "Group.mac")))
      return {};
  // A CooperativeMatrix plays only the role it declares.
  static const kir::TileUse Position[3] = {kir::TileUse::Accumulator, kir::TileUse::MatrixA,
                                           kir::TileUse::MatrixB};
  static const char* Names[4] = {"", "MatrixA", "MatrixB", "Accumulator"};
  static const char* Roles[3] = {"the accumulator (c)", "the a operand", "the b operand"};
  for (int I = 0; I < 3; ++I) {
    kir::TileUse U = Fn().Locals[*L[I]].Use;
    if (U != kir::TileUse::Inferred && U != Position[I]) {
      Diags.error(E->Ops[1 + I]->Range, "'" + E->Ops[1 + I]->Text +
                                            "' is a cooperative matrix of use " + Names[int(U)] +
                                            ", here " + Roles[I] + " of Group.mac (c, a, b)");
      return {};
    }
  }
  const Type C = Fn().Locals[*L[0]].Ty, A = Fn().Locals[*L[1]].Ty, B = Fn().Locals[*L[2]].Ty;
  if (A.Elem != B.Elem || !kir::tileMacTypesAllowed(A.Elem, C.Elem)) {
    Diags.error(E->Range, "Group.mac of " + A.str() + " and " + B.str() + " into " + C.str() +
                              ": supported are float16 into float16 or float32, bfloat16 into "
                              "float32, float32 into float32, and int8 or uint8 into int32 (a "
                              "and b of one type)");
    return {};
  }
  if (A.Rows != C.Rows || B.Cols != C.Cols || A.Cols != B.Rows) {
    Diags.error(E->Range, "Group.mac shapes do not agree: c is " + std::to_string(C.Rows) + "x" +
                              std::to_string(C.Cols) + ", a " + std::to_string(A.Rows) + "x" +
                              std::to_string(A.Cols) + ", b " + std::to_string(B.Rows) + "x" +
                              std::to_string(B.Cols) +
                              " (c = a.b + c needs a: MxK, b: KxN, c: MxN)");
    return {};
  }
  kir::Expr* R = tileOp(
      TileOp::Mac, *L[0],
      {tileLocalRef(*L[1], E->Ops[2]->Range), tileLocalRef(*L[2], E->Ops[3]->Range)}, E->Range);
  return value(R, E->Range);
}

kir::Stmt* Sema::buildTileDecl(const Stmt* S) {
  kir::TileUse Use = kir::TileUse::Inferred;
  std::optional<Type> Ty = resolveTileType(S->VarType, &Use);
  if (!Ty)
    return nullptr;
  std::vector<kir::Stmt*> Out;
  for (const Stmt::Declarator& D : S->Vars) {
    uint32_t L = declareLocal(D.Name, *Ty, D.Range);
    Fn().Locals[L].Use = Use;
    kir::Expr* Init = nullptr;
    const Expr* I = D.Init;
    if (!I) {
      Init = tileOp(TileOp::Fill, L, {tileZero(Ty->Elem, D.Range)}, D.Range);
    } else if (I->K == Expr::Kind::Call && I->Ops[0]->K == Expr::Kind::Member &&
               I->Ops[0]->Ops[0]->K == Expr::Kind::Name &&
               (I->Ops[0]->Ops[0]->Text == "Tile" ||
                I->Ops[0]->Ops[0]->Text == "CooperativeMatrix") &&
               !lookupLocal(I->Ops[0]->Ops[0]->Text)) {
      const std::string& Method = I->Ops[0]->Text;
      std::string Full = "Tile." + Method;
      size_t Given = I->Ops.size() - 1;
      if (Method == "zero" && Given == 0) {
        Init = tileOp(TileOp::Fill, L, {tileZero(Ty->Elem, I->Range)}, I->Range);
      } else if (Method == "fill" && Given == 1) {
        Init = buildTileFill(I->Ops[1], L, TileOp::Fill, Full, I->Range);
      } else if (Method == "load" || Method == "loadColMajor") {
        Init = buildTileMemory(I, 1, TileOp::Load, Method == "loadColMajor", L, Full);
      } else {
        Diags.error(I->Range, "a tile is initialised with Tile.zero(), Tile.fill(v), "
                              "Tile.load(array, offset, stride[, rows, cols]) or "
                              "Tile.loadColMajor(...)");
      }
    } else {
      Diags.error(I->Range, "a tile is initialised with Tile.zero(), Tile.fill(v), "
                            "Tile.load(array, offset, stride[, rows, cols]) or "
                            "Tile.loadColMajor(...); tiles are not copied by '='");
    }
    if (Init)
      Out.push_back(evalStmt(Init, D.Range));
  }
  if (Out.size() == 1)
    return Out[0];
  return makeBlock(std::move(Out), S->Range);
}

} // namespace cajeta::frontend
