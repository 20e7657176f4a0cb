// tests/apps/mf/gyre_mf_parts_test.cpp — gyre-mf models written in parts by several processes: read whole, continued by any number of processes, refused when a part is missing, torn or foreign.
#include <doctest/doctest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "support/checkpoint_runs.hpp"
#include "support/multiprocess.hpp"
#include "support/run_command.hpp"
#include "support/sanitizers.hpp"
#include "support/temp_dir.hpp"

using gyre::test::gyre_mf;
using gyre::test::build_path;
using gyre::test::exported_model;
using gyre::test::read_text;
using gyre::test::run_command;
using gyre::test::run_ranks;
using gyre::test::under_memory_cap;
using gyre::test::with;
using gyre::test::TempDir;
using gyre::test::write_text;
namespace fs = std::filesystem;

namespace {

const char* const kWholeFiles[] = {"model.json", "user_factors.tsv", "item_factors.tsv", "user_adagrad.tsv",
                                   "item_adagrad.tsv"};

void generate_sized_ratings(const TempDir& dir, const std::string& users, const std::string& items,
                            const std::string& ratings) {
  const auto r = run_command({build_path("tools/gyre-gen").string(), "ratings", "--users", users, "--items", items,
                              "--ratings", ratings, "--rank", "4", "--noise", "0.1", "--seed", "5", "--train",
                              (dir / "train.tsv").string(), "--test", (dir / "test.tsv").string()});
  REQUIRE_MESSAGE(r.exit_code == 0, r.output);
}

std::vector<std::string> training(const TempDir& dir, const std::string& epochs = "3") {
  return {gyre_mf(), "--train", (dir / "train.tsv").string(), "--test", (dir / "test.tsv").string(), "--rank", "6",
          "--epochs", epochs, "--depth", "2", "--threads", "1", "--seed", "9", "--ring", "random", "--quiet"};
}

// Trains with `extra` flags in one process (ranks == 1, with --workers 3) or as `ranks` processes.
fs::path train_into(const TempDir& dir, const std::string& name, int ranks, std::vector<std::string> extra = {},
                    int workers = 3) {
  auto argv = training(dir);
  argv.insert(argv.end(), extra.begin(), extra.end());
  argv.insert(argv.end(), {"--out", (dir / name).string()});
  if (ranks == 1) {
    argv.insert(argv.end(), {"--workers", std::to_string(workers)});
    const auto r = run_command(argv);
    REQUIRE_MESSAGE(r.exit_code == 0, r.output);
  } else {
    for (const auto& r : run_ranks(argv, ranks)) REQUIRE_MESSAGE(r.exit_code == 0, r.output);
  }
  return dir / name;
}

void expect_same_model_files(const fs::path& a, const fs::path& b) {
  for (const char* f : kWholeFiles) {
    CAPTURE(f);
    CHECK(read_text(a / f) == read_text(b / f));
  }
}

// What `gyre-mf COMMAND --model MODEL ARGS --out FILE` writes.
std::string use(const std::string& command, const fs::path& model, std::vector<std::string> args, const fs::path& out) {
  std::vector<std::string> argv{gyre_mf(), command, "--model", model.string(), "--out", out.string(), "--threads", "2"};
  argv.insert(argv.end(), args.begin(), args.end());
  const auto r = run_command(argv);
  REQUIRE_MESSAGE(r.exit_code == 0, r.output);
  return read_text(out);
}

}  // namespace

TEST_CASE("a model written in parts by 3 processes: predict, recommend and export give what the one-process model gives") {
  TempDir dir;
  generate_sized_ratings(dir, "400", "300", "20000");
  const auto single = train_into(dir, "single", 1);
  const auto parts = train_into(dir, "parts", 3);
  CHECK_FALSE(fs::exists(parts / "user_factors.tsv"));
  for (const char* f : {"user_factors.part-00000.tsv", "item_factors.part-00001.tsv", "user_adagrad.part-00002.tsv"})
    CHECK_MESSAGE(fs::exists(parts / f), f);
  expect_same_model_files(exported_model(gyre_mf(), parts), single);

  CHECK(use("predict", parts, {"--pairs", (dir / "test.tsv").string()}, dir / "p-parts.tsv") ==
        use("predict", single, {"--pairs", (dir / "test.tsv").string()}, dir / "p-single.tsv"));
  write_text(dir / "users.txt", "0\n7\n123\n399\n");
  CHECK(use("recommend", parts, {"--users", (dir / "users.txt").string(), "--top", "5"}, dir / "r-parts.tsv") ==
        use("recommend", single, {"--users", (dir / "users.txt").string(), "--top", "5"}, dir / "r-single.tsv"));
}

TEST_CASE("--init-model from a model in parts, continued by 1 and by 2 processes: as continued from the one-process model") {
  TempDir dir;
  generate_sized_ratings(dir, "400", "300", "20000");
  const auto single = train_into(dir, "single", 1);
  const auto parts = train_into(dir, "parts", 3);
  // One process with 2 workers, from each: the same start gives the same model.
  const auto from_single = train_into(dir, "from-single", 1, {"--init-model", single.string()}, 2);
  const auto from_parts = train_into(dir, "from-parts", 1, {"--init-model", parts.string()}, 2);
  expect_same_model_files(from_parts, from_single);
  // Two processes, each reading only its own users' rows of the parts: the same again.
  const auto from_parts_2 = train_into(dir, "from-parts-2", 2, {"--init-model", parts.string()});
  expect_same_model_files(exported_model(gyre_mf(), from_parts_2), from_single);
  // And a model in parts continues a model in parts.
  CHECK(read_text(exported_model(gyre_mf(), from_parts_2) / "model.json").find("\"epochs\": 6") != std::string::npos);
}

