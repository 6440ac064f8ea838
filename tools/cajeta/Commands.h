// The subcommands of the `cajeta` CLI; each registers itself on the CLI11 app.
#pragma once

#include "signing/PrivateKey.h"

#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace cajeta::cli {

void addBuildCommand(CLI::App& App);
void addInspectCommand(CLI::App& App);
void addEmitCommand(CLI::App& App);
void addDevicesCommand(CLI::App& App);
void addRunCommand(CLI::App& App);
void addKeygenCommand(CLI::App& App);
void addSignCommand(CLI::App& App);
void addVerifyCommand(CLI::App& App);
void addCalibrateCommand(CLI::App& App);

/// Reads a whole file; on failure prints "cajeta: error: cannot read 'path': reason" and
/// returns false.
bool readSourceFile(const std::string& Path, std::string& Out);

/// Reads a private key for signing (warning when others can read its file); on failure prints
/// the error and returns false.
bool readSigningKey(const std::string& Path, signing::PrivateKey& Key);

/// Replaces the bundle Bytes by its signed form; on failure prints the error (naming Name) and
/// returns false.
bool signBundleBytes(std::vector<uint8_t>& Bytes, const signing::PrivateKey& Key,
                     const std::string& Name);

/// Exit status a subcommand asks for (CLI11 callbacks cannot return one).
extern int ExitCode;

} // namespace cajeta::cli
