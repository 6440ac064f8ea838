// lld's ELF driver as a library: the object in a memfd, the output in a private temporary
// directory that is always removed, one link at a time.
#include "compiler/lowering/llvm/LldElfLinker.h"

#include <lld/Common/Driver.h>
#include <llvm/Support/raw_ostream.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <mutex>
#include <sys/mman.h>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

LLD_HAS_DRIVER(elf)

namespace cajeta::lowering {
namespace {

std::mutex LldMutex;
bool LldUnusable = false; // set when lld says it cannot run again in this process

bool writeAll(int Fd, const std::vector<uint8_t>& Bytes) {
  size_t Done = 0;
  while (Done < Bytes.size()) {
    ssize_t N = ::write(Fd, Bytes.data() + Done, Bytes.size() - Done);
    if (N < 0 && errno == EINTR)
      continue;
    if (N <= 0)
      return false;
    Done += size_t(N);
  }
  return true;
}

bool readAll(int Fd, std::vector<uint8_t>& Bytes) {
  struct stat St;
  if (::fstat(Fd, &St) != 0)
    return false;
  Bytes.resize(size_t(St.st_size));
  size_t Done = 0;
  while (Done < Bytes.size()) {
    ssize_t N = ::pread(Fd, Bytes.data() + Done, Bytes.size() - Done, off_t(Done));
    if (N < 0 && errno == EINTR)
      continue;
    if (N <= 0)
      return false;
    Done += size_t(N);
  }
  return true;
}

std::string sysError(const char* What) {
  return std::string(What) + ": " + std::strerror(errno);
}

/// Runs ld.lld on In, writing Out. Caller holds LldMutex.
bool runLld(const std::string& In, const std::string& Out, std::string& Error) {
  if (LldUnusable) {
    Error = "lld: an earlier link failed fatally; lld cannot run again in this process";
    return false;
  }
  const char* Args[] = {"ld.lld", "-shared",     "--threads=1", "--eh-frame-hdr",
                        "-z",     "noexecstack", "-z",          "relro",
                        "-o",     Out.c_str(),   In.c_str()};
  std::string OutText, ErrText;
  llvm::raw_string_ostream OutOS(OutText), ErrOS(ErrText);
  // On a thread of its own: lld allocates input sections from thread-local arenas
  // (lld::makeThreadLocal) that live until their thread ends, so links on a long-lived thread
  // kept about 1.5 KB each for good. The thread ends with the link, and its arenas with it.
  lld::Result R;
  std::thread Linker([&] { R = lld::lldMain(Args, OutOS, ErrOS, {{lld::Gnu, &lld::elf::link}}); });
  Linker.join();
  if (!R.canRunAgain)
    LldUnusable = true;
  if (R.retCode == 0)
    return true;
  ErrOS.flush();
  Error = "lld failed: " + (ErrText.empty() ? std::string("no message") : ErrText);
  return false;
}

/// Removes a private temporary directory and the files we put there when it goes out of scope.
class TempDir {
public:
  ~TempDir() {
    for (const std::string& F : Files)
      ::unlink(F.c_str());
    if (!Path.empty())
      ::rmdir(Path.c_str());
  }
  bool create(std::string& Error) {
    const char* Base = std::getenv("TMPDIR");
    std::string Template = std::string(Base && *Base ? Base : "/tmp") + "/cajeta-lld-XXXXXX";
    std::vector<char> Dir(Template.begin(), Template.end());
    Dir.push_back('\0');
    if (!::mkdtemp(Dir.data())) {
      Error = sysError(("mkdtemp " + Template).c_str());
      return false;
    }
    Path = Dir.data();
    return true;
  }
  std::string file(const char* Name) {
    Files.push_back(Path + "/" + Name);
    return Files.back();
  }

private:
  std::string Path;
  std::vector<std::string> Files;
};

/// The object goes to lld through a memfd (/proc/self/fd/N), or a file in Dir where memfd is
/// unavailable. The output must be a real path: lld probes the output path by creating a
/// temporary file beside it, which /proc/self/fd cannot hold, so it is written in Dir.
bool link(const std::vector<uint8_t>& Object, std::vector<uint8_t>& Shared, std::string& Error) {
  TempDir Dir;
  if (!Dir.create(Error))
    return false;
  std::string InPath;
  int InFd = ::memfd_create("cajeta-kernel.o", MFD_CLOEXEC);
  if (InFd >= 0) {
    InPath = "/proc/self/fd/" + std::to_string(InFd);
  } else {
    InPath = Dir.file("kernel.o");
    InFd = ::open(InPath.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  }
  if (InFd < 0 || !writeAll(InFd, Object)) {
    Error = sysError("writing the object for lld");
    if (InFd >= 0)
      ::close(InFd);
    return false;
  }
  std::string OutPath = Dir.file("kernel.so");
  bool Ok = runLld(InPath, OutPath, Error);
  ::close(InFd);
  if (!Ok)
    return false;
  int OutFd = ::open(OutPath.c_str(), O_RDONLY | O_CLOEXEC);
  Ok = OutFd >= 0 && readAll(OutFd, Shared);
  if (OutFd >= 0)
    ::close(OutFd);
  if (!Ok)
    Error = sysError("reading lld's output");
  return Ok;
}

} // namespace

bool LldElfLinker::linkSharedObject(const std::vector<uint8_t>& Object,
                                    std::vector<uint8_t>& Shared, std::string& Error) {
  std::lock_guard<std::mutex> Lock(LldMutex);
  Shared.clear();
  if (link(Object, Shared, Error))
    return true;
  Error = "linking the shared object: " + Error;
  return false;
}

} // namespace cajeta::lowering
