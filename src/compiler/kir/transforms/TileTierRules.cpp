// The native tile tiers' rules (TileTierRules.h).
#include "compiler/kir/transforms/TileTierRules.h"

#include "compiler/kir/Walk.h"
#include "compiler/kir/transforms/TileFragments.h"
#include "compiler/kir/transforms/TileLowering.h"

#include <functional>
#include <map>

namespace cajeta::kir::tiles {
namespace {

/// What a native tier asks of a function's tiles (functionFits).
struct NativeRules {
  /// "" where tile L of role R fits, else what does not (after "tile 'x' (type, line) as role").
  std::function<std::string(Role R, const Local& L)> TileProblem;
  std::function<bool(ScalarType In, ScalarType Acc)> ProductFits;
  const char* Products; // "(the mma.sync tier takes float16 into float32)"
  /// Whether add / convertFrom may combine tiles of these roles and types (their layouts).
  std::function<bool(Role To, Type ToTy, Role From, Type FromTy)> SameLayout;
  const char* LayoutNote; // " (their fragment layouts differ)"
};

/// Whether every tile of F has the native tier's form: roles, shapes and element types, the
/// products of its macs, and the layouts that add and convertFrom combine.
bool functionFits(const Function* F, const NativeRules& Rules, std::string& Why) {
  std::map<uint32_t, Role> Roles;
  if (!inferRoles(*F, Roles, Why))
    return false;
  for (auto [L, R] : Roles) {
    const Local& Loc = F->Locals[L];
    if (std::string Problem = Rules.TileProblem(R, Loc); !Problem.empty()) {
      Why = "tile '" + Loc.Name + "' (" + Loc.Ty.str() + ", " + at(Loc.Loc) + ") as " +
            roleName(R) + " " + Problem;
      return false;
    }
  }
  bool Ok = true;
  forEachExprIn(F->Body, [&](const Expr* E) {
    if (!Ok || E->K != Expr::Kind::Tile)
      return;
    if (E->TOp == TileOp::Mac) {
      ScalarType In = F->Locals[E->Ops[0]->Index].Ty.Elem, Acc = F->Locals[E->Index].Ty.Elem;
      if (!Rules.ProductFits(In, Acc)) {
        Why = std::string("Group.mac of ") + bundle::scalarTypeName(In) + " into " +
              bundle::scalarTypeName(Acc) + " at " + at(E->Loc) + " " + Rules.Products;
        Ok = false;
      }
    } else if (E->TOp == TileOp::Add || E->TOp == TileOp::Convert) {
      uint32_t To = E->Index, From = E->Ops[0]->Index;
      if (!Rules.SameLayout(Roles[To], F->Locals[To].Ty, Roles[From], F->Locals[From].Ty)) {
        Why = std::string("'") + tileOpName(E->TOp) + "' at " + at(E->Loc) + " combines " +
              roleName(Roles[From]) + " tile with " + roleName(Roles[To]) + " tile" +
              Rules.LayoutNote;
        Ok = false;
      }
    }
  });
  return Ok;
}

} // namespace

bool functionFitsMmaSync(const Function* F, std::string& Why) {
  static const NativeRules Rules{
      [](Role R, const Local& L) -> std::string {
        if (shapeFits(R, L.Ty))
          return "";
        auto [Rows, Cols] = fragmentBlock(R, L.Ty);
        return "is not a whole number of " + std::to_string(Rows) + "x" + std::to_string(Cols) +
               " fragments";
      },
      [](ScalarType In, ScalarType Acc) {
        if (In == ScalarType::F16 || In == ScalarType::BF16)
          return Acc == ScalarType::F32;
        return (In == ScalarType::I8 || In == ScalarType::U8) && Acc == ScalarType::I32;
      },
      "(the mma.sync tier takes float16 or bfloat16 into float32, and int8 or uint8 into int32)",
      [](Role To, Type ToTy, Role From, Type FromTy) {
        // a and b registers pack two 16-bit or four 8-bit inputs: one layout per width.
        return To == From &&
               (To == Role::Acc || inputsPerRegister(ToTy.Elem) == inputsPerRegister(FromTy.Elem));
      },
      " (their fragment layouts differ)"};
  return functionFits(F, Rules, Why);
}

bool functionFitsCoopMatrix(const Function* F, std::string& Why) {
  static const NativeRules Rules{
      [](Role R, const Local& L) -> std::string {
        const ScalarType E = L.Ty.Elem;
        bool TypeFits = R == Role::Acc
                            ? E == ScalarType::F32 || E == ScalarType::F16 || E == ScalarType::I32
                            : E == ScalarType::F16 || E == ScalarType::BF16 ||
                                  E == ScalarType::I8 || E == ScalarType::U8;
        if (!TypeFits)
          return "has no cooperative-matrix element type (a and b: float16, bfloat16, int8, "
                 "uint8; accumulators: float32, float16, int32)";
        const Type Frag = fragmentType(R, L.Ty);
        if (L.Ty.Rows % Frag.Rows || L.Ty.Cols % Frag.Cols)
          return "is not a whole number of " + std::to_string(Frag.Rows) + "x" +
                 std::to_string(Frag.Cols) + " fragments";
        return "";
      },
      [](ScalarType In, ScalarType Acc) {
        if (In == ScalarType::F16)
          return Acc == ScalarType::F32 || Acc == ScalarType::F16;
        if (In == ScalarType::BF16)
          return Acc == ScalarType::F32;
        return Acc == ScalarType::I32;
      },
      "(cooperative matrices take float16 into float32 or float16, bfloat16 into float32, and "
      "int8 or uint8 into int32)",
      [](Role To, Type ToTy, Role From, Type FromTy) {
        return To == From && fragmentType(To, ToTy).Rows == fragmentType(From, FromTy).Rows;
      },
      " of another fragment shape"};
  return functionFits(F, Rules, Why);
}

/// The CPU tier's products: bfloat16 into float32 (with Bf16: AVX512-BF16) and int8 or uint8
/// into int32 (with Int8: AVX512-VNNI), every tile row-major in shared memory, in whole blocks.
bool functionFitsCpuDot(const Function* F, bool Bf16, bool Int8, std::string& Why) {
  const NativeRules Rules{
      [](Role R, const Local& L) -> std::string {
        // Rows and columns in the kernels' blocks: a and the accumulator 4 rows, b and the
        // accumulator 16 columns, the depth (a's columns, b's rows) in pairs of bfloat16 or
        // quads of bytes.
        const uint32_t Depth = bundle::scalarTypeSize(L.Ty.Elem) == 1 ? 4 : 2;
        const uint32_t RowStep = R == Role::B ? Depth : 4, ColStep = R == Role::A ? Depth : 16;
        if (L.Ty.Rows % RowStep || L.Ty.Cols % ColStep)
          return "is not a whole number of " + std::to_string(RowStep) + "x" +
                 std::to_string(ColStep) + " blocks";
        return "";
      },
      [Bf16, Int8](ScalarType In, ScalarType Acc) {
        if (In == ScalarType::BF16)
          return Bf16 && Acc == ScalarType::F32;
        return Int8 && (In == ScalarType::I8 || In == ScalarType::U8) && Acc == ScalarType::I32;
      },
      Bf16&& Int8 ? "(the CPU's native tier takes bfloat16 into float32 and int8 or uint8 into "
                    "int32)"
      : Bf16      ? "(the AVX512-BF16 tier takes bfloat16 into float32)"
                  : "(the AVX512-VNNI tier takes int8 or uint8 into int32)",
      [](Role, Type, Role, Type) { return true; }, // every tile is row-major in shared memory
      ""};
  return functionFits(F, Rules, Why);
}

} // namespace cajeta::kir::tiles

namespace cajeta::kir {

using namespace tiles;

bool TileLowering::fitsCpuDot(const Module& M, bool Bf16, bool Int8, std::string& Why) {
  for (const auto& F : M.Functions)
    if (!functionFitsCpuDot(F.get(), Bf16, Int8, Why))
      return false;
  return true;
}

bool TileLowering::fitsCoopMatrix(const Module& M, std::string& Why) {
  bool Any = false;
  for (const auto& F : M.Functions) {
    bool Has = false;
    for (const Local& L : F->Locals)
      Has = Has || L.Ty.isTile();
    std::string Reason;
    if (!Has)
      continue;
    if (functionFitsCoopMatrix(F.get(), Reason))
      Any = true;
    else if (Why.empty())
      Why = "in '" + F->Name + "', " + Reason;
  }
  return Any;
}

bool TileLowering::fitsMmaSync(const Module& M, std::string& Why) {
  for (const auto& F : M.Functions)
    if (!functionFitsMmaSync(F.get(), Why))
      return false;
  return true;
}

} // namespace cajeta::kir
