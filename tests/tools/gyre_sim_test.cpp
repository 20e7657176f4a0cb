// tests/tools/gyre_sim_test.cpp — gyre-sim end to end: summaries, CSV, sweep, plot, refused flags.
#include <doctest/doctest.h>

#include <fstream>
#include <map>
#include <sstream>

#include "support/cli_checks.hpp"
#include "support/input_errors.hpp"

using gyre::test::build_path;
using gyre::test::contains;
using gyre::test::read_text;
using gyre::test::run_command;
using gyre::test::TempDir;

namespace {

std::vector<std::string> sim(std::vector<std::string> extra, const std::string& delay = "gamma:3:0.6667") {
  std::vector<std::string> argv{build_path("tools/gyre-sim").string(), "--workers", "50", "--time", "100",
                                "--delay", delay, "--seed", "4"};
  argv.insert(argv.end(), extra.begin(), extra.end());
  return argv;
}

// "barrier NAME: median M, ..." → NAME → M
std::map<std::string, int> medians(const std::string& output, const std::string& prefix) {
  std::map<std::string, int> out;
  std::istringstream in(output);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(prefix, 0) != 0) continue;
    const auto colon = line.find(": median ");
    out[line.substr(prefix.size(), colon - prefix.size())] = std::stoi(line.substr(colon + 9));
  }
  return out;
}

}  // namespace

TEST_CASE("gyre-sim: one summary line per barrier, ordered BSP < pBSP < SSP < ASP, and the β sweep") {
  TempDir dir;
  const auto r = run_command(sim({"--barriers", "bsp,ssp:4,asp,pbsp:10,pssp:10:4", "--sweep", "0:8:2", "--csv",
                                  (dir / "steps.csv").string(), "--sweep-csv", (dir / "sweep.csv").string()}));
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  const auto m = medians(r.output, "barrier ");
  REQUIRE(m.size() == 5);
  CHECK(m.at("bsp") < m.at("pbsp:10"));
  CHECK(m.at("pbsp:10") < m.at("ssp:4"));
  CHECK(m.at("ssp:4") < m.at("asp"));
  const auto sweep = medians(r.output, "sweep ");
  CHECK(sweep.size() == 5);
  CHECK(sweep.at("pbsp:0") == m.at("asp"));  // β = 0 is ASP
  CHECK(sweep.at("pbsp:8") < sweep.at("pbsp:2"));
  // CSV: a header and one row per (barrier, worker); the sweep: a header and one row per β.
  const auto steps = read_text(dir / "steps.csv");
  CHECK(steps.rfind("barrier,worker,steps\n", 0) == 0);
  CHECK(std::count(steps.begin(), steps.end(), '\n') == 1 + 5 * 50);
  CHECK(contains(steps, "\npssp:10:4,49,"));
  const auto sweep_csv = read_text(dir / "sweep.csv");
  CHECK(sweep_csv.rfind("beta,median,p5,p95,mean\n", 0) == 0);
  CHECK(std::count(sweep_csv.begin(), sweep_csv.end(), '\n') == 6);
}

TEST_CASE("gyre-sim: same seed, same numbers; the plot is a PNG") {
  TempDir dir;
  const auto a = run_command(sim({"--sweep", "none", "--plot", (dir / "p.png").string()}));
  const auto b = run_command(sim({"--sweep", "none"}));
  INFO(a.output);
  REQUIRE(a.exit_code == 0);
  CHECK(a.output == b.output);
  const auto png = read_text(dir / "p.png");
  REQUIRE(png.size() > 1000);
  CHECK(png.substr(1, 3) == "PNG");
  CHECK(dir.entries() == std::vector<std::string>{"p.png"});  // no temp files left behind
}

TEST_CASE("gyre-sim: bad barriers, step laws and sweeps are refused and nothing is written") {
  TempDir dir;
  const auto csv = (dir / "s.csv").string();
  gyre::test::expect_refused("gyre-sim", sim({"--barriers", "bsp,ssp", "--csv", csv}), dir, "barrier 'ssp'",
                             "expected bsp, ssp:S, asp, pbsp:BETA or pssp:BETA:S");
  gyre::test::expect_refused("gyre-sim", sim({"--csv", csv}, "gamma:0:1"), dir, "step times 'gamma:0:1'",
                             "SHAPE must be a positive number");
  gyre::test::expect_refused("gyre-sim", sim({"--sweep", "8:2", "--csv", csv}), dir, "--sweep '8:2'",
                             "FROM:TO[:STEP]");
  const auto r = run_command({build_path("tools/gyre-sim").string(), "--workers", "20000"});
  CHECK(r.exit_code != 0);
  CHECK(contains(r.output, "--workers"));
}

TEST_CASE("gyre-sim --sampling: per-check is the default; it leaves the global barriers alone, loosens pBSP, repeats") {
  const auto check = run_command(sim({"--barriers", "bsp,ssp:4,asp,pbsp:4", "--sweep", "none"}));
  const auto explicit_check = run_command(sim({"--barriers", "bsp,ssp:4,asp,pbsp:4", "--sweep", "none", "--sampling", "per-check"}));
  const auto step = run_command(sim({"--barriers", "bsp,ssp:4,asp,pbsp:4", "--sweep", "none", "--sampling", "per-step"}));
  INFO(check.output);
  REQUIRE(step.exit_code == 0);
  REQUIRE(check.exit_code == 0);
  CHECK(contains(step.output, "sampling per-step"));
  CHECK(contains(check.output, "sampling per-check"));
  CHECK(medians(check.output, "barrier ") == medians(explicit_check.output, "barrier "));
  const auto s = medians(step.output, "barrier "), c = medians(check.output, "barrier ");
  for (const char* global : {"bsp", "ssp:4", "asp"}) CHECK(c.at(global) == s.at(global));
  CHECK(c.at("pbsp:4") > s.at("pbsp:4"));
  CHECK(run_command(sim({"--barriers", "pbsp:4", "--sweep", "0:4:2", "--sampling", "per-check"})).output ==
        run_command(sim({"--barriers", "pbsp:4", "--sweep", "0:4:2", "--sampling", "per-check"})).output);
  TempDir dir;
  const auto bad = run_command(sim({"--sampling", "per-day", "--csv", (dir / "s.csv").string()}));
  CHECK(bad.exit_code == 2);
  CHECK(contains(bad.output, "--sampling: per-day not in {per-step,per-check}"));
  CHECK(dir.entries().empty());
}
