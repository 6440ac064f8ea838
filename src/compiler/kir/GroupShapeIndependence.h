// Whether a kernel can tell how its grid is cut into workgroups. A kernel that reads only its
// global coordinates (no local or group ids, no group or grid dimensions, no shared arrays,
// barriers, waves, tiles or helper calls that might) computes the same on every grouping of the
// same global size: the CPU runs such a kernel's workgroups of one row as one loop over global
// x, and narrows its workgroups in x where a launch has too few to give every thread work.
#pragma once

#include "compiler/kir/Kir.h"

namespace cajeta::kir {

class GroupShapeIndependence {
public:
  /// No LocalId or GroupId, no shared arrays and no calls (a helper might read them): a 1D
  /// launch is one range of global ids (the kernel may still read the group's dimensions).
  static bool readsOnlyGlobalCoordinates(const Function& F);
  /// readsOnlyGlobalCoordinates, and neither the group's nor the grid's dimensions, no barrier,
  /// wave op or tile: the kernel's results do not depend on the workgroup shape.
  static bool holds(const Function& F);
};

} // namespace cajeta::kir
