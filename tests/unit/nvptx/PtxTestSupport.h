// Shared helpers of the NVPTX tests: compiling sources, finding payloads, running ptxas.
#pragma once

#include "bundle/Manifest.h"
#include "compiler/driver/Compiler.h"
#include "compiler/lowering/llvm/NvptxPayloadBuilder.h"

#include <string>

namespace cajeta::test {

/// The PTX text of payload Target ("nvptx-sm_90") of P; empty when P has none.
std::string ptxOf(const bundle::Program& P, const std::string& Target);

/// The ptxas to test with (empty: tests that need it skip).
const std::string& testPtxas();

/// Assembles Ptx for architecture Sm with ptxas (the oldest architecture the ptxas knows at or
/// above Sm: CUDA 13 dropped sm_70 but assembles `.target sm_70` PTX for sm_75). Returns an
/// empty string on success, else what went wrong with ptxas's messages (also where ptxas
/// serialized wgmma: note C7520).
std::string assembleError(const std::string& Ptx, const std::string& Sm);

/// Frontend + NvptxPayloadBuilder on Source. Fails the test (and returns an empty result) when
/// the frontend rejects the source.
lowering::NvptxBuildResult buildSource(const std::string& Source, lowering::NvptxBuildOptions O);

/// The PTX for architecture Sm of Source with its tiles on the native tier; fails the test (and
/// returns an empty string) when it does not build.
std::string nativeTilePtx(const std::string& Source, const std::string& Sm);

/// The PTX of a build result as text.
inline std::string ptxText(const lowering::NvptxBuildResult& R) {
  return std::string(R.Payload.Bytes.begin(), R.Payload.Bytes.end());
}

/// The text of kernel entry cj_k_<Name> in Ptx, up to the next entry; empty when there is none.
std::string entryBody(const std::string& Ptx, const std::string& Name);

/// Number of non-overlapping occurrences of Needle in Hay.
size_t countOf(const std::string& Hay, const std::string& Needle);

} // namespace cajeta::test
