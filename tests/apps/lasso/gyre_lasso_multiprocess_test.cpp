// tests/apps/lasso/gyre_lasso_multiprocess_test.cpp — gyre-lasso as several processes over tcp on loopback.
#include <doctest/doctest.h>

#include <cstdio>

#include "gyre/data/regression.hpp"
#include "gyre/data/regression_partition.hpp"
#include "support/multiprocess.hpp"
#include "support/sanitizers.hpp"
#include "support/run_command.hpp"
#include "support/temp_dir.hpp"

using gyre::test::gyre_lasso;
using gyre::test::build_path;
using gyre::test::check_ranges_tile;
using gyre::test::disturb_rank_1;
using gyre::test::expect_refused_by_ranks;
using gyre::test::expect_survivors_stopped;
using gyre::test::lines_of;
using gyre::test::read_text;
using gyre::test::run_command;
using gyre::test::run_ranks;
using gyre::test::under_memory_cap;
using gyre::test::with;
using gyre::test::TempDir;
using gyre::test::write_text;

namespace {

void generate_regression_samples(const TempDir& dir, const std::string& samples) {
  const auto r = run_command({build_path("tools/gyre-gen").string(), "regression", "--samples", samples, "--features",
                              "300", "--nnz-per-row", "20", "--support", "10", "--correlation", "0.5", "--noise", "0.1", "--seed", "8",
                              "--out", (dir / "data").string()});
  REQUIRE_MESSAGE(r.exit_code == 0, r.output);
}

// The file's labels as two classes, +1 for a positive response and -1 otherwise.
std::string as_two_classes(const std::string& libsvm) {
  std::string out;
  for (const auto& line : lines_of(libsvm)) {
    const auto blank = line.find(' ');
    out += (std::stod(line.substr(0, blank)) > 0 ? "+1" : "-1") + line.substr(blank);
  }
  return out;
}

std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += l;
  return out;
}

// `lines` cut into a directory of three LibSVM files, in name order (one a 30%, one 30%, one
// 40%), beside a hidden file and a subdirectory, which are not input. Returns the three files'
// paths.
std::vector<std::filesystem::path> cut_libsvm_into_directory(const std::vector<std::string>& lines,
                                                             const std::filesystem::path& into) {
  const std::size_t cuts[] = {0, lines.size() * 3 / 10, lines.size() * 6 / 10, lines.size()};
  const std::vector<std::filesystem::path> files{into / "1-first.libsvm", into / "2-second.txt", into / "3-third"};
  std::filesystem::create_directories(into / "notes");
  for (std::size_t f = 0; f < files.size(); ++f)
    write_text(files[f], joined(std::vector<std::string>(lines.begin() + static_cast<std::ptrdiff_t>(cuts[f]),
                                                         lines.begin() + static_cast<std::ptrdiff_t>(cuts[f + 1]))));
  write_text(into / ".hidden", "not LibSVM\n");
  write_text(into / "notes" / "readme.txt", "not LibSVM\n");
  return files;
}

std::vector<std::string> common_lasso_argv(const TempDir& dir) {
  return {gyre_lasso(), "--data", (dir / "data").string(), "--path", "4", "--lambda-ratio", "0.05", "--batch", "16",
          "--depth", "3", "--threads", "1", "--tol", "1e-10"};
}

}  // namespace

TEST_CASE("3 processes over tcp write coefficients bitwise identical to --workers 3 in one process") {
  TempDir dir;
  generate_regression_samples(dir, "1200");
  auto single = common_lasso_argv(dir);
  single.insert(single.end(), {"--workers", "3", "--quiet", "--out", (dir / "single.tsv").string()});
  const auto s = run_command(single);
  REQUIRE_MESSAGE(s.exit_code == 0, s.output);

  auto multi = common_lasso_argv(dir);
  multi.insert(multi.end(), {"--out", (dir / "multi.tsv").string(), "--metrics", (dir / "multi.jsonl").string()});
  const auto ranks = run_ranks(multi, 3);
  for (const auto& r : ranks) CHECK_MESSAGE(r.exit_code == 0, r.output);
  CHECK(read_text(dir / "single.tsv") == read_text(dir / "multi.tsv"));
  CHECK(ranks[0].output.find("lambda_max") != std::string::npos);  // rank 0 reports for the job
  CHECK_MESSAGE(ranks[1].output.empty(), ranks[1].output);
  CHECK_MESSAGE(ranks[2].output.empty(), ranks[2].output);
  CHECK(read_text(dir / "multi.jsonl").find("\"lambda_index\":3") != std::string::npos);
}

