// tools/gyre_gen.cpp — gyre-gen: writes synthetic data sets with a known answer (planted ratings).
#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <functional>
#include <string>
#include <system_error>

#include "gyre/data/planted_ratings.hpp"
#include "gyre/data/ratings.hpp"
#include "subcommand_main.hpp"

namespace {

namespace fs = std::filesystem;

// The outputs of one run belong together: if a later file cannot be written, the earlier ones
// of this run are removed again, so a failed run leaves no partial data set behind.
class OutputSet {
 public:
  void written(fs::path file) { files_.push_back(std::move(file)); }
  void commit() { files_.clear(); }
  ~OutputSet() {
    std::error_code ignored;
    for (const fs::path& f : files_) fs::remove(f, ignored);
  }

 private:
  std::vector<fs::path> files_;
};

// One subcommand: its flags live here, run() does the work after parsing.
class RatingsCommand {
 public:
  explicit RatingsCommand(CLI::App& app) {
    sub_ = app.add_subcommand("ratings", "Low-rank ratings p_u.q_i + noise with Zipf item popularity");
    sub_->add_option("--users", o_.users, "Number of users")->required()->check(CLI::PositiveNumber);
    sub_->add_option("--items", o_.items, "Number of items")->required()->check(CLI::PositiveNumber);
    sub_->add_option("--ratings", o_.ratings, "Distinct (user, item) pairs, train + test")
        ->required()
        ->check(CLI::PositiveNumber);
    sub_->add_option("--rank", o_.rank, "Rank of the planted factors")->required()->check(CLI::PositiveNumber);
    sub_->add_option("--noise", o_.noise, "Standard deviation of the Gaussian noise")
        ->required()
        ->check(CLI::NonNegativeNumber);
    sub_->add_option("--seed", o_.seed, "Random seed (same seed, same files)")->required();
    sub_->add_option("--train", train_, "Output triples file for the training set")->required();
    sub_->add_option("--test", test_, "Output triples file for the test set")->required();
    sub_->add_option("--test-fraction", o_.test_fraction, "Share of ratings held out")
        ->capture_default_str()
        ->check(CLI::Range(0.0, 1.0));
    sub_->add_option("--skew", o_.popularity_skew, "Zipf exponent of item popularity (0 = uniform)")
        ->capture_default_str()
        ->check(CLI::NonNegativeNumber);
    sub_->final_callback([this] {
      if (o_.ratings > std::uint64_t{o_.users} * o_.items)
        throw CLI::ValidationError("--ratings", "exceeds --users x --items, the number of distinct pairs");
      if (fs::absolute(train_).lexically_normal() == fs::absolute(test_).lexically_normal())
        throw CLI::ValidationError("--test", "must differ from --train");
    });
  }

  bool selected() const { return sub_->parsed(); }

  void run() const {
    const gyre::data::PlantedRatings data = gyre::data::generate_planted_ratings(o_);
    OutputSet outputs;
    gyre::data::write_ratings(train_, data.train);
    outputs.written(train_);
    gyre::data::write_ratings(test_, data.test);
    outputs.commit();
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

}  // namespace

int main(int argc, char** argv) {
  return gyre::tools::subcommand_main<RatingsCommand>("gyre-gen", "gyre-gen: synthetic data sets whose generating model is known", argc, argv);
}
