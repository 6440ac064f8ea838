// `cajeta verify --trust NAME.pub k.cjx`: whether a bundle is signed by a trusted key, as the
// runtime decides it where keys are trusted; exit status 0 if so, 1 (with the reason) if not.
#include "Commands.h"

#include "bundle/RegularFile.h"
#include "signing/BundleVerifier.h"

#include <cstdlib>
#include <iostream>

namespace cajeta::cli {

namespace {

/// The keys of --trust, else of CAJETA_XPU_TRUSTED_KEYS, with the file each came from.
bool trustedKeys(std::vector<std::string> Paths, std::vector<signing::PublicKey>& Keys,
                 std::vector<std::string>& From) {
  if (Paths.empty())
    if (const char* Value = std::getenv("CAJETA_XPU_TRUSTED_KEYS")) {
      std::string List = Value;
      for (size_t Start = 0; Start <= List.size();) {
        size_t End = std::min(List.find(':', Start), List.size());
        if (End > Start)
          Paths.push_back(List.substr(Start, End - Start));
        Start = End + 1;
      }
    }
  if (Paths.empty()) {
    std::cerr << "cajeta: error: no trusted key: name the signer's public key with --trust "
                 "NAME.pub (or CAJETA_XPU_TRUSTED_KEYS)\n";
    return false;
  }
  for (const std::string& Path : Paths) {
    signing::PublicKey K;
    std::string Error;
    if (!signing::PublicKey::fromPemFile(Path, K, Error)) {
      std::cerr << "cajeta: error: " << Error << "\n";
      return false;
    }
    Keys.push_back(K);
    From.push_back(Path);
  }
  return true;
}

int verify(const std::vector<std::string>& Trust, const std::string& Input) {
  std::vector<signing::PublicKey> Keys;
  std::vector<std::string> From;
  if (!trustedKeys(Trust, Keys, From))
    return 2;
  std::vector<uint8_t> Bytes;
  std::string Error;
  if (!bundle::readRegularFile(Input, "bundle", Bytes, Error)) {
    std::cerr << "cajeta: error: " << Error << "\n";
    return 1;
  }
  signing::Verification V = signing::BundleVerifier::verify(Bytes.data(), Bytes.size(), Keys);
  if (!V.trusted()) {
    std::cerr << "cajeta: error: bundle " << Input << " " << V.Message << "\n";
    return 1;
  }
  for (size_t I = 0; I < Keys.size(); ++I)
    if (Keys[I].fingerprint() == V.Fingerprint) {
      std::cout << Input << ": signed by key " << V.Fingerprint << " (" << From[I]
                << "): verified\n";
      break;
    }
  return 0;
}

} // namespace

void addVerifyCommand(CLI::App& App) {
  struct Options {
    std::vector<std::string> Trust;
    std::string Input;
  };
  auto O = std::make_shared<Options>();
  CLI::App* Cmd = App.add_subcommand(
      "verify", "Check that a .cjx bundle is signed by a trusted key (exit 0) or say why not");
  Cmd->add_option("--trust", O->Trust,
                  "A trusted public key (NAME.pub; repeatable; default: the files of "
                  "CAJETA_XPU_TRUSTED_KEYS)")
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  Cmd->add_option("bundle", O->Input, ".cjx bundle")->required();
  Cmd->callback([O] { ExitCode = verify(O->Trust, O->Input); });
}

} // namespace cajeta::cli