TEST_CASE("the column models across 3 processes: C writes --workers 3's coefficients bitwise, D converges to the same path") {
  TempDir dir;
  generate_regression_samples(dir, "1200");
  const std::vector<std::string> argv{gyre_lasso(), "--data", (dir / "data").string(), "--path", "4", "--lambda-ratio",
                                      "0.05", "--tol", "1e-10"};
  for (const std::string model : {"C", "D"}) {
    CAPTURE(model);
    auto single = with(argv, {"--model", model, "--workers", "3", "--quiet", "--out", (dir / ("single" + model)).string()});
    const auto s = run_command(single);
    REQUIRE_MESSAGE(s.exit_code == 0, s.output);
    const auto multi = with(argv, {"--model", model, "--out", (dir / ("multi" + model)).string()});
    const auto ranks = run_ranks(multi, 3);
    for (const auto& r : ranks) CHECK_MESSAGE(r.exit_code == 0, r.output);
    CHECK(ranks[0].output.find("model, P=3 workers owning columns") != std::string::npos);
    CHECK(ranks[0].output.find("not converged") == std::string::npos);
    CHECK_MESSAGE(ranks[1].output.empty(), ranks[1].output);
    if (model == "C") {
      CHECK(read_text(dir / "singleC") == read_text(dir / "multiC"));
      continue;
    }
    // D's residuals depend on when pushes arrive: the same λs, objectives within the tolerance.
    const auto objectives = [](const std::string& output) {
      std::vector<double> out;
      for (const auto& line : lines_of(output))
        if (line.rfind("lambda ", 0) == 0 && line.find(": objective ") != std::string::npos)
          out.push_back(std::stod(line.substr(line.find(": objective ") + 12)));
      return out;
    };
    const auto c = run_command(with(argv, {"--model", "C", "--workers", "3"}));
    const auto reference = objectives(c.output), found = objectives(ranks[0].output);
    REQUIRE(reference.size() == 4);
    REQUIRE(found.size() == 4);
    for (std::size_t k = 0; k < 4; ++k) CHECK(found[k] == doctest::Approx(reference[k]).epsilon(1e-8));
  }
}

TEST_CASE("3 processes reading by byte ranges: each rank holds its own shard's rows and no other, and is sent only those") {
  TempDir dir;
  generate_regression_samples(dir, "1500");
  auto multi = common_lasso_argv(dir);
  multi.insert(multi.end(), {"--out", (dir / "multi.tsv").string()});
  const auto ranks = run_ranks(multi, 3);
  for (const auto& r : ranks) REQUIRE_MESSAGE(r.exit_code == 0, r.output);
  // The shards of one process: data::shard_rows of the whole set.
  const auto whole = gyre::data::load_regression(dir / "data", {});
  const auto shards = gyre::data::shard_rows(whole, 3);
  const std::string& said = ranks[0].output;
  INFO(said);
  std::uint64_t held = 0;
  for (std::size_t r = 0; r < 3; ++r) {
    CAPTURE(r);
    const auto at = said.find("rank " + std::to_string(r) + " holds ");
    REQUIRE(at != std::string::npos);
    unsigned long long rows = 0, received = 0;
    REQUIRE(std::sscanf(said.c_str() + at, "rank %*u holds %llu rows, its shard; %llu of them came from other ranks",
                        &rows, &received) == 2);
    CHECK(rows == shards[r].samples());  // its shard, and no row of another
    // What it kept of what it read, and what the others sent it: nothing more arrived.
    const auto [bytes, lines] = gyre::test::bytes_and_lines_read(said, r);
    CHECK(received <= rows);
    CHECK(rows - received <= lines);
    held += rows;
  }
  CHECK(held == whole.samples());
}

