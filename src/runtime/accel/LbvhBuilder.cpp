// The host side of the device BVH build: uploads the description, launches LbvhKernels.cj's
// kernels in order on a stream of its own, and reads back the counts that make the statistics.
#include "runtime/accel/LbvhBuilder.h"

#include "bundle/AccelLayout.h"
#include "runtime/BuiltinKernels.h"
#include "runtime/Command.h"
#include "runtime/Kernel.h"
#include "runtime/LaunchArgs.h"
#include "runtime/LoadedProgram.h"
#include "runtime/Runtime.h"
#include "runtime/RuntimeError.h"
#include "runtime/Stream.h"
#include "runtime/scheduler/Submission.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <limits>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

namespace cajeta::xpu::rt {

extern const char* const LbvhKernelsSource;

namespace {

namespace L = bundle::accel;

constexpr uint32_t GroupSize = 256;      // every kernel's workgroup but the scan's
constexpr uint32_t ScanGroupSize = 1024; // radixScan's one workgroup
constexpr uint32_t TileKeys = 2048;      // keys per workgroup of the sort's kernels
constexpr uint32_t DigitCount = 16;      // 4 bits per pass
// The per-primitive kernels' grids (grid-stride loops): one work-item per primitive up to every
// backend's grid limit; the scene bounds' fewer, so fewer groups meet at its atomics.
constexpr uint32_t MaxGroups = 65535;
constexpr uint32_t MaxBoundsGroups = 512;
constexpr uint32_t NoTriangle = 0xFFFFFFFFu;

/// The kernels, loaded once per device.
std::shared_ptr<LoadedProgram> kernelsFor(BackendDevice& Device) {
  static const BuiltinKernels Builtin{LbvhKernelsSource, "LbvhKernels.cj", "cajeta-lbvh.cjx",
                                      "the device BVH builder's kernels"};
  static std::mutex Lock;
  static std::map<BackendDevice*, std::shared_ptr<LoadedProgram>> Loaded;
  std::lock_guard<std::mutex> G(Lock);
  std::shared_ptr<LoadedProgram>& P = Loaded[&Device];
  if (!P)
    P = Builtin.load(Device).Program;
  return P;
}

double millisSince(std::chrono::steady_clock::time_point Start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - Start)
      .count();
}

class Build {
public:
  Build(BackendDevice& Device, const BvhBuilder::Scene& S)
      : Device(Device), S(S), Kernels(kernelsFor(Device)),
        On(Device, Stream::nextName(" (BVH build)")) {}

  LbvhBuilder::Result run();

private:
  BackendDevice& Device;
  const BvhBuilder::Scene& S;
  std::shared_ptr<LoadedProgram> Kernels;
  Stream On;

