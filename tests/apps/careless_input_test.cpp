// tests/apps/careless_input_test.cpp — issue 36's defects from the command line, one regression per defect: constant ratings, deep JSON, huge phase counts, checkpoint directories, staged outputs.
#include <doctest/doctest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <future>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "support/multiprocess.hpp"
#include "support/run_command.hpp"
#include "support/small_ratings.hpp"
#include "support/temp_dir.hpp"

using gyre::test::gyre_mf;
using gyre::test::built;
using gyre::test::CommandResult;
using gyre::test::generate_small_ratings;
using gyre::test::read_text;
using gyre::test::run_command;
using gyre::test::said;
using gyre::test::TempDir;
using gyre::test::write_text;
namespace fs = std::filesystem;

namespace {

// `file` with every rating's value replaced by `value` (the implicit-feedback file of the issue).
void constant_copy(const fs::path& from, const fs::path& to, const std::string& value) {
  std::istringstream in(read_text(from));
  std::string out, user, item, rating;
  while (in >> user >> item >> rating) out += user + " " + item + " " + value + "\n";
  write_text(to, out);
}

// The last epoch's test_rmse gyre-mf printed, or NaN.
double last_test_rmse(const std::string& output) {
  const auto at = output.rfind("test_rmse ");
  if (at == std::string::npos) return std::nan("");
  return std::atof(output.c_str() + at + 10);
}

// The prediction gyre-mf predict prints for the single pair in `pairs`.
double predicted(const fs::path& model, const fs::path& pairs, const fs::path& out) {
  const auto r = run_command({gyre_mf(), "predict", "--model", model.string(), "--pairs", pairs.string(), "--out",
                              out.string()});
  REQUIRE_MESSAGE(r.exit_code == 0, r.output);
  std::istringstream in(read_text(out));
  std::string user, item;
  double value = std::nan("");
  in >> user >> item >> value;
  return value;
}

// Runs argv, killed after `seconds` (exit 124): what a hang looks like to a test, which must fail, not wait.
CommandResult run_bounded(std::vector<std::string> argv, int seconds) {
  argv.insert(argv.begin(), {"timeout", "-s", "KILL", std::to_string(seconds)});
  return run_command(argv);
}

// `json` with the number of field `key` replaced by `value` (text surgery: the file as a user edits it).
std::string with_field(const std::string& json, const std::string& key, const std::string& value) {
  const auto at = json.find("\"" + key + "\"");
  REQUIRE(at != std::string::npos);
  const auto start = json.find(':', at) + 1, end = json.find_first_of(",\n}", start);
  return json.substr(0, start) + " " + value + json.substr(end);
}

}  // namespace

// ---- 2. Constant ratings ----

TEST_CASE("defect 2: implicit-feedback ratings (all 1) train with the default update and are predicted as 1") {
  TempDir dir;
  generate_small_ratings(dir);
  constant_copy(dir / "r.tsv", dir / "ones.tsv", "1");
  constant_copy(dir / "t.tsv", dir / "ones-test.tsv", "1");
  const auto r = run_command({gyre_mf(), "--train", (dir / "ones.tsv").string(), "--test", (dir / "ones-test.tsv").string(),
                              "--epochs", "10", "--threads", "1", "--out", (dir / "m").string()});
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK(!said(r.output, "diverged"));
  CHECK(last_test_rmse(r.output) < 0.1);
}

TEST_CASE("defect 2: a single rating trains and predicts itself, not a number thousands of units away") {
  TempDir dir;
  write_text(dir / "one.tsv", "5 7 3.5\n");
  write_text(dir / "pair.tsv", "5 7\n");
  // Two epochs are two updates: far from done, but on the way (it was 106383).
  auto r = run_command({gyre_mf(), "--train", (dir / "one.tsv").string(), "--epochs", "2", "--threads", "1", "--out",
                        (dir / "m").string()});
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  const double early = predicted(dir / "m", dir / "pair.tsv", dir / "p.tsv");
  CHECK(early > 0);
  CHECK(early < 3.5);
  // Enough updates reach it; with biases the mean alone does.
  r = run_command({gyre_mf(), "--train", (dir / "one.tsv").string(), "--epochs", "200", "--threads", "1", "--out",
                   (dir / "m").string()});
  REQUIRE_MESSAGE(r.exit_code == 0, r.output);
  CHECK(predicted(dir / "m", dir / "pair.tsv", dir / "p.tsv") == doctest::Approx(3.5).epsilon(0.15));
  r = run_command({gyre_mf(), "--train", (dir / "one.tsv").string(), "--epochs", "2", "--biases", "--threads", "1",
                   "--out", (dir / "m").string()});
  REQUIRE_MESSAGE(r.exit_code == 0, r.output);
  CHECK(predicted(dir / "m", dir / "pair.tsv", dir / "p.tsv") == doctest::Approx(3.5).epsilon(0.05));
}

