// Serializes a Program into a .cjx bundle, in memory or atomically to a file.
#include "bundle/BundleWriter.h"

#include "bundle/BundleFormat.h"
#include "bundle/BundleReader.h"
#include "bundle/Hash.h"
#include "bundle/ManifestJson.h"
#include "bundle/RegularFile.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace cajeta::bundle {

namespace {

struct SectionSource {
  format::SectionKind Kind;
  const uint8_t* Data;
  size_t Size;
};

std::string systemError(const std::string& What, const std::string& Path) {
  return What + " '" + Path + "': " + std::strerror(errno);
}

} // namespace

std::vector<uint8_t> BundleWriter::write(const Program& P) {
  std::string Manifest =
      manifestToJson(P).dump(2, ' ', false, nlohmann::json::error_handler_t::replace);

  std::vector<SectionSource> Sections;
  Sections.push_back({format::SectionKind::Manifest,
                      reinterpret_cast<const uint8_t*>(Manifest.data()), Manifest.size()});
  for (const Payload& Pl : P.Payloads)
    Sections.push_back({format::SectionKind::Payload, Pl.Bytes.data(), Pl.Bytes.size()});

  size_t TableSize = Sections.size() * format::SectionEntrySize;
  size_t Total = format::HeaderSize + TableSize;
  for (const SectionSource& S : Sections)
    Total += S.Size;

  std::vector<uint8_t> Out(Total, 0);
  uint8_t* Table = Out.data() + format::HeaderSize;
  uint64_t Offset = format::HeaderSize + TableSize;
  for (size_t I = 0; I < Sections.size(); ++I) {
    const SectionSource& S = Sections[I];
    uint8_t* Entry = Table + I * format::SectionEntrySize;
    format::storeU32(Entry + format::EntryKindAt, uint32_t(S.Kind));
    format::storeU64(Entry + format::EntryOffsetAt, Offset);
    format::storeU64(Entry + format::EntrySizeAt, S.Size);
    format::storeU64(Entry + format::EntryHashAt, hash64(S.Data, S.Size));
    if (S.Size > 0)
      std::memcpy(Out.data() + Offset, S.Data, S.Size);
    Offset += S.Size;
  }

  std::memcpy(Out.data(), format::Magic, sizeof(format::Magic));
  format::storeU32(Out.data() + format::HeaderVersionAt, format::Version);
  format::storeU32(Out.data() + format::HeaderCountAt, uint32_t(Sections.size()));
  format::storeU64(Out.data() + format::HeaderTableHashAt, hash64(Table, TableSize));
  return Out;
}

bool BundleWriter::writeChecked(const Program& P, std::vector<uint8_t>& Bytes, std::string& Error) {
  if (P.Payloads.size() > format::MaxPayloads) {
    Error = std::to_string(P.Payloads.size()) + " payloads exceed the format's limit of " +
            std::to_string(format::MaxPayloads);
    return false;
  }
  Bytes = write(P);
  BundleReadResult Back = BundleReader::read(Bytes.data(), Bytes.size());
  if (!Back.Ok) {
    Error = "internal error: the bundle written does not read back: " + Back.Error;
    return false;
  }
  return true;
}

bool BundleWriter::writeFile(const Program& P, const std::string& Path, std::string& Error) {
  std::vector<uint8_t> Bytes;
  if (!writeChecked(P, Bytes, Error)) {
    Error = "cannot write bundle '" + Path + "': " + Error;
    return false;
  }
  return writeBytes(Bytes, Path, Error);
}

bool BundleWriter::writeBytes(const std::vector<uint8_t>& Bytes, const std::string& Path,
                              std::string& Error) {
  std::string Temp = Path + ".tmp.XXXXXX";
  int Fd = ::mkstemp(Temp.data());
  if (Fd < 0) {
    // Name what is wrong where the user can act on it: usually the folder.
    std::string Folder =
        Path.find('/') == std::string::npos ? "." : Path.substr(0, Path.rfind('/'));
    if (Folder.empty())
      Folder = "/";
    struct stat St {};
    if (::stat(Folder.c_str(), &St) != 0)
      Error = "cannot write bundle '" + Path + "': the folder '" + Folder + "' does not exist";
    else if (!S_ISDIR(St.st_mode))
      Error = "cannot write bundle '" + Path + "': '" + Folder + "' is not a folder";
    else
      Error = systemError("cannot create a temporary file for bundle", Path);
    return false;
  }
  auto Abandon = [&](const std::string& Message) {
    Error = Message;
    ::close(Fd);
    ::unlink(Temp.c_str());
    return false;
  };
  if (!writeAll(Fd, Bytes.data(), Bytes.size()))
    return Abandon(systemError("cannot write bundle", Path));
  if (::fchmod(Fd, 0644) != 0)
    return Abandon(systemError("cannot set permissions of bundle", Path));
  if (::fsync(Fd) != 0)
    return Abandon(systemError("cannot flush bundle", Path));
  if (::close(Fd) != 0) {
    Error = systemError("cannot close bundle", Path);
    ::unlink(Temp.c_str());
    return false;
  }
  if (::rename(Temp.c_str(), Path.c_str()) != 0) {
    Error = systemError("cannot rename the temporary file onto bundle", Path);
    ::unlink(Temp.c_str());
    return false;
  }
  return true;
}

} // namespace cajeta::bundle