TEST_CASE("3 processes over a 9-row two-class file: byte ranges of fewer rows than workers still make one job") {
  // Each rank's range holds about 3 rows, one of them maybe 2: the job is checked against the
  // rows of every rank together, never one range's.
  TempDir dir;
  write_text(dir / "tiny.libsvm",
             "1 1:0.5 2:1\n-1 1:-0.3 3:2\n1 2:0.7\n-1 1:1 3:-1\n1 1:0.2 2:0.4 3:0.1\n-1 2:-0.6\n"
             "1 1:0.9 3:0.3\n-1 2:0.1 3:-0.4\n1 1:-0.2 2:0.8\n");
  const std::vector<std::string> solve{gyre_lasso(), "--data", (dir / "tiny.libsvm").string(), "--loss", "logistic",
                                       "--path", "2", "--lambda-ratio", "0.5", "--threads", "1", "--quiet"};
  auto one = solve;
  one.insert(one.end(), {"--workers", "3", "--out", (dir / "one.tsv").string()});
  const auto single = run_command(one);
  REQUIRE_MESSAGE(single.exit_code == 0, single.output);
  auto multi = solve;
  multi.insert(multi.end(), {"--out", (dir / "multi.tsv").string()});
  for (const auto& r : run_ranks(multi, 3)) CHECK_MESSAGE(r.exit_code == 0, r.output);
  CHECK(read_text(dir / "multi.tsv") == read_text(dir / "one.tsv"));
}

TEST_CASE("3 processes each under a memory cap one process holding the problem exceeds: the one-process coefficients") {
  if (gyre::test::kSanitized) {
    // A sanitizer's shadow memory and allocator are not what a data-segment limit measures.
    MESSAGE("skipped under a sanitizer: RLIMIT_DATA cannot cap its allocator");
    return;
  }
  TempDir dir;
  // 200k rows × 30 non-zeros (6M, 83 MB of text): one process of 3 workers needs 300–400 MB of
  // data segment (the whole set, its shards, the workers' column copies), a rank of 3 150–200 MB
  // (issue 37; before it, rank 0 held every row and needed more than 250).
  const auto g = run_command({build_path("tools/gyre-gen").string(), "regression", "--samples", "200000", "--features",
                              "50000", "--nnz-per-row", "30", "--support", "100", "--correlation", "0.3", "--noise",
                              "0.5", "--seed", "3", "--out", (dir / "data").string()});
  REQUIRE_MESSAGE(g.exit_code == 0, g.output);
  const std::vector<std::string> solve{gyre_lasso(), "--data", (dir / "data").string(), "--workers", "3", "--threads", "1",
                                       "--path", "1", "--lambda-ratio", "0.3", "--quiet"};
  const auto reference = run_command(with(solve, {"--out", (dir / "one.tsv").string()}));
  REQUIRE_MESSAGE(reference.exit_code == 0, reference.output);
  // The cap has teeth: one process under it runs out of memory.
  const auto refused = run_command(under_memory_cap(250, with(solve, {"--out", (dir / "capped.tsv").string()})));
  CHECK_MESSAGE(refused.exit_code != 0, refused.output);
  CHECK_MESSAGE(refused.output.find("out of memory") != std::string::npos, refused.output);
  const auto ranks = run_ranks(under_memory_cap(250, with(solve, {"--out", (dir / "ranks.tsv").string()})), 3);
  for (const auto& r : ranks) CHECK_MESSAGE(r.exit_code == 0, r.output);
  CHECK(read_text(dir / "ranks.tsv") == read_text(dir / "one.tsv"));
}

