// tests/apps/mf/gyre_mf_cli_test.cpp — gyre-mf as a user runs it: outputs, metrics, and every bad input.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "gyre_mf_run.hpp"
#include "support/multiprocess.hpp"

using gyre::test::gyre_mf;
using gyre::test::build_path;
using gyre::test::generate_mf_ratings;
using gyre::test::read_text;
using gyre::test::run_command;
using gyre::test::TempDir;
using gyre::test::write_text;

namespace {

// Runs gyre-mf on a bad training file and checks the contract: exit 2, one message naming the
// file (and line), and no output directory or metrics file left behind.
void expect_bad_mf_input(const std::string& content, const std::string& expected_fragment, int line) {
  TempDir dir;
  const auto bad = dir / "bad.tsv";
  write_text(bad, content);
  const std::vector<std::string> argv{gyre_mf(), "--train", bad.string(), "--epochs", "2", "--out", (dir / "model").string(),
                                      "--metrics", (dir / "metrics.jsonl").string()};
  const auto r = run_command(argv);
  CHECK(r.exit_code == 2);
  CHECK_MESSAGE(r.output.find("gyre-mf: error: ") != std::string::npos, r.output);
  const std::string where = line > 0 ? bad.string() + ":" + std::to_string(line) + ":" : bad.string() + ":";
  CHECK_MESSAGE(r.output.find(where) != std::string::npos, r.output);
  CHECK_MESSAGE(r.output.find(expected_fragment) != std::string::npos, r.output);
  CHECK(dir.entries() == std::vector<std::string>{"bad.tsv"});  // nothing half-written
  // The same file read by byte ranges across 3 processes: the same error, from the rank that holds it.
  gyre::test::expect_refused_by_ranks("gyre-mf", argv, dir, where, expected_fragment);
}

}  // namespace

TEST_CASE("gyre-mf trains on a file, prints progress, writes metrics and a model") {
  TempDir dir;
  generate_mf_ratings(dir, 9);
  const auto r = run_command({gyre_mf(), "--train", (dir / "train.tsv").string(), "--test", (dir / "test.tsv").string(),
                              "--rank", "4", "--epochs", "3", "--workers", "2", "--depth", "2", "--out",
                              (dir / "model").string(), "--metrics", (dir / "m.jsonl").string()});
  REQUIRE_MESSAGE(r.exit_code == 0, r.output);
  CHECK(r.output.find("epoch   3") != std::string::npos);
  CHECK(r.output.find("test_rmse") != std::string::npos);
  // Planted factors have no item offsets: the default fits none, and says why.
  CHECK_MESSAGE(r.output.find("gyre-mf: no biases: the items' mean ratings vary") != std::string::npos, r.output);

  std::istringstream lines(read_text(dir / "m.jsonl"));
  std::string line;
  int n = 0;
  while (std::getline(lines, line)) {
    const auto j = nlohmann::json::parse(line);
    CHECK(j.at("epoch") == ++n);
    for (const char* key : {"seconds", "train_rmse", "test_rmse", "updates_per_s"}) CHECK(j.at(key).is_number());
  }
  CHECK(n == 3);

  const auto header = nlohmann::json::parse(read_text(dir / "model" / "model.json"));
  CHECK(header.at("rank") == 4);
  CHECK(header.at("items") == 200);
  std::istringstream items(read_text(dir / "model" / "item_factors.tsv"));
  int rows = 0;
  while (std::getline(items, line)) {
    CHECK(std::count(line.begin(), line.end(), '\t') == 4);  // id + 4 factors
    ++rows;
  }
  CHECK(rows == 200);
  CHECK(gyre::test::TempDir::list_dir(dir / "model") ==
        std::vector<std::string>{"item_adagrad.tsv", "item_factors.tsv", "model.json", "user_adagrad.tsv",
                                 "user_factors.tsv"});
}

