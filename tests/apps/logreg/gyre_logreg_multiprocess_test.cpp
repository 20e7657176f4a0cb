// tests/apps/logreg/gyre_logreg_multiprocess_test.cpp — gyre-logreg as several processes over tcp on loopback: servers beside the workers.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "support/multiprocess.hpp"
#include "support/run_command.hpp"
#include "support/temp_dir.hpp"

using gyre::test::gyre_logreg;
using gyre::test::build_path;
using gyre::test::disturb_rank_1;
using gyre::test::expect_survivors_stopped;
using gyre::test::read_text;
using gyre::test::run_command;
using gyre::test::run_ranks;
using gyre::test::TempDir;

namespace {

void generate_regression_data(const TempDir& dir) {
  const auto r = run_command({build_path("tools/gyre-gen").string(), "regression", "--samples", "3000", "--features", "80",
                              "--nnz-per-row", "10", "--support", "10", "--correlation", "0.1", "--noise", "0.2",
                              "--seed", "2", "--out", (dir / "data").string()});
  REQUIRE_MESSAGE(r.exit_code == 0, r.output);
}

}  // namespace

TEST_CASE("3 processes train one model on the parameter server; rank 0 reports every worker's steps and writes it") {
  TempDir dir;
  generate_regression_data(dir);
  const auto ranks = run_ranks({gyre_logreg(), "--data", (dir / "data/data.libsvm").string(), "--barrier", "ssp:2", "--steps",
                                "60", "--eval-every", "20", "--out", (dir / "w.tsv").string(), "--metrics",
                                (dir / "m.jsonl").string()},
                               3);
  for (const auto& r : ranks) CHECK_MESSAGE(r.exit_code == 0, r.output);
  CHECK(ranks[0].output.find("3 workers, 1 servers, barrier ssp:2, processes over tcp") != std::string::npos);
  CHECK_MESSAGE(ranks[0].output.find("worker steps: median 60, 5th 60, 95th 60") != std::string::npos, ranks[0].output);
  CHECK_MESSAGE(ranks[1].output.empty(), ranks[1].output);
  CHECK_MESSAGE(ranks[2].output.empty(), ranks[2].output);
  CHECK(read_text(dir / "w.tsv").rfind("feature\tname\tweight\n", 0) == 0);
  CHECK(read_text(dir / "m.jsonl").find("\"step\":40") != std::string::npos);
}

TEST_CASE("4 processes with 2 servers: the servers spread over the processes and rank 0 writes the whole model") {
  TempDir dir;
  generate_regression_data(dir);
  const std::vector<std::string> common{gyre_logreg(), "--data", (dir / "data/data.libsvm").string(), "--barrier", "bsp",
                                        "--steps", "40", "--eval-every", "20", "--servers", "2"};
  auto with_out = [&](const std::string& name) {
    auto argv = common;
    argv.insert(argv.end(), {"--out", (dir / name).string()});
    return argv;
  };
  const auto ranks = run_ranks(with_out("w4.tsv"), 4);
  for (const auto& r : ranks) CHECK_MESSAGE(r.exit_code == 0, r.output);
  CHECK_MESSAGE(ranks[0].output.find("4 workers, 2 servers, barrier bsp, processes over tcp") != std::string::npos,
                ranks[0].output);
  CHECK_MESSAGE(ranks[0].output.find("worker steps: median 40, 5th 40, 95th 40") != std::string::npos, ranks[0].output);
  // The same job in one process: a model of the same features, every weight from its server.
  auto one = with_out("w1.tsv");
  one.insert(one.end(), {"--workers", "4"});
  const auto single = run_command(one);
  REQUIRE_MESSAGE(single.exit_code == 0, single.output);
  const auto lines = [](const std::string& text) { return std::count(text.begin(), text.end(), '\n'); };
  const std::string across = read_text(dir / "w4.tsv"), alone = read_text(dir / "w1.tsv");
  CHECK(lines(across) == lines(alone));
  CHECK(lines(across) > 10);
}

TEST_CASE("3 processes peer to peer: each owns a part of the weights, rank 0 gets them all and writes the model") {
  TempDir dir;
  generate_regression_data(dir);
  const std::vector<std::string> common{gyre_logreg(), "--data", (dir / "data/data.libsvm").string(), "--barrier", "bsp",
                                        "--steps", "40", "--eval-every", "20", "--engine", "p2p", "--block", "8"};
  auto with_out = [&](const std::string& name) {
    auto argv = common;
    argv.insert(argv.end(), {"--out", (dir / name).string()});
    return argv;
  };
  const auto ranks = run_ranks(with_out("p3.tsv"), 3);
  for (const auto& r : ranks) CHECK_MESSAGE(r.exit_code == 0, r.output);
  CHECK_MESSAGE(ranks[0].output.find("3 workers, peer to peer, barrier bsp, processes over tcp") != std::string::npos,
                ranks[0].output);
  CHECK_MESSAGE(ranks[0].output.find("worker steps: median 40, 5th 40, 95th 40") != std::string::npos, ranks[0].output);
  CHECK_MESSAGE(ranks[1].output.empty(), ranks[1].output);
  // Under BSP an owner folds a step's pushes once every peer has ended it, in peer order, and
  // holds reads until then, as the servers do: the same weights, to the bit, as the job on 3
  // threads and as the parameter server's.
  auto threads = with_out("p1.tsv");
  threads.insert(threads.end(), {"--workers", "3"});
  auto server = threads;
  server[std::find(server.begin(), server.end(), "p2p") - server.begin()] = "ps";
  server[std::find(server.begin(), server.end(), (dir / "p1.tsv").string()) - server.begin()] = (dir / "ps.tsv").string();
  for (const auto& argv : {threads, server}) {
    const auto r = run_command(argv);
    REQUIRE_MESSAGE(r.exit_code == 0, r.output);
  }
  const std::string across = read_text(dir / "p3.tsv");
  CHECK(std::count(across.begin(), across.end(), '\n') > 10);
  CHECK(across == read_text(dir / "p1.tsv"));
  CHECK(across == read_text(dir / "ps.tsv"));
}

TEST_CASE("when a process hosting a server is killed, the others stop with an error naming it") {
  TempDir dir;
  generate_regression_data(dir);
  // 3 processes, 2 servers: server 1 lives in process 1, beside worker 1.
  const std::string endless = gyre_logreg() + " --data data/data.libsvm --barrier bsp --steps 100000000 --eval-every 10"
                              " --step-delay fixed:1 --servers 2";
  expect_survivors_stopped(dir, disturb_rank_1(dir, endless, "kill -9", "step     20"), 10000);
}

TEST_CASE("when one gyre-logreg process is killed, the others stop with an error naming it, on either engine") {
  for (const std::string engine : {"ps", "p2p"}) {
    CAPTURE(engine);
    TempDir dir;
    generate_regression_data(dir);
    const std::string endless = gyre_logreg() + " --data data/data.libsvm --barrier bsp --steps 100000000 --eval-every 10"
                                " --step-delay fixed:1 --engine " + engine;
    expect_survivors_stopped(dir, disturb_rank_1(dir, endless, "kill -9", "step     20"), 10000);
  }
}
