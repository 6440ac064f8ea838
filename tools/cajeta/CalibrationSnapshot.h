// Calibration snapshots: the records `cajeta calibrate <program>` measured (the devices' and each
// kernel's solo launches), as one file that `cajeta build --with-calibration` builds into a
// bundle.
#pragma once

#include <string>
#include <vector>

namespace cajeta::cli {

/// What a solo run recorded (CAJETA_XPU_CALIBRATE_SOLO's lines), turned into record texts: each
/// device record as the runtime wrote it, and one record per kernel and device with the facts
/// launches, solo-seconds, achieved-bandwidth, achieved-flops and intensity. Summary gets a line
/// per kernel for the terminal.
std::vector<std::string> recordsFromSoloRun(const std::string& Lines, std::string& Summary);

/// The launches of a run, one "kernel grid block" line each, to compare two runs.
std::string launchSequence(const std::string& Lines);

bool writeSnapshot(const std::string& Path, const std::vector<std::string>& Records,
                   std::string& Error);
/// The snapshot's records, each whole and with its checksum; false with Error naming the file and
/// the first record that is not.
bool readSnapshot(const std::string& Path, std::vector<std::string>& Records, std::string& Error);

} // namespace cajeta::cli