TEST_CASE("gyre-mf fits biases by default where the items' mean ratings differ, and not where told otherwise") {
  TempDir dir;
  generate_mf_ratings(dir, 9);
  for (const char* name : {"train.tsv", "test.tsv"}) gyre::test::shift_by_item(dir, name);
  struct Outcome {
    std::string output;
    bool biases;
    double test_rmse;
  };
  const auto run = [&](const std::vector<std::string>& extra, const char* epochs = "10") {
    std::vector<std::string> argv{gyre_mf(), "--train", (dir / "train.tsv").string(), "--test",
                                  (dir / "test.tsv").string(), "--rank", "4", "--epochs", epochs, "--out",
                                  (dir / "m").string(), "--metrics", (dir / "m.jsonl").string()};
    argv.insert(argv.end(), extra.begin(), extra.end());
    std::filesystem::remove_all(dir / "m");
    const auto r = run_command(argv);
    REQUIRE_MESSAGE(r.exit_code == 0, r.output);
    std::istringstream lines(read_text(dir / "m.jsonl"));
    std::string line, last;
    while (std::getline(lines, line)) last = line;
    return Outcome{r.output, nlohmann::json::parse(read_text(dir / "m" / "model.json")).at("biases").get<bool>(),
                   nlohmann::json::parse(last).at("test_rmse").get<double>()};
  };
  const Outcome chosen = run({});
  CHECK_MESSAGE(chosen.output.find("gyre-mf: biases: the items' mean ratings vary") != std::string::npos, chosen.output);
  CHECK(chosen.biases);
  const Outcome off = run({"--no-biases"});
  CHECK(off.output.find("biases:") == std::string::npos);  // chosen: nothing to explain
  CHECK(!off.biases);
  // The offsets are the biases' to fit: with them the same epochs end lower.
  CHECK(chosen.test_rmse < off.test_rmse);
  const Outcome ccd = run({"--update", "ccd"}, "2");
  CHECK(!ccd.biases);
  CHECK(ccd.output.find("biases:") == std::string::npos);
}

TEST_CASE("gyre-mf output files are bitwise identical across runs and between a file and its partition") {
  TempDir dir;
  generate_mf_ratings(dir, 9);
  const auto part = run_command({build_path("tools/gyre-partition").string(), "ratings", "--input",
                                 (dir / "train.tsv").string(), "--parts", "2", "--out", (dir / "part").string()});
  REQUIRE_MESSAGE(part.exit_code == 0, part.output);
  auto train = [&](const std::string& input, const std::string& out) {
    const auto r = run_command({gyre_mf(), "--train", input, "--rank", "4", "--epochs", "3", "--workers", "2", "--threads",
                                "2", "--depth", "2", "--ring", "random", "--seed", "5", "--local-schedule", "deterministic",
                                "--out", (dir / out).string(), "--quiet"});
    REQUIRE_MESSAGE(r.exit_code == 0, r.output);
  };
  train((dir / "part").string(), "a");
  train((dir / "part").string(), "b");
  for (const char* f : {"user_factors.tsv", "item_factors.tsv", "model.json"})
    CHECK(read_text(dir / "a" / f) == read_text(dir / "b" / f));
  // A file is split by the same rule gyre-partition uses, so the shards and results agree.
  train((dir / "train.tsv").string(), "c");
  CHECK(read_text(dir / "a" / "item_factors.tsv") == read_text(dir / "c" / "item_factors.tsv"));
}

TEST_CASE("bad input: malformed line") { expect_bad_mf_input("1 2 3.5\n4 5\n", "expected", 2); }
TEST_CASE("bad input: negative id") { expect_bad_mf_input("1 2 3\n-4 5 1\n", "expected", 2); }
TEST_CASE("bad input: out-of-range id") { expect_bad_mf_input("1 99999999999 3\n", "expected", 1); }
TEST_CASE("bad input: rating that is not a number") { expect_bad_mf_input("1 2 3\n3 4 five\n", "five", 2); }
TEST_CASE("bad input: empty file") { expect_bad_mf_input("", "expected", 0); }
TEST_CASE("bad input: file with only comments") { expect_bad_mf_input("# nothing here\n", "expected", 0); }

TEST_CASE("bad input: missing file") {
  TempDir dir;
  const auto r = run_command({gyre_mf(), "--train", (dir / "nope.tsv").string(), "--out", (dir / "model").string()});
  CHECK(r.exit_code == 2);
  CHECK_MESSAGE(r.output.find((dir / "nope.tsv").string()) != std::string::npos, r.output);
  CHECK(dir.entries().empty());
}

