// tools/gyre_partition.cpp — gyre-partition: cuts a data set (ratings, corpus or regression rows) into balanced shard files + manifest.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "app/command_line.hpp"
#include "gyre/base/output_check.hpp"
#include "gyre/base/output_directory.hpp"
#include "gyre/data/corpus_io.hpp"
#include "gyre/data/corpus_partition.hpp"
#include "gyre/data/id_space.hpp"
#include "gyre/data/manifest.hpp"
#include "gyre/data/partition.hpp"
#include "gyre/data/ratings.hpp"
#include "gyre/data/ratings_partition.hpp"
#include "gyre/data/regression.hpp"
#include "gyre/data/regression_partition.hpp"
#include "gyre/model/row_blocks.hpp"
#include "subcommand_main.hpp"

namespace {

namespace fs = std::filesystem;

// Checked before reading: a run that cannot write its partition fails at once, and the output
// may be neither an input nor hold one (replacing the directory would delete it).
void check_output(const fs::path& out, std::vector<fs::path> inputs) {
  const gyre::OutputSpec outputs[] = {{"--out", out, &gyre::data::partition_directory()}};
  gyre::check_outputs(outputs, inputs);
}

// --threads: the input is parsed on this many threads (nothing else runs meanwhile: all cores).
void add_threads_flag(CLI::App& sub, std::size_t& threads) {
  threads = std::max(1u, std::thread::hardware_concurrency());
  sub.add_option("--threads,-t", threads, "Threads parsing the input (default: all cores)")->check(CLI::Range(1, 1024));
}

// "LABEL per part: n n n\nbalance (max/mean): x\n"
void print_parts(const char* label, const std::vector<std::uint64_t>& sizes, double balance) {
  std::string counts;
  for (const std::uint64_t n : sizes) counts += " " + std::to_string(n);
  std::printf("%s per part:%s\nbalance (max/mean): %.4f\n", label, counts.c_str(), balance);
}

class RatingsCommand {
 public:
  explicit RatingsCommand(CLI::App& app) {
    sub_ = app.add_subcommand("ratings", "Shard a ratings file by user (MatrixMarket or triples)");
    sub_->add_option("--input", input_, "Ratings file: MatrixMarket coordinate or 'user item rating' lines")
        ->required();
    sub_->add_option("--parts", parts_, "Number of shards")->required()->check(CLI::Range(1u, 1u << 16));
    sub_->add_option("--out", out_, "Output directory: part-NNNNN.shard, users.txt, items.txt, manifest.json")->required();
    add_threads_flag(*sub_, threads_);
  }

  bool selected() const { return sub_->parsed(); }

  void run() const {
    check_output(out_, {input_});
    // Reading comes first: bad input must fail before anything is created.
    gyre::data::RatingsSet set = gyre::data::read_ratings(input_, threads_);
    const std::uint32_t users = set.users, items = set.items;
    // Balanced over the users that occur, so that sparse ids cost memory by data, not by id.
    gyre::data::RatingsSet* sets[] = {&set};
    const auto ids = gyre::data::compact_ids(sets);
    // The shards keep the dense ids, and users.txt/items.txt their originals, so that a job's
    // process can read its shard alone and still plan the whole job.
    auto shards = gyre::data::split_by_user(set, gyre::data::partition_users(set, parts_));
    gyre::OutputDirectory out(out_, gyre::data::partition_directory());
    gyre::data::write_ratings_partition(out.staging(), shards, ids);
    out.commit();

    std::printf("gyre-partition: %zu ratings (%u users, %u items) into %u parts in %s\n", set.ratings.size(), users,
                items, parts_, out_.c_str());
    std::vector<std::uint64_t> sizes;
    for (const auto& s : shards) sizes.push_back(s.ratings.size());
    print_parts("records", sizes, gyre::data::balance(shards));
  }

 private:
  CLI::App* sub_ = nullptr;
  fs::path input_, out_;
  std::uint32_t parts_ = 1;
  std::size_t threads_ = 1;
};

class CorpusCommand {
 public:
  explicit CorpusCommand(CLI::App& app) {
    sub_ = app.add_subcommand("corpus", "Shard a corpus by document, balanced by tokens, and block its words");
    sub_->add_option("--input", input_,
                     "Corpus: a UCI directory or docword[.NAME].txt, a 'docid word:count ...' file, a text file "
                     "(one document per line) or a corpus partition directory")
        ->required();
    sub_->add_option("--parts", parts_, "Number of shards")->required()->check(CLI::Range(1u, 1u << 16));
    sub_->add_option("--out", out_,
                     "Output directory: part-NNNNN.shard, vocab.txt, word_counts.txt, blocks.txt, manifest.json")
        ->required();
    const std::map<std::string, gyre::data::CorpusFormat> formats{{"auto", gyre::data::CorpusFormat::automatic},
                                                                  {"uci", gyre::data::CorpusFormat::uci},
                                                                  {"text", gyre::data::CorpusFormat::text},
                                                                  {"docword", gyre::data::CorpusFormat::docword}};
    sub_->add_option("--format", options_.format, "Input format: auto, uci, text or docword")
        ->transform(CLI::CheckedTransformer(formats))
        ->default_str("auto");
    sub_->add_option("--vocab", options_.vocab, "Vocabulary file (uci, docword; default: found beside the input)");
    sub_->add_option("--stop-words", stop_words_,
                     "Text input: 'default' (a short English list), 'none', or a file with one word per line")
        ->capture_default_str();
    sub_->add_option("--min-count", options_.tokenizer.min_count,
                     "Text input: drop words with fewer occurrences in the whole corpus")
        ->capture_default_str()
        ->check(gyre::app::positive_number());
    sub_->add_option("--min-length", options_.tokenizer.min_length, "Text input: drop words with fewer letters")
        ->capture_default_str()
        ->check(gyre::app::positive_number());
    sub_->add_option("--blocks", blocks_, "Word blocks for rotation, written to blocks.txt (default: --parts)")
        ->check(CLI::Range(1u, 1u << 20));
    add_threads_flag(*sub_, options_.threads);
  }