TEST_CASE("a model in parts with a part missing, torn or foreign is refused, naming the part") {
  TempDir dir;
  generate_sized_ratings(dir, "200", "150", "6000");
  const auto parts = train_into(dir, "parts", 3);
  const auto other = train_into(dir, "other", 3, {"--lr", "0.2"});
  const auto expect_refused = [&](const fs::path& model, const std::string& file, const std::string& why) {
    const auto r = run_command({gyre_mf(), "predict", "--model", model.string(), "--pairs", (dir / "test.tsv").string(),
                                "--out", (dir / "p.tsv").string()});
    CHECK_MESSAGE(r.exit_code == 2, r.output);
    CHECK_MESSAGE(r.output.find((model / file).string()) != std::string::npos, r.output);
    CHECK_MESSAGE(r.output.find(why) != std::string::npos, r.output);
    CHECK_FALSE(fs::exists(dir / "p.tsv"));
  };
  const auto copy = [&](const std::string& name) {
    const auto to = dir / name;
    fs::copy(parts, to);
    return to;
  };
  SUBCASE("missing") {
    const auto m = copy("missing");
    fs::remove(m / "item_factors.part-00001.tsv");
    expect_refused(m, "item_factors.part-00001.tsv", "a missing part");
  }
  SUBCASE("torn: a byte short") {
    const auto m = copy("torn");
    const auto f = m / "user_factors.part-00002.tsv";
    fs::resize_file(f, fs::file_size(f) - 1);
    expect_refused(m, "user_factors.part-00002.tsv", "a torn part");
  }
  SUBCASE("foreign: the same size, other bytes") {
    const auto m = copy("flipped");
    const auto f = m / "user_factors.part-00000.tsv";
    std::string text = read_text(f);
    const auto digit = text.find_first_of("123456789", text.find('\t'));
    text[digit] = text[digit] == '9' ? '8' : static_cast<char>(text[digit] + 1);
    write_text(f, text);
    expect_refused(m, "user_factors.part-00000.tsv", "a part of another model");
  }
  SUBCASE("foreign: another model's part") {
    const auto m = copy("mixed");
    fs::copy_file(other / "item_factors.part-00000.tsv", m / "item_factors.part-00000.tsv",
                  fs::copy_options::overwrite_existing);
    expect_refused(m, "item_factors.part-00000.tsv", "another model");
  }
}

TEST_CASE("3 processes each under a memory cap one process holding the model exceeds: trained, written and continued in parts") {
  if (gyre::test::kSanitized) {
    // A sanitizer's shadow memory and allocator are not what a data-segment limit measures.
    MESSAGE("skipped under a sanitizer: RLIMIT_DATA cannot cap its allocator");
    return;
  }
  TempDir dir;
  // 300k users × rank 64: the model (factors and AdaGrad's sums, ~90 MB as training holds it)
  // dwarfs the 600k ratings (7 MB). One process holds all of it, and before issue 37 rank 0
  // gathered it whole (and a continuing rank read it whole); a rank of 3 holds a third.
  generate_sized_ratings(dir, "300000", "2000", "600000");
  const std::vector<std::string> job{gyre_mf(), "--train", (dir / "train.tsv").string(), "--rank", "64", "--epochs", "1",
                                     "--threads", "1", "--seed", "3", "--quiet"};
  const auto one = with(job, {"--workers", "3"});
  const auto reference = run_command(with(one, {"--out", (dir / "one").string()}));
  REQUIRE_MESSAGE(reference.exit_code == 0, reference.output);
  // The cap has teeth: one process under it runs out of memory.
  const auto refused = run_command(under_memory_cap(150, with(one, {"--out", (dir / "capped").string()})));
  CHECK_MESSAGE(refused.exit_code != 0, refused.output);
  for (const auto& r : run_ranks(under_memory_cap(150, with(job, {"--out", (dir / "ranks").string()})), 3))
    CHECK_MESSAGE(r.exit_code == 0, r.output);
  expect_same_model_files(exported_model(gyre_mf(), dir / "ranks"), dir / "one");
  // Continued under the cap: each rank reads its own users' rows of the parts.
  const auto continued = with(job, {"--init-model", (dir / "ranks").string(), "--out", (dir / "continued").string()});
  for (const auto& r : run_ranks(under_memory_cap(150, continued), 3)) CHECK_MESSAGE(r.exit_code == 0, r.output);
  const auto c = run_command(with(one, {"--init-model", (dir / "one").string(), "--out", (dir / "continued-one").string()}));
  REQUIRE_MESSAGE(c.exit_code == 0, c.output);
  expect_same_model_files(exported_model(gyre_mf(), dir / "continued"), dir / "continued-one");
}
