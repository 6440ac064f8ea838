// Reads a whole file that a user named (a bundle, a source file, a cache entry), refusing
// anything that is not a regular file without blocking on it: opening a FIFO for reading waits
// for a writer, so the file is opened non-blocking and checked before it is read.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace cajeta::bundle {

/// Reads the regular file at Path whole into Out. False with Error ("cannot read <What>
/// '<Path>': <why>") when it cannot be opened, is not a regular file (a FIFO, a directory, a
/// device) or a read fails.
bool readRegularFile(const std::string& Path, const char* What, std::vector<uint8_t>& Out,
                     std::string& Error);
/// The same into a string (source files).
bool readRegularFile(const std::string& Path, const char* What, std::string& Out,
                     std::string& Error);

/// Writes all Size bytes to Fd, retrying short writes and EINTR; false (errno set) otherwise.
bool writeAll(int Fd, const uint8_t* Data, size_t Size);

} // namespace cajeta::bundle
