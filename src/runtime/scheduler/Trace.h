// CAJETA_XPU_TRACE=out.json: a Chrome trace / Perfetto JSON of what the streams were given. One
// process per device, one thread per stream; each launch and copy is a slice from the start to the
// end of its issue on the host (what the runtime did with it, not yet when the device ran it),
// with the kernel's name and geometry; an arrow joins a command to the other stream's
// command it was ordered after (the access-set ordering). The file is written at exit and by
// cajeta_xpu_trace_flush(); open it in ui.perfetto.dev or chrome://tracing.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

namespace cajeta::xpu::rt {

class Trace {
public:
  /// The process's trace, or null when CAJETA_XPU_TRACE is unset (checked once).
  static Trace* active();

  /// Microseconds since the trace began.
  uint64_t now() const;

  /// One command issued on a stream: Device and Stream name the tracks.
  struct Command {
    std::string Device; // "cuda 'NVIDIA H200'"
    std::string Stream; // "stream 3"
    std::string Name;   // the kernel's, or "upload" / "download" / "copy"
    std::string Kind;   // "launch" or "copy"
    uint64_t Start = 0, End = 0;
    uint64_t Seq = 0;     // its number on the stream
    std::string Geometry; // "grid [4,1,1] block [256,1,1]" (launches)
    std::string Policy;   // the submission's policy (launches)
    std::string Window;   // "starts within 1.500 ms of its issue" (windowed launches)
  };
  void command(const Command& C);
  /// When a command ran on the device (monotonicNowNs clock): a slice on the track
  /// "<Stream> on the device".
  void deviceSlice(const std::string& Device, const std::string& Stream, const std::string& Name,
                   uint64_t StartNs, uint64_t EndNs);
  /// An ordering edge: the command at FromTs on stream From was waited for by the command at ToTs
  /// on stream To.
  void edge(const std::string& FromDevice, const std::string& From, uint64_t FromTs,
            const std::string& ToDevice, const std::string& To, uint64_t ToTs);

  /// Writes the file now (it is rewritten with everything so far); false when it cannot be.
  bool flush();

  ~Trace();

private:
  explicit Trace(std::string Path);
  uint32_t pid(const std::string& Device);               // locked
  uint32_t tid(uint32_t Pid, const std::string& Stream); // locked

  struct Track {
    uint32_t Pid, Tid;
    std::string Device, Stream;
  };
  std::string Path;
  uint64_t Origin;
  std::mutex Mutex;
  std::vector<std::string> Devices;
  std::vector<Track> Tracks;
  std::vector<std::string> Events; // JSON objects, one per event
  uint64_t NextFlow = 1;
};

} // namespace cajeta::xpu::rt
