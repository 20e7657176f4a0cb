// gyre/simulation/barrier_simulation.cpp — event queue, wait lists and step-time draws of the barrier simulator.
#include "gyre/simulation/barrier_simulation.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <queue>
#include <stdexcept>

#include "gyre/base/random.hpp"

namespace gyre::simulation {
namespace {

double positive(std::string_view field, std::string_view spec, const char* what, bool allow_zero = false) {
  double v = 0;
  const auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), v);
  if (ec != std::errc() || end != field.data() + field.size() || !std::isfinite(v) || v < 0 || (v == 0 && !allow_zero))
    throw std::invalid_argument("step times '" + std::string(spec) + "': " + what + " must be a positive number, got '" +
                                std::string(field) + "'");
  return v;
}

// Clocks as the barriers see them: every worker's steps, and the lowest over all of them (a
// worker's own clock is never below the lowest, so the lowest of all is the lowest of the others
// whenever it matters: a worker only waits while it is ahead).
class ClockTable final : public ps::PeerClocks {
 public:
  explicit ClockTable(int workers) : clocks_(static_cast<std::size_t>(workers), 0), at_(1, workers) {}
  std::int64_t clock(int worker) const override { return clocks_[static_cast<std::size_t>(worker)]; }
  std::int64_t slowest() const override { return lowest_; }
  // Returns true if the lowest clock rose.
  bool tick(int worker) {
    auto& c = clocks_[static_cast<std::size_t>(worker)];
    if (static_cast<std::size_t>(c + 1) >= at_.size()) at_.push_back(0);
    --at_[static_cast<std::size_t>(c)];
    ++at_[static_cast<std::size_t>(++c)];
    const auto before = lowest_;
    while (at_[static_cast<std::size_t>(lowest_)] == 0) ++lowest_;
    return lowest_ != before;
  }

 private:
  std::vector<std::int64_t> clocks_;
  std::vector<int> at_;  // how many workers have each clock
  std::int64_t lowest_ = 0;
};

struct Event {
  double time;
  int worker;
  bool operator>(const Event& o) const { return time != o.time ? time > o.time : worker > o.worker; }
};

class Simulation {
 public:
  Simulation(const SimulationOptions& o, const ps::Barrier& barrier)
      : o_(o), barrier_(barrier), table_(o.workers), samples_(static_cast<std::size_t>(o.workers)),
        held_since_(static_cast<std::size_t>(o.workers), -1), waiting_on_(static_cast<std::size_t>(o.workers)) {
    for (int w = 0; w < o.workers; ++w) {
      durations_.emplace_back(o.seed, static_cast<std::uint64_t>(w));
      samplers_.emplace_back(o.seed * kGoldenGamma, static_cast<std::uint64_t>(w));  // apart from the durations' streams
    }
  }

  SimulationResult run() {
    for (int w = 0; w < o_.workers; ++w) start(w, 0);
    while (!events_.empty() && events_.top().time <= o_.time) {
      const Event e = events_.top();
      events_.pop();
      finished(e.worker, e.time);
    }
    SimulationResult r;
    r.barrier = barrier_.name();
    for (int w = 0; w < o_.workers; ++w) {
      r.steps.push_back(table_.clock(w));
      const double since = held_since_[static_cast<std::size_t>(w)];
      if (since >= 0) r_waited_ += o_.time - since;
    }
    r.waits = waits_;
    r.waited = r_waited_;
    return r;
  }

 private:
  double duration(int w) {
    auto& rng = durations_[static_cast<std::size_t>(w)];
    const auto& s = o_.steps;
    double t = s.scale;
    if (s.law == StepTimes::Law::kExponential) t = -s.scale * std::log(1.0 - rng.uniform());
    if (s.law == StepTimes::Law::kGamma) t = s.scale * std::exp(rng.log_gamma_variate(s.shape));
    if (s.straggle > 0 && rng.uniform() < s.straggle) t *= s.factor;
    return t;
  }

  void draw(int w) {
    barrier_.draw(w, o_.workers, samplers_[static_cast<std::size_t>(w)], samples_[static_cast<std::size_t>(w)]);
  }

  void start(int w, double now) { events_.push({now + duration(w), w}); }

  void finished(int w, double now) {
    const bool lowest_rose = table_.tick(w);
    draw(w);
    if (!try_go(w, now)) {
      ++waits_;
      held_since_[static_cast<std::size_t>(w)] = now;
    }
    if (barrier_.global()) {
      if (lowest_rose) release_global(now);
    } else if (resampling()) {
      recheck_all(w, now);
    } else {
      release_waiting_on(w, now);
    }
  }

  // Starts w's next step if its barrier allows; otherwise files it where it will be looked at
  // again: by the clock it needs the slowest to reach, or under the first sampled peer behind.
  // A rule saying wait with no looked-at peer behind would never be looked at again.
  bool try_go(int w, double now) {
    const auto clock = table_.clock(w);
    const auto& sample = samples_[static_cast<std::size_t>(w)];
    if (barrier_.decide(clock, sample, table_) == ps::Decision::kAdvance) {
      auto& since = held_since_[static_cast<std::size_t>(w)];
      if (since >= 0) r_waited_ += now - since;
      since = -1;
      start(w, now);
      return true;
    }
    const auto need = barrier_.required(clock);
    if (barrier_.global()) {
      by_need_.push({need, w});
      return false;
    }
    for (int p : sample)
      if (table_.clock(p) < need) {
        if (resampling())
          held_.push_back(w);
        else
          waiting_on_[static_cast<std::size_t>(p)].push_back(w);
        return false;
      }
    throw barrier_.waits_for_nothing();
  }

