// tests/apps/wordcount/word_count_test.cpp — word counts of the KJV Bible equal `tr | sort | uniq -c`'s, in one process, over tcp, and as 3 processes.
#include <doctest/doctest.h>

#include <cstdint>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "lib/net/backends.hpp"
#include "support/corpora.hpp"
#include "support/multiprocess.hpp"
#include "support/run_command.hpp"
#include "support/temp_dir.hpp"
#include "wordcount/word_count.hpp"

using namespace gyre;
using gyre::test::build_path;
using gyre::test::read_text;
using gyre::test::run_command;
using gyre::test::run_shell;
using gyre::test::TempDir;

namespace {

using Counts = std::map<std::string, std::uint64_t>;

std::string quoted(const std::filesystem::path& p) { return "'" + p.string() + "'"; }

// The reference: `tr -cs A-Za-z '\n' | tr A-Z a-z | sort | uniq -c`. tr leaves one empty line
// when the text starts with a non-letter; that is no word, so it is dropped.
Counts shell_counts(const std::filesystem::path& file) {
  const auto r = run_shell("LC_ALL=C tr -cs A-Za-z '\\n' < " + quoted(file) + " | LC_ALL=C tr A-Z a-z | LC_ALL=C sort | uniq -c");
  REQUIRE_MESSAGE(r.exit_code == 0, r.output);
  Counts out;
  std::istringstream in(r.output);
  std::uint64_t n = 0;
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string word;
    REQUIRE(static_cast<bool>(fields >> n));
    fields >> word;
    if (!word.empty()) out[word] += n;
  }
  return out;
}

// "count word" lines, most frequent first, ties by word: gyre-wordcount's output.
std::string sorted_lines(const Counts& counts) {
  std::vector<wordcount::Count> v(counts.begin(), counts.end());
  wordcount::sort_counts(v);
  std::string out;
  for (const auto& [w, n] : v) out += std::to_string(n) + " " + w + "\n";
  return out;
}

Counts as_map(const std::vector<wordcount::Count>& v) { return {v.begin(), v.end()}; }

std::filesystem::path bible() {
  const auto file = test::corpus_file("bible");
  REQUIRE_MESSAGE(std::filesystem::exists(file), "missing " << file << ": run tools/data/fetch-corpora.sh bible");
  return file;
}

std::string wordcount_binary() { return build_path("apps/wordcount/gyre-wordcount").string(); }

}  // namespace

TEST_CASE("for_each_word splits as tr -cs A-Za-z does, lower-cased") {
  std::vector<std::string> words;
  wordcount::for_each_word("1:1 In the Beginning, GOD's\tcafé x-ray\r", [&](const std::string& w) { words.push_back(w); });
  CHECK(words == std::vector<std::string>{"in", "the", "beginning", "god", "s", "caf", "x", "ray"});
}

TEST_CASE("the Bible's word counts equal tr | sort | uniq -c, in one process and over loopback tcp") {
  const auto file = bible();
  const Counts want = shell_counts(file);
  REQUIRE(want.size() > 10000);
  wordcount::CountOptions options;
  options.input = file;
  for (const int P : {1, 4}) {
    CAPTURE(P);
    runtime::Job job;
    job.workers = P;
    const auto got = wordcount::count_words(job, options);
    CHECK(as_map(got) == want);
    CHECK(got.size() == want.size());
  }
  runtime::Job tcp;
  tcp.workers = 3;
  tcp.backend = gyre_test::TcpBackend::runtime_backend();
  const auto got = wordcount::count_words(tcp, options);
  CHECK(as_map(got) == want);
  std::string lines;
  for (const auto& [w, n] : got) lines += std::to_string(n) + " " + w + "\n";
  CHECK(lines == sorted_lines(want));  // sorted by count, then word
}

TEST_CASE("gyre-wordcount as 3 processes prints what one process prints, and what the shell counts") {
  const auto file = bible();
  TempDir dir;
  const std::string want = sorted_lines(shell_counts(file));
  const auto one = run_command({wordcount_binary(), "--input", file.string(), "--workers", "2", "--out",
                                (dir / "one.txt").string()});
  REQUIRE_MESSAGE(one.exit_code == 0, one.output);
  CHECK(read_text(dir / "one.txt") == want);
  const auto ranks = test::run_ranks({wordcount_binary(), "--input", file.string(), "--out", (dir / "three.txt").string()}, 3);
  for (const auto& r : ranks) CHECK_MESSAGE(r.exit_code == 0, r.output);
  CHECK(ranks[1].output.empty());
  CHECK(ranks[2].output.empty());
  CHECK(read_text(dir / "three.txt") == want);
}