// ---- 3. Deeply nested JSON ----

TEST_CASE("defect 3: deeply nested JSON in model.json or a manifest is refused with exit 2, never a crash") {
  TempDir dir;
  generate_small_ratings(dir);
  const auto trained = run_command({gyre_mf(), "--train", (dir / "r.tsv").string(), "--epochs", "1", "--threads", "1",
                                    "--quiet", "--out", (dir / "m").string()});
  REQUIRE_MESSAGE(trained.exit_code == 0, trained.output);
  const std::string deep = std::string(100000, '[') + std::string(100000, ']') + "\n";
  write_text(dir / "m" / "model.json", deep);
  write_text(dir / "pair.tsv", "1 2\n");
  for (const std::vector<std::string>& argv :
       {std::vector<std::string>{gyre_mf(), "predict", "--model", (dir / "m").string(), "--pairs", (dir / "pair.tsv").string(),
                                 "--out", (dir / "p.tsv").string()},
        std::vector<std::string>{gyre_mf(), "--train", (dir / "r.tsv").string(), "--init-model", (dir / "m").string(),
                                 "--epochs", "1", "--out", (dir / "m2").string()}}) {
    const auto r = run_command(argv);
    INFO(argv[1] << ": " << r.output);
    CHECK(r.exit_code == 2);
    CHECK(said(r.output, "nested more than 64 levels"));
  }
  // A partition's manifest.
  const auto part = run_command({built("tools/gyre-partition"), "ratings", "--input", (dir / "r.tsv").string(),
                                 "--parts", "2", "--out", (dir / "parts").string()});
  REQUIRE_MESSAGE(part.exit_code == 0, part.output);
  write_text(dir / "parts" / "manifest.json", deep);
  const auto r = run_command({gyre_mf(), "--train", (dir / "parts").string(), "--epochs", "1", "--out", (dir / "m3").string()});
  INFO(r.output);
  CHECK(r.exit_code == 2);
  CHECK(said(r.output, "manifest.json:1: expected"));
}

TEST_CASE("defect 3: a huge value in model.json is shown in short in the error") {
  TempDir dir;
  generate_small_ratings(dir);
  const auto trained = run_command({gyre_mf(), "--train", (dir / "r.tsv").string(), "--epochs", "1", "--threads", "1",
                                    "--quiet", "--out", (dir / "m").string()});
  REQUIRE_MESSAGE(trained.exit_code == 0, trained.output);
  std::string huge = "{\"format\": [";
  for (int i = 0; i < 200000; ++i) huge += "1,";
  huge += "1]}\n";
  write_text(dir / "m" / "model.json", huge);
  write_text(dir / "pair.tsv", "1 2\n");
  const auto r = run_command({gyre_mf(), "predict", "--model", (dir / "m").string(), "--pairs", (dir / "pair.tsv").string(),
                              "--out", (dir / "p.tsv").string()});
  INFO(r.output);
  CHECK(r.exit_code == 2);
  CHECK(said(r.output, "an array of 200001 elements"));
  CHECK(r.output.size() < 2000);
}

// ---- 7. Huge phase counts ----

