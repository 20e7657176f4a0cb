// gyre/scheduler/barrier.cpp — the BSP, SSP, ASP, pBSP and pSSP rules and the peer sampling.
#include "gyre/scheduler/barrier.hpp"

#include <algorithm>
#include <charconv>
#include <numeric>
#include <stdexcept>

namespace gyre::scheduler {
namespace {

std::vector<std::string_view> split(std::string_view text, char by) {
  std::vector<std::string_view> parts;
  for (;;) {
    const auto at = text.find(by);
    parts.push_back(text.substr(0, at));
    if (at == std::string_view::npos) return parts;
    text.remove_prefix(at + 1);
  }
}

std::int64_t number(std::string_view field, std::string_view spec, const char* what) {
  std::int64_t v = 0;
  const auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), v);
  if (ec != std::errc() || end != field.data() + field.size() || v < 0 || v > 1'000'000)
    throw std::invalid_argument("barrier '" + std::string(spec) + "': " + what + " must be an integer 0 … 1000000, got '" +
                                std::string(field) + "'");
  return v;
}

}  // namespace

BarrierSpec BarrierSpec::parse(std::string_view text) {
  const auto f = split(text, ':');
  const auto expect = [&](std::size_t fields) {
    if (f.size() != fields)
      throw std::invalid_argument("barrier '" + std::string(text) +
                                  "': expected bsp, ssp:S, asp, pbsp:BETA or pssp:BETA:S");
  };
  BarrierSpec s;
  if (f[0] == "bsp") {
    expect(1);
    s.kind = BarrierKind::kBsp;
  } else if (f[0] == "asp") {
    expect(1);
    s.kind = BarrierKind::kAsp;
  } else if (f[0] == "ssp") {
    expect(2);
    s.kind = BarrierKind::kSsp;
    s.staleness = number(f[1], text, "the staleness S");
  } else if (f[0] == "pbsp") {
    expect(2);
    s.kind = BarrierKind::kPbsp;
    s.sample = static_cast<int>(number(f[1], text, "the sample size BETA"));
  } else if (f[0] == "pssp") {
    expect(3);
    s.kind = BarrierKind::kPssp;
    s.sample = static_cast<int>(number(f[1], text, "the sample size BETA"));
    s.staleness = number(f[2], text, "the staleness S");
  } else {
    expect(0);
  }
  return s;
}

std::vector<BarrierSpec> BarrierSpec::parse_list(std::string_view text) {
  std::vector<BarrierSpec> specs;
  for (auto part : split(text, ',')) specs.push_back(parse(part));
  return specs;
}

std::string BarrierSpec::name() const {
  switch (kind) {
    case BarrierKind::kBsp: return "bsp";
    case BarrierKind::kSsp: return "ssp:" + std::to_string(staleness);
    case BarrierKind::kAsp: return "asp";
    case BarrierKind::kPbsp: return "pbsp:" + std::to_string(sample);
    case BarrierKind::kPssp: return "pssp:" + std::to_string(sample) + ":" + std::to_string(staleness);
  }
  return "?";
}

std::int64_t ClockList::slowest() const {
  std::int64_t low = Barrier::kFinished;
  for (std::size_t w = 0; w < clocks_.size(); ++w)
    if (static_cast<int>(w) != self_) low = std::min(low, clocks_[w]);
  return low;
}

Barrier::Barrier(BarrierSpec spec) : spec_(spec) {
  if (spec_.staleness < 0 || spec_.sample < 0) throw std::invalid_argument("barrier: negative staleness or sample");
}

bool Barrier::global() const noexcept { return spec_.kind == BarrierKind::kBsp || spec_.kind == BarrierKind::kSsp; }

std::int64_t Barrier::staleness() const noexcept {
  switch (spec_.kind) {
    case BarrierKind::kBsp:
    case BarrierKind::kPbsp: return 0;
    case BarrierKind::kSsp:
    case BarrierKind::kPssp: return spec_.staleness;
    case BarrierKind::kAsp: break;
  }
  return kFinished;
}

std::int64_t Barrier::required(std::int64_t clock) const noexcept {
  const auto s = staleness();
  return s == kFinished ? std::numeric_limits<std::int64_t>::min() : clock - s;
}

void Barrier::draw(int self, int workers, Random& random, std::vector<int>& sample) const {
  sample.clear();
  if (spec_.kind != BarrierKind::kPbsp && spec_.kind != BarrierKind::kPssp) return;
  const int others = workers - 1;
  const int beta = std::min(spec_.sample, others);
  if (beta <= 0) return;
  // Positions 0 … others−1 stand for the other workers (position ≥ self is worker position+1).
  const auto below = [&](int n) { return static_cast<int>(random.below(static_cast<std::uint64_t>(n))); };
  if (static_cast<std::int64_t>(beta) * beta <= others) {
    // Floyd's algorithm: β draws and a scan of at most β, no table of all the others.
    for (int j = others - beta; j < others; ++j) {
      const int t = below(j + 1);
      const bool taken = std::find(sample.begin(), sample.end(), t) != sample.end();
      sample.push_back(taken ? j : t);
    }
  } else {
    sample.resize(static_cast<std::size_t>(others));
    std::iota(sample.begin(), sample.end(), 0);
    for (int i = 0; i < beta; ++i) std::swap(sample[static_cast<std::size_t>(i)], sample[static_cast<std::size_t>(i + below(others - i))]);
    sample.resize(static_cast<std::size_t>(beta));
  }
  for (auto& p : sample)
    if (p >= self) ++p;
}

Decision Barrier::decide(std::int64_t clock, std::span<const int> sample, const PeerClocks& peers) const {
  if (spec_.kind == BarrierKind::kAsp) return Decision::kAdvance;
  const auto need = required(clock);
  if (global()) return peers.slowest() >= need ? Decision::kAdvance : Decision::kWait;
  for (int p : sample)
    if (peers.clock(p) < need) return Decision::kWait;
  return Decision::kAdvance;
}

}  // namespace gyre::scheduler
