// SPIRV-Tools 2025.5 (scripts/setup.sh) comes from PyPI built with GCC 13, whose <iostream> makes
// every translation unit refer to std::ios_base_library_init() (GLIBCXX_3.4.32) so that the
// library that initialises the standard streams is linked. Debian 12's libstdc++ (GCC 12) lacks
// the symbol and initialises the streams through each unit's std::ios_base::Init object instead;
// this defines the symbol as exactly that, hidden, for the units of the static SPIRV-Tools.
#include <ios>

__attribute__((visibility("hidden"))) void
cajetaIosBaseLibraryInit() __asm__("_ZSt21ios_base_library_initv");

void cajetaIosBaseLibraryInit() {
  static std::ios_base::Init Streams;
}
