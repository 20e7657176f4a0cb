// apps/mf/mf/input.hpp — training and test ratings as per-worker shards over one dense id space, from files or a partition directory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "gyre/data/id_space.hpp"
#include "gyre/data/ratings.hpp"
#include "gyre/data/ratings_stats.hpp"

namespace gyre::mf {

struct TrainingInput {
  std::vector<data::RatingsSet> shards;  // one per worker (only this process's, if it read only that)
  data::RatingsStats stats;              // of the whole training set, as the plan needs them
  data::RatingsSet test;                 // empty without a test file
  data::IdTables ids;                    // dense id → the id in the input
  std::string note;                      // what was done to fit the worker count, if anything
};

// `train` is a ratings file, split by user into `workers` shards, or a directory holding a
// gyre-partition manifest, whose shards are used as they are when their number equals
// `workers` (workers = 0 means "as many as there are shards") and merged and re-split
// otherwise. `test` (may be empty) is a ratings file. Ids of both are renumbered together to
// 0..n-1 over the ids that occur (data::compact_ids), so that memory follows the data; the
// original ids come back in `ids`. Throws gyre::InputError on bad input, including a user
// present in two shards of a partition (naming both), and std::invalid_argument when there are
// more workers than users with ratings. A training or test file is parsed on `threads` threads
// (data::read_ratings), with the same result for any count.
//
// Given `rank` (a process of a job of `workers` processes), a partition of `workers` shards
// written with dense ids is read one shard alone: shard `rank`, users.txt, items.txt and the
// manifest, which hold what the plan needs of the rest. The other shards come back empty; ids,
// statistics and this shard are those every other way of reading gives.
TrainingInput load_input(const std::filesystem::path& train, const std::filesystem::path& test, std::uint32_t workers,
                         std::size_t threads = 1, std::optional<std::uint32_t> rank = std::nullopt);

// std::invalid_argument when there are more workers than users with ratings (one per user at most).
void check_worker_count(const std::filesystem::path& train, std::uint32_t workers, std::uint32_t rated);

}  // namespace gyre::mf
