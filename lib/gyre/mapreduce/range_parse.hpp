// gyre/mapreduce/range_parse.hpp — ranks that parsed their byte ranges of one file agree where each range starts and which of them holds the file's first error.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "gyre/base/export.hpp"
#include "gyre/mapreduce/context.hpp"
#include "gyre/runtime/job.hpp"

namespace gyre::mapreduce {

// What a rank's range held, counted before it knew where the range starts: its bytes and lines,
// its records, its tokens (or any second total a format bounds), and whether its parse failed.
struct RangeTally {
  std::uint64_t bytes = 0;
  std::uint64_t lines = 0;
  std::uint64_t records = 0;
  std::uint64_t tokens = 0;
  bool failed = false;
};

struct RangeStarts {
  RangeTally before;               // the ranges of lower ranks, which come first in the file
  RangeTally total;                // every rank's
  std::vector<RangeTally> ranges;  // each rank's, in rank order
};

// Collective. A range parsed without its position numbers its lines from 1 and cannot check a
// running total against a limit, so the file's first error belongs to the first rank (in file
// order) whose parse failed or within whose range `crosses(before, through)` says a limit is
// passed (the file's totals going from `before` to `through`). That rank calls rethrow(before),
// which parses its range again with the true numbers and throws what the one-process reader
// throws; every other rank then throws the job's failure, naming it. Without an error, returns
// this rank's start and the totals.
GYRE_API RangeStarts settle_ranges(Context& context, const RangeTally& mine,
                                   const std::function<bool(const RangeTally& before, const RangeTally& through)>& crosses,
                                   const std::function<void(const RangeTally& before)>& rethrow);

// The same for an input of several files laid end to end (a directory's, in name order), where
// each file is checked as the one-process reader checks it, file after file: its first lines
// (`check_head`, on every rank: throws the file's header error, if it has one), then its ranges in
// rank order (`crosses`, `rethrow`, as above, numbered within the file), then its totals
// (`check_total`, on every rank). `mine` holds this rank's tally for each file, zero where its
// range misses the file. Returns this rank's start in each file and each file's totals.
struct FileRangeRules {
  std::function<void(std::size_t file)> check_head;
  std::function<bool(std::size_t file, const RangeTally& before, const RangeTally& through)> crosses;
  std::function<void(std::size_t file, const RangeTally& before)> rethrow;
  std::function<void(std::size_t file, const RangeTally& total)> check_total;
};
GYRE_API std::vector<RangeStarts> settle_file_ranges(Context& context, const std::vector<RangeTally>& mine,
                                                     const FileRangeRules& rules);

// Runs `program` as a map-reduce job of the processes of `backend`'s job, before that job: under
// its own job id (`<id>-load`), so that its handshakes never pass for the training job's, and
// with exchanges of up to 1 GiB a peer (an input's records on their way to their shards).
GYRE_API void run_loading(const runtime::ProcessesBackend& backend, const std::function<void(Context&)>& program);

}  // namespace gyre::mapreduce
