// `cajeta sign --key NAME.key k.cjx [-o out.cjx]`: signs a bundle (in place by default, through a
// temporary file and a rename, so a reader never sees half a bundle).
#include "Commands.h"

#include "bundle/BundleWriter.h"
#include "bundle/RegularFile.h"
#include "signing/BundleSigner.h"

#include <iostream>
#include <sys/stat.h>

namespace cajeta::cli {

bool readSigningKey(const std::string& Path, signing::PrivateKey& Key) {
  std::string Error;
  if (!signing::PrivateKey::fromPemFile(Path, Key, Error)) {
    std::cerr << "cajeta: error: " << Error << "\n";
    return false;
  }
  // As ssh does for its keys: a private key others can read is no longer only ours.
  struct stat St;
  if (::stat(Path.c_str(), &St) == 0 && (St.st_mode & 077))
    std::cerr << "cajeta: warning: private key '" << Path
              << "' can be read by other users; `chmod 600 " << Path << "` makes it private\n";
  return true;
}

bool signBundleBytes(std::vector<uint8_t>& Bytes, const signing::PrivateKey& Key,
                     const std::string& Name) {
  std::vector<uint8_t> Signed;
  std::string Error;
  if (!signing::BundleSigner::sign(Bytes.data(), Bytes.size(), Key, Signed, Error)) {
    std::cerr << "cajeta: error: cannot sign " << Name << ": " << Error << "\n";
    return false;
  }
  Bytes = std::move(Signed);
  return true;
}

namespace {

int sign(const std::string& KeyPath, const std::string& Input, const std::string& Output) {
  signing::PrivateKey Key;
  if (!readSigningKey(KeyPath, Key))
    return 1;
  std::vector<uint8_t> Bytes;
  std::string Error;
  if (!bundle::readRegularFile(Input, "bundle", Bytes, Error)) {
    std::cerr << "cajeta: error: " << Error << "\n";
    return 1;
  }
  if (!signBundleBytes(Bytes, Key, "'" + Input + "'"))
    return 1;
  std::string Out = Output.empty() ? Input : Output;
  if (!bundle::BundleWriter::writeBytes(Bytes, Out, Error)) {
    std::cerr << "cajeta: error: " << Error << "\n";
    return 1;
  }
  std::cout << Out << ": signed by key " << Key.publicKey().fingerprint() << "\n";
  return 0;
}

} // namespace

void addSignCommand(CLI::App& App) {
  struct Options {
    std::string Key, Input, Output;
  };
  auto O = std::make_shared<Options>();
  CLI::App* Cmd = App.add_subcommand(
      "sign", "Sign a .cjx bundle with an Ed25519 key (cajeta keygen), replacing any signature");
  Cmd->add_option("--key", O->Key, "Private key (NAME.key)")->required();
  Cmd->add_option("bundle", O->Input, ".cjx bundle")->required();
  Cmd->add_option("-o,--output", O->Output, "Signed bundle to write (default: in place)");
  Cmd->callback([O] { ExitCode = sign(O->Key, O->Input, O->Output); });
}

} // namespace cajeta::cli
