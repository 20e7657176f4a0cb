// tools/bench/load_input.cpp — times a gyre reader (ratings, LibSVM or a UCI corpus) on one file: reading it as the readers do and counting its lines, then reading and parsing on T threads; and the CRC-32C that digests an input across processes, for tools/bench/load.
//
// The reader reads the file itself, so the parse alone is the difference of the two timings; both
// are taken in this process, after a first untimed read has put the file in the page cache.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <stdexcept>
#include <string>

#include "gyre/base/crc32c.hpp"
#include "gyre/base/input_error.hpp"
#include "gyre/data/byte_ranges.hpp"
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
    std::size_t bytes = 0, lines = 0, records = 0;
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
    // What `wc -l` does, through the readers' own way of reading (blocks of whole lines, one
    // buffer, data::read_split_blocks), with the block size of one thread.
    const auto read_and_count = [&] {
      lines = 0;
      bytes = gyre::data::read_split_blocks(input, {0, gyre::data::kToTheEnd}, gyre::data::kRangeBlockBytes,
                                            [&](std::string_view block) {
                                              lines += static_cast<std::size_t>(std::count(block.begin(), block.end(), '\n'));
                                            }).bytes;
    };
    // The input digest every rank of a multi-process job takes (a CRC-32C over the file), on the
    // text in memory: crc32c() as the job runs it, and the table-driven one it falls back to.
    const std::string text = gyre::data::slurp(input);
    std::uint32_t crcs[2] = {0, 0};
    const auto digest = [&] { crcs[0] = gyre::crc32c(text.data(), text.size()); };
    const auto digest_tables = [&] { crcs[1] = gyre::crc32c_portable(text.data(), text.size()); };
    double read = 1e300, load = 1e300, crc = 1e300, crc_tables = 1e300;
    for (int r = 0; r < repeats; ++r) {
      read = std::min(read, seconds(read_and_count));
      load = std::min(load, seconds(parse));
      crc = std::min(crc, seconds(digest));
      crc_tables = std::min(crc_tables, seconds(digest_tables));
    }
    if (crcs[0] != crcs[1]) throw std::logic_error("the two CRC-32C disagree");
    // One line of "key value" pairs for the script to pick from.
    std::printf("bytes %zu lines %zu records %zu threads %zu read_s %.4f load_s %.4f parse_s %.4f crc_s %.4f "
                "crc_tables_s %.4f crc_hardware %d\n",
                bytes, lines, records, threads, read, load, load - read, crc, crc_tables,
                gyre::crc32c_uses_hardware() ? 1 : 0);
  } catch (const gyre::InputError& e) {
    std::fprintf(stderr, "gyre-bench-load: %s\n", e.what());
    return gyre::kExitBadInput;
  }
}
