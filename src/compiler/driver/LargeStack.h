// The compiler's recursive walks (parser, Sema, KIR passes, LLVM) need stack in proportion to the
// program's nesting, and a JIT host may call the compiler from a thread with little stack. So the
// compiler runs on a thread of its own with a known, large stack: with the language's nesting
// limits, no program can overflow it.
#pragma once

#include <cstddef>
#include <functional>

namespace cajeta::driver {

/// The stack the compiler runs on: 512 MiB of address space, of which only the pages a compile
/// touches become memory.
inline constexpr size_t CompilerStackBytes = size_t(512) << 20;

/// Runs Work on a fresh thread with CompilerStackBytes of stack and waits for it (what it throws
/// is rethrown here); runs it on the calling thread when no such thread can be made.
void runOnLargeStack(const std::function<void()>& Work);

} // namespace cajeta::driver
