// Host CPU feature detection through __builtin_cpu_supports, keyed by LLVM feature names.
#include "runtime/backends/cpu/CpuFeatures.h"

#include "hostcpu/HostAmx.h"
#include "runtime/RuntimeError.h"

#include <cstring>
#include <fmt/format.h>
#include <sstream>

namespace cajeta::xpu::rt {

namespace {
struct FeatureProbe {
  const char* LlvmName;
  bool Present;
};
} // namespace

#define CAJETA_PROBE(Llvm, Gcc)                                                                    \
  { Llvm, __builtin_cpu_supports(Gcc) != 0 }

static const FeatureProbe* probes(size_t& Count) {
  __builtin_cpu_init();
  static const FeatureProbe Table[] = {
      CAJETA_PROBE("cmov", "cmov"),
      CAJETA_PROBE("mmx", "mmx"),
      CAJETA_PROBE("popcnt", "popcnt"),
      CAJETA_PROBE("sse", "sse"),
      CAJETA_PROBE("sse2", "sse2"),
      CAJETA_PROBE("sse3", "sse3"),
      CAJETA_PROBE("ssse3", "ssse3"),
      CAJETA_PROBE("sse4.1", "sse4.1"),
      CAJETA_PROBE("sse4.2", "sse4.2"),
      CAJETA_PROBE("sse4a", "sse4a"),
      CAJETA_PROBE("avx", "avx"),
      CAJETA_PROBE("avx2", "avx2"),
      CAJETA_PROBE("fma", "fma"),
      CAJETA_PROBE("fma4", "fma4"),
      CAJETA_PROBE("xop", "xop"),
      CAJETA_PROBE("bmi", "bmi"),
      CAJETA_PROBE("bmi2", "bmi2"),
      CAJETA_PROBE("aes", "aes"),
      CAJETA_PROBE("pclmul", "pclmul"),
      CAJETA_PROBE("f16c", "f16c"),
      CAJETA_PROBE("lzcnt", "lzcnt"),
      CAJETA_PROBE("movbe", "movbe"),
      CAJETA_PROBE("adx", "adx"),
      CAJETA_PROBE("sha", "sha"),
      CAJETA_PROBE("gfni", "gfni"),
      CAJETA_PROBE("vpclmulqdq", "vpclmulqdq"),
      CAJETA_PROBE("avxvnni", "avxvnni"),
      CAJETA_PROBE("avx512f", "avx512f"),
      CAJETA_PROBE("avx512bw", "avx512bw"),
      CAJETA_PROBE("avx512dq", "avx512dq"),
      CAJETA_PROBE("avx512vl", "avx512vl"),
      CAJETA_PROBE("avx512cd", "avx512cd"),
      CAJETA_PROBE("avx512vbmi", "avx512vbmi"),
      CAJETA_PROBE("avx512vbmi2", "avx512vbmi2"),
      CAJETA_PROBE("avx512ifma", "avx512ifma"),
      CAJETA_PROBE("avx512vnni", "avx512vnni"),
      CAJETA_PROBE("avx512bf16", "avx512bf16"),
      CAJETA_PROBE("avx512fp16", "avx512fp16"),
      CAJETA_PROBE("avx512bitalg", "avx512bitalg"),
      CAJETA_PROBE("avx512vpopcntdq", "avx512vpopcntdq"),
      // AMX counts only with the OS's permission for its tile data (asked for here, once).
      {"amx-tile", hostcpu::hostAmx().Tile},
      {"amx-bf16", hostcpu::hostAmx().Bf16},
      {"amx-int8", hostcpu::hostAmx().Int8},
  };
  Count = sizeof(Table) / sizeof(Table[0]);
  return Table;
}

#undef CAJETA_PROBE

std::string firstMissingCpuFeature(const std::string& Features) {
  size_t Count = 0;
  const FeatureProbe* Table = probes(Count);
  std::stringstream In(Features);
  std::string Item;
  while (std::getline(In, Item, ',')) {
    if (Item.size() < 2 || Item[0] != '+')
      continue;
    std::string Name = Item.substr(1);
    for (size_t I = 0; I != Count; ++I)
      if (Name == Table[I].LlvmName && !Table[I].Present)
        return Name;
  }
  return "";
}

void requireCpuFeatures(const std::string& Features, const std::string& What) {
  std::string Missing = firstMissingCpuFeature(Features);
  if (!Missing.empty())
    fail(CAJETA_XPU_BUNDLE_ERROR,
         fmt::format("{}: compiled for CPU feature '{}', which this host lacks (payload features: "
                     "{}); rebuild for this machine, e.g. with --cpu=native",
                     What, Missing, Features));
}

} // namespace cajeta::xpu::rt
