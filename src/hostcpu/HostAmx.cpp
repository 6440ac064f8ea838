// The host's AMX and the OS's permission for it (HostAmx.h).
#include "hostcpu/HostAmx.h"

#if defined(__x86_64__)
#include <cpuid.h>
#endif
#if defined(__linux__) && defined(__x86_64__)
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace cajeta::hostcpu {

namespace {

#if defined(__x86_64__)
constexpr unsigned AmxBf16Bit = 22, AmxTileBit = 24, AmxInt8Bit = 25; // CPUID.(7,0):EDX
constexpr unsigned XTileData = 18; // the XSAVE component of the tile data

/// Whether the OS lets this process use the tile data (asking where it must).
bool permitted() {
#if defined(__linux__)
  constexpr long ArchGetXcompPerm = 0x1022, ArchReqXcompPerm = 0x1023;
  unsigned long Bits = 0;
  if (syscall(SYS_arch_prctl, ArchGetXcompPerm, &Bits) == 0 && (Bits >> XTileData & 1))
    return true;
  if (syscall(SYS_arch_prctl, ArchReqXcompPerm, XTileData) != 0)
    return false;
  return syscall(SYS_arch_prctl, ArchGetXcompPerm, &Bits) == 0 && (Bits >> XTileData & 1);
#else
  return false; // no other OS's way of asking is known here
#endif
}

HostAmx probe() {
  unsigned Eax = 0, Ebx = 0, Ecx = 0, Edx = 0;
  HostAmx A;
  if (!__get_cpuid_count(7, 0, &Eax, &Ebx, &Ecx, &Edx) || !(Edx >> AmxTileBit & 1))
    return A;
  // The OS must have turned the tile state on in XCR0 (bits 17 and 18) before it can grant it.
  if (!__get_cpuid(1, &Eax, &Ebx, &Ecx, &Edx) || !(Ecx >> 27 & 1)) // OSXSAVE
    return A;
  unsigned Lo = 0, Hi = 0;
  __asm__ volatile("xgetbv" : "=a"(Lo), "=d"(Hi) : "c"(0));
  if ((Lo >> 17 & 3) != 3 || !permitted())
    return A;
  __get_cpuid_count(7, 0, &Eax, &Ebx, &Ecx, &Edx);
  A.Tile = true;
  A.Bf16 = Edx >> AmxBf16Bit & 1;
  A.Int8 = Edx >> AmxInt8Bit & 1;
  return A;
}
#else
HostAmx probe() {
  return {};
}
#endif

} // namespace

HostAmx hostAmx() {
  static const HostAmx Answer = probe();
  return Answer;
}

} // namespace cajeta::hostcpu