  void release_global(double now) {
    while (!by_need_.empty() && by_need_.top().first <= table_.slowest()) {
      const int w = by_need_.top().second;
      by_need_.pop();
      try_go(w, now);
    }
  }

  void release_waiting_on(int peer, double now) {
    auto held = std::move(waiting_on_[static_cast<std::size_t>(peer)]);
    waiting_on_[static_cast<std::size_t>(peer)].clear();
    for (int w : held) try_go(w, now);
  }

  // Under Sampling::kPerCheck a held worker looks again, at a new sample, whenever any other
  // worker completes a step: the finest a held worker could poll, since clocks change only then.
  bool resampling() const { return barrier_.sampling() == ps::Sampling::kPerCheck; }
  void recheck_all(int stepped, double now) {
    auto held = std::move(held_);
    held_.clear();
    for (int w : held) {
      if (w == stepped) {  // looked at already, with the sample of its new step
        held_.push_back(w);
        continue;
      }
      draw(w);
      try_go(w, now);
    }
  }

  const SimulationOptions& o_;
  ps::Barrier barrier_;
  ClockTable table_;
  std::vector<Random> durations_;
  std::vector<Random> samplers_;
  std::vector<std::vector<int>> samples_;
  std::vector<double> held_since_;  // −1 while running
  std::vector<std::vector<int>> waiting_on_;
  std::vector<int> held_;  // under Sampling::kPerCheck, every held worker, in the order held
  std::priority_queue<std::pair<std::int64_t, int>, std::vector<std::pair<std::int64_t, int>>, std::greater<>> by_need_;
  std::priority_queue<Event, std::vector<Event>, std::greater<>> events_;
  std::uint64_t waits_ = 0;
  double r_waited_ = 0;
};

}  // namespace

StepTimes StepTimes::parse(std::string_view text) {
  std::vector<std::string_view> f;
  for (std::string_view rest = text;;) {
    const auto at = rest.find(':');
    f.push_back(rest.substr(0, at));
    if (at == std::string_view::npos) break;
    rest.remove_prefix(at + 1);
  }
  const auto bad = [&] {
    return std::invalid_argument("step times '" + std::string(text) +
                                 "': expected fixed:T, exp:MEAN, gamma:SHAPE:SCALE or gamma:SHAPE:SCALE:PROB:FACTOR");
  };
  StepTimes s;
  if (f[0] == "fixed" && f.size() == 2) {
    s.law = Law::kFixed;
    s.scale = positive(f[1], text, "T");
  } else if (f[0] == "exp" && f.size() == 2) {
    s.law = Law::kExponential;
    s.scale = positive(f[1], text, "MEAN");
  } else if (f[0] == "gamma" && (f.size() == 3 || f.size() == 5)) {
    s.law = Law::kGamma;
    s.shape = positive(f[1], text, "SHAPE");
    s.scale = positive(f[2], text, "SCALE");
    if (f.size() == 5) {
      s.straggle = positive(f[3], text, "PROB", true);
      s.factor = positive(f[4], text, "FACTOR");
      if (s.straggle > 1) throw std::invalid_argument("step times '" + std::string(text) + "': PROB must be at most 1");
    }
  } else {
    throw bad();
  }
  return s;
}

std::string StepTimes::name() const {
  const auto num = [](double v) {
    std::string s = std::to_string(v);
    s.erase(s.find_last_not_of('0') + 1);
    if (s.back() == '.') s.pop_back();
    return s;
  };
  switch (law) {
    case Law::kFixed: return "fixed:" + num(scale);
    case Law::kExponential: return "exp:" + num(scale);
    case Law::kGamma: break;
  }
  std::string s = "gamma:" + num(shape) + ":" + num(scale);
  if (straggle > 0) s += ":" + num(straggle) + ":" + num(factor);
  return s;
}

double StepTimes::mean() const {
  const double base = law == Law::kGamma ? shape * scale : scale;
  return base * (1 - straggle + straggle * factor);
}

std::int64_t step_quantile(std::span<const std::int64_t> steps, double q) {
  if (steps.empty()) return 0;
  std::vector<std::int64_t> sorted(steps.begin(), steps.end());
  const auto rank = static_cast<std::size_t>(std::clamp(std::ceil(q * static_cast<double>(sorted.size())), 1.0,
                                                         static_cast<double>(sorted.size())));
  std::nth_element(sorted.begin(), sorted.begin() + static_cast<std::ptrdiff_t>(rank - 1), sorted.end());
  return sorted[rank - 1];
}

double SimulationResult::mean() const {
  if (steps.empty()) return 0;
  double sum = 0;
  for (auto s : steps) sum += static_cast<double>(s);
  return sum / static_cast<double>(steps.size());
}

SimulationResult simulate(const SimulationOptions& options, const ps::Barrier& barrier) {
  if (options.workers < 1 || options.workers > 1'000'000) throw std::invalid_argument("simulate: workers must be 1 … 1000000");
  if (!(options.time >= 0) || !std::isfinite(options.time)) throw std::invalid_argument("simulate: time must be ≥ 0");
  // Time and memory grow with the steps simulated; refuse a run that could not end rather than
  // let it eat the machine (fixed:1e-300 asks for 1e302 steps per worker).
  const double steps = static_cast<double>(options.workers) * options.time / options.steps.mean();
  if (!(steps <= kMaxSimulatedSteps)) {
    char text[256];
    std::snprintf(text, sizeof text,
                  "simulate: %d workers for %g s at a mean step time of %g s is about %.3g steps, more than the "
                  "%.0e this simulator runs; take a longer step time or a shorter time",
                  options.workers, options.time, options.steps.mean(), steps, kMaxSimulatedSteps);
    throw std::invalid_argument(text);
  }
  return Simulation(options, barrier).run();
}

}  // namespace gyre::simulation