  bool selected() const { return sub_->parsed(); }

  void run() const {
    check_output(out_, {input_, options_.vocab, stop_words_ == "default" || stop_words_ == "none" ? fs::path() : fs::path(stop_words_)});
    // Everything is read and computed before the output directory is touched.
    gyre::data::CorpusOptions options = options_;
    if (stop_words_ == "default") {
      const auto words = gyre::data::default_stop_words();
      options.tokenizer.stop_words.insert(words.begin(), words.end());
    } else if (stop_words_ != "none") {
      const auto words = gyre::data::read_stop_words(stop_words_);
      options.tokenizer.stop_words.insert(words.begin(), words.end());
    }
    const gyre::data::Corpus corpus = gyre::data::load_corpus(input_, options);
    const std::vector<gyre::data::Corpus> shards = gyre::data::shard_corpus(corpus, parts_);
    const std::uint32_t blocks = blocks_ == 0 ? parts_ : blocks_;
    const std::vector<std::uint64_t> counts = gyre::data::count_words(shards);
    const auto blocking = gyre::model::RowBlocks::balance(counts, blocks);

    gyre::OutputDirectory out(out_, gyre::data::partition_directory());
    gyre::data::write_word_blocks(out.staging() / "blocks.txt", blocking);
    gyre::data::write_corpus_partition(out.staging(), shards);
    out.commit();

    std::printf("gyre-partition: %llu docs, %llu tokens (vocab %u) into %u parts and %u word blocks in %s\n",
                static_cast<unsigned long long>(corpus.docs()), static_cast<unsigned long long>(corpus.tokens()),
                corpus.vocab_size(), parts_, blocks, out_.c_str());
    std::vector<std::uint64_t> sizes;
    for (const auto& s : shards) sizes.push_back(s.tokens());
    print_parts("tokens", sizes, gyre::data::token_balance(shards));
  }

 private:
  CLI::App* sub_ = nullptr;
  fs::path input_, out_;
  std::uint32_t parts_ = 1;
  std::uint32_t blocks_ = 0;
  std::string stop_words_ = "default";
  gyre::data::CorpusOptions options_;
};

class RowsCommand {
 public:
  explicit RowsCommand(CLI::App& app) {
    sub_ = app.add_subcommand("rows", "Shard regression data by sample (row), balanced by non-zeros");
    sub_->add_option("--input", input_,
                     "Regression data: LibSVM, MatrixMarket (.mtx, with a response), CSV (.csv) or a rows "
                     "partition directory")
        ->required();
    sub_->add_option("--parts", parts_, "Number of shards")->required()->check(CLI::Range(1u, 1u << 16));
    sub_->add_option("--out", out_, "Output directory: part-NNNNN.shard, feature_names.txt (CSV), manifest.json")
        ->required();
    const std::map<std::string, gyre::data::RegressionFormat> formats{
        {"auto", gyre::data::RegressionFormat::automatic},
        {"libsvm", gyre::data::RegressionFormat::libsvm},
        {"mtx", gyre::data::RegressionFormat::matrix_market},
        {"csv", gyre::data::RegressionFormat::csv}};
    sub_->add_option("--format", options_.format, "Input format: auto, libsvm, mtx or csv")
        ->transform(CLI::CheckedTransformer(formats))
        ->default_str("auto");
    sub_->add_option("--response", options_.response,
                     "MatrixMarket: the response file, one value per line (default: STEM.response beside it)");
    sub_->add_option("--response-column", options_.response_column,
                     "CSV: the response column's name or 1-based number (default: the last); MatrixMarket: a "
                     "1-based column of the matrix taken as y and dropped from X");
    add_threads_flag(*sub_, options_.threads);
  }

  bool selected() const { return sub_->parsed(); }

  void run() const {
    check_output(out_, {input_, options_.response});
    // Reading comes first: bad input must fail before anything is created.
    const gyre::data::RegressionSet set = gyre::data::load_regression(input_, options_);
    const std::vector<gyre::data::RegressionSet> shards = gyre::data::shard_rows(set, parts_);
    gyre::OutputDirectory out(out_, gyre::data::partition_directory());
    gyre::data::write_row_partition(out.staging(), shards);
    out.commit();

    std::printf("gyre-partition: %llu samples, %u features, %llu non-zeros into %u parts in %s\n",
                static_cast<unsigned long long>(set.samples()), set.features,
                static_cast<unsigned long long>(set.nnz()), parts_, out_.c_str());
    std::vector<std::uint64_t> sizes;
    for (const auto& s : shards) sizes.push_back(s.nnz());
    print_parts("non-zeros", sizes, gyre::data::nnz_balance(shards));
  }

 private:
  CLI::App* sub_ = nullptr;
  fs::path input_, out_;
  std::uint32_t parts_ = 1;
  gyre::data::RegressionOptions options_;
};

}  // namespace

int main(int argc, char** argv) {
  return gyre::tools::subcommand_main<RatingsCommand, CorpusCommand, RowsCommand>(
      "gyre-partition", "gyre-partition: shard a data file for gyre workers", argc, argv);
}
