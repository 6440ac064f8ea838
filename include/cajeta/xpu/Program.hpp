// Programs (loaded bundles or JIT-compiled sources), their kernels, and typed launches.
#pragma once

#include "cajeta/xpu/AccelerationStructure.hpp"
#include "cajeta/xpu/Buffer.hpp"
#include "cajeta/xpu/Submission.hpp"

#include <array>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace cajeta::xpu {

struct Dim3 {
  uint32_t x = 1, y = 1, z = 1;
};
inline Dim3 grid(uint32_t X, uint32_t Y = 1, uint32_t Z = 1) {
  return Dim3{X, Y, Z};
}
inline Dim3 block(uint32_t X, uint32_t Y = 1, uint32_t Z = 1) {
  return Dim3{X, Y, Z};
}

/// A @Device static passed to a kernel's function parameter (`Fn<...>`), by qualified name; the
/// launch resolves it through the parameter's function table.
struct DeviceFunction {
  const char* name;
};
inline DeviceFunction deviceFunction(const char* QualifiedName) {
  return DeviceFunction{QualifiedName};
}

struct CompileOptions {
  bool checkBounds = false;
  std::string cpu = "native";
  bool useCache = true;
};

namespace detail {

template <class T> cajeta_xpu_arg toArg(KernelBuffer<T>& B) {
  cajeta_xpu_arg A{};
  A.kind = CAJETA_XPU_ARG_BUFFER;
  A.type = scalarTypeOf<T>();
  A.value.buffer = B.handle();
  return A;
}
template <class T> cajeta_xpu_arg toArg(const KernelBuffer<T>& B) {
  return toArg(const_cast<KernelBuffer<T>&>(B));
}
template <class T>
requires std::is_arithmetic_v<T> cajeta_xpu_arg toArg(T V) {
  cajeta_xpu_arg A{};
  A.kind = CAJETA_XPU_ARG_SCALAR;
  A.type = scalarTypeOf<T>();
  A.value.bits = 0;
  if constexpr (std::is_same_v<T, bool>)
    A.value.bits = V ? 1 : 0;
  else
    std::memcpy(&A.value.bits, &V, sizeof(T)); // little-endian: the low bytes
  return A;
}

inline cajeta_xpu_arg toArg(float16 V) {
  cajeta_xpu_arg A{};
  A.kind = CAJETA_XPU_ARG_SCALAR;
  A.type = CAJETA_XPU_FLOAT16;
  A.value.bits = V.bits();
  return A;
}
inline cajeta_xpu_arg toArg(bfloat16 V) {
  cajeta_xpu_arg A{};
  A.kind = CAJETA_XPU_ARG_SCALAR;
  A.type = CAJETA_XPU_BFLOAT16;
  A.value.bits = V.bits();
  return A;
}
inline cajeta_xpu_arg toArg(DeviceFunction F) {
  cajeta_xpu_arg A{};
  A.kind = CAJETA_XPU_ARG_FUNCTION;
  A.value.function = F.name;
  return A;
}

/// A trivially copyable struct is a POD argument: its bytes in C layout, copied at launch.
template <class T>
inline constexpr bool IsPodArg =
    std::is_class_v<T>&& std::is_trivially_copyable_v<T> && !std::is_same_v<T, float16> &&
    !std::is_same_v<T, bfloat16> && !std::is_same_v<T, DeviceFunction> &&
    !std::is_same_v<T, AccelerationStructure>;

template <class T>
requires IsPodArg<T> cajeta_xpu_arg toArg(const T& V) {
  cajeta_xpu_arg A{};
  A.kind = CAJETA_XPU_ARG_POD;
  A.value.pod.data = &V;
  A.value.pod.size = sizeof(T);
  return A;
}

using ProgramRef = std::shared_ptr<cajeta_xpu_program>;

} // namespace detail

