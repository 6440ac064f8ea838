// Whole-file reads of regular files only (RegularFile.h).
#include "bundle/RegularFile.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace cajeta::bundle {

bool readRegularFile(const std::string& Path, const char* What, std::vector<uint8_t>& Out,
                     std::string& Error) {
  const std::string Prefix = std::string("cannot read ") + What + " '" + Path + "': ";
  // O_NONBLOCK: a FIFO opens at once instead of waiting for a writer (and is refused below).
  int Fd = ::open(Path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (Fd < 0) {
    Error = Prefix + std::strerror(errno);
    return false;
  }
  auto Fail = [&](const std::string& Why) {
    Error = Prefix + Why;
    ::close(Fd);
    return false;
  };
  struct stat St;
  if (::fstat(Fd, &St) != 0)
    return Fail(std::strerror(errno));
  if (!S_ISREG(St.st_mode))
    return Fail(S_ISFIFO(St.st_mode)  ? "a FIFO, not a regular file"
                : S_ISDIR(St.st_mode) ? "a directory, not a regular file"
                                      : "not a regular file");
  try {
    Out.resize(size_t(St.st_size));
  } catch (const std::exception&) {
    return Fail(std::to_string(St.st_size) + " bytes do not fit in memory");
  }
  size_t Done = 0;
  while (Done < Out.size()) {
    ssize_t N = ::read(Fd, Out.data() + Done, Out.size() - Done);
    if (N < 0 && errno == EINTR)
      continue;
    if (N < 0)
      return Fail(std::strerror(errno));
    if (N == 0)
      break;
    Done += size_t(N);
  }
  Out.resize(Done); // the file shrank while it was read: what is there
  ::close(Fd);
  return true;
}

bool readRegularFile(const std::string& Path, const char* What, std::string& Out,
                     std::string& Error) {
  std::vector<uint8_t> Bytes;
  if (!readRegularFile(Path, What, Bytes, Error))
    return false;
  Out.assign(Bytes.begin(), Bytes.end());
  return true;
}

bool writeAll(int Fd, const uint8_t* Data, size_t Size) {
  while (Size > 0) {
    ssize_t N = ::write(Fd, Data, Size);
    if (N < 0 && errno == EINTR)
      continue;
    if (N <= 0)
      return false;
    Data += N;
    Size -= size_t(N);
  }
  return true;
}

} // namespace cajeta::bundle
