// `cajeta keygen -o NAME`: a new Ed25519 signing key, NAME.key (private, mode 0600) and NAME.pub
// (public, to give to whoever loads the bundles `cajeta sign --key NAME.key` signs).
#include "Commands.h"

#include "bundle/RegularFile.h"
#include "signing/PrivateKey.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <iostream>
#include <sys/stat.h>
#include <unistd.h>

namespace cajeta::cli {

namespace {

const char* const NeverReplaces =
    " (cajeta keygen never replaces a key; remove it or choose another name)";

/// Writes Text to a file that must not exist yet, with exactly Mode, flushed.
bool writeNewFile(const std::string& Path, const std::string& Text, mode_t Mode,
                  std::string& Error) {
  int Fd = ::open(Path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, Mode);
  if (Fd < 0) {
    Error = "cannot create '" + Path + "': " + std::strerror(errno) +
            (errno == EEXIST ? NeverReplaces : "");
    return false;
  }
  bool Ok = ::fchmod(Fd, Mode) == 0 &&
            bundle::writeAll(Fd, reinterpret_cast<const uint8_t*>(Text.data()), Text.size()) &&
            ::fsync(Fd) == 0;
  if (!Ok)
    Error = "cannot write '" + Path + "': " + std::strerror(errno);
  if (::close(Fd) != 0 && Ok) {
    Error = "cannot write '" + Path + "': " + std::strerror(errno);
    Ok = false;
  }
  if (!Ok)
    ::unlink(Path.c_str());
  return Ok;
}

std::string stripKeySuffix(std::string Name) {
  for (const char* Suffix : {".key", ".pub"})
    if (Name.size() > 4 && Name.compare(Name.size() - 4, 4, Suffix) == 0)
      Name.resize(Name.size() - 4);
  return Name;
}

int keygen(const std::string& Name) {
  signing::PrivateKey Key;
  std::string Error;
  if (!signing::PrivateKey::generate(Key, Error)) {
    std::cerr << "cajeta: error: " << Error << "\n";
    return 1;
  }
  std::string Private = Name + ".key", Public = Name + ".pub";
  for (const std::string& Path : {Private, Public})
    if (::access(Path.c_str(), F_OK) == 0) {
      std::cerr << "cajeta: error: '" << Path << "' exists" << NeverReplaces << "\n";
      return 1;
    }
  if (!writeNewFile(Private, Key.toPem(), 0600, Error)) {
    std::cerr << "cajeta: error: " << Error << "\n";
    return 1;
  }
  if (!writeNewFile(Public, Key.publicKey().toPem(), 0644, Error)) {
    ::unlink(Private.c_str()); // a private key without its public half is no use to anyone
    std::cerr << "cajeta: error: " << Error << "\n";
    return 1;
  }
  std::cout << "wrote " << Private << " (the private key: keep it secret, it signs bundles) and "
            << Public << " (the public key: give it to those who load them)\n"
            << "key fingerprint: " << Key.publicKey().fingerprint() << "\n";
  return 0;
}

} // namespace

void addKeygenCommand(CLI::App& App) {
  auto Name = std::make_shared<std::string>();
  CLI::App* Cmd = App.add_subcommand(
      "keygen", "Make an Ed25519 signing key: NAME.key (private, mode 0600) and NAME.pub");
  Cmd->add_option("-o,--output", *Name, "NAME of the key files (NAME.key and NAME.pub)")
      ->required();
  Cmd->callback([Name] { ExitCode = keygen(stripKeySuffix(*Name)); });
}

} // namespace cajeta::cli
