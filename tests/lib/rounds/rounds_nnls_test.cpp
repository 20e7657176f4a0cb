// tests/lib/rounds/rounds_nnls_test.cpp — a newcomer's scheduled app on the rounds engine: non-negative least squares by coordinate descent, written against <gyre/gyre.hpp> alone, checked against brute force.
#include <doctest/doctest.h>

#include <gyre/gyre.hpp>

#include <cmath>
#include <limits>
#include <vector>

#include "lib/net/backends.hpp"

namespace {

using gyre::rounds::Next;
using gyre::rounds::Step;
using gyre::rounds::Task;

constexpr std::uint32_t kNnlsColumns = 6, kNnlsRows = 300;

// A's entries and b, the same on every platform: uniform in [−1, 1); b favours some negative
// coefficients, so constraints are active at the optimum.
double nnls_entry(std::uint64_t i, std::uint64_t j) {
  std::uint64_t z = (i * 0x9E3779B97F4A7C15ULL) ^ (j * 0xD1B54A32D192ED03ULL + 0x632BE59BD9B4E019ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return static_cast<double>((z ^ (z >> 31)) >> 11) / static_cast<double>(1ULL << 52) - 1.0;
}
double target(std::uint64_t i) {
  double b = 0.3 * nnls_entry(i, 99);
  for (std::uint32_t j = 0; j < kNnlsColumns; ++j) b += (j % 3 == 0 ? -1.0 : 0.7 + 0.1 * j) * nnls_entry(i, j);
  return b;
}

// ---- The app: what a newcomer writes (shard, control plane, the job call). ----
constexpr std::uint8_t kNnlsSums = 0, kNnlsCheck = 1;

struct NnlsShard {  // rows i ≡ worker (mod P), and their residual r = b − Ax
  std::vector<std::uint32_t> rows;
  std::vector<double> residual;
  NnlsShard(int worker, int workers) {
    for (auto i = static_cast<std::uint32_t>(worker); i < kNnlsRows; i += static_cast<std::uint32_t>(workers)) {
      rows.push_back(i);
      residual.push_back(target(i));
    }
  }
  void apply(std::span<const Step> steps) {
    for (const Step& s : steps)
      for (std::size_t k = 0; k < rows.size(); ++k) residual[k] -= nnls_entry(rows[k], s.param) * s.delta;
  }
  // Per parameter a_jᵀr and ‖a_j‖² (a check: for every j).
  std::vector<double> push(const Task& task) {
    std::vector<std::uint32_t> every;
    for (std::uint32_t j = 0; j < kNnlsColumns; ++j) every.push_back(j);
    const auto& params = task.kind == kNnlsCheck ? every : task.params;
    std::vector<double> out;
    for (std::uint32_t j : params) {
      double dot = 0, square = 0;
      for (std::size_t k = 0; k < rows.size(); ++k) {
        dot += nnls_entry(rows[k], j) * residual[k];
        square += nnls_entry(rows[k], j) * nnls_entry(rows[k], j);
      }
      out.insert(out.end(), {dot, square});
    }
    return out;
  }
};

// One coordinate a round, cyclically (so no two steps use stale sums of each other at depth 1),
// projected on x ≥ 0; an exact check every sweep; done when the projected gradient vanishes.
struct NnlsApp {
  std::vector<double> x = std::vector<double>(kNnlsColumns, 0.0);
  std::uint32_t next = 0, sweeps = 0;
  double violation = std::numeric_limits<double>::infinity();

  int depth() const { return 1; }
  Next schedule() {
    if (violation < 1e-12 || sweeps == 5000) return Next::stop();
    if (next == kNnlsColumns) return Next::check();
    return Next::send(Task{kNnlsSums, 0.0, {next++}});
  }
  Task check_task() { return Task{kNnlsCheck, 0.0, {}}; }
  std::size_t partial_size(const Task& t) const { return 2 * (t.kind == kNnlsCheck ? kNnlsColumns : t.params.size()); }
  std::vector<Step> pull(const Task& t, std::span<const double> sums) {
    if (t.kind == kNnlsCheck) {  // KKT: g_j = a_jᵀr ≤ 0 where x_j = 0, = 0 where x_j > 0
      violation = 0;
      for (std::uint32_t j = 0; j < kNnlsColumns; ++j)
        violation = std::max(violation, x[j] > 0 ? std::abs(sums[2 * j]) : std::max(0.0, sums[2 * j]));
      next = 0;
      ++sweeps;
      return {};
    }
    const std::uint32_t j = t.params[0];
    const double moved = std::max(0.0, x[j] + sums[0] / sums[1]) - x[j];
    x[j] += moved;
    return {{j, moved}};
  }
};

std::vector<double> solve_nnls(gyre::runtime::Backend backend, int workers) {
  gyre::rounds::RoundsOptions options;
  options.name = "nnls";
  options.limits = {kNnlsColumns, 2};
  NnlsApp app;
  gyre::rounds::run_rounds_job(gyre::rounds::rounds_job(workers, std::move(backend)), options,
                                 [&](int rank) { return NnlsShard(rank, workers); },
                                 [&](gyre::rounds::RoundsDriver& d) { gyre::rounds::run_rounds(d, app); });
  return app.x;
}
// ---- End of the app. ----

// Brute force: least squares on every subset of free columns (normal equations by Gaussian
// elimination); the best feasible one is the NNLS optimum.
double objective(const std::vector<double>& x) {
  double f = 0;
  for (std::uint32_t i = 0; i < kNnlsRows; ++i) {
    double r = target(i);
    for (std::uint32_t j = 0; j < kNnlsColumns; ++j) r -= nnls_entry(i, j) * x[j];
    f += r * r / 2;
  }
  return f;
}
std::vector<double> brute_force() {
  std::vector<double> best;
  double best_f = std::numeric_limits<double>::infinity();
  for (std::uint32_t mask = 0; mask < (1u << kNnlsColumns); ++mask) {
    std::vector<std::uint32_t> free;
    for (std::uint32_t j = 0; j < kNnlsColumns; ++j)
      if (mask >> j & 1) free.push_back(j);
    const std::size_t m = free.size();
    std::vector<std::vector<double>> a(m, std::vector<double>(m + 1, 0.0));
    for (std::uint32_t i = 0; i < kNnlsRows; ++i)
      for (std::size_t u = 0; u < m; ++u) {
        for (std::size_t v = 0; v < m; ++v) a[u][v] += nnls_entry(i, free[u]) * nnls_entry(i, free[v]);
        a[u][m] += nnls_entry(i, free[u]) * target(i);
      }
    for (std::size_t c = 0; c < m; ++c)
      for (std::size_t r = 0; r < m; ++r)
        if (r != c) {
          const double f = a[r][c] / a[c][c];
          for (std::size_t k = c; k <= m; ++k) a[r][k] -= f * a[c][k];
        }
    std::vector<double> x(kNnlsColumns, 0.0);
    bool feasible = true;
    for (std::size_t u = 0; u < m; ++u) feasible = feasible && (x[free[u]] = a[u][m] / a[u][u]) >= 0;
    if (feasible && objective(x) < best_f) best_f = objective(x), best = x;
  }
  return best;
}

}  // namespace

TEST_CASE_TEMPLATE("a scheduled NNLS written on the rounds engine reaches the brute-force optimum on every backend",
                   Backend, GYRE_TEST_BACKENDS) {
  const std::vector<double> want = brute_force();
  std::size_t zeros = 0;
  for (const double v : want) zeros += v == 0;
  REQUIRE(zeros >= 1);  // the constraints matter
  REQUIRE(zeros < kNnlsColumns);
  for (int workers : {1, 3}) {
    CAPTURE(workers);
    const std::vector<double> got = solve_nnls(Backend::runtime_backend(), workers);
    for (std::uint32_t j = 0; j < kNnlsColumns; ++j) {
      CAPTURE(j);
      CHECK(got[j] == doctest::Approx(want[j]).epsilon(1e-9).scale(1));
      if (want[j] == 0) CHECK(got[j] == 0);
    }
    CHECK(got == solve_nnls(gyre::runtime::ThreadsBackend{}, workers));  // the same bits on every backend
  }
}
