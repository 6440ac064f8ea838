// A kernel's parameter list as one canonical string, the record a CPU payload carries beside each
// entry so that the loader can tell whether a manifest describes the code it is paired with.
#pragma once

#include "bundle/Manifest.h"

#include <string>

namespace cajeta::bundle {

/// The symbol under which a CPU payload stores the record of the entry Symbol (a NUL-terminated
/// string; dlsym finds it).
std::string kernelAbiRecordSymbol(const std::string& Symbol);

/// One item per parameter, comma-separated: "b<element bytes>" for a buffer (an acceleration
/// structure is "a4"), "s<scalar type name>" for a scalar, "f" for a function tag and
/// "p<size>.<align>" for a POD. Two parameter lists marshal the same way iff their records are
/// equal.
std::string kernelAbiRecord(const std::vector<ParamInfo>& Params);

/// "" when the record a payload (Where: "cpu payload", "PTX", ...) holds for entry Symbol agrees
/// with kernel K's manifest; otherwise what disagrees, naming the kernel. Have is null when the
/// payload holds no record for the entry.
std::string checkKernelAbiRecord(const KernelInfo& K, const char* Where, const std::string* Have,
                                 const std::string& Symbol);

} // namespace cajeta::bundle