TEST_CASE("defect 7: --init-model with a phase count no run could have is refused at once; a large true one costs nothing") {
  TempDir dir;
  generate_small_ratings(dir);
  const auto trained = run_command({gyre_mf(), "--train", (dir / "r.tsv").string(), "--epochs", "2", "--threads", "1",
                                    "--ring", "random", "--workers", "2", "--quiet", "--out", (dir / "m").string()});
  REQUIRE_MESSAGE(trained.exit_code == 0, trained.output);
  const std::string header = read_text(dir / "m" / "model.json");
  const auto continue_run = [&]() {
    const auto t0 = std::chrono::steady_clock::now();
    const auto r = run_bounded({gyre_mf(), "--train", (dir / "r.tsv").string(), "--init-model", (dir / "m").string(),
                                "--epochs", "1", "--threads", "1", "--quiet", "--out", (dir / "m2").string()},
                               60);
    return std::make_pair(r, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  };
  write_text(dir / "m" / "model.json", with_field(header, "phases", "9223372036854775807"));
  const auto refused_run = continue_run();
  const auto& refused = refused_run.first;
  const double refused_s = refused_run.second;
  INFO(refused.output);
  CHECK(refused.exit_code == 2);
  CHECK(said(refused.output, "\"phases\" between "));
  CHECK(said(refused.output, "training phases and at most one evaluation each"));
  CHECK(refused_s < 30);
  // A model 2·10⁹ epochs old, as far as its header says: consistent, and continued at once
  // (the ring's place after 4·10⁹ random-ring phases was walked one phase at a time).
  write_text(dir / "m" / "model.json",
             with_field(with_field(header, "epochs", "2000000000"), "phases", "4000000000"));
  const auto continued_run = continue_run();
  const auto& continued = continued_run.first;
  const double continued_s = continued_run.second;
  INFO(continued.output);
  CHECK(continued.exit_code == 0);
  CHECK(continued_s < 30);
}

// ---- 5, 8, 9. The checkpoint directory, checked before any work ----

TEST_CASE("defect 5: --checkpoint at or inside --out is refused before training") {
  TempDir dir;
  generate_small_ratings(dir);
  for (const std::string& ck : {std::string("m"), std::string("m/ck")}) {
    const auto r = run_command({gyre_mf(), "--train", (dir / "r.tsv").string(), "--epochs", "1", "--out",
                                (dir / "m").string(), "--checkpoint", (dir / ck).string()});
    INFO(ck << ": " << r.output);
    CHECK(r.exit_code == 2);
    CHECK(said(r.output, "--checkpoint"));
    CHECK(!said(r.output, "epoch 1"));
  }
}

TEST_CASE("defect 8: a checkpoint directory that is a file or cannot be written fails with exit 2 at start") {
  TempDir dir;
  generate_small_ratings(dir);
  write_text(dir / "file", "x\n");
  auto r = run_command({gyre_mf(), "--train", (dir / "r.tsv").string(), "--epochs", "1", "--out", (dir / "m").string(),
                        "--checkpoint", (dir / "file").string()});
  INFO(r.output);
  CHECK(r.exit_code == 2);
  CHECK(said(r.output, "not a directory"));
  CHECK(!said(r.output, "epoch 1"));
  fs::create_directory(dir / "loop-parent");
  fs::create_directory_symlink(dir / "loop", dir / "loop");
  r = run_command({gyre_mf(), "--train", (dir / "r.tsv").string(), "--epochs", "1", "--out", (dir / "m").string(),
                   "--checkpoint", (dir / "loop").string()});
  INFO(r.output);
  CHECK(r.exit_code == 2);
  CHECK(said(r.output, "loop of symbolic links"));
  if (::geteuid() != 0) {  // root writes anywhere: the mode check needs another user
    fs::create_directory(dir / "ro");
    fs::permissions(dir / "ro", fs::perms::owner_read | fs::perms::owner_exec);
    r = run_command({gyre_mf(), "--train", (dir / "r.tsv").string(), "--epochs", "1", "--out", (dir / "m").string(),
                     "--checkpoint", (dir / "ro").string()});
    INFO(r.output);
    CHECK(r.exit_code == 2);
    fs::permissions(dir / "ro", fs::perms::owner_all);
  }
}

TEST_CASE("defect 9: a second job given a checkpoint directory in use is refused; the first one's checkpoints stay") {
  TempDir dir;
  generate_small_ratings(dir);
  const std::vector<std::string> first = {gyre_mf(), "--train", (dir / "r.tsv").string(), "--epochs", "1000000", "--threads",
                                          "1", "--quiet", "--out", (dir / "m1").string(), "--checkpoint",
                                          (dir / "ck").string()};
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    std::vector<char*> args;
    for (const auto& a : first) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    const int devnull = ::open("/dev/null", O_WRONLY);
    ::dup2(devnull, 1);
    ::dup2(devnull, 2);
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  // The first job holds the directory once it has written a checkpoint: any epoch's, as it keeps
  // only the newest two (waiting for epoch 1's, pruned within milliseconds, ran out the clock).
  const auto written = [&] {
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(dir / "ck", ec))
      if (fs::exists(entry.path() / "manifest")) return true;
    return false;
  };
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (!written() && std::chrono::steady_clock::now() < deadline) ::usleep(20000);
  REQUIRE(written());
  const auto second = run_command({gyre_mf(), "--train", (dir / "r.tsv").string(), "--epochs", "1", "--threads", "1",
                                   "--out", (dir / "m2").string(), "--checkpoint", (dir / "ck").string()});
  ::kill(child, SIGKILL);
  int status = 0;
  ::waitpid(child, &status, 0);
  INFO(second.output);
  CHECK(second.exit_code == 2);
  CHECK(said(second.output, "in use by another job (process " + std::to_string(child) + ")"));
  bool kept = false;  // the first job's newest checkpoints (older ones it pruned itself)
  for (const auto& entry : fs::directory_iterator(dir / "ck")) kept = kept || fs::exists(entry.path() / "manifest");
  CHECK(kept);
}

