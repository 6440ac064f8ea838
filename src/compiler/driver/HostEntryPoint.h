// Which host method a whole program starts at: shared by `cajeta run`, `cajeta build --exe` and
// the host payload of a bundle (its "entry" and "methods" attributes), so all pick the same one
// and refuse the same programs.
#pragma once

#include "compiler/kir/Kir.h"

#include <string>
#include <vector>

namespace cajeta::driver {

/// Whether F can be an entry point: a method of Host other than its static initialiser that
/// takes no parameters and returns void or int32.
bool isRunnable(const kir::Module& Host, const kir::Function& F);

/// Every runnable method of Host, in declaration order.
std::vector<const kir::Function*> runnableMethods(const kir::Module& Host);

/// The entry point of Host: Wanted (--main's Class.method) when given, else the only `main`,
/// else the only parameterless host method (the static initialiser is none of them); each must
/// take no parameters and return void or int32. Null with Error set (no entry point, several,
/// or Wanted missing or unfit).
const kir::Function* findEntry(const kir::Module& Host, const std::string& Wanted,
                               std::string& Error);

/// The function that gives Host's static fields their initial values (kir::Module::StaticInit),
/// which runs before the entry point; null when there is none.
const kir::Function* staticInitializer(const kir::Module& Host);

} // namespace cajeta::driver
