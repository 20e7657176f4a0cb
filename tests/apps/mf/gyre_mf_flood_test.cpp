// tests/apps/mf/gyre_mf_flood_test.cpp — a flood of held connections past rank 0's descriptor limit delays gyre-mf's formation but does not stop it.
#include <doctest/doctest.h>

#include <chrono>
#include <fstream>
#include <future>
#include <memory>
#include <sstream>
#include <thread>
#include <vector>

#include "support/multiprocess.hpp"
#include "support/raw_socket.hpp"
#include "support/run_command.hpp"
#include "support/temp_dir.hpp"

using namespace std::chrono_literals;
using gyre::test::build_path;
using gyre::test::read_text;
using gyre::test::TempDir;

TEST_CASE(
    "connections held past rank 0's descriptor limit: it logs the accept errors, and the job forms and finishes once "
    "they go") {
  TempDir dir;
  const auto gen =
      gyre::test::run_command({build_path("tools/gyre-gen").string(), "ratings", "--users", "400", "--items", "300",
                               "--ratings", "4000", "--rank", "4", "--noise", "0.1", "--seed", "2", "--train",
                               (dir / "train.tsv").string(), "--test", (dir / "test.tsv").string()});
  REQUIRE_MESSAGE(gen.exit_code == 0, gen.output);
  const auto port = gyre::test::free_port();
  const std::string rank = "'" + build_path("apps/mf/gyre-mf").string() +
                           "' --train train.tsv --test test.tsv --rank 4 --epochs 2 --threads 1 --quiet --processes 2"
                           " --coordinator 127.0.0.1:" +
                           std::to_string(port) + " --listen-host 127.0.0.1 --connect-timeout 60";
  // Rank 0 gets 48 descriptors (a job of two needs about 32); rank 1 starts once the test has
  // flooded rank 0 and let go (it touches flood-done). A watchdog bounds everything at 90 s.
  std::ostringstream script;
  script << "cd '" << dir.path().string() << "'\nexport GYRE_TOKEN=test-token\n"
         << "(ulimit -n 48 && exec " << rank << " --process-rank 0) > log0.txt 2>&1 &\npid0=$!\n"
         << "( sleep 90; kill -9 $pid0 ) >/dev/null 2>&1 &\nwatchdog=$!\n"
         << "for i in $(seq 1 600); do [ -e flood-done ] && break; sleep 0.1; done\n"
         << "timeout 60 " << rank << " --process-rank 1 > log1.txt 2>&1\necho rc1=$?\n"
         << "wait $pid0\necho rc0=$?\nkill -9 $watchdog 2>/dev/null\n";
  auto job = std::async(std::launch::async, [s = script.str()] { return gyre::test::run_shell(s); });

  {
    boost::asio::io_context io;
    std::vector<std::unique_ptr<boost::asio::ip::tcp::socket>> flood;
    // The first connection that succeeds is the first of the flood: rank 0 listens.
    for (const auto until = std::chrono::steady_clock::now() + 30s;
         flood.empty() && std::chrono::steady_clock::now() < until;) {
      try {
        flood.push_back(gyre::test::connect_loopback(io, port));
      } catch (const boost::system::system_error&) {
        std::this_thread::sleep_for(50ms);
      }
    }
    REQUIRE_MESSAGE(!flood.empty(), read_text(dir / "log0.txt"));
    // Far more than 48: the kernel completes them into rank 0's backlog whether it accepts or not.
    for (int i = 1; i < 150; ++i) flood.push_back(gyre::test::connect_loopback(io, port));
    const auto until = std::chrono::steady_clock::now() + 15s;
    while (read_text(dir / "log0.txt").find("Too many open files") == std::string::npos &&
           std::chrono::steady_clock::now() < until)
      std::this_thread::sleep_for(50ms);
    std::this_thread::sleep_for(500ms);  // a few back-off rounds while still out of descriptors
  }                                      // the flood lets go
  std::ofstream(dir / "flood-done").put('\n');

  const auto r = job.get();
  const auto log0 = read_text(dir / "log0.txt");
  INFO(r.output);
  INFO(log0.substr(log0.size() > 3000 ? log0.size() - 3000 : 0));
  INFO(read_text(dir / "log1.txt"));
  CHECK(log0.find("accept failed: Too many open files") != std::string::npos);
  CHECK(log0.find("accepting again after") != std::string::npos);
  CHECK(r.output.find("rc1=0") != std::string::npos);
  CHECK(r.output.find("rc0=0") != std::string::npos);
}
