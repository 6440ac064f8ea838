// The bundle manifest as JSON: everything in a Program except the payload bytes.
#pragma once

#include "bundle/Manifest.h"

#include <nlohmann/json.hpp>
#include <string>

namespace cajeta::bundle {

/// The manifest of \p P as JSON. Layout (keys are camelCase):
///   { "compilerVersion": str, "cacheKey": str (optional: JIT cache entries),
///     "kernels": [ { "name", "sourceFile", "sourceLine",
///                    "params": [ { "name", "kind", "type", "access" } ],
///                    "targets": { "<target>": { "symbol", "codeHash" (16 hex digits),
///                                               "registers", "spillBytes",
///                                               "staticSharedBytes",
///                                               "scheduling" (optional): {
///                                                 "bytesRead", "bytesWritten", "operations",
///                                                 "buffers": [ { "param", "accumulates",
///                                                   "streaming", "bytesRead",
///                                                   "bytesWritten" } ],
///                                                 "tileRows", "tileCols", "restartable",
///                                                 "yieldPoints" } } } } ],
/// A cost is an array of terms { "coefficient": number, "variables": [ str ] } (a variable: a
/// scalar parameter's name, "items" or "groups") or { "unknown": reason }.
///     "payloads": [ { "target", "format", "attributes": { str: str }, "size" } ] }
/// Payloads are listed in the order of P.Payloads; "size" is the byte count of each.
nlohmann::json manifestToJson(const Program& P);

/// Parses what manifestToJson wrote. On a missing or mistyped field (or an unknown enum name,
/// a duplicate kernel name or payload target, a cost variable that is not a scalar parameter of
/// its kernel nor items / groups, a non-finite coefficient, a scheduling buffer entry that is not
/// a buffer parameter) returns false and sets \p Error to a message
/// naming the field path, e.g. "manifest field 'kernels[1].params[0].type' is missing"; \p Out
/// is then left unchanged. On success the payloads in \p Out carry target, format and
/// attributes but empty Bytes (the bytes live in the bundle's payload sections). Never throws.
bool manifestFromJson(const nlohmann::json& J, Program& Out, std::string& Error);

} // namespace cajeta::bundle
