// tools/gyre_gen.cpp — gyre-gen: writes synthetic data sets with a known answer (planted ratings, LDA corpus, sparse regression).
#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <functional>
#include <string>
#include <system_error>

#include "app/command_line.hpp"
#include "gyre/base/output_check.hpp"
#include "gyre/base/output_directory.hpp"
#include "gyre/base/output_file.hpp"
#include "gyre/data/planted_corpus.hpp"
#include "gyre/data/planted_ratings.hpp"
#include "gyre/data/planted_regression.hpp"
#include "gyre/data/ratings.hpp"
#include "subcommand_main.hpp"

namespace {

namespace fs = std::filesystem;

const gyre::DirectoryKind& corpus_directory() {
  static const gyre::DirectoryKind kind = gyre::DirectoryKind::of_files(
      "a gyre-gen corpus", {"docword.txt", "vocab.txt", "topics.tsv", "doc_topics.tsv"});
  return kind;
}

const gyre::DirectoryKind& regression_directory() {
  static const gyre::DirectoryKind kind =
      gyre::DirectoryKind::of_files("a gyre-gen regression", {"data.libsvm", "beta.tsv"});
  return kind;
}

// Checked before generating: a run that cannot write its outputs fails at once.
void check_output(const fs::path& out, const gyre::DirectoryKind& kind) {
  const gyre::OutputSpec outputs[] = {{"--out", out, &kind}};
  gyre::check_outputs(outputs, {});
}

// One subcommand: its flags live here, run() does the work after parsing.
class RatingsCommand {
 public:
  explicit RatingsCommand(CLI::App& app) {
    sub_ = app.add_subcommand("ratings", "Low-rank ratings p_u.q_i + noise with Zipf item popularity");
    sub_->add_option("--users", o_.users, "Number of users")->required()->check(gyre::app::positive_number());
    sub_->add_option("--items", o_.items, "Number of items")->required()->check(gyre::app::positive_number());
    sub_->add_option("--ratings", o_.ratings, "Distinct (user, item) pairs, train + test")
        ->required()
        ->check(gyre::app::positive_number());
    sub_->add_option("--rank", o_.rank, "Rank of the planted factors")->required()->check(gyre::app::positive_number());
    sub_->add_option("--noise", o_.noise, "Standard deviation of the Gaussian noise")
        ->required()
        ->check(gyre::app::non_negative_number());
    sub_->add_option("--seed", o_.seed, "Random seed (same seed, same files)")->required();
    sub_->add_option("--train", train_, "Output triples file for the training set")->required();
    sub_->add_option("--test", test_, "Output triples file for the test set")->required();
    sub_->add_option("--test-fraction", o_.test_fraction, "Share of ratings held out")
        ->capture_default_str()
        ->check(CLI::Range(0.0, 1.0));
    sub_->add_option("--skew", o_.popularity_skew, "Zipf exponent of item popularity (0 = uniform)")
        ->capture_default_str()
        ->check(gyre::app::non_negative_number());
    sub_->final_callback([this] {
      if (o_.ratings > std::uint64_t{o_.users} * o_.items)
        throw CLI::ValidationError("--ratings", "exceeds --users x --items, the number of distinct pairs");
      if (fs::absolute(train_).lexically_normal() == fs::absolute(test_).lexically_normal())
        throw CLI::ValidationError("--test", "must differ from --train");
    });
  }

  bool selected() const { return sub_->parsed(); }

  void run() const {
    const gyre::OutputSpec outputs[] = {{"--train", train_}, {"--test", test_}};
    gyre::check_outputs(outputs, {});
    const gyre::data::PlantedRatings data = gyre::data::generate_planted_ratings(o_);
    // Both files are written before either is published, so a failure leaves the old pair.
    gyre::OutputFile train(train_), test(test_);
    gyre::data::write_ratings(train.stream(), data.train);
    gyre::data::write_ratings(test.stream(), data.test);
    train.commit();
    test.commit();
    std::printf("gyre-gen: wrote %zu train ratings to %s and %zu test ratings to %s "
                "(%u users, %u items, rank %u, noise %g, skew %g, seed %llu)\n",
                data.train.ratings.size(), train_.c_str(), data.test.ratings.size(), test_.c_str(), o_.users,
                o_.items, o_.rank, o_.noise, o_.popularity_skew, static_cast<unsigned long long>(o_.seed));
  }