/// Binds arguments to a launch: launcher(args...) checks them and enqueues the kernel.
class Launcher {
public:
  template <class... Args> void operator()(Args&&... As) const {
    std::array<cajeta_xpu_arg, sizeof...(Args)> Packed{detail::toArg(As)...};
    detail::check(cajeta_xpu_kernel_launch_shared(K, S, G.data(), B.data(), DynamicShared,
                                                  Packed.data(), Packed.size()));
  }

private:
  friend class Kernel;
  Launcher(cajeta_xpu_kernel* K, cajeta_xpu_stream* S, Dim3 Grid, Dim3 Block,
           uint32_t DynamicShared)
      : K(K), S(S), G{Grid.x, Grid.y, Grid.z}, B{Block.x, Block.y, Block.z},
        DynamicShared(DynamicShared) {}
  cajeta_xpu_kernel* K;
  cajeta_xpu_stream* S;
  std::array<uint32_t, 3> G;
  std::array<uint32_t, 3> B;
  uint32_t DynamicShared;
};

/// Binds arguments to a submission: submitter(args...) checks them, submits the launch and
/// returns its resource descriptor.
class Submitter {
public:
  template <class... Args> ResourceDescriptor operator()(Args&&... As) const {
    std::array<cajeta_xpu_arg, sizeof...(Args)> Packed{detail::toArg(As)...};
    cajeta_xpu_resource_descriptor D{};
    D.size = sizeof(D);
    detail::check(cajeta_xpu_kernel_submit(K, &Sub.raw(), G.data(), B.data(), DynamicShared,
                                           Packed.data(), Packed.size(), &D));
    return ResourceDescriptor::fromC(D);
  }

private:
  friend class Kernel;
  Submitter(cajeta_xpu_kernel* K, const KernelSubmission& Sub, Dim3 Grid, Dim3 Block,
            uint32_t DynamicShared)
      : K(K), Sub(Sub), G{Grid.x, Grid.y, Grid.z}, B{Block.x, Block.y, Block.z},
        DynamicShared(DynamicShared) {}
  cajeta_xpu_kernel* K;
  KernelSubmission Sub;
  std::array<uint32_t, 3> G;
  std::array<uint32_t, 3> B;
  uint32_t DynamicShared;
};

/// What a kernel's loaded code needs (cajeta_xpu_kernel_footprint): registers and local bytes
/// per work-item, static shared bytes per workgroup, and the most work-items per workgroup its
/// code allows (0: no limit of its own).
struct KernelFootprint {
  uint32_t registers = 0;
  uint32_t localBytes = 0;
  uint32_t sharedBytes = 0;
  uint32_t maxThreads = 0;
};

class Kernel {
public:
  /// Launch on S with the given grid (workgroups) and block (work-items per workgroup), and the
  /// byte size of the kernel's dynamic shared array (`shared T[]`) if it has one.
  Launcher launch(KernelStream& S, Dim3 Grid, Dim3 Block, uint32_t DynamicSharedBytes = 0) const {
    return Launcher(K, S.handle(), Grid, Block, DynamicSharedBytes);
  }
  /// Launch as a submission (spec 17.8): its policy, window, budgets, capture identity and
  /// stream; the call returns the resource descriptor. A closed window throws DeadlineMissed.
  Submitter launch(const KernelSubmission& Sub, Dim3 Grid, Dim3 Block,
                   uint32_t DynamicSharedBytes = 0) const {
    return Submitter(K, Sub, Grid, Block, DynamicSharedBytes);
  }
  std::string name() const { return cajeta_xpu_kernel_name(K); }
  /// "native" or "portable": the tier of the kernel's tiles ("tiles") or wave ops ("waves") in
  /// the code loaded for its device; "" where it has none.
  std::string tier(const std::string& Feature) const {
    return cajeta_xpu_kernel_tier(K, Feature.c_str());
  }
  KernelFootprint footprint() const {
    cajeta_xpu_kernel_footprint F{};
    detail::check(cajeta_xpu_kernel_footprint_get(K, &F));
    return KernelFootprint{F.registers, F.local_bytes, F.shared_bytes, F.max_threads};
  }
  cajeta_xpu_kernel* handle() const { return K; }

private:
  friend class Program;
  Kernel(detail::ProgramRef P, cajeta_xpu_kernel* K) : P(std::move(P)), K(K) {}
  detail::ProgramRef P; // keeps the program loaded
  cajeta_xpu_kernel* K;
};