TEST_CASE("3 processes reading a LibSVM file by byte ranges, a row partition, CSV or MatrixMarket give one process's coefficients") {
  TempDir dir;
  generate_regression_samples(dir, "1500");
  const std::string libsvm = read_text(dir / "data/data.libsvm");
  write_text(dir / "classes.libsvm", as_two_classes(libsvm));
  // The same rows as CSV (header x1..x300,y) and as MatrixMarket with the response beside it.
  std::string csv, mtx;
  std::size_t nnz = 0, row = 0;
  for (std::size_t j = 1; j <= 300; ++j) csv += "x" + std::to_string(j) + ",";
  csv += "y\n";
  std::string entries;
  std::string response;
  for (const auto& line : lines_of(libsvm)) {
    ++row;
    std::vector<std::string> fields(301, "0");
    std::size_t at = line.find(' ');
    response += line.substr(0, at) + "\n";
    fields[300] = line.substr(0, at);
    while (at < line.size() && line[at] == ' ') {
      const auto colon = line.find(':', at), end = std::min(line.find(' ', at + 1), line.size() - 1);
      const std::string column = line.substr(at + 1, colon - at - 1), value = line.substr(colon + 1, end - colon - 1);
      fields[std::stoul(column) - 1] = value;
      entries += std::to_string(row) + " " + column + " " + value + "\n";
      ++nnz;
      at = end;
    }
    for (std::size_t j = 0; j < fields.size(); ++j) csv += fields[j] + (j + 1 < fields.size() ? "," : "\n");
  }
  mtx = "%%MatrixMarket matrix coordinate real general\n" + std::to_string(row) + " 300 " + std::to_string(nnz) + "\n" + entries;
  write_text(dir / "rows.csv", csv);
  write_text(dir / "rows.mtx", mtx);
  write_text(dir / "rows.response", response);
  const auto part = run_command({build_path("tools/gyre-partition").string(), "rows", "--input", (dir / "data").string(),
                                 "--parts", "3", "--out", (dir / "parts").string()});
  REQUIRE_MESSAGE(part.exit_code == 0, part.output);

  struct Case {
    std::string name, data;
    std::vector<std::string> extra;
    bool ranges;
  };
  const std::vector<Case> cases{
      {"libsvm", (dir / "data/data.libsvm").string(), {}, true},
      {"classes", (dir / "classes.libsvm").string(), {"--loss", "logistic"}, true},
      {"partition", (dir / "parts").string(), {}, false},
      {"csv", (dir / "rows.csv").string(), {}, false},
      {"mtx", (dir / "rows.mtx").string(), {}, false},
  };
  for (const auto& c : cases) {
    CAPTURE(c.name);
    auto argv = common_lasso_argv(dir);
    argv[2] = c.data;
    argv.insert(argv.end(), c.extra.begin(), c.extra.end());
    auto single = argv;
    single.insert(single.end(), {"--workers", "3", "--quiet", "--out", (dir / ("single-" + c.name + ".tsv")).string()});
    const auto s = run_command(single);
    REQUIRE_MESSAGE(s.exit_code == 0, s.output);
    auto multi = argv;
    multi.insert(multi.end(), {"--out", (dir / ("multi-" + c.name + ".tsv")).string()});
    const auto ranks = run_ranks(multi, 3);
    for (const auto& r : ranks) CHECK_MESSAGE(r.exit_code == 0, r.output);
    CHECK(read_text(dir / ("single-" + c.name + ".tsv")) == read_text(dir / ("multi-" + c.name + ".tsv")));
    CHECK_MESSAGE(ranks[1].output.empty(), ranks[1].output);
    CHECK_MESSAGE(ranks[2].output.empty(), ranks[2].output);
    if (c.ranges) check_ranges_tile(ranks, read_text(c.data));
    else CHECK(ranks[0].output.find(" read ") == std::string::npos);  // rank 0 read it whole, the others nothing
  }
  // The single-process results of the inputs agree with each other where they hold the same numbers.
  CHECK(read_text(dir / "single-libsvm.tsv") == read_text(dir / "single-partition.tsv"));
}

// Ranks 1 and 2 get a copy of the partition with their own part only, so a rank that opened
// another part would fail; rank 0, where the scheduler needs every row, reads it whole.
TEST_CASE("3 processes over a 3-part row partition: ranks 1 and 2 read only their own part, coefficients as one process") {
  TempDir dir;
  generate_regression_samples(dir, "1500");
  write_text(dir / "classes.libsvm", as_two_classes(read_text(dir / "data/data.libsvm")));
  for (const std::string input : {"data", "classes.libsvm"}) {
    CAPTURE(input);
    const auto parts = dir / ("parts-of-" + input);
    const auto part = run_command({build_path("tools/gyre-partition").string(), "rows", "--input",
                                   (dir / input).string(), "--parts", "3", "--out", parts.string()});
    REQUIRE_MESSAGE(part.exit_code == 0, part.output);
    std::vector<std::string> extra;
    if (input == "classes.libsvm") extra = {"--loss", "logistic"};
    auto single = common_lasso_argv(dir);
    single[2] = parts.string();
    single.insert(single.end(), extra.begin(), extra.end());
    single.insert(single.end(), {"--workers", "3", "--quiet", "--out", (dir / ("single-" + input + ".tsv")).string()});
    const auto s = run_command(single);
    REQUIRE_MESSAGE(s.exit_code == 0, s.output);
    std::vector<std::vector<std::string>> per_rank;
    for (int r = 0; r < 3; ++r) {
      auto own = parts;
      if (r > 0) {
        own = dir / ("own-" + input + "-" + std::to_string(r));
        std::filesystem::copy(parts, own);
        for (int other = 0; other < 3; ++other)
          if (other != r) REQUIRE(std::filesystem::remove(own / ("part-0000" + std::to_string(other) + ".shard")));
      }
      auto argv = common_lasso_argv(dir);
      argv[2] = own.string();
      argv.insert(argv.end(), extra.begin(), extra.end());
      argv.insert(argv.end(), {"--out", (dir / ("multi-" + input + ".tsv")).string()});
      per_rank.push_back(std::move(argv));
    }
    for (const auto& r : run_ranks(per_rank)) CHECK_MESSAGE(r.exit_code == 0, r.output);
    CHECK(read_text(dir / ("single-" + input + ".tsv")) == read_text(dir / ("multi-" + input + ".tsv")));
    // What rank 1 trains from is its own copy of part 1: cut short, it stops the job there.
    const auto own_part = std::filesystem::path(per_rank[1][2]) / "part-00001.shard";
    std::filesystem::resize_file(own_part, std::filesystem::file_size(own_part) - 8);
    const auto cut = run_ranks(per_rank);
    CHECK(cut[1].exit_code == 2);
    CHECK_MESSAGE(cut[1].output.find("part-00001.shard") != std::string::npos, cut[1].output);
    for (const auto& r : cut) CHECK(r.exit_code != 0);
  }
}

