// The subcommands of the `cajeta` CLI; each registers itself on the CLI11 app.
#pragma once

#include <CLI/CLI.hpp>

#include <string>

namespace cajeta::cli {

void addBuildCommand(CLI::App& App);
void addInspectCommand(CLI::App& App);
void addEmitCommand(CLI::App& App);
void addDevicesCommand(CLI::App& App);
void addRunCommand(CLI::App& App);

/// Reads a whole file; on failure prints "cajeta: error: cannot read 'path': reason" and
/// returns false.
bool readSourceFile(const std::string& Path, std::string& Out);

/// Exit status a subcommand asks for (CLI11 callbacks cannot return one).
extern int ExitCode;

} // namespace cajeta::cli