  void launch(const char* Name, uint32_t Groups, std::vector<cajeta_xpu_arg> Args,
              uint32_t Size = GroupSize) {
    uint32_t Grid[3] = {std::max<uint32_t>(Groups, 1), 1, 1};
    uint32_t Block[3] = {Size, 1, 1};
    Kernels->kernel(std::string("Lbvh.") + Name)
        .launch(On, Grid, Block, 0, Args.data(), Args.size(), Submission{});
  }
  /// A buffer of T holding Data (at least one element: a kernel's parameter needs a buffer).
  template <class T>
  ArgBuffer upload(bundle::ScalarType Type, const T* Data, size_t Count, T Fill = T()) {
    ArgBuffer B(Device, Type, std::max<size_t>(Count, 1));
    std::vector<T> One{Fill};
    const void* Src = Count ? static_cast<const void*>(Data) : One.data();
    On.waitFor(On.enqueue(Command::write(B.buffer(), Src, std::max<size_t>(Count, 1))));
    return B;
  }
};

LbvhBuilder::Result Build::run() {
  using bundle::ScalarType;
  LbvhBuilder::Result R;
  R.Stats.Triangles = S.TriangleCount;
  R.Stats.Aabbs = S.Aabbs.size() / 6;
  uint64_t N = uint64_t(S.TriangleCount) + S.Aabbs.size() / 6;
  uint64_t MaxWords =
      L::HeaderWords + (2 * std::max<uint64_t>(N, 1) - 1) * (L::NodeWords + 1) + N * L::PrimWords;
  if (MaxWords > std::numeric_limits<uint32_t>::max() ||
      S.Vertices.size() > std::numeric_limits<uint32_t>::max() ||
      S.Aabbs.size() > std::numeric_limits<uint32_t>::max())
    throw std::invalid_argument("the device build takes at most 2^32 - 1 words of BVH and of "
                                "vertex or box floats; this scene needs more (build it on the "
                                "host)");
  uint32_t Tris = uint32_t(S.TriangleCount), Count = uint32_t(N);
  uint32_t VertexCount = uint32_t(S.Vertices.size() / 3);
  uint32_t HasIndices = S.Indices.empty() ? 0 : 1;

  ArgBuffer Vertices = upload(ScalarType::F32, S.Vertices.data(), S.Vertices.size());
  ArgBuffer Indices = upload(ScalarType::U32, S.Indices.data(), S.Indices.size());
  ArgBuffer Boxes = upload(ScalarType::F32, S.Aabbs.data(), S.Aabbs.size());
  // Order-preserving bits of min xyz and max xyz (LbvhKernels.cj's orderedBits).
  const uint32_t StartBounds[6] = {~0u, ~0u, ~0u, 0, 0, 0};
  ArgBuffer SceneBounds = upload(ScalarType::U32, StartBounds, 6);
  const uint32_t StartMeta[3] = {0, 0, NoTriangle};
  ArgBuffer Meta = upload(ScalarType::U32, StartMeta, 3);

  size_t Slots = std::max<size_t>(N, 1);
  uint32_t Tiles = uint32_t((N + TileKeys - 1) / TileKeys);
  ArgBuffer KeysA(Device, ScalarType::U32, Slots), ValuesA(Device, ScalarType::U32, Slots);
  ArgBuffer KeysB(Device, ScalarType::U32, Slots), ValuesB(Device, ScalarType::U32, Slots);
  ArgBuffer Hist(Device, ScalarType::U32, std::max<size_t>(size_t(DigitCount) * Tiles, 1));
  ArgBuffer Node(Device, ScalarType::U32, 2 * Slots), Up(Device, ScalarType::U32, 2 * Slots);
  ArgBuffer Axis(Device, ScalarType::U32, Slots), Visits(Device, ScalarType::U32, Slots);
  ArgBuffer Words(Device, ScalarType::U32, size_t(MaxWords));

  auto Start = std::chrono::steady_clock::now();
  uint32_t Groups = std::min<uint32_t>(uint32_t((N + GroupSize - 1) / GroupSize), MaxGroups);
  auto Scene = [&] {
    return std::vector<cajeta_xpu_arg>{Vertices.arg(), Indices.arg(),      Boxes.arg(),
                                       u32Arg(Tris),   u32Arg(HasIndices), u32Arg(VertexCount)};
  };
  std::vector<cajeta_xpu_arg> A = Scene();
  A.insert(A.end(), {SceneBounds.arg(), Meta.arg(), u32Arg(Count)});
  launch("bounds", std::min(Groups, MaxBoundsGroups), A);
  A = Scene();
  A.insert(A.end(), {SceneBounds.arg(), KeysA.arg(), ValuesA.arg(), u32Arg(Count)});
  launch("mortonCodes", Groups, A);
  ArgBuffer *KeysIn = &KeysA, *ValuesIn = &ValuesA, *KeysOut = &KeysB, *ValuesOut = &ValuesB;
  for (uint32_t Shift = 0; Shift < 32; Shift += 4) {
    launch("radixHistogram", Tiles,
           {KeysIn->arg(), Hist.arg(), u32Arg(Count), u32Arg(Shift), u32Arg(Tiles)});
    launch("radixScan", 1, {Hist.arg(), u32Arg(uint64_t(DigitCount) * Tiles)}, ScanGroupSize);
    launch("radixScatter", Tiles,
           {KeysIn->arg(), ValuesIn->arg(), KeysOut->arg(), ValuesOut->arg(), Hist.arg(),
            u32Arg(Count), u32Arg(Shift), u32Arg(Tiles)});
    std::swap(KeysIn, KeysOut);
    std::swap(ValuesIn, ValuesOut);
  }
  launch(
      "hierarchy", Groups,
      {KeysIn->arg(), Meta.arg(), Node.arg(), Up.arg(), Axis.arg(), Visits.arg(), u32Arg(Count)});
  A = Scene();
  A.insert(A.end(), {u32Arg(S.OpaqueTriangles ? L::PrimOpaque : 0), ValuesIn->arg(), Meta.arg(),
                     Node.arg(), Up.arg(), Words.arg(), u32Arg(Count)});
  launch("leaves", Groups, A);
  launch("refit", Groups,
         {Meta.arg(), Node.arg(), Up.arg(), Axis.arg(), Visits.arg(), Words.arg(), u32Arg(Count)});
  uint32_t Got[3] = {};
  On.enqueue(Command::read(Meta.buffer(), Got, 3));
  On.sync();
  R.BuildMillis = millisSince(Start);

  if (Got[2] != NoTriangle) {
    uint32_t T = Got[2];
    uint32_t Bad = 0;
    for (int K = 0; K < 3; ++K)
      if (S.Indices[3 * size_t(T) + K] >= VertexCount) {
        Bad = S.Indices[3 * size_t(T) + K];
        break;
      }
    throw std::invalid_argument("triangle " + std::to_string(T) + ": index " + std::to_string(Bad) +
                                " is out of range (" + std::to_string(VertexCount) + " vertices)");
  }
  uint32_t Prims = Got[0] + Got[1];
  R.Stats.Prims = Prims;
  R.Stats.Skipped = N - Prims;
  R.Stats.Nodes = Prims ? 2 * Prims - 1 : 0;
  R.Stats.Leaves = Prims;
  R.Stats.MaxDepth = 0; // not measured: the bottom-up pass would pay for it at every level
  R.Stats.Words =
      L::HeaderWords + size_t(R.Stats.Nodes) * (L::NodeWords + 1) + size_t(Prims) * L::PrimWords;
  R.Words = Words.buffer();
  return R;
}

} // namespace

