// tools/gyre_partition.cpp — gyre-partition: cuts a data file into balanced shard files + manifest.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

#include "gyre/data/manifest.hpp"
#include "gyre/data/partition.hpp"
#include "gyre/data/ratings.hpp"
#include "subcommand_main.hpp"

namespace {

namespace fs = std::filesystem;

// Removes what a failed write left in the output directory: the whole directory if this run
// created it, otherwise the shard files of this run (the manifest is written last, so a failed
// run never leaves one that points at them).
class OutputDir {
 public:
  OutputDir(fs::path dir, std::size_t parts) : dir_(std::move(dir)), parts_(parts) {
    std::error_code ec;
    created_ = !fs::exists(dir_, ec);
  }
  void commit() { committed_ = true; }
  ~OutputDir() {
    if (committed_) return;
    std::error_code ignored;
    if (created_) {
      fs::remove_all(dir_, ignored);
      return;
    }
    for (std::size_t i = 0; i < parts_; ++i) {
      char name[32];
      std::snprintf(name, sizeof name, "part-%05zu.shard", i);
      fs::remove(dir_ / name, ignored);
    }
  }

 private:
  fs::path dir_;
  std::size_t parts_;
  bool created_ = false;
  bool committed_ = false;
};

class RatingsCommand {
 public:
  explicit RatingsCommand(CLI::App& app) {
    sub_ = app.add_subcommand("ratings", "Shard a ratings file by user (MatrixMarket or triples)");
    sub_->add_option("--input", input_, "Ratings file: MatrixMarket coordinate or 'user item rating' lines")
        ->required();
    sub_->add_option("--parts", parts_, "Number of shards")->required()->check(CLI::Range(1u, 1u << 16));
    sub_->add_option("--out", out_, "Output directory for part-NNNNN.shard files and manifest.json")->required();
  }

  bool selected() const { return sub_->parsed(); }

  void run() const {
    // Reading comes first: bad input must fail before anything is created.
    const gyre::data::RatingsSet set = gyre::data::read_ratings(input_);
    const auto partition = gyre::data::partition_users(set, parts_);
    const auto shards = gyre::data::split_by_user(set, partition);
    OutputDir guard(out_, shards.size());
    gyre::data::write_ratings_partition(out_, shards);
    guard.commit();

    std::printf("gyre-partition: %zu ratings (%u users, %u items) into %u parts in %s\n", set.ratings.size(),
                set.users, set.items, parts_, out_.c_str());
    std::string counts;
    for (const auto& s : shards) counts += " " + std::to_string(s.ratings.size());
    std::printf("records per part:%s\nbalance (max/mean): %.4f\n", counts.c_str(), gyre::data::balance(shards));
  }

 private:
  CLI::App* sub_ = nullptr;
  fs::path input_, out_;
  std::uint32_t parts_ = 1;
};

}  // namespace

int main(int argc, char** argv) {
  return gyre::tools::subcommand_main<RatingsCommand>("gyre-partition", "gyre-partition: shard a data file for gyre workers", argc, argv);
}
