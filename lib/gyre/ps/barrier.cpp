// gyre/ps/barrier.cpp — the BSP, SSP, ASP, pBSP and pSSP rules, and the peer sampling every rule gets.
#include "gyre/ps/barrier.hpp"

#include <algorithm>
#include <charconv>
#include <numeric>
#include <stdexcept>

namespace gyre::ps {
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

namespace {

// BSP, SSP, ASP, pBSP and pSSP are one rule: every looked-at peer (all, β drawn, or none) must
// have reached clock − s (s = 0 for the BSPs, no bound for ASP).
class StalenessRule final : public BarrierRule {
 public:
  explicit StalenessRule(BarrierSpec spec) : spec_(spec) {
    if (spec_.staleness < 0 || spec_.sample < 0) throw std::invalid_argument("barrier: negative staleness or sample");
  }
  std::string name() const override { return spec_.name(); }
  int peers() const override {
    switch (spec_.kind) {
      case BarrierKind::kBsp:
      case BarrierKind::kSsp: return kEveryPeer;
      case BarrierKind::kPbsp:
      case BarrierKind::kPssp: return spec_.sample;
      case BarrierKind::kAsp: break;
    }
    return 0;
  }
  bool slowest_suffices() const override { return spec_.kind == BarrierKind::kBsp || spec_.kind == BarrierKind::kSsp; }
  std::int64_t required(std::int64_t clock) const override {
    switch (spec_.kind) {
      case BarrierKind::kBsp:
      case BarrierKind::kPbsp: return clock;
      case BarrierKind::kSsp:
      case BarrierKind::kPssp: return clock - spec_.staleness;
      case BarrierKind::kAsp: break;
    }
    return std::numeric_limits<std::int64_t>::min();
  }
  Decision decide(std::int64_t clock, std::span<const std::int64_t> peers) const override {
    const auto need = required(clock);
    return std::all_of(peers.begin(), peers.end(), [&](std::int64_t c) { return c >= need; }) ? Decision::kAdvance
                                                                                               : Decision::kWait;
  }

 private:
  BarrierSpec spec_;
};

}  // namespace

Sampling parse_sampling(std::string_view text) {
  if (text == "per-step") return Sampling::kPerStep;
  if (text == "per-check") return Sampling::kPerCheck;
  throw std::invalid_argument("sampling '" + std::string(text) + "': expected per-step or per-check");
}

std::string sampling_name(Sampling sampling) { return sampling == Sampling::kPerCheck ? "per-check" : "per-step"; }

Barrier::Barrier(BarrierSpec spec, Sampling sampling)
    : rule_(std::make_shared<const StalenessRule>(spec)), sampling_(sampling) {}

Barrier::Barrier(std::shared_ptr<const BarrierRule> rule, Sampling sampling) : rule_(std::move(rule)), sampling_(sampling) {
  if (!rule_) throw std::invalid_argument("barrier: no rule");
}

void Barrier::draw(int self, int workers, Random& random, std::vector<int>& sample) const {
  sample.clear();
  if (global()) return;
  const int others = workers - 1;
  const int wanted = rule_->peers();
  if (wanted == BarrierRule::kEveryPeer) {
    for (int p = 0; p < workers; ++p)
      if (p != self) sample.push_back(p);
    return;
  }
  const int beta = std::min(wanted, others);
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
  if (global()) {
    const std::int64_t slowest = peers.slowest();
    return rule_->decide(clock, std::span<const std::int64_t>(&slowest, 1));
  }
  // Small samples (the usual β) need no allocation.
  constexpr std::size_t kOnStack = 64;
  std::int64_t on_stack[kOnStack];
  std::vector<std::int64_t> on_heap;
  std::span<std::int64_t> clocks(on_stack, std::min(sample.size(), kOnStack));
  if (sample.size() > kOnStack) {
    on_heap.resize(sample.size());
    clocks = on_heap;
  }
  for (std::size_t i = 0; i < sample.size(); ++i) clocks[i] = peers.clock(sample[i]);
  return rule_->decide(clock, clocks);
}

}  // namespace gyre::ps
