// ELF64 header, program header and section header bounds checks.
#include "runtime/ElfCheck.h"

#include <cstring>
#include <elf.h>
#include <fmt/format.h>

namespace cajeta::xpu::rt {

static bool inside(uint64_t Offset, uint64_t Length, size_t Size) {
  return Offset <= Size && Length <= Size - Offset;
}

std::string checkElfSharedObject(const uint8_t* Data, size_t Size) {
  if (Size < sizeof(Elf64_Ehdr) || std::memcmp(Data, ELFMAG, SELFMAG) != 0)
    return fmt::format("not an ELF object ({} bytes)", Size);
  Elf64_Ehdr H;
  std::memcpy(&H, Data, sizeof(H));
  if (H.e_ident[EI_CLASS] != ELFCLASS64 || H.e_ident[EI_DATA] != ELFDATA2LSB)
    return "not a little-endian ELF64 object";
  if (H.e_machine != EM_X86_64)
    return fmt::format("ELF machine {} is not x86-64", H.e_machine);
  if (H.e_type != ET_DYN)
    return fmt::format("ELF type {} is not a shared object", H.e_type);
  if (H.e_phentsize != sizeof(Elf64_Phdr) || H.e_phnum == 0 ||
      !inside(H.e_phoff, uint64_t(H.e_phnum) * sizeof(Elf64_Phdr), Size))
    return fmt::format("ELF program headers (offset {}, {} entries) lie outside its {} bytes",
                       H.e_phoff, H.e_phnum, Size);
  if (H.e_shoff && (H.e_shentsize != sizeof(Elf64_Shdr) ||
                    !inside(H.e_shoff, uint64_t(H.e_shnum) * sizeof(Elf64_Shdr), Size)))
    return fmt::format("ELF section headers (offset {}, {} entries) lie outside its {} bytes",
                       H.e_shoff, H.e_shnum, Size);
  for (unsigned I = 0; I != H.e_phnum; ++I) {
    Elf64_Phdr P;
    std::memcpy(&P, Data + H.e_phoff + I * sizeof(Elf64_Phdr), sizeof(P));
    if (P.p_type == PT_NULL)
      continue;
    if (!inside(P.p_offset, P.p_filesz, Size))
      return fmt::format("ELF segment {} (offset {}, {} bytes) lies outside its {} bytes "
                         "(truncated?)",
                         I, P.p_offset, P.p_filesz, Size);
  }
  return "";
}

} // namespace cajeta::xpu::rt
