// The exception classes Cajeta host code can catch, with their parents: the one table the
// compiler (which checks catch clauses) and the runtime (which matches a pending exception
// against them, cajeta_host_catch) share.
#pragma once

#include <cstring>

namespace cajeta::xpu {

struct HostExceptionClass {
  const char* Name;
  const char* Parent; // null for Throwable
};

inline constexpr HostExceptionClass HostExceptionClasses[] = {
    {"Throwable", nullptr},
    {"Exception", "Throwable"},
    {"Error", "Throwable"},
    {"RuntimeException", "Exception"},
    {"OutOfMemoryError", "Error"},
    {"IndexOutOfBoundsException", "RuntimeException"},
    {"ArrayIndexOutOfBoundsException", "IndexOutOfBoundsException"},
    {"NegativeArraySizeException", "RuntimeException"},
    {"IllegalArgumentException", "RuntimeException"},
    {"NumberFormatException", "IllegalArgumentException"},
    {"IllegalStateException", "RuntimeException"},
    {"NullPointerException", "RuntimeException"},
    // The runtime's typed errors (cajeta/xpu/Errors.hpp), unchecked as Java's are.
    {"XpuException", "RuntimeException"},
    {"XpuLaunchException", "XpuException"},
    {"DeadlineMissed", "XpuLaunchException"},
    {"CompileError", "XpuException"},
    {"BorrowError", "XpuException"},
    {"OutOfDeviceMemory", "XpuException"},
    {"BundleError", "XpuException"},
    {"BackendUnavailable", "XpuException"},
    {"NotFound", "XpuException"},
    {"DeviceLost", "XpuException"},
};

inline const HostExceptionClass* findHostException(const char* Name) {
  for (const HostExceptionClass& C : HostExceptionClasses)
    if (std::strcmp(C.Name, Name) == 0)
      return &C;
  return nullptr;
}

/// Whether an exception of class Name is a Class (Name itself or a descendant).
inline bool hostExceptionIsA(const char* Name, const char* Class) {
  for (const HostExceptionClass* C = findHostException(Name); C;
       C = C->Parent ? findHostException(C->Parent) : nullptr)
    if (std::strcmp(C->Name, Class) == 0)
      return true;
  return false;
}

} // namespace cajeta::xpu
