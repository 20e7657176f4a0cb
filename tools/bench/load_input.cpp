// tools/bench/load_input.cpp — times a gyre reader (ratings, LibSVM or a UCI corpus) on one file: reading it as the reader does and counting its lines, then reading and parsing on T threads, for tools/bench/load.
//
// The reader reads the file itself, so the parse alone is the difference of the two timings; both
// are taken in this process, after a first untimed read has put the file in the page cache.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>

#include "gyre/base/input_error.hpp"
#include "gyre/data/corpus_io.hpp"
#include "gyre/data/ratings.hpp"
#include "gyre/data/regression.hpp"
#include "gyre/data/text_input.hpp"

namespace {

template <class F>
double seconds(F&& f) {
  const auto start = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"gyre-bench-load: seconds to read an input file and count its lines, and to read and parse it on T threads"};
  std::string input, format = "ratings";
  std::size_t threads = 1;
  int repeats = 3;
  app.add_option("--input", input, "the file: ratings (triples or MatrixMarket), LibSVM, or a UCI docword.txt")->required();
  app.add_option("--format", format, "ratings, libsvm or uci (vocab.txt beside it)")
      ->check(CLI::IsMember({"ratings", "libsvm", "uci"}))
      ->capture_default_str();
  app.add_option("--threads,-t", threads, "line-aligned chunks parsed at once")->check(CLI::Range(1, 1024));
  app.add_option("--repeats", repeats, "timed runs of each; the fastest is printed")->check(CLI::Range(1, 100));
  CLI11_PARSE(app, argc, argv);
  try {
    std::size_t bytes = gyre::data::FileText(input).text().size(), lines = 0, records = 0;
    const auto parse = [&] {
      if (format == "uci") {
        gyre::data::CorpusOptions options;
        options.format = gyre::data::CorpusFormat::uci;
        options.threads = threads;
        records = gyre::data::load_corpus(input, options).tokens();
        return;
      }
      records = format == "libsvm" ? gyre::data::read_libsvm(input, gyre::data::LabelKind::any, threads).samples()
                                   : gyre::data::read_ratings(input, threads).ratings.size();
    };
    // What `wc -l` does, through the reader's own way of reading (gyre::data::FileText).
    const auto read_and_count = [&] {
      const gyre::data::FileText file(input);
      bytes = file.text().size();
      lines = static_cast<std::size_t>(std::count(file.text().begin(), file.text().end(), '\n'));
    };
    double read = 1e300, load = 1e300;
    for (int r = 0; r < repeats; ++r) {
      read = std::min(read, seconds(read_and_count));
      load = std::min(load, seconds(parse));
    }
    // One line of "key value" pairs for the script to pick from.
    std::printf("bytes %zu lines %zu records %zu threads %zu read_s %.4f load_s %.4f parse_s %.4f\n", bytes, lines,
                records, threads, read, load, load - read);
  } catch (const gyre::InputError& e) {
    std::fprintf(stderr, "gyre-bench-load: %s\n", e.what());
    return gyre::kExitBadInput;
  }
}