// ---- 10, 11. Replacing --out ----

TEST_CASE("defect 10: a staging directory left by a killed run is removed by the next run, which says so") {
  TempDir dir;
  generate_small_ratings(dir);
  // What kill -9 while staging leaves: a hidden full copy named for a process that is gone.
  const pid_t gone = ::fork();
  if (gone == 0) ::_exit(0);
  ::waitpid(gone, nullptr, 0);
  const fs::path stale = dir / (".m.gyre-new-" + std::to_string(gone) + "-55d0c0ffee");
  fs::create_directory(stale);
  write_text(stale / "user_factors.tsv", "0 1\n");
  // One of a process still running (this test) is someone's work in progress: it stays.
  const fs::path live = dir / (".m.gyre-new-" + std::to_string(::getpid()) + "-1234");
  fs::create_directory(live);
  const auto r = run_command({gyre_mf(), "--train", (dir / "r.tsv").string(), "--epochs", "1", "--threads", "1",
                              "--quiet", "--out", (dir / "m").string()});
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK(!fs::exists(stale));
  CHECK(said(r.output, "left unfinished by process " + std::to_string(gone)));
  CHECK(fs::exists(live));
}

TEST_CASE("defect 11: replacing --out keeps the directory's mode") {
  TempDir dir;
  generate_small_ratings(dir);
  const std::vector<std::string> train = {gyre_mf(), "--train", (dir / "r.tsv").string(), "--epochs", "1", "--threads", "1",
                                          "--quiet", "--out", (dir / "m").string()};
  REQUIRE(run_command(train).exit_code == 0);
  ::chmod((dir / "m").c_str(), 0700);
  REQUIRE(run_command(train).exit_code == 0);
  struct stat st {};
  REQUIRE(::stat((dir / "m").c_str(), &st) == 0);
  CHECK((st.st_mode & 07777) == 0700);
}

// ---- 12. A corrupt AdaGrad file ----

TEST_CASE("defect 12: a negative AdaGrad sum is a file:line error, not a divergence") {
  TempDir dir;
  generate_small_ratings(dir);
  const auto trained = run_command({gyre_mf(), "--train", (dir / "r.tsv").string(), "--epochs", "1", "--threads", "1",
                                    "--quiet", "--out", (dir / "m").string()});
  REQUIRE_MESSAGE(trained.exit_code == 0, trained.output);
  std::string sums = read_text(dir / "m" / "user_adagrad.tsv");
  const auto second_line = sums.find('\n') + 1;
  const auto field = sums.find('\t', second_line) + 1;
  sums.insert(field, "-");
  write_text(dir / "m" / "user_adagrad.tsv", sums);
  const auto r = run_command({gyre_mf(), "--train", (dir / "r.tsv").string(), "--init-model", (dir / "m").string(),
                              "--epochs", "1", "--threads", "1", "--out", (dir / "m2").string()});
  INFO(r.output);
  CHECK(r.exit_code == 2);
  CHECK(said(r.output, "user_adagrad.tsv:2: expected a finite number above 0"));
  CHECK(!said(r.output, "diverged"));
}

