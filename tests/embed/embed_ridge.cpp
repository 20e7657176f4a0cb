// tests/embed/embed_ridge.cpp — an embedder's ridge regression on the rounds engine, from the installed headers only.
//
// The algorithm (above the plumbing line) is exact cyclic coordinate descent on
// ‖y − Xb‖²/2 + λ‖b‖²/2: worker w holds the rows i ≡ w (mod P) and their residuals; a round
// asks every worker for X_jᵀr over its rows, and the driver turns the sum into b_j's step,
// which every worker applies to its residuals before the next round. The last round asks for
// every X_jᵀr, from which the driver prints b and the largest gradient entry. Below the line is the
// plumbing, in one process, across processes, or in the background with a cancel
// (`embed_ridge cancel`); tests/embed/run.sh counts its lines.
#include <gyre/gyre.hpp>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

using namespace gyre;
using rounds::Next, rounds::Step, rounds::Task;

constexpr std::uint32_t kFeatures = 6, kRows = 300;
constexpr double kLambda = 2.0;
constexpr std::uint8_t kGradient = 0, kNorms = 1;

double feature(std::uint32_t i, std::uint32_t j) {  // uniform in [−1, 1), the same everywhere
  std::uint64_t z = (i * 0x9E3779B97F4A7C15ULL) ^ (j + 0xBF58476D1CE4E5B9ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return static_cast<double>((z ^ (z >> 31)) >> 11) / static_cast<double>(1ULL << 52) - 1.0;
}
double target(std::uint32_t i) {
  double y = 0.1 * feature(i, kFeatures);  // noise
  for (std::uint32_t j = 0; j < kFeatures; ++j) y += 0.5 * (j + 1.0) * feature(i, j);
  return y;
}

struct RidgeShard {
  std::vector<std::uint32_t> rows;
  std::vector<double> residual;  // y − Xb over these rows
  RidgeShard(int worker, int workers) {
    for (auto i = static_cast<std::uint32_t>(worker); i < kRows; i += static_cast<std::uint32_t>(workers)) {
      rows.push_back(i);
      residual.push_back(target(i));
    }
  }
  void apply(std::span<const Step> steps) {
    for (const Step& s : steps)
      for (std::size_t k = 0; k < rows.size(); ++k) residual[k] -= feature(rows[k], s.param) * s.delta;
  }
  std::vector<double> push(const Task& task) {  // X_jᵀr, or ‖X_j‖², for the task's j
    std::vector<double> out;
    for (auto j : task.params) {
      double s = 0;
      for (std::size_t k = 0; k < rows.size(); ++k) s += feature(rows[k], j) * (task.kind == kNorms ? feature(rows[k], j) : residual[k]);
      out.push_back(s);
    }
    return out;
  }
};

struct RidgeApp {
  std::uint64_t sweeps = 30;
  std::vector<double> b = std::vector<double>(kFeatures, 0.0), norm = std::vector<double>(kFeatures, 0.0);
  std::vector<std::uint32_t> all = {0, 1, 2, 3, 4, 5};
  std::uint64_t sent = 0;
  std::atomic<std::uint64_t> pulled{0};
  double largest_gradient = -1;

  Next schedule() {
    const std::uint64_t last = 1 + sweeps * kFeatures;  // the norms, the sweeps, then the gradient
    if (sent > last) return Next::stop();
    const auto s = sent++;
    if (s == 0) return Next::send(Task{kNorms, 0, all});
    if (s == last) return Next::send(Task{kGradient, 0, all});
    return Next::send(Task{kGradient, 0, {static_cast<std::uint32_t>((s - 1) % kFeatures)}});
  }
  Task check_task() { return {}; }
  std::size_t partial_size(const Task& t) { return t.params.size(); }
  std::vector<Step> pull(const Task& t, std::span<const double> folded) {
    ++pulled;
    if (t.kind == kNorms) {
      std::copy(folded.begin(), folded.end(), norm.begin());
      return {};
    }
    if (t.params.size() == kFeatures) {  // the gradient of the objective: λb − Xᵀr
      largest_gradient = 0;
      for (std::uint32_t j = 0; j < kFeatures; ++j) largest_gradient = std::max(largest_gradient, std::abs(kLambda * b[j] - folded[j]));
      print();
      return {};
    }
    const auto j = t.params[0];
    const double next = (folded[0] + norm[j] * b[j]) / (norm[j] + kLambda);
    const Step step{j, next - b[j]};
    b[j] = next;
    return {step};
  }
  int depth() { return 1; }  // each step known before the next round: exact coordinate descent
  void print() const {
    for (std::uint32_t j = 0; j < kFeatures; ++j) std::printf("b%u = %.9f\n", j, b[j]);
    std::printf("largest gradient entry %.3g\n", largest_gradient);
  }
};

// ---- plumbing ----
int main(int argc, char** argv, char** envp) try {
  const auto backend = runtime::backend_from(cluster::environment_of(envp), "embed-ridge");
  const auto job = rounds::rounds_job(runtime::workers_on(backend, 2), backend);
  RidgeApp app;
  auto solve = [&](const runtime::Job& j) { rounds::run_rounds_app<RidgeShard>(j, {kFeatures, 2}, app); };
  if (argc > 1 && std::string(argv[1]) == "cancel") {
    app.sweeps = 1'000'000'000;
    auto handle = runtime::start(job, solve);
    while (app.pulled < 100) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    handle.cancel();
    handle.wait();  // throws runtime::JobFailed, cause kCancelled
  }
  solve(job);  // prints the result where the driver runs
} catch (const std::exception& e) {
  std::printf("embed_ridge: %s\n", e.what());
  return 1;
}