LbvhBuilder::Result LbvhBuilder::build(BackendDevice& Device, const BvhBuilder::Scene& S) {
  BvhBuilder::validateShape(S);
  if (Device.orderedAtomicsInLoopsWork())
    return Build(Device, S).run();
  // The bottom-up pass climbs with acquire-release atomics in a loop, which this driver gets
  // wrong: the same kernels run on the cpu backend, and the words move to Device.
  Backend* Cpu = Runtime::get().findBackend("cpu");
  if (!Cpu || Cpu->devices().empty())
    fail(CAJETA_XPU_BACKEND_UNAVAILABLE,
         fmt::format("the device BVH build cannot run on {} (its driver loses ordered atomics "
                     "in loops) and there is no cpu device to run it",
                     Device.name()));
  Result R = Build(*Cpu->devices().front(), S).run();
  auto Start = std::chrono::steady_clock::now();
  std::vector<uint32_t> Words(R.Stats.Words);
  auto Moved =
      std::make_shared<Buffer>(Device, bundle::ScalarType::U32, std::max<size_t>(Words.size(), 1));
  Stream On(Device, Stream::nextName(" (BVH build)"));
  {
    Stream From(*Cpu->devices().front(), Stream::nextName(" (BVH build)"));
    From.waitFor(From.enqueue(Command::read(R.Words, Words.data(), Words.size())));
  }
  On.waitFor(On.enqueue(Command::write(Moved, Words.data(), Words.size())));
  R.Words = std::move(Moved);
  R.BuildMillis += millisSince(Start);
  return R;
}

} // namespace cajeta::xpu::rt
