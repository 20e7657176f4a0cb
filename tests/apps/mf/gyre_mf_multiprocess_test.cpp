// tests/apps/mf/gyre_mf_multiprocess_test.cpp — gyre-mf as several processes over tcp on loopback.
#include <doctest/doctest.h>

#include <utility>  // before Asio: Boost 1.74 uses std::exchange without including it

#include <boost/asio.hpp>

#include <future>
#include <sstream>

#include "support/run_command.hpp"
#include "support/temp_dir.hpp"

using gyre::test::build_path;
using gyre::test::read_text;
using gyre::test::run_command;
using gyre::test::run_shell;
using gyre::test::TempDir;

namespace {

// A port that was free a moment ago: the coordinator's address must be known to every process
// before any of them starts, so it cannot be port 0.
std::uint16_t free_port() {
  boost::asio::io_context io;
  boost::asio::ip::tcp::acceptor a(io, {boost::asio::ip::make_address("127.0.0.1"), 0});
  return a.local_endpoint().port();
}

std::string mf() { return build_path("apps/mf/gyre-mf").string(); }

void generate(const TempDir& dir, const std::string& ratings) {
  const auto r = run_command({build_path("tools/gyre-gen").string(), "ratings", "--users", "400", "--items", "300",
                              "--ratings", ratings, "--rank", "4", "--noise", "0.1", "--seed", "2", "--train",
                              (dir / "train.tsv").string(), "--test", (dir / "test.tsv").string()});
  REQUIRE_MESSAGE(r.exit_code == 0, r.output);
}

std::vector<std::string> common(const TempDir& dir) {
  return {mf(), "--train", (dir / "train.tsv").string(), "--test", (dir / "test.tsv").string(), "--rank", "4",
          "--epochs", "4", "--depth", "2", "--threads", "1", "--seed", "6", "--ring", "random", "--quiet"};
}

}  // namespace

TEST_CASE("4 processes over tcp write factor files bitwise identical to --workers 4 in one process") {
  TempDir dir;
  generate(dir, "20000");
  auto single = common(dir);
  single.insert(single.end(), {"--workers", "4", "--out", (dir / "single").string()});
  const auto s = run_command(single);
  REQUIRE_MESSAGE(s.exit_code == 0, s.output);

  const std::string coordinator = "127.0.0.1:" + std::to_string(free_port());
  std::vector<std::future<gyre::test::CommandResult>> ranks;
  for (int r = 0; r < 4; ++r) {
    auto argv = common(dir);
    argv.insert(argv.end(), {"--processes", "4", "--process-rank", std::to_string(r), "--coordinator", coordinator,
                             "--listen-host", "127.0.0.1", "--connect-timeout", "30", "--out",
                             (dir / "multi").string()});
    ranks.push_back(std::async(std::launch::async, [argv] {
      gyre::test::CommandOptions o;
      o.environment = {{"GYRE_TOKEN", "test-token"}};
      return run_command(argv, o);
    }));
  }
  for (auto& f : ranks) {
    const auto r = f.get();
    CHECK_MESSAGE(r.exit_code == 0, r.output);
  }
  for (const char* file : {"user_factors.tsv", "item_factors.tsv", "model.json"})
    CHECK(read_text(dir / "single" / file) == read_text(dir / "multi" / file));
}

TEST_CASE("a multi-process job without a token or a coordinator is refused up front") {
  TempDir dir;
  generate(dir, "2000");
  auto argv = common(dir);
  argv.insert(argv.end(), {"--processes", "2", "--process-rank", "1", "--coordinator", "127.0.0.1:1"});
  auto r = run_command(argv);
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("token") != std::string::npos);
  argv = common(dir);
  argv.insert(argv.end(), {"--processes", "2", "--process-rank", "1"});
  gyre::test::CommandOptions o;
  o.environment = {{"GYRE_TOKEN", "x"}};
  r = run_command(argv, o);
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("--coordinator") != std::string::npos);
}

