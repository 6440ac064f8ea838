// The contract between SPIR-V kernels (emitted by lowering::spirv::SpirvEmitter) and the runtime's
// Vulkan backend: payloads, descriptor bindings, the parameter block, specialisation constants, the
// status buffer and the capabilities a device must have. Plain C, like the other ABI headers.
//
// PAYLOADS. One payload per kernel available on "vulkan": bundle::Payload::Target is
// "spirv:<kernel name>" (e.g. "spirv:K.saxpy"), Format "spirv", Bytes the SPIR-V 1.3 module
// (little-endian 32-bit words, passable to vkCreateShaderModule as is), valid for Vulkan 1.1
// (the runtime validates it before the driver sees it) and carrying the kernel's parameter record
// (bundle/KernelAbiRecord.h) as OpModuleProcessed "cajeta-abi <record>". The kernel's
// TargetManifest is under the key "spirv" (KernelInfo::Targets["spirv"]); its Symbol is the
// module's OpEntryPoint name (GLCompute), StaticSharedBytes the sum of its static shared arrays.
// Payload attributes (all strings):
//   "kernel"          the kernel's qualified name
//   "entry"           the entry point name (== TargetManifest::Symbol)
//   "vulkan_abi"      CAJETA_VULKAN_KERNEL_ABI_VERSION
//   "spirv_version"   "1.3" (valid for Vulkan 1.1 and later), or "1.4" for a module whose shared
//                     arrays are one explicitly laid-out pool (the cooperative-matrix variant of
//                     a kernel with staged copies: Vulkan 1.2 or VK_KHR_spirv_1_4, and
//                     WorkgroupMemoryExplicitLayout*KHR -> workgroupMemoryExplicitLayout*)
//   "capabilities"    comma-separated OpCapability names the module declares; the runtime checks
//                     the device before creating the pipeline:
//                       Shader (always)
//                       Int8 / Int16 / Int64 / Float16 / Float64 -> shaderInt8 (VK 1.2
//                         shaderFloat16Int8), shaderInt16, shaderInt64, shaderFloat16,
//                         shaderFloat64
//                       StorageBuffer8BitAccess  -> storageBuffer8BitAccess (VK_KHR_8bit_storage)
//                       StorageBuffer16BitAccess -> storageBuffer16BitAccess (VK_KHR_16bit_storage)
//                       Int64Atomics -> shaderBufferInt64Atomics (and shaderSharedInt64Atomics if a
//                         shared array takes 64-bit atomics)
//                       AtomicFloat32AddEXT / AtomicFloat64AddEXT -> VK_EXT_shader_atomic_float
//                         shaderBufferFloat32AtomicAdd / shaderBufferFloat64AtomicAdd
//                       Wave ops (VkPhysicalDeviceSubgroupProperties, supportedStages must
//                       include COMPUTE):
//                         GroupNonUniform (every wave op; SubgroupSize and
//                           SubgroupLocalInvocationId) -> VK_SUBGROUP_FEATURE_BASIC_BIT and a
//                           subgroupSize of 4..64, a power of two
//                         GroupNonUniformVote (Wave.all/any) -> VK_SUBGROUP_FEATURE_VOTE_BIT
//                         GroupNonUniformBallot (ballot, broadcastFirst) -> ..._BALLOT_BIT
//                         GroupNonUniformShuffle (shuffles, rotate, float and 64-bit integer
//                           reductions and scans) -> ..._SHUFFLE_BIT
//                         GroupNonUniformArithmetic (32-bit integer reductions and scans) ->
//                           ..._ARITHMETIC_BIT
//                       No extended subgroup types are needed: subgroup instructions see only
//                       32-bit words (64-bit values as two, bool/int8/int16/float16 widened).
//   "extensions"      comma-separated OpExtension names (device extensions of the same name with
//                     VK_ instead of SPV_: SPV_KHR_8bit_storage -> VK_KHR_8bit_storage, ...)
//   "float_atomic_add" "native" (OpAtomicFAddEXT) or "cas" (compare-exchange loop, any device)
//   "param_block"     "none", "push-constant" or "uniform" (see PARAMETER BLOCK)
//   "param_block_bytes" its size in bytes
//   "param_slots"     "param:offset:size" for each scalar, function-tag or POD parameter, comma-
//                     separated (the same numbers as below, for a runtime that does not want to
//                     recompute them)
//   "check_bounds"    "1" when built with --check-bounds, else "0"
//   "dynamic_shared_element_bytes" element size of the dynamic shared array ("0": none)
//
// DESCRIPTORS. One descriptor set, set 0:
//   binding i (i = KIR parameter index) for each ParamKind::Buffer parameter i: a
//     VK_DESCRIPTOR_TYPE_STORAGE_BUFFER whose memory is the element array, tightly packed
//     (stride = element size; bool as one byte 0/1, float16 as its IEEE binary16 bits). The
//     shader sizes it with OpArrayLength, so the bound range must be exactly count * element
//     size (buf.length() and --check-bounds read it). A buffer the kernel never touches has no
//     variable in the module; binding it anyway is harmless.
//   binding P (P = number of KIR parameters), only with "check_bounds" "1": the status buffer, a
//     STORAGE_BUFFER holding one CajetaVkStatus (24 bytes), zero before the first launch.
//   binding P + 1, only with "param_block" "uniform": the parameter block as a UNIFORM_BUFFER.
//
// PARAMETER BLOCK. Scalars, function tags and PODs, in parameter order, packed by these rules
// (buffers take no space):
//   a scalar of 64 bits: 8 bytes, 8-aligned, little-endian
//   any other scalar: one 4-byte slot, 4-aligned, holding the value in its low bytes (bool: 0/1;
//     int8/int16: the value's bits, upper bytes ignored; float16: its binary16 bits in the low
//     two bytes)
//   a function tag: a uint32 slot
//   a POD: its PodSize bytes in C layout (PodFieldInfo::Offset), padded to a multiple of 4,
//     aligned to max(4, PodAlign)
// The block is the push-constant range [0, param_block_bytes) of the pipeline layout (stage
// COMPUTE) when param_block_bytes <= 128 (the size every Vulkan device guarantees); above that
// it is a uniform buffer at binding P + 1 with the same bytes (the shader reads it as an array
// of uvec4, so the layout is identical).
//
// SPECIALISATION CONSTANTS (uint32):
//   id 0, 1, 2  the workgroup size x, y, z (the WorkgroupSize builtin): Workgroup.dimX() etc.
//               The runtime sets them to the launch's block size (pipelines cached per size);
//               the default is 1, 1, 1.
//   id 3        the element count of the kernel's dynamic shared array (dynamic shared bytes /
//               element size), default 1; only present when "dynamic_shared_element_bytes" != 0.
// Dispatch: vkCmdDispatch(grid.x, grid.y, grid.z); Workgroup.countX() is NumWorkgroups. A kernel
// whose "grid_count" attribute is "unread" never reads NumWorkgroups, so the runtime may dispatch
// its grid in pieces (vkCmdDispatchBase, the pipeline made with DISPATCH_BASE): WorkgroupId is
// the whole grid's. Absent (older bundles) or "read": dispatched whole.
//
// SEMANTICS the emitter keeps (and where Vulkan limits it):
//   integer wrap, x / 0 == 0, MIN / -1 == MIN, masked shifts, saturating float->int with NaN ->
//   0, Math.min/max with NaN and -0 rules, lazy && || ?: exactly; float arithmetic carries
//   NoContraction (no fusing unless @FastMath). Division, sqrt and transcendentals have the
//   precision Vulkan gives (not correctly rounded); float64 exp/log/pow/sin/cos/tanh are computed
//   in float32 (GLSL.std.450 has no 64-bit forms).
//   Atomics: buffers at Device scope, shared arrays at Workgroup scope; memory orders map to
//   Acquire/Release/AcquireRelease (SeqCst is AcquireRelease). Float atomics other than a native
//   add operate on the bits (an integer view of the same binding).
//   Barrier.sync(): OpControlBarrier(Workgroup, Workgroup, AcquireRelease | WorkgroupMemory |
//   UniformMemory).
//   Wave ops (native tier): Wave.width() is SubgroupSize and a lane SubgroupLocalInvocationId;
//   Kir.h's linear lanes (lane = linear local index % width) hold where the driver forms
//   subgroups of consecutive invocations, as lavapipe and NVIDIA do (Vulkan does not promise
//   it). A launch needs a workgroup size that is a multiple of the width, so waves are full.
//   Float reductions and scans run Kir.h's fixed orders over shuffles, never the driver's
//   OpGroupNonUniformFAdd/FMin/FMax.
#pragma once

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// The status record of a --check-bounds launch (binding P), the same layout as
/// CajetaGpuStatus: the first failing work-item claims Failed (0 -> 1) with an atomic
/// compare-exchange, fills the rest, and ends; later work-items that see Failed != 0 at entry
/// end at once. The runtime reads it after the launch completes and resets Failed to 0.
typedef struct CajetaVkStatus {
  uint32_t Failed;       // 0 = no failure; 1 = a failure was recorded
  uint32_t FailedParam;  // KIR parameter index, or CAJETA_VK_SHARED_PARAM_BIT | shared index
  uint64_t FailedIndex;  // the index used (a negative signed index as its 64-bit two's complement)
  uint64_t FailedLength; // the array's element count
} CajetaVkStatus;

