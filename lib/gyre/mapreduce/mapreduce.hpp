// gyre/mapreduce/mapreduce.hpp — the map-reduce engine: run a program on every worker of a job, read a file by
// byte ranges (settle_ranges, run_loading), load and save collections as text.
//
//   gyre::mapreduce::run(job, [&](gyre::mapreduce::Context& ctx) {
//     auto lines = gyre::mapreduce::load(ctx, "corpus/");             // byte-range splits
//     auto words = lines.flatmap<std::pair<std::string, std::uint64_t>>(
//         [](const std::string& line, auto emit) { /* emit({word, 1}) per word */ });
//     auto counts = gyre::mapreduce::reduce_by_key(std::move(words), std::plus<>{});
//     auto all = gyre::mapreduce::collect(counts);                      // on rank 0
//   });
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "gyre/base/export.hpp"
#include "gyre/mapreduce/collection.hpp"
#include "gyre/runtime/job.hpp"

namespace gyre::mapreduce {

// Runs a map-reduce program on every worker of a runtime job, and fails it everywhere when one rank fails.

// Runs program(context) on every worker of `job` (which has workers and no roles), each with
// a Context over the job's workers: threads of this process, loopback tcp, or one process per
// rank, with the same program. When a rank's program throws, the other ranks are told
// (runtime::fail_job) and their verbs throw runtime::JobFailed naming it; a malformed message
// (BadMessage) is blamed on its sender, with cause kBadMessage; refused input (InputError,
// std::invalid_argument) has cause kBadInput, any other exception kError. Then run() throws as
// runtime::run does: in one process the first rank's own exception.
GYRE_API void run(const runtime::Job& job, const std::function<void(Context&)>& program, const Options& options = {});

// Ranks that parsed their byte ranges of one file agree where each range starts and which of them holds the file's first error.

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

// A collection's input and output as text: load by byte ranges, save through rank 0.

// What one rank's load read: the bytes of the lines it owns (terminators included) and how many.
struct LoadStats {
  std::uint64_t bytes = 0;
  std::uint64_t lines = 0;
};

// The lines of a text file, or of a directory's regular files (sorted by name, not hidden ones,
// not subdirectories), split by byte ranges as Hadoop splits its input: with the files laid end
// to end, N bytes in all, rank r reads only the lines that start in [r·N/P, (r+1)·N/P), reading
// on past the end to finish its last one. Every line is read by exactly one rank, whatever the
// lengths; each comes without its "\n" or "\r\n". Each rank opens the files itself (across
// hosts, every host must see the same files). Throws gyre::InputError naming the path for a
// missing or unreadable input. Not collective: no rank waits for another.
GYRE_API Collection<std::string> load(Context& context, const std::filesystem::path& input, LoadStats* stats = nullptr);

// The same, handing each line to on_line(line) instead of keeping it: for a first map that
// would copy every line only to drop it.
GYRE_API LoadStats load_lines(Context& context, const std::filesystem::path& input,
                              const std::function<void(std::string_view line)>& on_line);

// Writes `lines`, given on root, to `path` (gyre::OutputFile: a file is replaced atomically,
// "-" is stdout), one per line. Only root touches the file.
GYRE_API void write_lines(const std::filesystem::path& path, const std::vector<std::string>& lines);

// Collective: every rank's values as text, format(value) a line each, in rank order, into one
// file written by rank 0 (atomically; see write_lines).
template <class T, class Format>
void save(const Collection<T>& c, const std::filesystem::path& path, Format format) {
  const auto lines = collect(c.map([&](const T& v) { return std::string(format(v)); }), 0);
  if (c.context().rank() == 0) write_lines(path, lines);
}

}  // namespace gyre::mapreduce