namespace {

// Starts 3 ranks on endless training, does `what` to rank 1 once rank 0 has reported epoch 2,
// and returns the shell's report: rc0=, rc2=, elapsed_ms= (from `what` to both survivors
// exiting). A watchdog bounds everything at 60 s.
gyre::test::CommandResult disturb_rank_1(const TempDir& dir, const std::string& what, const std::string& extra_flags) {
  const std::string coordinator = "127.0.0.1:" + std::to_string(free_port());
  std::ostringstream script;
  script << "cd '" << dir.path().string() << "'\nexport GYRE_TOKEN=test-token\n";
  for (int r = 0; r < 3; ++r) {
    script << "'" << mf() << "' --train train.tsv --test test.tsv --rank 4 --epochs 1000000 --threads 1"
           << " --processes 3 --process-rank " << r << " --coordinator " << coordinator
           << " --listen-host 127.0.0.1 " << extra_flags << " > log" << r << ".txt 2>&1 &\npid" << r << "=$!\n";
  }
  script << "( sleep 60; kill -9 $pid0 $pid1 $pid2 ) >/dev/null 2>&1 &\nwatchdog=$!\n"
            "for i in $(seq 1 300); do grep -q 'epoch   2' log0.txt && break; sleep 0.1; done\n"
         << what << " $pid1\nstart=$(date +%s%N)\n"
         << "wait $pid0; echo rc0=$?\nwait $pid2; echo rc2=$?\n"
            "echo elapsed_ms=$(( ($(date +%s%N) - start) / 1000000 ))\n"
            "kill -9 $pid1 $watchdog 2>/dev/null\n";
  return run_shell(script.str());
}

void expect_survivors_stopped(const TempDir& dir, const gyre::test::CommandResult& r, long within_ms) {
  INFO(r.output);
  CHECK(r.output.find("rc0=0") == std::string::npos);
  CHECK(r.output.find("rc2=0") == std::string::npos);
  const auto at = r.output.find("elapsed_ms=");
  REQUIRE(at != std::string::npos);
  CHECK(std::stol(r.output.substr(at + 11)) < within_ms);
  const auto log0 = read_text(dir / "log0.txt");
  const auto log2 = read_text(dir / "log2.txt");
  CHECK_MESSAGE(log0.find("rank 1") != std::string::npos, log0.substr(log0.size() > 600 ? log0.size() - 600 : 0));
  CHECK_MESSAGE(log2.find("rank 1") != std::string::npos, log2.substr(log2.size() > 600 ? log2.size() - 600 : 0));
}

}  // namespace

TEST_CASE("kill -9 of one rank mid-epoch: every other rank exits non-zero within 10 s, naming it") {
  TempDir dir;
  generate(dir, "30000");
  expect_survivors_stopped(dir, disturb_rank_1(dir, "kill -9", ""), 10000);
}

TEST_CASE("a rank that goes silent (SIGSTOP) is declared dead by heartbeat timeout, and named") {
  TempDir dir;
  generate(dir, "30000");
  expect_survivors_stopped(dir, disturb_rank_1(dir, "kill -STOP", "--heartbeat-timeout 2"), 10000);
  CHECK(read_text(dir / "log0.txt").find("heartbeat") != std::string::npos);
}

TEST_CASE("mpirun -np 4 gyre-mf writes the same files as --workers 4 in one process") {
  if (run_shell("command -v mpirun").exit_code != 0) {
    MESSAGE("skipped: mpirun not installed (apt-get install openmpi-bin)");
    return;
  }
  TempDir dir;
  generate(dir, "20000");
  auto single = common(dir);
  single.insert(single.end(), {"--workers", "4", "--out", (dir / "single").string()});
  REQUIRE(run_command(single).exit_code == 0);

  std::vector<std::string> argv{"timeout", "120", "mpirun", "--allow-run-as-root", "--oversubscribe", "-np", "4",
                                "-x", "GYRE_TOKEN"};
  const auto mf_args = common(dir);
  argv.insert(argv.end(), mf_args.begin(), mf_args.end());
  argv.insert(argv.end(), {"--coordinator", "127.0.0.1:" + std::to_string(free_port()), "--out", (dir / "mpi").string()});
  gyre::test::CommandOptions o;
  o.environment = {{"GYRE_TOKEN", "test-token"}};
  const auto r = run_command(argv, o);
  REQUIRE_MESSAGE(r.exit_code == 0, r.output);
  for (const char* file : {"user_factors.tsv", "item_factors.tsv", "model.json"})
    CHECK(read_text(dir / "single" / file) == read_text(dir / "mpi" / file));
}
