// `cajeta calibrate`: measures a device (or every device) once and stores the record, as a
// program's DeviceCalibration::current() would; prints the facts, with a progress bar on a
// terminal. `cajeta calibrate <program> [--out=FILE] [-- args]` runs a program twice, recording
// its launches and then running each alone, timed, and writes the snapshot `cajeta build
// --with-calibration` builds in.
#include "CalibrationSnapshot.h"
#include "Commands.h"

#include <cajeta/xpu.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

namespace cajeta::cli {

namespace {

/// 4.25e12 "B/s" -> "4.25 TB/s"; 6.1e-7 "s" -> "610 ns".
std::string formatFact(double V, const std::string& Unit) {
  char Buf[64];
  if (Unit == "s") {
    if (V < 1e-6)
      std::snprintf(Buf, sizeof Buf, "%.0f ns", V * 1e9);
    else if (V < 1e-3)
      std::snprintf(Buf, sizeof Buf, "%.2f us", V * 1e6);
    else
      std::snprintf(Buf, sizeof Buf, "%.2f ms", V * 1e3);
    return Buf;
  }
  if (Unit == "groups" || Unit == "FLOP/B") {
    std::snprintf(Buf, sizeof Buf, Unit == "groups" ? "%.0f %s" : "%.2f %s", V, Unit.c_str());
    return Buf;
  }
  const char* Prefix[] = {"", "K", "M", "G", "T", "P"};
  int P = 0;
  while (std::fabs(V) >= 1000 && P < 5) {
    V /= 1000;
    ++P;
  }
  std::snprintf(Buf, sizeof Buf, "%.3g %s%s", V, Prefix[P], Unit.c_str());
  return Buf;
}

void drawBar(double Fraction, const std::string& Step) {
  const int Width = 30;
  int Filled = int(Fraction * Width + 0.5);
  std::fprintf(stderr, "\r  [%.*s%*s] %3d%% %-34s", Filled, "##############################",
               Width - Filled, "", int(Fraction * 100 + 0.5), Step.c_str());
  if (Fraction >= 1.0)
    std::fprintf(stderr, "\r%*s\r", Width + 46, "");
  std::fflush(stderr);
}

void report(const xpu::Device& D, const xpu::DeviceCalibration& C) {
  std::cout << D.backend() << ": " << D.name() << "\n"
            << "  record: " << C.source() << "\n";
  if (C.source().rfind("measured now", 0) == 0) {
    char Took[32];
    std::snprintf(Took, sizeof Took, "%.1f s", C.measuringSeconds());
    std::cout << "  measuring took " << Took << "\n";
  }
  for (const std::string& Name : C.factNames()) {
    std::optional<double> V = C.fact(Name);
    std::cout << "  " << Name << ": ";
    if (V) {
      std::cout << formatFact(*V, C.unit(Name));
      if (std::string Note = C.note(Name); !Note.empty())
        std::cout << "  (" << Note << ")";
    } else {
      std::cout << "absent: " << C.absentReason(Name);
    }
    std::cout << "\n";
  }
}

/// Runs Program with Args and Variable=File in its environment; its exit status (-1: not run).
int runRecorded(const std::string& Program, const std::vector<std::string>& Args,
                const char* Variable, const std::string& File) {
  std::remove(File.c_str());
  pid_t Pid = ::fork();
  if (Pid < 0)
    return -1;
  if (Pid == 0) {
    ::setenv(Variable, File.c_str(), 1);
    std::vector<char*> Argv;
    Argv.push_back(const_cast<char*>(Program.c_str()));
    for (const std::string& A : Args)
      Argv.push_back(const_cast<char*>(A.c_str()));
    Argv.push_back(nullptr);
    ::execvp(Program.c_str(), Argv.data());
    std::fprintf(stderr, "cajeta: error: cannot run '%s'\n", Program.c_str());
    ::_exit(127);
  }
  int Status = 0;
  if (::waitpid(Pid, &Status, 0) < 0)
    return -1;
  return WIFEXITED(Status) ? WEXITSTATUS(Status) : 128 + WTERMSIG(Status);
}

std::string slurp(const std::string& Path) {
  std::ifstream In(Path, std::ios::binary);
  std::ostringstream S;
  S << In.rdbuf();
  return S.str();
}

/// The program form: two runs, the snapshot written to Out.
int calibrateProgram(const std::string& Program, const std::vector<std::string>& Args,
                     std::string Out) {
  if (Out.empty()) {
    std::string Base = Program.substr(Program.rfind('/') + 1);
    Out = Base + ".calibration.json";
  }
  std::string RecordFile = Out + ".launches", SoloFile = Out + ".solo";
  std::cerr << "cajeta calibrate: running " << Program << " to record its launches\n";
  int Rc = runRecorded(Program, Args, "CAJETA_XPU_CALIBRATE_RECORD", RecordFile);
  if (Rc != 0) {
    std::cerr << "cajeta: error: " << Program << " exited with status " << Rc
              << " on its recording run\n";
    return 1;
  }
  std::cerr << "cajeta calibrate: running it again, each launch alone and timed\n";
  Rc = runRecorded(Program, Args, "CAJETA_XPU_CALIBRATE_SOLO", SoloFile);
  if (Rc != 0) {
    std::cerr << "cajeta: error: " << Program << " exited with status " << Rc
              << " on its solo run\n";
    return 1;
  }
  std::string Recorded = slurp(RecordFile), Solo = slurp(SoloFile);
  std::remove(RecordFile.c_str());
  std::remove(SoloFile.c_str());
  if (launchSequence(Recorded).empty()) {
    std::cerr << "cajeta: error: " << Program << " launched no kernel (is it a program that "
              << "uses libcajeta_xpu.so?)\n";
    return 1;
  }
  if (launchSequence(Recorded) != launchSequence(Solo))
    std::cerr << "cajeta: warning: " << Program << " launched other kernels or geometries on "
              << "its solo run than on its recording run; the records are of the solo run\n";
  std::string Summary;
  std::vector<std::string> Records = recordsFromSoloRun(Solo, Summary);
  std::string Error;
  if (!writeSnapshot(Out, Records, Error)) {
    std::cerr << "cajeta: error: " << Error << "\n";
    return 1;
  }
  std::cout << Summary << "wrote " << Out << " (" << Records.size()
            << " records; `cajeta build --with-calibration=" << Out << "` builds them in)\n";
  return 0;
}

} // namespace

void addCalibrateCommand(CLI::App& App) {
  CLI::App* Cmd = App.add_subcommand(
      "calibrate", "Measure a device's peak rates, bandwidth, latency and launch costs once and "
                   "keep the record (what DeviceCalibration::current() serves)");
  static int Index = -1;
  static bool All = false, Anew = false, Json = false;
  static std::string Program, Out;
  static std::vector<std::string> ProgramArgs;
  Cmd->add_option("program", Program,
                  "A program using the runtime: run once recording its launches and once "
                  "running each alone, timed; the records go to --out");
  Cmd->add_option("args", ProgramArgs, "The program's arguments (after --)");
  Cmd->add_option("--out", Out, "The snapshot to write (default: <program>.calibration.json)");
  Cmd->add_option("--device", Index,
                  "The device to measure, by its index in `cajeta devices` "
                  "(default: the dispatcher's choice)");
  Cmd->add_flag("--all", All, "Measure every device");
  Cmd->add_flag("--anew", Anew, "Measure even where a record is held, and replace it");
  Cmd->add_flag("--json", Json, "Print each record as it is stored (JSON with key and checksum)");
  Cmd->callback([] {
    if (!Program.empty()) {
      ExitCode = calibrateProgram(Program, ProgramArgs, Out);
      return;
    }
    try {
      std::vector<xpu::Device> Targets;
      std::vector<xpu::Device> Devices = xpu::devices();
      if (All)
        Targets = Devices;
      else if (Index >= 0) {
        if (size_t(Index) >= Devices.size()) {
          std::cerr << "cajeta: error: there is no device " << Index << " (this machine has "
                    << Devices.size() << "; see cajeta devices)\n";
          ExitCode = 1;
          return;
        }
        Targets.push_back(Devices[Index]);
      } else
        Targets.push_back(xpu::defaultDevice());
      bool Terminal = ::isatty(2);
      for (const xpu::Device& D : Targets) {
        if (Terminal)
          std::fprintf(stderr, "calibrating %s: %s\n", D.backend().c_str(), D.name().c_str());
        xpu::DeviceCalibration::Progress Bar;
        if (Terminal)
          Bar = drawBar;
        xpu::DeviceCalibration C = Anew ? xpu::DeviceCalibration::measure(D, Bar)
                                        : xpu::DeviceCalibration::current(D, Bar);
        if (Json)
          std::cout << C.recordText();
        else
          report(D, C);
      }
    } catch (const xpu::Error& E) {
      std::cerr << "cajeta: error: " << E.what() << "\n";
      ExitCode = 1;
    }
  });
}

} // namespace cajeta::cli