TEST_CASE("mpirun -np 3 gyre-wordcount writes what the shell counts") {
  if (run_shell("command -v mpirun").exit_code != 0) {
    MESSAGE("skipped: mpirun not installed (apt-get install openmpi-bin)");
    return;
  }
  const auto file = bible();
  TempDir dir;
  test::CommandOptions o;
  o.environment = {{"GYRE_TOKEN", "test-token"}};
  const auto r = run_command({"timeout", "120", "mpirun", "--allow-run-as-root", "--oversubscribe", "-np", "3", "-x",
                              "GYRE_TOKEN", wordcount_binary(), "--input", file.string(), "--coordinator",
                              "127.0.0.1:" + std::to_string(test::free_port()), "--out", (dir / "mpi.txt").string()},
                             o);
  REQUIRE_MESSAGE(r.exit_code == 0, r.output);
  CHECK(read_text(dir / "mpi.txt") == sorted_lines(shell_counts(file)));
}

TEST_CASE("ranks that see different inputs are refused at the rendezvous, naming the input; --top and --out may differ") {
  TempDir dir;
  test::write_text(dir / "a.txt", "one two three\n");
  test::write_text(dir / "b.txt", "one two three four\n");
  const auto ranks = test::run_ranks(std::vector<std::vector<std::string>>{
      {wordcount_binary(), "--input", (dir / "a.txt").string()},
      {wordcount_binary(), "--input", (dir / "b.txt").string()}}, "2");
  CHECK(ranks[1].exit_code != 0);
  CHECK_MESSAGE(ranks[1].output.find("settings differ from rank 0's: input --input is 19 bytes in 1 files on rank 1, "
                                    "14 bytes in 1 files on rank 0") != std::string::npos,
                ranks[1].output);
  // What only rank 0 uses may differ: --top, --out.
  const auto fine = test::run_ranks(std::vector<std::vector<std::string>>{
      {wordcount_binary(), "--input", (dir / "a.txt").string(), "--top", "1", "--out", (dir / "top.txt").string()},
      {wordcount_binary(), "--input", (dir / "a.txt").string()}});
  for (const auto& r : fine) CHECK_MESSAGE(r.exit_code == 0, r.output);
  CHECK(read_text(dir / "top.txt") == "1 one\n");
}

TEST_CASE("gyre-wordcount: a directory, --stop-words and --top; bad input exits 2 naming it") {
  TempDir dir;
  std::filesystem::create_directory(dir / "in");
  test::write_text(dir / "in/a.txt", "The cat and the dog.\nA CAT!\n");
  test::write_text(dir / "in/b.txt", "the end\r\nof the dog");
  test::write_text(dir / "stop.txt", "and\nof a\n");
  const auto r = run_command({wordcount_binary(), "--input", (dir / "in").string(), "--stop-words",
                              (dir / "stop.txt").string(), "--top", "3", "--workers", "3"});
  REQUIRE_MESSAGE(r.exit_code == 0, r.output);
  CHECK(r.output == "4 the\n2 cat\n2 dog\n");
  const auto all = run_command({wordcount_binary(), "--input", (dir / "in").string(), "--out", (dir / "all.txt").string()});
  REQUIRE_MESSAGE(all.exit_code == 0, all.output);
  CHECK(read_text(dir / "all.txt") == "4 the\n2 cat\n2 dog\n1 a\n1 and\n1 end\n1 of\n");

  const auto missing = run_command({wordcount_binary(), "--input", (dir / "nope.txt").string()});
  CHECK(missing.exit_code == 2);
  CHECK(missing.output.find("nope.txt") != std::string::npos);
  const auto device = run_command({wordcount_binary(), "--input", "/dev/null"});
  CHECK(device.exit_code == 2);
  CHECK(device.output.find("/dev/null") != std::string::npos);
  const auto no_stop = run_command({wordcount_binary(), "--input", (dir / "in").string(), "--stop-words",
                                    (dir / "none.txt").string()});
  CHECK(no_stop.exit_code == 2);
  CHECK(no_stop.output.find("none.txt") != std::string::npos);
  const auto usage = run_command({wordcount_binary()});
  CHECK(usage.exit_code == 2);
}

TEST_CASE("gyre-wordcount: a shuffle over --max-shuffle-mb stops the job with an error naming the limit") {
  TempDir dir;
  std::string text;  // 300k distinct 10-letter words: each of 3 ranks sends about 2 MB
  std::uint64_t x = 1;
  for (int i = 0; i < 300000; ++i) {
    for (int c = 0; c < 10; ++c) {
      x = x * 6364136223846793005ull + 1442695040888963407ull;
      text.push_back(static_cast<char>('a' + (x >> 33) % 26));
    }
    text.push_back('\n');
  }
  test::write_text(dir / "words.txt", text);
  const auto r = run_command({wordcount_binary(), "--input", (dir / "words.txt").string(), "--workers", "3",
                              "--max-shuffle-mb", "1", "--top", "1"});
  CHECK(r.exit_code == 1);
  CHECK_MESSAGE(r.output.find("over the shuffle limit of 1048576 bytes") != std::string::npos, r.output);
  const auto enough = run_command({wordcount_binary(), "--input", (dir / "words.txt").string(), "--workers", "3",
                                   "--max-shuffle-mb", "16", "--top", "1"});
  CHECK_MESSAGE(enough.exit_code == 0, enough.output);
}