TEST_CASE("bad input: partition directory whose manifest does not match its shards") {
  TempDir dir;
  generate_mf_ratings(dir, 9);
  const auto part = run_command({build_path("tools/gyre-partition").string(), "ratings", "--input",
                                 (dir / "train.tsv").string(), "--parts", "2", "--out", (dir / "part").string()});
  REQUIRE(part.exit_code == 0);
  auto manifest = nlohmann::json::parse(read_text(dir / "part" / "manifest.json"));
  // Consistent in itself (the total follows), so only the shard file can show the mismatch.
  manifest["shards"][1]["records"] = manifest["shards"][1]["records"].get<std::uint64_t>() + 1;
  manifest["records"] = manifest["records"].get<std::uint64_t>() + 1;
  write_text(dir / "part" / "manifest.json", manifest.dump());
  const auto r = run_command({gyre_mf(), "--train", (dir / "part").string(), "--out", (dir / "model").string()});
  CHECK(r.exit_code == 2);
  CHECK_MESSAGE(r.output.find(manifest["shards"][1]["file"].get<std::string>()) != std::string::npos, r.output);
  CHECK_FALSE(std::filesystem::exists(dir / "model"));
}

TEST_CASE("gyre-mf --model runs each of Harp's computation models from the one flag, and refuses what it cannot run") {
  TempDir dir;
  generate_mf_ratings(dir, 9);
  for (const char* model : {"A", "B", "C", "D", "locking", "nosync"}) {
    CAPTURE(model);
    const auto r = run_command({gyre_mf(), "--train", (dir / "train.tsv").string(), "--test", (dir / "test.tsv").string(),
                                "--rank", "4", "--epochs", "2", "--workers", "2", "--model", model, "--metrics",
                                (dir / "m.jsonl").string()});
    REQUIRE_MESSAGE(r.exit_code == 0, r.output);
    CHECK(r.output.find("epoch   2") != std::string::npos);
    CHECK(read_text(dir / "m.jsonl").find("\"test_rmse\"") != std::string::npos);
  }
  const auto bad = run_command({gyre_mf(), "--train", (dir / "train.tsv").string(), "--model", "E"});
  CHECK(bad.exit_code == 2);
  CHECK(bad.output.find("expected A|locking, B|rotation, C|allreduce or D|nosync") != std::string::npos);
}

TEST_CASE("held-out ratings under every computation model: held_out_rmse each epoch, a cut once it rises; bad values refused") {
  // Noisy ratings that rank 32 without regularisation overfits within a few epochs.
  TempDir dir;
  generate_mf_ratings(dir, 5, "1");
  for (const char* model : {"A", "B", "C", "D"}) {
    CAPTURE(model);
    const auto r = run_command({gyre_mf(), "--train", (dir / "train.tsv").string(), "--test", (dir / "test.tsv").string(),
                                "--rank", "32", "--lambda", "0", "--epochs", "8", "--workers", "2", "--model", model, "--lr",
                                "0.3", "--lr-decay", "1", "--lr-warmup", "0.333", "--lr-cut", "0.3", "--held-out", "0.05",
                                "--out", (dir / (std::string("m") + model)).string(), "--metrics", (dir / "m.jsonl").string()});
    REQUIRE_MESSAGE(r.exit_code == 0, r.output);
    CHECK(r.output.find("held_out_rmse 1.") != std::string::npos);
    std::istringstream lines(read_text(dir / "m.jsonl"));
    std::string line;
    int epochs = 0;
    while (std::getline(lines, line)) {
      CHECK(nlohmann::json::parse(line).at("held_out_rmse").is_number());
      ++epochs;
    }
    CHECK(epochs == 8);
    const auto header = nlohmann::json::parse(read_text(dir / (std::string("m") + model) / "model.json"));
    CHECK(header.at("rate_scale").get<double>() < 1);
    CHECK(header.at("held_out_rmse").get<double>() > 1);
  }
  for (const std::vector<std::string>& flags : {std::vector<std::string>{"--lr-cut", "0"}, {"--lr-cut", "1.5"}, {"--held-out", "0.6"},
                                                {"--held-out", "-0.1"}, {"--lr-warmup", "0"}, {"--max-lead", "-2"}}) {
    CAPTURE(flags[0] + " " + flags[1]);
    const auto bad = run_command({gyre_mf(), "--train", (dir / "train.tsv").string(), flags[0], flags[1], "--out",
                                  (dir / "never").string()});
    CHECK(bad.exit_code == 2);
    CHECK(bad.output.find(flags[0]) != std::string::npos);
    CHECK_FALSE(std::filesystem::exists(dir / "never"));
  }
}
