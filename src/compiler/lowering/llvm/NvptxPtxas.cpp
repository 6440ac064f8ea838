// ptxas as a subprocess: locating it, its architecture list, assembling PTX, reading `-v`.
#include "compiler/lowering/llvm/NvptxPtxas.h"

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string_view>
#include <sys/wait.h>
#include <unistd.h>

namespace cajeta::lowering {
namespace {

std::string quote(const std::string& S) {
  std::string Q = "'";
  for (char C : S)
    Q += C == '\'' ? std::string("'\\''") : std::string(1, C);
  return Q + "'";
}

/// Runs Command through the shell with stderr joined to stdout; returns the exit status.
int runCapture(const std::string& Command, std::string& Output) {
  FILE* P = ::popen((Command + " 2>&1").c_str(), "r");
  if (!P)
    return -1;
  char Buf[4096];
  size_t N;
  while ((N = std::fread(Buf, 1, sizeof Buf, P)) > 0)
    Output.append(Buf, N);
  int Status = ::pclose(P);
  return WIFEXITED(Status) ? WEXITSTATUS(Status) : -1;
}

bool isExecutable(const std::string& Path) {
  return !Path.empty() && ::access(Path.c_str(), X_OK) == 0 &&
         std::filesystem::is_regular_file(Path);
}

unsigned smNumber(const std::string& Sm) {
  if (Sm.rfind("sm_", 0) != 0)
    return 0;
  return unsigned(std::strtoul(Sm.c_str() + 3, nullptr, 10));
}

} // namespace

std::string NvptxPtxas::find() {
  if (const char* Env = std::getenv("CAJETA_PTXAS"))
    return isExecutable(Env) ? std::string(Env) : std::string();
  if (const char* Cuda = std::getenv("CUDA_HOME"))
    if (isExecutable(std::string(Cuda) + "/bin/ptxas"))
      return std::string(Cuda) + "/bin/ptxas";
  if (isExecutable("/usr/local/cuda/bin/ptxas"))
    return "/usr/local/cuda/bin/ptxas";
  if (const char* Path = std::getenv("PATH")) {
    std::stringstream SS(Path);
    std::string Dir;
    while (std::getline(SS, Dir, ':'))
      if (isExecutable(Dir + "/ptxas"))
        return Dir + "/ptxas";
  }
  return {};
}

std::string NvptxPtxas::archFor(const std::string& Ptxas, const std::string& Sm) {
  std::string Help;
  if (Ptxas.empty() || runCapture(quote(Ptxas) + " --help", Help) != 0)
    return {};
  unsigned Want = smNumber(Sm);
  unsigned Best = 0;
  std::regex Re("'sm_([0-9]+)'");
  for (auto It = std::sregex_iterator(Help.begin(), Help.end(), Re); It != std::sregex_iterator();
       ++It) {
    unsigned N = unsigned(std::stoul((*It)[1].str()));
    if (N == Want)
      return Sm;
    if (N > Want && (Best == 0 || N < Best))
      Best = N;
  }
  return Best ? "sm_" + std::to_string(Best) : std::string();
}

bool NvptxPtxas::assemble(const std::string& Ptxas, const std::string& Ptx, const std::string& Arch,
                          const std::string& TempDir, std::string& Output) {
  std::error_code EC;
  std::filesystem::path Dir =
      TempDir.empty() ? std::filesystem::temp_directory_path(EC) : std::filesystem::path(TempDir);
  std::string Template = (Dir / "cajeta-ptx-XXXXXX.ptx").string();
  int Fd = ::mkstemps(Template.data(), 4);
  if (Fd < 0) {
    Output = "cannot create a temporary file in '" + Dir.string() + "'";
    return false;
  }
  bool Written = ::write(Fd, Ptx.data(), Ptx.size()) == ssize_t(Ptx.size());
  ::close(Fd);
  if (!Written) {
    std::filesystem::remove(Template, EC);
    Output = "cannot write '" + Template + "'";
    return false;
  }
  int Rc = runCapture(
      quote(Ptxas) + " -v -arch=" + quote(Arch) + " " + quote(Template) + " -o /dev/null", Output);
  std::filesystem::remove(Template, EC);
  return Rc == 0;
}

namespace {

/// The text after Prefix in Line up to the first character in Stops (or the end).
bool textAfter(const std::string& Line, std::string_view Prefix, std::string_view Stops,
               std::string& Out) {
  size_t At = Line.find(Prefix);
  if (At == std::string::npos)
    return false;
  size_t From = At + Prefix.size();
  size_t To = Line.find_first_of(Stops, From);
  Out = Line.substr(From, To == std::string::npos ? std::string::npos : To - From);
  return !Out.empty();
}

/// The decimal number that ends just before Suffix in Line ("12 bytes spill stores").
bool numberBefore(const std::string& Line, std::string_view Suffix, uint32_t& Out) {
  size_t At = Line.find(Suffix);
  if (At == std::string::npos)
    return false;
  size_t From = At;
  while (From > 0 && std::isdigit(static_cast<unsigned char>(Line[From - 1])))
    --From;
  if (From == At || At - From > 9)
    return false;
  Out = uint32_t(std::stoul(Line.substr(From, At - From)));
  return true;
}

} // namespace

// ptxas -v output, read with plain string searches: a kernel name can be tens of thousands of
// characters long, which std::regex's recursive matcher cannot take (it overflowed the stack).
std::map<std::string, PtxasFootprint> NvptxPtxas::parseVerbose(const std::string& Output) {
  std::map<std::string, PtxasFootprint> R;
  std::stringstream SS(Output);
  std::string Line, Cur, Name;
  while (std::getline(SS, Line)) {
    if (textAfter(Line, "Compiling entry function '", "'", Name) ||
        textAfter(Line, "Function properties for ", " \t\r", Name)) {
      Cur = Name;
      R[Cur];
      continue;
    }
    if (Cur.empty())
      continue;
    uint32_t N = 0;
    if (numberBefore(Line, " bytes spill stores", N))
      R[Cur].SpillBytes = N;
    if (numberBefore(Line, " registers", N) && Line.find("Used ") != std::string::npos)
      R[Cur].Registers = N;
    if (numberBefore(Line, " bytes smem", N))
      R[Cur].StaticSharedBytes = N;
  }
  return R;
}

} // namespace cajeta::lowering
