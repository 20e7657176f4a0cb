// tests/apps/logreg/gyre_logreg_multiprocess_test.cpp — gyre-logreg as several processes over tcp on loopback: the server beside rank 0.
#include <doctest/doctest.h>

#include "support/multiprocess.hpp"
#include "support/run_command.hpp"
#include "support/temp_dir.hpp"

using gyre::test::build_path;
using gyre::test::disturb_rank_1;
using gyre::test::expect_survivors_stopped;
using gyre::test::read_text;
using gyre::test::run_command;
using gyre::test::run_ranks;
using gyre::test::TempDir;

namespace {

std::string logreg() { return build_path("apps/logreg/gyre-logreg").string(); }

void generate(const TempDir& dir) {
  const auto r = run_command({build_path("tools/gyre-gen").string(), "regression", "--samples", "3000", "--features", "80",
                              "--nnz-per-row", "10", "--support", "10", "--correlation", "0.1", "--noise", "0.2",
                              "--seed", "2", "--out", (dir / "data").string()});
  REQUIRE_MESSAGE(r.exit_code == 0, r.output);
}

}  // namespace

TEST_CASE("3 processes train one model on the parameter server; rank 0 reports every worker's steps and writes it") {
  TempDir dir;
  generate(dir);
  const auto ranks = run_ranks({logreg(), "--data", (dir / "data/data.libsvm").string(), "--barrier", "ssp:2", "--steps",
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

TEST_CASE("gyre-logreg across processes refuses several servers before reading the data") {
  TempDir dir;
  gyre::test::write_text(dir / "token", "secret\n");
  const auto r = run_command({logreg(), "--data", "nope", "--servers", "2", "--processes", "2", "--process-rank", "1",
                              "--coordinator", "127.0.0.1:1", "--token-file", (dir / "token").string()});
  CHECK(r.exit_code == 2);
  CHECK_MESSAGE(r.output.find("--servers: across processes there is one server") != std::string::npos, r.output);
}

TEST_CASE("when one gyre-logreg process is killed, the others stop with an error naming it") {
  TempDir dir;
  generate(dir);
  const std::string endless = logreg() + " --data data/data.libsvm --barrier bsp --steps 100000000 --eval-every 10"
                              " --step-delay fixed:1";
  expect_survivors_stopped(dir, disturb_rank_1(dir, endless, "kill -9", "step     20"), 10000);
}