// ---- 13. Symlink loops ----

TEST_CASE("defect 13: a symlink loop as a model is refused with exit 2 and a sentence; one in a checkpoint directory is passed over") {
  TempDir dir;
  generate_small_ratings(dir);
  fs::create_directory_symlink(dir / "m9", dir / "m9");
  write_text(dir / "pair.tsv", "1 2\n");
  auto r = run_command({gyre_mf(), "predict", "--model", (dir / "m9").string(), "--pairs", (dir / "pair.tsv").string(),
                        "--out", (dir / "p.tsv").string()});
  INFO(r.output);
  CHECK(r.exit_code == 2);
  CHECK(said(r.output, "a loop of symbolic links"));
  CHECK(!said(r.output, "filesystem error"));
  // A run with checkpoints, then a loop named like a newer checkpoint beside them.
  r = run_command({gyre_mf(), "--train", (dir / "r.tsv").string(), "--epochs", "2", "--threads", "1", "--quiet", "--out",
                   (dir / "m").string(), "--checkpoint", (dir / "ck").string()});
  REQUIRE_MESSAGE(r.exit_code == 0, r.output);
  fs::create_directory_symlink(dir / "ck" / "epoch-7", dir / "ck" / "epoch-7");
  r = run_command({gyre_mf(), "--train", (dir / "r.tsv").string(), "--epochs", "3", "--threads", "1", "--quiet", "--out",
                   (dir / "m").string(), "--resume", (dir / "ck").string()});
  INFO(r.output);
  CHECK(r.exit_code == 0);
  CHECK(!said(r.output, "filesystem error"));
}

// ---- 14. The no-sync model's report ----

TEST_CASE("defect 14: --model nosync reports the test RMSE of the model it writes, and refuses an interval it would round") {
  TempDir dir;
  generate_small_ratings(dir);
  const auto r = run_command({gyre_mf(), "--train", (dir / "r.tsv").string(), "--test", (dir / "t.tsv").string(), "--model",
                              "nosync", "--workers", "2", "--threads", "1", "--epochs", "3", "--out",
                              (dir / "m").string()});
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  const double reported = last_test_rmse(r.output);
  // The written model scored independently: its predictions of the test pairs against the test ratings.
  std::istringstream test(read_text(dir / "t.tsv"));
  std::string pairs, user, item;
  std::vector<double> truth;
  double value = 0;
  while (test >> user >> item >> value) {
    pairs += user + " " + item + "\n";
    truth.push_back(value);
  }
  write_text(dir / "pairs.tsv", pairs);
  const auto p = run_command({gyre_mf(), "predict", "--model", (dir / "m").string(), "--pairs", (dir / "pairs.tsv").string(),
                              "--out", (dir / "p.tsv").string()});
  REQUIRE_MESSAGE(p.exit_code == 0, p.output);
  std::istringstream predictions(read_text(dir / "p.tsv"));
  double squares = 0;
  std::size_t n = 0;
  while (predictions >> user >> item >> value) {
    REQUIRE(n < truth.size());
    squares += (value - truth[n]) * (value - truth[n]);
    ++n;
  }
  REQUIRE(n == truth.size());
  CHECK(reported == doctest::Approx(std::sqrt(squares / static_cast<double>(n))).epsilon(0.002));
  const auto rounded = run_command({gyre_mf(), "--train", (dir / "r.tsv").string(), "--model", "nosync", "--workers", "2",
                                    "--average-ms", "0.001", "--epochs", "1", "--out", (dir / "m2").string()});
  INFO(rounded.output);
  CHECK(rounded.exit_code == 2);
  CHECK(said(rounded.output, "whole number of milliseconds"));
}

// ---- 6. Checkpoint parts bound to their manifest ----

