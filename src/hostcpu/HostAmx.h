// AMX on the host: the CPU's tile instructions and the OS's permission to use their state. Linux
// enables the tile data (8 KiB a thread) only for a process that asks (arch_prctl
// ARCH_REQ_XCOMP_PERM); an AMX instruction without it raises SIGILL. So code with AMX runs only
// after hostAmx() said yes, and the compiler emits it for the host only then.
#pragma once

namespace cajeta::hostcpu {

struct HostAmx {
  bool Tile = false; // AMX-TILE, with the OS's permission
  bool Bf16 = false; // AMX-BF16 (TDPBF16PS)
  bool Int8 = false; // AMX-INT8 (TDPBSSD and kin)
};

/// The host's AMX, asking the OS for the permission once per process (later calls return the
/// first answer). Every field false where the CPU has no AMX or the permission is refused.
HostAmx hostAmx();

} // namespace cajeta::hostcpu