TEST_CASE("a LibSVM file read by byte ranges with a bad line, a third class or too few samples: every rank stops with the one-process error") {
  TempDir dir;
  generate_regression_samples(dir, "1500");
  const auto lines = lines_of(read_text(dir / "data/data.libsvm"));
  const auto refuse = [&](const std::string& name, const std::string& text, const std::vector<std::string>& extra,
                          const std::string& fragment, std::size_t line) {
    CAPTURE(name);
    write_text(dir / name, text);
    auto argv = common_lasso_argv(dir);
    argv[2] = (dir / name).string();
    argv.insert(argv.end(), extra.begin(), extra.end());
    const auto one = run_command(argv);
    REQUIRE(one.exit_code == 2);
    const std::string where = name + (line > 0 ? ":" + std::to_string(line) + ":" : "");
    CHECK_MESSAGE(one.output.find(where) != std::string::npos, one.output);
    CHECK_MESSAGE(one.output.find(fragment) != std::string::npos, one.output);
    expect_refused_by_ranks("gyre-lasso", argv, dir, (dir / where).string(), fragment);
  };
  // A bad pair in the last third: rank 2's range, at the file's own line.
  auto bad = lines;
  const std::size_t at = lines.size() * 9 / 10;
  bad[at] = "1.5 3:2 oops\n";
  refuse("bad.libsvm", joined(bad), {}, "expected a feature", at + 1);
  // Labels of two classes, then a third in the middle third (rank 1's range), and a bad line
  // after it in rank 2's: the third class comes first in the file, so it is the error.
  auto classes = lines_of(as_two_classes(joined(lines)));
  const std::size_t third = lines.size() / 2;
  classes[third] = "7" + classes[third].substr(classes[third].find(' '));
  classes[at] = "1 3:2 oops\n";
  refuse("third.libsvm", joined(classes), {"--loss", "logistic"}, "a label of one of two classes", third + 1);
  // One class only: a fault of the whole file, which every rank finds.
  std::string one_class;
  for (const auto& l : lines) one_class += "1" + l.substr(l.find(' '));
  refuse("one.libsvm", one_class, {"--loss", "logistic"}, "two classes", 0);
  // Two samples for three workers: rank 0 refuses the job, and every rank stops with bad input.
  auto two = lines;
  two.resize(2);
  write_text(dir / "two.libsvm", joined(two));
  auto argv = common_lasso_argv(dir);
  argv[2] = (dir / "two.libsvm").string();
  const auto ranks = run_ranks(argv, 3);
  for (const auto& r : ranks) {
    CHECK(r.exit_code == 2);
    CHECK_MESSAGE(r.output.find("3 workers but only 2 samples") != std::string::npos, r.output);
  }
}

TEST_CASE("a multi-process gyre-lasso job without a token is refused before the data is read") {
  TempDir dir;
  auto argv = common_lasso_argv(dir);  // the data directory does not even exist
  argv.insert(argv.end(), {"--processes", "2", "--process-rank", "1", "--coordinator", "127.0.0.1:1"});
  const auto r = run_command(argv);
  CHECK(r.exit_code == 2);
  CHECK_MESSAGE(r.output.find("token") != std::string::npos, r.output);
}

TEST_CASE("when one gyre-lasso process is killed, the others stop with an error naming it") {
  TempDir dir;
  generate_regression_samples(dir, "4000");
  // A check after every coordinate update and a long path: far longer than the test.
  const std::string endless = gyre_lasso() + " --data data --path 200 --lambda-ratio 1e-4 --tol 1e-15 --check-every 1"
                              " --batch 4 --threads 1";
  expect_survivors_stopped(dir, disturb_rank_1(dir, endless, "kill -9", "round "), 10000);
  for (const char* model : {"C", "D"}) {
    CAPTURE(model);
    expect_survivors_stopped(dir, disturb_rank_1(dir, endless + " --model " + model, "kill -9", "round "), 10000);
  }
}