class Program {
public:
  /// JIT through libcajeta_compiler.so, with the on-disk cache.
  static Program compileFile(const std::string& Path, const CompileOptions& O = {}) {
    cajeta_xpu_compile_options C = toC(O);
    cajeta_xpu_program* P = nullptr;
    detail::check(cajeta_xpu_program_compile_file(Path.c_str(), &C, &P));
    return Program(P);
  }
  static Program compileSource(const std::string& Source, const std::string& FileName,
                               const CompileOptions& O = {}) {
    cajeta_xpu_compile_options C = toC(O);
    cajeta_xpu_program* P = nullptr;
    detail::check(
        cajeta_xpu_program_compile_source(Source.data(), Source.size(), FileName.c_str(), &C, &P));
    return Program(P);
  }
  static Program load(const std::string& BundlePath) {
    cajeta_xpu_program* P = nullptr;
    detail::check(cajeta_xpu_program_load_file(BundlePath.c_str(), &P));
    return Program(P);
  }
  /// On a chosen device (xpu::devices()), e.g. to run the same bundle on CUDA and Vulkan in one
  /// process; BackendUnavailable when the bundle has no payload for its backend.
  static Program load(const std::string& BundlePath, const Device& On) {
    cajeta_xpu_program* P = nullptr;
    detail::check(cajeta_xpu_program_load_file_on(BundlePath.c_str(), On.handle(), &P));
    return Program(P);
  }
  static Program compileFile(const std::string& Path, const CompileOptions& O, const Device& On) {
    cajeta_xpu_compile_options C = toC(O);
    cajeta_xpu_program* P = nullptr;
    detail::check(cajeta_xpu_program_compile_file_on(Path.c_str(), &C, On.handle(), &P));
    return Program(P);
  }
  static Program loadMemory(const void* Data, size_t Size) {
    cajeta_xpu_program* P = nullptr;
    detail::check(cajeta_xpu_program_load_memory(Data, Size, &P));
    return Program(P);
  }

  /// By qualified name ("K.saxpy"); an unknown name throws NotFound listing the available ones.
  Kernel kernel(const std::string& QualifiedName) const {
    cajeta_xpu_kernel* K = nullptr;
    detail::check(cajeta_xpu_program_kernel(P.get(), QualifiedName.c_str(), &K));
    return Kernel(P, K);
  }
  std::vector<std::string> kernelNames() const {
    std::vector<std::string> Names;
    for (size_t I = 0, N = cajeta_xpu_program_kernel_count(P.get()); I != N; ++I)
      Names.emplace_back(cajeta_xpu_kernel_name(cajeta_xpu_program_kernel_at(P.get(), I)));
    return Names;
  }
  Device device() const { return Device(cajeta_xpu_program_device(P.get())); }
  /// Whether the JIT found the program in its cache.
  bool fromCache() const { return cajeta_xpu_program_from_cache(P.get()) != 0; }
  cajeta_xpu_program* handle() const { return P.get(); }

private:
  explicit Program(cajeta_xpu_program* Raw) : P(Raw, cajeta_xpu_program_release) {}
  static cajeta_xpu_compile_options toC(const CompileOptions& O) {
    return cajeta_xpu_compile_options{sizeof(cajeta_xpu_compile_options), O.checkBounds ? 1 : 0,
                                      O.cpu.c_str(), O.useCache ? 1 : 0};
  }
  detail::ProgramRef P;
};

/// The JIT cache directory the environment selects now ("" when there is none).
inline std::string jitCacheDirectory() {
  return cajeta_xpu_jit_cache_dir();
}

/// Trusts the Ed25519 public key in a PEM file (`cajeta keygen` writes NAME.pub) for the rest of
/// the process: from then on every bundle loaded from a file or from memory must be signed by a
/// trusted key (`cajeta sign`), else loading throws BundleError; programs the process
/// JIT-compiles are its own and load unsigned (docs/trust.md). Throws Error when the file is no
/// such key. CAJETA_XPU_TRUSTED_KEYS names key files the same way.
inline void trustKeyFile(const std::string& Path) {
  detail::check(cajeta_xpu_trust_key_file(Path.c_str()));
}

/// How many keys are trusted now; 0 means bundles load unsigned.
inline size_t trustedKeyCount() {
  size_t N = 0;
  detail::check(cajeta_xpu_trusted_key_count(&N));
  return N;
}

} // namespace cajeta::xpu
