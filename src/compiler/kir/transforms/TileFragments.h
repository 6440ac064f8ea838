// The tiles' roles and the native tiers' fragment shapes, shared by kir::TileLowering (which
// rewrites tiles into them) and its tier rules (TileTierRules, which decide whether a program's
// tiles fit them): the role each tile plays in Group.mac, PTX's mma.sync fragment layouts, and
// SPIR-V's cooperative-matrix fragment types.
#pragma once

#include "compiler/kir/Kir.h"

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace cajeta::kir::tiles {

enum class Role : uint8_t { Acc, A, B };

/// "an accumulator", "the a operand", "the b operand".
const char* roleName(Role R);

/// "line N" of L, for the tier notes.
std::string at(SourceLoc L);

// ---- the mma.sync fragment layout

/// Inputs per 32-bit fragment register of the a and b operands: two 16-bit, four 8-bit (one
/// for everything else: accumulators hold an element per register).
uint32_t inputsPerRegister(ScalarType Elem);

/// Where fragment element J of a tile of role R and shape Rows x Cols lies: element (RowConst +
/// (RowFromLaneGroup ? g : P t), ColConst + (RowFromLaneGroup ? P t : g)), where g = lane / 4,
/// t = lane % 4 and P is TScale (PTX ISA, "Matrix Fragments for mma.m16n8k16" and
/// "... for mma.m16n8k32").
struct FragmentElement {
  uint32_t RowConst = 0, ColConst = 0;
  bool RowFromLaneGroup = true;
  uint32_t TScale = 2;
};

/// The layout of an m16n8kK product whose a and b pack P inputs per register (K = 8P: 16 for
/// 16-bit inputs, 32 for 8-bit). Register r of a block holds its elements P r .. P r + P - 1.
std::vector<FragmentElement> fragmentLayout(Role R, uint32_t Rows, uint32_t Cols, uint32_t P);

/// The mma.sync fragment block of role R for a tile of type T (rows, columns).
std::pair<uint32_t, uint32_t> fragmentBlock(Role R, Type T);

/// Whether a tile of type T in role R is a whole number of mma.sync fragment blocks.
bool shapeFits(Role R, Type T);

// ---- the cooperative-matrix fragments

/// K of a fragment whose a and b hold Elem: 32 for 8-bit integers (the 16x16x32 shapes), else 16.
uint32_t fragmentK(ScalarType Elem);

/// The fragment type of a tile of type T in role R (SPIR-V's use numbering: a 0, b 1, acc 2).
Type fragmentType(Role R, Type T);

/// The role of each tile local of F (by local index), from its uses in Mac; a tile never in a
/// Mac is an accumulator. False with Why when a tile plays two roles.
bool inferRoles(const Function& F, std::map<uint32_t, Role>& Roles, std::string& Why);

} // namespace cajeta::kir::tiles
