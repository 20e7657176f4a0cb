// tools/gyre-sim: simulates P workers stepping under each barrier; prints step summaries, writes CSV and a gnuplot PNG.
#include <CLI/CLI.hpp>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "app/command_line.hpp"
#include "gyre/base/entry_point.hpp"
#include "gyre/base/output_check.hpp"
#include "gyre/base/output_file.hpp"
#include "gyre/base/temp_paths.hpp"
#include "gyre/simulation/barrier_simulation.hpp"

extern char** environ;

namespace {

namespace fs = std::filesystem;
using gyre::ps::BarrierSpec;
using gyre::simulation::SimulationResult;

struct Flags {
  gyre::simulation::SimulationOptions sim;
  std::string delay = "gamma:2:1";
  std::string barriers = "bsp,ssp:4,asp,pbsp:10,pssp:10:4";
  std::string sweep = "0:64:1";
  std::string sampling = "per-check";
  std::string csv, sweep_csv, plot;
};

// "FROM:TO[:STEP]" or "none": the β values of the pBSP sweep.
std::vector<int> sweep_values(const std::string& text) {
  if (text == "none") return {};
  int from = 0, to = 0, step = 1;
  char extra = 0;
  const int n = std::sscanf(text.c_str(), "%d:%d:%d%c", &from, &to, &step, &extra);
  if ((n != 2 && n != 3) || from < 0 || to < from || step < 1 || to > 100000)
    throw std::invalid_argument("--sweep '" + text + "': expected FROM:TO[:STEP] with 0 ≤ FROM ≤ TO, or none");
  std::vector<int> betas;
  for (int b = from; b <= to; b += step) betas.push_back(b);
  return betas;
}

std::string summary(const SimulationResult& r, double time, int workers) {
  char line[200];
  std::snprintf(line, sizeof line, "median %lld, 5th %lld, 95th %lld, mean %.1f, held %.0f%%",
                static_cast<long long>(r.quantile(0.5)), static_cast<long long>(r.quantile(0.05)),
                static_cast<long long>(r.quantile(0.95)), r.mean(), 100.0 * r.waited / (time * workers));
  return line;
}

void write_steps_csv(std::ostream& out, const std::vector<SimulationResult>& runs) {
  out << "barrier,worker,steps\n";
  for (const auto& r : runs)
    for (std::size_t w = 0; w < r.steps.size(); ++w) out << r.barrier << ',' << w << ',' << r.steps[w] << '\n';
}

void write_sweep_csv(std::ostream& out, const std::vector<int>& betas, const std::vector<SimulationResult>& sweep) {
  out << "beta,median,p5,p95,mean\n";
  for (std::size_t i = 0; i < sweep.size(); ++i) {
    const auto& r = sweep[i];
    out << betas[i] << ',' << r.quantile(0.5) << ',' << r.quantile(0.05) << ',' << r.quantile(0.95) << ','
        << r.mean() << '\n';
  }
}

// Runs gnuplot on `script`; throws if it cannot be started or fails.
void run_gnuplot(const fs::path& script) {
  std::string program = "gnuplot", arg = script.string();
  char* argv[] = {program.data(), arg.data(), nullptr};
  pid_t pid = 0;
  if (posix_spawnp(&pid, "gnuplot", nullptr, nullptr, argv, environ) != 0)
    throw std::runtime_error("cannot run gnuplot for --plot (apt-get install gnuplot-nox)");
  int status = 0;
  if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw std::runtime_error(WIFEXITED(status) && WEXITSTATUS(status) == 127
                                 ? "cannot run gnuplot for --plot (apt-get install gnuplot-nox)"
                                 : "gnuplot failed drawing " + arg);
}

// Left: the share of workers at or below each step count, one line per barrier. Right: pBSP's
// median step (5th–95th percentile bars) against the sample size β, with BSP and ASP medians.
// gnuplot draws into a scratch directory; the PNG's bytes are then copied to `png`, so that the
// output rules of gyre::OutputFile hold for --plot too.
void plot(std::ostream& png, const Flags& f, const std::vector<SimulationResult>& runs, const std::vector<int>& betas,
          const std::vector<SimulationResult>& sweep) {
  const fs::path dir = fs::temp_directory_path() / ("gyre-sim-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  struct Cleanup {
    fs::path dir;
    gyre::TempPath record{dir, true};
    ~Cleanup() { std::error_code ignored; fs::remove_all(dir, ignored); }
  } cleanup{dir};
  std::ofstream gp(dir / "plot.gp");
  const fs::path out = dir / "plot.png";
  gp << "set terminal png size 1400,560\nset output '" << out.string() << "'\n";
  gp << "set multiplot layout 1," << (sweep.empty() ? 1 : 2) << " title '" << f.sim.workers << " workers, "
     << f.sim.time << " simulated s, step times " << f.sim.steps.name() << ", sampling " << f.sampling << "'\n";
  gp << "set key left top\nset grid\nset xlabel 'steps completed'\nset ylabel 'share of workers'\n";
  gp << "set title 'step distribution at the end time'\nplot ";
  for (std::size_t i = 0; i < runs.size(); ++i) {
    auto sorted = runs[i].steps;
    std::sort(sorted.begin(), sorted.end());
    std::ofstream d(dir / ("cdf" + std::to_string(i)));
    for (std::size_t k = 0; k < sorted.size(); ++k) d << sorted[k] << ' ' << double(k + 1) / double(sorted.size()) << '\n';
    gp << (i ? ", " : "") << "'" << (dir / ("cdf" + std::to_string(i))).string() << "' with steps lw 2 title '"
       << runs[i].barrier << "'";
  }
  gp << "\n";
  if (!sweep.empty()) {
    std::ofstream d(dir / "sweep");
    write_sweep_csv(d, betas, sweep);
    gp << "set datafile separator ','\nset title 'pBSP: sample size sweep'\nset xlabel 'sample size β'\n"
       << "set ylabel 'steps completed (median, 5th–95th pct)'\n";
    const auto median_of = [&](const char* name) -> std::string {
      for (const auto& r : runs)
        if (r.barrier == name) return std::to_string(r.quantile(0.5));
      return "";
    };
    gp << "plot '" << (dir / "sweep").string() << "' skip 1 using 1:2:3:4 with yerrorlines title 'pBSP(β)'";
    if (const auto m = median_of("bsp"); !m.empty()) gp << ", " << m << " with lines dt 2 title 'BSP median'";
    if (const auto m = median_of("asp"); !m.empty()) gp << ", " << m << " with lines dt 3 title 'ASP median'";
    gp << "\n";
  }
  gp << "unset multiplot\n";
  gp.close();
  run_gnuplot(dir / "plot.gp");
  std::ifstream drawn(out, std::ios::binary);
  png << drawn.rdbuf();
}

int run(const Flags& flags) {
  Flags f = flags;
  f.sim.steps = gyre::simulation::StepTimes::parse(f.delay);
  const auto specs = BarrierSpec::parse_list(f.barriers);
  const auto betas = sweep_values(f.sweep);
  const auto sampling = gyre::ps::parse_sampling(f.sampling);
  const gyre::OutputSpec outputs[] = {{"--csv", f.csv}, {"--sweep-csv", f.sweep_csv}, {"--plot", f.plot}};
  gyre::check_outputs(outputs, {});
  std::cout << "gyre-sim: " << f.sim.workers << " workers, " << f.sim.time << " simulated s, step times "
            << f.sim.steps.name() << " (mean " << f.sim.steps.mean() << " s), seed " << f.sim.seed << ", sampling "
            << f.sampling << std::endl;
  std::vector<SimulationResult> runs, sweep;
  for (const auto& spec : specs) {
    runs.push_back(gyre::simulation::simulate(f.sim, {spec, sampling}));
    std::cout << "barrier " << spec.name() << ": " << summary(runs.back(), f.sim.time, f.sim.workers) << std::endl;
  }
  for (int beta : betas) {
    sweep.push_back(gyre::simulation::simulate(f.sim, {BarrierSpec{gyre::ps::BarrierKind::kPbsp, 0, beta}, sampling}));
    std::cout << "sweep pbsp:" << beta << ": " << summary(sweep.back(), f.sim.time, f.sim.workers) << std::endl;
  }
  // Every output is written before any is published, so a failure leaves none of them.
  std::optional<gyre::OutputFile> csv, sweep_csv, png;
  if (!f.csv.empty()) write_steps_csv(csv.emplace(f.csv).stream(), runs);
  if (!f.sweep_csv.empty()) write_sweep_csv(sweep_csv.emplace(f.sweep_csv).stream(), betas, sweep);
  if (!f.plot.empty()) plot(png.emplace(f.plot).stream(), f, runs, betas, sweep);
  for (auto* output : {&csv, &sweep_csv, &png})
    if (*output) (*output)->commit();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"gyre-sim: P simulated workers with straggling step times under BSP, SSP, ASP, pBSP and pSSP barriers"};
  Flags f;
  app.add_option("--workers", f.sim.workers, "Simulated workers P")->capture_default_str()->check(CLI::Range(1, 10000));
  app.add_option("--time", f.sim.time, "Simulated seconds to run")->capture_default_str()->check(gyre::app::positive_number());
  app.add_option("--delay", f.delay,
                 "Step time law: gamma:SHAPE:SCALE, gamma:SHAPE:SCALE:PROB:FACTOR (a step straggles with "
                 "probability PROB, FACTOR times longer), exp:MEAN or fixed:T (seconds)")
      ->capture_default_str();
  app.add_option("--barriers", f.barriers, "Comma-separated barriers: bsp, ssp:S, asp, pbsp:BETA, pssp:BETA:S")
      ->capture_default_str();
  app.add_option("--sampling", f.sampling,
                 "When a held worker draws its sampled peers (pBSP, pSSP): per-step (once per step, then waits for "
                 "those) or per-check (afresh each time it looks again, as the Owl book states PSP)")
      ->capture_default_str()
      ->check(CLI::IsMember({"per-step", "per-check"}));
  app.add_option("--sweep", f.sweep, "pBSP sample sizes to sweep, FROM:TO[:STEP], or none")->capture_default_str();
  app.add_option("--seed", f.sim.seed, "Random seed (same seed, same steps)")->capture_default_str();
  app.add_option("--csv", f.csv, "Write every worker's steps per barrier: barrier,worker,steps");
  app.add_option("--sweep-csv", f.sweep_csv, "Write the pBSP sweep: beta,median,p5,p95,mean");
  app.add_option("--plot", f.plot, "Draw the step distributions and the sweep into this PNG (needs gnuplot)");
  if (const auto exit_code = gyre::app::parse_command_line(app, argc, argv)) return *exit_code;
  return gyre::run_entry_point("gyre-sim", [&] { return run(f); });
}
