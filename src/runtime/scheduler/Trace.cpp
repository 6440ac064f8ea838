// The Chrome trace / Perfetto JSON of submissions (Trace.h).
#include "runtime/scheduler/Trace.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>

namespace cajeta::xpu::rt {

namespace {
uint64_t steadyUs() {
  using namespace std::chrono;
  return uint64_t(duration_cast<microseconds>(steady_clock::now().time_since_epoch()).count());
}
} // namespace

Trace* Trace::active() {
  static std::unique_ptr<Trace> The = []() -> std::unique_ptr<Trace> {
    const char* Path = std::getenv("CAJETA_XPU_TRACE");
    if (!Path || !*Path)
      return nullptr;
    return std::unique_ptr<Trace>(new Trace(Path));
  }();
  return The.get();
}

Trace::Trace(std::string Path) : Path(std::move(Path)), Origin(steadyUs()) {}

Trace::~Trace() {
  if (!flush())
    std::fprintf(stderr, "cajeta_xpu: cannot write the trace file '%s'\n", Path.c_str());
}

uint64_t Trace::now() const {
  return steadyUs() - Origin;
}

uint32_t Trace::pid(const std::string& Device) {
  for (size_t I = 0; I < Devices.size(); ++I)
    if (Devices[I] == Device)
      return uint32_t(I + 1);
  Devices.push_back(Device);
  uint32_t Pid = uint32_t(Devices.size());
  Events.push_back(nlohmann::json{
      {"ph", "M"}, {"name", "process_name"}, {"pid", Pid}, {"args", {{"name", Device}}}}
                       .dump());
  return Pid;
}

uint32_t Trace::tid(uint32_t Pid, const std::string& Stream) {
  for (const Track& T : Tracks)
    if (T.Pid == Pid && T.Stream == Stream)
      return T.Tid;
  uint32_t Tid = uint32_t(Tracks.size() + 1);
  Tracks.push_back({Pid, Tid, Devices[Pid - 1], Stream});
  Events.push_back(nlohmann::json{{"ph", "M"},
                                  {"name", "thread_name"},
                                  {"pid", Pid},
                                  {"tid", Tid},
                                  {"args", {{"name", Stream}}}}
                       .dump());
  return Tid;
}

void Trace::command(const Command& C) {
  std::lock_guard<std::mutex> Lock(Mutex);
  uint32_t Pid = pid(C.Device);
  nlohmann::json Args{{"seq", C.Seq}};
  if (!C.Geometry.empty())
    Args["geometry"] = C.Geometry;
  if (!C.Policy.empty())
    Args["policy"] = C.Policy;
  if (!C.Window.empty())
    Args["window"] = C.Window;
  // At least 1 us long, so that arrows have a slice to bind to.
  Events.push_back(nlohmann::json{
      {"ph", "X"},
      {"cat", C.Kind},
      {"name", C.Name},
      {"pid", Pid},
      {"tid", tid(Pid, C.Stream)},
      {"ts", C.Start},
      {"dur", std::max<uint64_t>(C.End - C.Start, 1)},
      {"args", Args}}.dump());
}

void Trace::deviceSlice(const std::string& Device, const std::string& Stream,
                        const std::string& Name, uint64_t StartNs, uint64_t EndNs) {
  std::lock_guard<std::mutex> Lock(Mutex);
  uint32_t Pid = pid(Device);
  uint64_t OriginNs = Origin * 1000;
  uint64_t Start = StartNs > OriginNs ? (StartNs - OriginNs) / 1000 : 0;
  uint64_t End = EndNs > OriginNs ? (EndNs - OriginNs) / 1000 : 0;
  Events.push_back(nlohmann::json{{"ph", "X"},
                                  {"cat", "device"},
                                  {"name", Name},
                                  {"pid", Pid},
                                  {"tid", tid(Pid, Stream + " on the device")},
                                  {"ts", Start},
                                  {"dur", std::max<uint64_t>(End > Start ? End - Start : 0, 1)}}
                       .dump());
}

void Trace::edge(const std::string& FromDevice, const std::string& From, uint64_t FromTs,
                 const std::string& ToDevice, const std::string& To, uint64_t ToTs) {
  std::lock_guard<std::mutex> Lock(Mutex);
  uint32_t FromPid = pid(FromDevice), ToPid = pid(ToDevice);
  uint64_t Id = NextFlow++;
  Events.push_back(nlohmann::json{
      {"ph", "s"},
      {"cat", "order"},
      {"name", "ordered after"},
      {"id", Id},
      {"pid", FromPid},
      {"tid", tid(FromPid, From)},
      {"ts", FromTs}}.dump());
  Events.push_back(nlohmann::json{
      {"ph", "f"},
      {"bp", "e"},
      {"cat", "order"},
      {"name", "ordered after"},
      {"id", Id},
      {"pid", ToPid},
      {"tid", tid(ToPid, To)},
      {"ts", ToTs}}.dump());
}

bool Trace::flush() {
  std::lock_guard<std::mutex> Lock(Mutex);
  std::ofstream Out(Path, std::ios::trunc);
  if (!Out)
    return false;
  Out << "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n";
  for (size_t I = 0; I < Events.size(); ++I)
    Out << (I ? ",\n" : "") << Events[I];
  Out << "\n]}\n";
  return bool(Out);
}

} // namespace cajeta::xpu::rt
