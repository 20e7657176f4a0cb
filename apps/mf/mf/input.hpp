// apps/mf/mf/input.hpp — training input as per-worker shards, from a ratings file or a partition directory.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "gyre/data/ratings.hpp"

namespace gyre::mf {

struct TrainingInput {
  std::vector<data::RatingsSet> shards;  // one per worker
  std::string note;                      // what was done to fit the worker count, if anything
};

// A file is read and split by user into `workers` shards. A directory must hold a
// gyre-partition manifest; its shards are used as they are when their number equals
// `workers` (workers = 0 means "as many as there are shards"), and merged and re-split
// otherwise. Throws gyre::InputError on bad input.
TrainingInput load_training(const std::filesystem::path& path, std::uint32_t workers);

}  // namespace gyre::mf
