// Wall-clock timing: warm-up runs, then the median of the timed runs, in milliseconds.
#pragma once

#include <algorithm>
#include <chrono>
#include <thread>
#include <vector>

namespace cajeta::bench {

template <class Fn> double timeOnceMs(Fn&& Body) {
  auto Start = std::chrono::steady_clock::now();
  Body();
  auto End = std::chrono::steady_clock::now();
  return std::chrono::duration<double, std::milli>(End - Start).count();
}

template <class Fn> double medianMs(unsigned Warmup, unsigned Reps, Fn&& Body) {
  for (unsigned I = 0; I < Warmup; ++I)
    Body();
  std::vector<double> Times;
  Times.reserve(Reps);
  for (unsigned I = 0; I < Reps; ++I)
    Times.push_back(timeOnceMs(Body));
  std::sort(Times.begin(), Times.end());
  size_t Mid = Times.size() / 2;
  return Times.size() % 2 ? Times[Mid] : (Times[Mid - 1] + Times[Mid]) / 2;
}

struct PairTimes {
  double OursMs = 0, PeerMs = 0;       // medians
  double OursMinMs = 0, PeerMinMs = 0; // fastest runs: the least disturbed by other load
};

/// Times both sides in Rounds rounds, each a block of Ours runs then a block of Peer runs (each
/// block starting with Warmup untimed runs), and returns each side's median and minimum over all
/// rounds.
/// Rounds spread the load of a shared machine over both sides; blocks rather than alternate
/// runs, and a pause after each peer block, keep libgomp's spinning workers (they spin for a
/// while after a parallel loop) from stealing cores from our runs.
template <class OursFn, class PeerFn>
PairTimes comparePair(unsigned Warmup, unsigned Reps, unsigned Rounds, OursFn&& Ours,
                      PeerFn&& Peer) {
  std::vector<double> OursTimes, PeerTimes;
  const unsigned PerRound = (Reps + Rounds - 1) / Rounds;
  auto block = [&](auto& Body, std::vector<double>& Times) {
    for (unsigned I = 0; I < Warmup; ++I)
      Body();
    for (unsigned I = 0; I < PerRound; ++I)
      Times.push_back(timeOnceMs(Body));
  };
  for (unsigned R = 0; R < Rounds; ++R) {
    block(Ours, OursTimes);
    block(Peer, PeerTimes);
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  auto median = [](std::vector<double>& T) {
    std::sort(T.begin(), T.end());
    size_t Mid = T.size() / 2;
    return T.size() % 2 ? T[Mid] : (T[Mid - 1] + T[Mid]) / 2;
  };
  PairTimes T;
  T.OursMs = median(OursTimes);
  T.PeerMs = median(PeerTimes);
  T.OursMinMs = OursTimes.front(); // sorted by median()
  T.PeerMinMs = PeerTimes.front();
  return T;
}

} // namespace cajeta::bench