TEST_CASE("3 processes reading a directory of LibSVM files by byte ranges: one process's coefficients of the files joined; faults in file order") {
  TempDir dir;
  generate_regression_samples(dir, "1500");
  const auto lines = lines_of(read_text(dir / "data/data.libsvm"));
  const auto classes = lines_of(as_two_classes(joined(lines)));
  for (const bool logistic : {false, true}) {
    CAPTURE(logistic);
    const auto& rows = logistic ? classes : lines;
    const auto input = dir / (logistic ? "classes-dir" : "dir");
    cut_libsvm_into_directory(rows, input);
    write_text(dir / "joined.libsvm", joined(rows));
    auto argv = common_lasso_argv(dir);
    if (logistic) argv.insert(argv.end(), {"--loss", "logistic"});
    auto single = argv;
    single[2] = (dir / "joined.libsvm").string();
    single.insert(single.end(), {"--workers", "3", "--quiet", "--out", (dir / "single.tsv").string()});
    const auto s = run_command(single);
    REQUIRE_MESSAGE(s.exit_code == 0, s.output);
    argv[2] = input.string();
    auto one = argv;
    one.insert(one.end(), {"--workers", "3", "--quiet", "--out", (dir / "one-dir.tsv").string()});
    const auto o = run_command(one);
    REQUIRE_MESSAGE(o.exit_code == 0, o.output);
    auto multi = argv;
    multi.insert(multi.end(), {"--out", (dir / "multi.tsv").string()});
    const auto ranks = run_ranks(multi, 3);
    for (const auto& r : ranks) CHECK_MESSAGE(r.exit_code == 0, r.output);
    check_ranges_tile(ranks, joined(rows));  // each rank its third of the three files
    CHECK(read_text(dir / "one-dir.tsv") == read_text(dir / "single.tsv"));
    CHECK(read_text(dir / "multi.tsv") == read_text(dir / "single.tsv"));
  }

  // Faults, each the first in file order, named at its own file's line, in one process and by
  // every rank of three.
  const auto input = dir / "faults";
  const auto refused = [&](const std::filesystem::path& file, std::size_t line, const std::string& fragment,
                           const std::vector<std::string>& extra) {
    CAPTURE(file);
    auto argv = common_lasso_argv(dir);
    argv[2] = input.string();
    argv.insert(argv.end(), extra.begin(), extra.end());
    const std::string where = file.string() + (line > 0 ? ":" + std::to_string(line) + ":" : "");
    const auto one = run_command(argv);
    CHECK(one.exit_code == 2);
    CHECK_MESSAGE(one.output.find("gyre-lasso: error: " + where) != std::string::npos, one.output);
    CHECK_MESSAGE(one.output.find(fragment) != std::string::npos, one.output);
    expect_refused_by_ranks("gyre-lasso", argv, dir, where, fragment);
  };
  {  // A bad pair near the end of the last file, in rank 2's range.
    std::filesystem::remove_all(input);
    const auto files = cut_libsvm_into_directory(lines, input);
    auto last = lines_of(read_text(files[2]));
    last[last.size() - 5] = "1.5 3:2 oops\n";
    write_text(files[2], joined(last));
    refused(files[2], last.size() - 4, "expected a feature", {});
  }
  {  // A third class early in the second file (rank 0's range ends in it), a bad line in the last: the class comes first.
    std::filesystem::remove_all(input);
    const auto files = cut_libsvm_into_directory(classes, input);
    auto second = lines_of(read_text(files[1]));
    second[3] = "7" + second[3].substr(second[3].find(' '));
    write_text(files[1], joined(second));
    write_text(files[2], "1 3:2 oops\n" + read_text(files[2]));
    refused(files[1], 4, "a label of one of two classes", {"--loss", "logistic"});
  }
  {  // An empty middle file, and a bad line after it: the empty file comes first.
    std::filesystem::remove_all(input);
    const auto files = cut_libsvm_into_directory(lines, input);
    write_text(files[1], "# no sample here\n");
    write_text(files[2], "1 3:2 oops\n" + read_text(files[2]));
    refused(files[1], 0, "at least one sample", {});
  }
}
