// The tiles' roles and fragment shapes (TileFragments.h).
#include "compiler/kir/transforms/TileFragments.h"

#include "compiler/kir/Walk.h"

namespace cajeta::kir::tiles {

std::string at(SourceLoc L) {
  return "line " + std::to_string(L.Line);
}

/// Inputs per 32-bit fragment register of the a and b operands: two 16-bit, four 8-bit (one
/// for everything else: accumulators hold an element per register).
uint32_t inputsPerRegister(ScalarType Elem) {
  switch (Elem) {
  case ScalarType::F16:
  case ScalarType::BF16:
    return 2;
  case ScalarType::I8:
  case ScalarType::U8:
    return 4;
  default:
    return 1;
  }
}

/// The layout of an m16n8kK product whose a and b pack P inputs per register (K = 8P: 16 for
/// 16-bit inputs, 32 for 8-bit). Register r of a block holds its elements P r .. P r + P - 1.
std::vector<FragmentElement> fragmentLayout(Role R, uint32_t Rows, uint32_t Cols, uint32_t P) {
  std::vector<FragmentElement> Out;
  const uint32_t K = 8 * P;
  switch (R) {
  case Role::Acc: // 16x8 blocks: c0,c1 (g, 2t..2t+1), c2,c3 (g+8, 2t..2t+1)
    for (uint32_t Mi = 0; Mi < Rows / 16; ++Mi)
      for (uint32_t Ni = 0; Ni < Cols / 8; ++Ni)
        for (uint32_t I = 0; I < 4; ++I)
          Out.push_back({16 * Mi + (I >= 2 ? 8 : 0), 8 * Ni + (I & 1), true, 2});
    break;
  case Role::A: // 16xK blocks: registers 0..3 at rows g, g+8, g, g+8, columns Pt.. / Pt+K/2..
    for (uint32_t Mi = 0; Mi < Rows / 16; ++Mi)
      for (uint32_t Ki = 0; Ki < Cols / K; ++Ki)
        for (uint32_t I = 0; I < 4 * P; ++I) {
          uint32_t Reg = I / P;
          Out.push_back(
              {16 * Mi + (Reg & 1) * 8, K * Ki + I % P + (Reg >= 2 ? K / 2 : 0), true, P});
        }
    break;
  case Role::B: // Kx8 blocks: registers 0, 1 at rows Pt.. / Pt+K/2.., column g
    for (uint32_t Ki = 0; Ki < Rows / K; ++Ki)
      for (uint32_t Ni = 0; Ni < Cols / 8; ++Ni)
        for (uint32_t I = 0; I < 2 * P; ++I)
          Out.push_back({K * Ki + I % P + (I / P) * (K / 2), 8 * Ni, false, P});
    break;
  }
  return Out;
}

/// The fragment block of role R for a tile of type T (rows x columns).
std::pair<uint32_t, uint32_t> fragmentBlock(Role R, Type T) {
  const uint32_t K = 8 * inputsPerRegister(T.Elem);
  switch (R) {
  case Role::A:
    return {16, K};
  case Role::B:
    return {K, 8};
  case Role::Acc:
    break;
  }
  return {16, 8};
}

bool shapeFits(Role R, Type T) {
  auto [Rows, Cols] = fragmentBlock(R, T);
  return T.Rows % Rows == 0 && T.Cols % Cols == 0;
}

const char* roleName(Role R) {
  return R == Role::Acc ? "an accumulator" : R == Role::A ? "the a operand" : "the b operand";
}

// ---- the cooperative-matrix fragments --------------------------------------------------------

/// K of a fragment whose a and b hold Elem: 32 for 8-bit integers (the 16x16x32 shapes), else 16.
uint32_t fragmentK(ScalarType Elem) {
  return Elem == ScalarType::I8 || Elem == ScalarType::U8 ? 32 : 16;
}

/// The fragment type of a tile of type T in role R (SPIR-V's use numbering: a 0, b 1, acc 2).
Type fragmentType(Role R, Type T) {
  switch (R) {
  case Role::A:
    return Type::matrix(T.Elem, 16, fragmentK(T.Elem), 0);
  case Role::B:
    return Type::matrix(T.Elem, fragmentK(T.Elem), 16, 1);
  case Role::Acc:
    break;
  }
  return Type::matrix(T.Elem, 16, 16, 2);
}

/// The role of each tile local of F (by local index), from its uses in Mac; a tile never in a
/// Mac is an accumulator. False with Why when a tile plays two roles.
bool inferRoles(const Function& F, std::map<uint32_t, Role>& Roles, std::string& Why) {
  bool Ok = true;
  auto Set = [&](uint32_t L, Role R, SourceLoc Loc) {
    auto [It, New] = Roles.emplace(L, R);
    if (!New && It->second != R && Ok) {
      Why = "tile '" + F.Locals[L].Name + "' is " + roleName(It->second) + " and " + roleName(R) +
            " of Group.mac (" + at(Loc) + ")";
      Ok = false;
    }
  };
  for (uint32_t L = 0; L < F.Locals.size(); ++L)
    if (F.Locals[L].Ty.isTile() && F.Locals[L].Use != TileUse::Inferred)
      Roles.emplace(L, F.Locals[L].Use == TileUse::MatrixA   ? Role::A
                       : F.Locals[L].Use == TileUse::MatrixB ? Role::B
                                                             : Role::Acc);
  forEachExprIn(F.Body, [&](const Expr* E) {
    if (E->K == Expr::Kind::Tile && E->TOp == TileOp::Mac) {
      Set(E->Index, Role::Acc, E->Loc);
      Set(E->Ops[0]->Index, Role::A, E->Loc);
      Set(E->Ops[1]->Index, Role::B, E->Loc);
    }
  });
  for (uint32_t L = 0; L < F.Locals.size(); ++L)
    if (F.Locals[L].Ty.isTile())
      Roles.emplace(L, Role::Acc);
  return Ok;
}

} // namespace cajeta::kir::tiles