#define CAJETA_VK_SHARED_PARAM_BIT 0x80000000u

/// Specialisation constant ids.
#define CAJETA_VK_SPEC_WORKGROUP_SIZE_X 0u
#define CAJETA_VK_SPEC_WORKGROUP_SIZE_Y 1u
#define CAJETA_VK_SPEC_WORKGROUP_SIZE_Z 2u
#define CAJETA_VK_SPEC_DYNAMIC_SHARED_ELEMENTS 3u
/// The device's subgroup size (for shared arrays sized per wave: payload attribute
/// "per_wave_shared_bytes", bytes for each wave of the group beside "static_shared_bytes").
#define CAJETA_VK_SPEC_SUBGROUP_SIZE 4u
/// Device.supports(Capability.X) in a kernel, where the compiler leaves it to the device: a bool
/// specialisation constant with id CAJETA_VK_SPEC_CAPABILITY_BASE + X (cajeta_xpu_capability).
#define CAJETA_VK_SPEC_CAPABILITY_BASE 16u

/// Push constants every device has; a larger parameter block is a uniform buffer.
#define CAJETA_VK_MAX_PUSH_CONSTANT_BYTES 128u

/// Bumped whenever anything above changes (payload attribute "vulkan_abi").
#define CAJETA_VULKAN_KERNEL_ABI_VERSION 2

#ifdef __cplusplus
static_assert(sizeof(CajetaVkStatus) == 24, "CajetaVkStatus layout");
}
#endif