TEST_CASE("defect 6: a part copied from another checkpoint is refused on resume, naming it, and the older sound one is used") {
  TempDir dir;
  generate_small_ratings(dir);
  // Five epochs: checkpoints after epochs 1 to 4 (the last epoch's model is the output).
  auto r = run_command({gyre_mf(), "--train", (dir / "r.tsv").string(), "--epochs", "5", "--threads", "1", "--workers", "2",
                        "--keep", "4", "--quiet", "--out", (dir / "m").string(), "--checkpoint", (dir / "ck").string()});
  REQUIRE_MESSAGE(r.exit_code == 0, r.output);
  fs::copy_file(dir / "ck" / "epoch-3" / "rank-1.part", dir / "ck" / "epoch-4" / "rank-1.part",
                fs::copy_options::overwrite_existing);
  r = run_command({gyre_mf(), "--train", (dir / "r.tsv").string(), "--epochs", "6", "--threads", "1", "--workers", "2",
                   "--keep", "4", "--out", (dir / "m").string(), "--resume", (dir / "ck").string()});
  INFO(r.output);
  CHECK(r.exit_code == 0);
  CHECK(said(r.output, "epoch-4/rank-1.part: expected the part its manifest was sealed with"));
  CHECK(said(r.output, "resuming after epoch 3"));
}

// ---- 4. Where checkpoints go, agreed at formation ----

TEST_CASE("defect 4: ranks that disagree on writing checkpoints never form a job; they say which setting differs") {
  TempDir dir;
  generate_small_ratings(dir);
  const std::vector<std::string> argv = {gyre_mf(), "--train", (dir / "r.tsv").string(), "--epochs", "2", "--threads", "1",
                                         "--quiet", "--out", (dir / "m").string()};
  auto with_checkpoint = argv;
  with_checkpoint.insert(with_checkpoint.end(), {"--checkpoint", (dir / "ck").string()});
  const auto ranks = gyre::test::run_ranks({with_checkpoint, argv}, "10");
  for (const auto& r : ranks) {
    INFO(r.output);
    CHECK(r.exit_code != 0);
  }
  CHECK(said(ranks[0].output + ranks[1].output, "checkpoints is none on rank 1"));
  CHECK(!fs::exists(dir / "ck" / "epoch-1"));
}

TEST_CASE("defect 4: a rank whose checkpoint directory is not rank 0's fails the job at its first checkpoint, saying so") {
  TempDir dir;
  generate_small_ratings(dir);
  const std::vector<std::string> argv = {gyre_mf(), "--train", (dir / "r.tsv").string(), "--epochs", "3", "--threads", "1",
                                         "--quiet", "--out", (dir / "m").string()};
  auto rank0 = argv, rank1 = argv;
  rank0.insert(rank0.end(), {"--checkpoint", (dir / "ck").string()});
  rank1.insert(rank1.end(), {"--checkpoint", (dir / "elsewhere").string()});
  const auto ranks = gyre::test::run_ranks({rank0, rank1}, "10");
  for (const auto& r : ranks) {
    INFO(r.output);
    CHECK(r.exit_code != 0);
  }
  CHECK(said(ranks[0].output + ranks[1].output, "elsewhere is not the one rank 0 holds for this job"));
  CHECK(!fs::exists(dir / "ck" / "epoch-1" / "manifest"));  // no checkpoint that no resume could use
}

// ---- 16. Ranks that never join ----

TEST_CASE("defect 16: a rank that never starts is named on every rank that did") {
  TempDir dir;
  generate_small_ratings(dir);
  const std::string coordinator = "127.0.0.1:" + std::to_string(gyre::test::free_port());
  std::vector<std::future<CommandResult>> running;
  for (const int rank : {0, 2}) {  // rank 1 was killed before it connected
    running.push_back(std::async(std::launch::async, [&, rank] {
      gyre::test::CommandOptions o;
      o.environment = {{"GYRE_TOKEN", "test-token"}};
      return run_command({gyre_mf(), "--train", (dir / "r.tsv").string(), "--epochs", "1", "--threads", "1", "--quiet",
                          "--processes", "3", "--process-rank", std::to_string(rank), "--coordinator", coordinator,
                          "--connect-timeout", "3"},
                         o);
    }));
  }
  for (auto& f : running) {
    const auto r = f.get();
    INFO(r.output);
    CHECK(r.exit_code != 0);
    CHECK(said(r.output, "no registration from rank 1"));
  }
}

