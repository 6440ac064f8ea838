// `cajeta calibrate`: measures a device (or every device) once and stores the record, as a
// program's DeviceCalibration::current() would; prints the facts, with a progress bar on a
// terminal.
#include "Commands.h"

#include <cajeta/xpu.hpp>

#include <cmath>
#include <cstdio>
#include <iostream>
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

} // namespace

void addCalibrateCommand(CLI::App& App) {
  CLI::App* Cmd = App.add_subcommand(
      "calibrate", "Measure a device's peak rates, bandwidth, latency and launch costs once and "
                   "keep the record (what DeviceCalibration::current() serves)");
  static int Index = -1;
  static bool All = false, Anew = false, Json = false;
  Cmd->add_option("--device", Index,
                  "The device to measure, by its index in `cajeta devices` "
                  "(default: the dispatcher's choice)");
  Cmd->add_flag("--all", All, "Measure every device");
  Cmd->add_flag("--anew", Anew, "Measure even where a record is held, and replace it");
  Cmd->add_flag("--json", Json, "Print each record as it is stored (JSON with key and checksum)");
  Cmd->callback([] {
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