 private:
  CLI::App* sub_ = nullptr;
  gyre::data::PlantedRatingsOptions o_;
  fs::path train_, test_;
};

class CorpusCommand {
 public:
  explicit CorpusCommand(CLI::App& app) {
    sub_ = app.add_subcommand("corpus", "Documents drawn by LDA's generative process, with the true topics");
    sub_->add_option("--docs", o_.docs, "Number of documents")->required()->check(gyre::app::positive_number());
    sub_->add_option("--vocab", o_.vocab, "Vocabulary size")
        ->required()
        ->check(CLI::Range(std::uint32_t{1}, static_cast<std::uint32_t>(gyre::data::kMaxId + 1)));
    sub_->add_option("--topics", o_.topics, "Number of topics")->required()->check(gyre::app::positive_number());
    sub_->add_option("--doc-length", o_.doc_length, "Mean tokens per document (Poisson, at least 1)")
        ->capture_default_str()
        ->check(gyre::app::positive_number());
    sub_->add_option("--alpha", o_.alpha, "Dirichlet prior of each document's topic mix")
        ->capture_default_str()
        ->check(gyre::app::positive_number());
    sub_->add_option("--beta", o_.beta, "Dirichlet prior of each topic's word law")
        ->capture_default_str()
        ->check(gyre::app::positive_number());
    sub_->add_option("--seed", o_.seed, "Random seed (same seed, same files)")->required();
    sub_->add_option("--out", out_, "Output directory: docword.txt, vocab.txt, topics.tsv, doc_topics.tsv")
        ->required();
    sub_->add_flag("--no-truth", no_truth_,
                   "Write only docword.txt and vocab.txt, not the planted topics and mixtures (K x (V + docs) "
                   "numbers: 700M at V = 500k, 200k docs, K = 1000)");
  }

  bool selected() const { return sub_->parsed(); }

  void run() const {
    check_output(out_, corpus_directory());
    gyre::data::PlantedCorpusOptions o = o_;
    o.keep_truth = !no_truth_;
    const gyre::data::PlantedCorpus data = gyre::data::generate_planted_corpus(o);
    gyre::OutputDirectory out(out_, corpus_directory());
    gyre::data::write_planted_corpus(out.staging(), data);
    out.commit();
    std::printf("gyre-gen: wrote %llu docs, %llu tokens (vocab %u, %u topics, doc length %g, alpha %g, beta %g, "
                "seed %llu) to %s\n",
                static_cast<unsigned long long>(data.corpus.docs()),
                static_cast<unsigned long long>(data.corpus.tokens()), o_.vocab, o_.topics, o_.doc_length, o_.alpha,
                o_.beta, static_cast<unsigned long long>(o_.seed), out_.c_str());
  }

 private:
  CLI::App* sub_ = nullptr;
  gyre::data::PlantedCorpusOptions o_;
  fs::path out_;
  bool no_truth_ = false;
};

class RegressionCommand {
 public:
  explicit RegressionCommand(CLI::App& app) {
    sub_ = app.add_subcommand("regression", "Sparse y = X.beta + noise with group-correlated features and a sparse beta");
    sub_->add_option("--samples", o_.samples, "Number of samples (rows)")
        ->required()
        ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{UINT32_MAX}));
    sub_->add_option("--features", o_.features, "Number of features (columns)")
        ->required()
        ->check(CLI::Range(std::uint32_t{1}, static_cast<std::uint32_t>(gyre::data::kMaxId + 1)));
    sub_->add_option("--nnz-per-row", o_.nnz_per_row, "Non-zeros per row (>= --features: dense)")
        ->required()
        ->check(gyre::app::positive_number());
    sub_->add_option("--support", o_.support, "Non-zeros of the true beta")->required();
    sub_->add_option("--correlation", o_.correlation, "C: x = C.group factor + sqrt(1-C^2).own noise")
        ->required()
        ->check(CLI::Range(0.0, 1.0));
    sub_->add_option("--group-size", o_.group_size, "Consecutive features sharing a group factor")
        ->capture_default_str()
        ->check(gyre::app::positive_number());
    sub_->add_option("--noise", o_.noise, "Standard deviation of the Gaussian noise on y")
        ->required()
        ->check(gyre::app::non_negative_number());
    sub_->add_option("--seed", o_.seed, "Random seed (same seed, same files)")->required();
    sub_->add_option("--out", out_, "Output directory: data.libsvm, beta.tsv")->required();
    sub_->final_callback([this] {
      if (o_.support > o_.features) throw CLI::ValidationError("--support", "exceeds --features");
    });
  }

  bool selected() const { return sub_->parsed(); }

  void run() const {
    check_output(out_, regression_directory());
    const gyre::data::PlantedRegression data = gyre::data::generate_planted_regression(o_);
    gyre::OutputDirectory out(out_, regression_directory());
    gyre::data::write_planted_regression(out.staging(), data);
    out.commit();
    std::printf("gyre-gen: wrote %llu samples, %u features, %llu non-zeros (support %u, correlation %g, "
                "group size %u, noise %g, seed %llu) to %s\n",
                static_cast<unsigned long long>(data.set.samples()), o_.features,
                static_cast<unsigned long long>(data.set.nnz()), o_.support, o_.correlation, o_.group_size, o_.noise,
                static_cast<unsigned long long>(o_.seed), out_.c_str());
  }

 private:
  CLI::App* sub_ = nullptr;
  gyre::data::PlantedRegressionOptions o_;
  fs::path out_;
};

}  // namespace

int main(int argc, char** argv) {
  return gyre::tools::subcommand_main<RatingsCommand, CorpusCommand, RegressionCommand>("gyre-gen", "gyre-gen: synthetic data sets whose generating model is known", argc, argv);
}