TEST_CASE("defect 16: a rank number given twice, the second after the job formed, is told so and the job goes on") {
  TempDir dir;
  generate_small_ratings(dir);
  const std::string coordinator = "127.0.0.1:" + std::to_string(gyre::test::free_port());
  const std::string rank = gyre_mf() + " --train r.tsv --epochs 30 --threads 1 --processes 2 --coordinator " + coordinator +
                           " --listen-host 127.0.0.1 --process-rank ";
  std::ostringstream script;
  script << "cd '" << dir.path().string() << "'\nexport GYRE_TOKEN=test-token\n"
         << rank << "0 > log0.txt 2>&1 & pid0=$!\n"
         << rank << "1 > log1.txt 2>&1 & pid1=$!\n"
         << "( sleep 60; kill -9 $pid0 $pid1 ) >/dev/null 2>&1 & watchdog=$!\n"
         // Formed: training has begun (rank 0 prints epochs only after the last rendezvous).
         << "for i in $(seq 1 300); do grep -q 'epoch   1' log0.txt && break; sleep 0.1; done\n"
         << "timeout -s KILL 30 " << rank << "1 --connect-timeout 2 > late.txt 2>&1; echo late=$?\n"
         << "wait $pid0; echo rc0=$?; wait $pid1; echo rc1=$?\nkill -9 $watchdog 2>/dev/null\n";
  const auto r = gyre::test::run_shell(script.str());
  const auto late = read_text(dir / "late.txt");
  INFO(r.output);
  INFO(late);
  CHECK((said(r.output, "late=2") || said(r.output, "late=1")));
  CHECK(said(late, "is rank 1 given to two processes?"));
  CHECK(said(r.output, "rc0=0"));
  CHECK(said(r.output, "rc1=0"));
}

// ---- 15. Lasso's safeguard ----

TEST_CASE("defect 15: a Lasso interval that multiplies the objective stops the solve at once, saying why") {
  TempDir dir;
  // 64 near-copies of one feature: with the dependency check off, a round steps many copies at
  // once from the same stale sums and overshoots by their number.
  std::string rows;
  std::uint64_t state = 88172645463325252ull;
  const auto uniform = [&] {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return static_cast<double>(state >> 11) / 9007199254740992.0;
  };
  for (int i = 0; i < 400; ++i) {
    const double x = uniform() * 2 - 1;
    rows += std::to_string(2 * x + 0.1 * (uniform() - 0.5));
    for (int j = 1; j <= 64; ++j) rows += " " + std::to_string(j) + ":" + std::to_string(x + 0.01 * (uniform() - 0.5));
    rows += "\n";
  }
  write_text(dir / "copies.libsvm", rows);
  const auto t0 = std::chrono::steady_clock::now();
  const auto r = run_bounded({built("apps/lasso/gyre-lasso"), "--data", (dir / "copies.libsvm").string(), "--lambda",
                              "0.01", "--rho", "1", "--batch", "16", "--depth", "4", "--workers", "2", "--threads", "1",
                              "--max-updates", "5000000", "--out", (dir / "beta.tsv").string()},
                             60);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  INFO(r.output);
  CHECK(r.exit_code == 1);
  CHECK(said(r.output, "the solve diverged at lambda 0.01"));
  CHECK(said(r.output, "--rho below 1"));
  CHECK(!fs::exists(dir / "beta.tsv"));
  CHECK(seconds < 30);
}

// ---- The small ones ----

TEST_CASE("--max-memory 0 is refused, not taken as no budget at all") {
  TempDir dir;
  generate_small_ratings(dir);
  const auto r = run_command({gyre_mf(), "--train", (dir / "r.tsv").string(), "--max-memory", "0", "--epochs", "1"});
  INFO(r.output);
  CHECK(r.exit_code == 2);
  CHECK(said(r.output, "at least 1 byte"));
}

TEST_CASE("epoch lines that standard output cannot take fail the run instead of vanishing") {
  if (!fs::exists("/dev/full")) return;
  TempDir dir;
  generate_small_ratings(dir);
  const auto r = gyre::test::run_shell(gyre_mf() + " --train " + (dir / "r.tsv").string() +
                                       " --epochs 2 --threads 1 --out " + (dir / "m").string() + " > /dev/full");
  INFO(r.output);
  CHECK(r.exit_code == 1);
  CHECK(said(r.output, "cannot write to standard output"));
}
