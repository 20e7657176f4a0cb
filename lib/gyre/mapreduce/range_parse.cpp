// gyre/mapreduce/range_parse.cpp — every rank's range tally gathered, and the first bad range made to throw its own error.
#include "gyre/mapreduce/range_parse.hpp"

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "gyre/mapreduce/job.hpp"

namespace gyre::mapreduce {

RangeStarts settle_ranges(Context& context, const RangeTally& mine,
                          const std::function<bool(const RangeTally&, const RangeTally&)>& crosses,
                          const std::function<void(const RangeTally&)>& rethrow) {
  const auto tallies = context.allgather_values<std::uint64_t>(
      {mine.bytes, mine.lines, mine.records, mine.tokens, mine.failed ? 1u : 0u}, "range tallies");
  RangeStarts starts;
  std::optional<int> first_bad;
  for (int r = 0; r < context.size(); ++r) {
    const auto& t = tallies[static_cast<std::size_t>(r)];
    if (t.size() != 5) context.bad_message(r, "range tallies", "not 5 counts");
    const RangeTally range{t[0], t[1], t[2], t[3], t[4] != 0};
    RangeTally through = starts.total;
    through.bytes += range.bytes;
    through.lines += range.lines;
    through.records += range.records;
    through.tokens += range.tokens;
    if (!first_bad && (range.failed || crosses(starts.total, through))) first_bad = r;
    if (r == context.rank()) starts.before = starts.total;
    starts.total = through;
    starts.ranges.push_back(range);
  }
  if (first_bad == context.rank()) {
    rethrow(starts.before);
    throw std::logic_error("a range's parse failed once but not when run again");
  }
  if (first_bad) {
    context.sum(0);  // the bad rank has thrown: this verb throws the job's failure, naming it
    throw std::logic_error("rank " + std::to_string(*first_bad) + " failed to parse its range but the job went on");
  }
  return starts;
}

void run_loading(const runtime::ProcessesBackend& backend, const std::function<void(Context&)>& program) {
  runtime::Job job;
  job.workers = backend.launch.size;
  runtime::ProcessesBackend loading = backend;
  loading.job_id += "-load";
  job.backend = loading;
  Options options;
  options.max_shuffle_bytes = std::uint64_t{1} << 30;
  run(job, program, options);
}

}  // namespace gyre::mapreduce
