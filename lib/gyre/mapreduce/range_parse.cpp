// gyre/mapreduce/range_parse.cpp — every rank's range tally gathered, and the first bad range made to throw its own error.
#include "gyre/mapreduce/mapreduce.hpp"

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>


namespace gyre::mapreduce {

std::vector<RangeStarts> settle_file_ranges(Context& context, const std::vector<RangeTally>& mine,
                                            const FileRangeRules& rules) {
  constexpr std::size_t kCounts = 5;
  const std::size_t files = mine.size();
  std::vector<std::uint64_t> flat;
  flat.reserve(files * kCounts);
  for (const RangeTally& t : mine) flat.insert(flat.end(), {t.bytes, t.lines, t.records, t.tokens, t.failed ? 1u : 0u});
  const auto tallies = context.allgather_values(flat, "range tallies");
  for (int r = 0; r < context.size(); ++r)
    if (tallies[static_cast<std::size_t>(r)].size() != files * kCounts)
      context.bad_message(r, "range tallies", std::to_string(kCounts) + " counts for each of " + std::to_string(files) + " files");

  std::vector<RangeStarts> starts(files);
  for (std::size_t f = 0; f < files; ++f) {
    if (rules.check_head) rules.check_head(f);
    RangeStarts& file = starts[f];
    std::optional<int> first_bad;
    for (int r = 0; r < context.size(); ++r) {
      const std::uint64_t* t = tallies[static_cast<std::size_t>(r)].data() + f * kCounts;
      const RangeTally range{t[0], t[1], t[2], t[3], t[4] != 0};
      RangeTally through = file.total;
      through.bytes += range.bytes;
      through.lines += range.lines;
      through.records += range.records;
      through.tokens += range.tokens;
      if (!first_bad && (range.failed || rules.crosses(f, file.total, through))) first_bad = r;
      if (r == context.rank()) file.before = file.total;
      file.total = through;
      file.ranges.push_back(range);
    }
    if (first_bad == context.rank()) {
      rules.rethrow(f, file.before);
      throw std::logic_error("a range's parse failed once but not when run again");
    }
    if (first_bad) {
      context.sum(0);  // the bad rank has thrown: this verb throws the job's failure, naming it
      throw std::logic_error("rank " + std::to_string(*first_bad) + " failed to parse its range but the job went on");
    }
    if (rules.check_total) rules.check_total(f, file.total);
  }
  return starts;
}

RangeStarts settle_ranges(Context& context, const RangeTally& mine,
                          const std::function<bool(const RangeTally&, const RangeTally&)>& crosses,
                          const std::function<void(const RangeTally&)>& rethrow) {
  FileRangeRules rules;
  rules.crosses = [&](std::size_t, const RangeTally& before, const RangeTally& through) { return crosses(before, through); };
  rules.rethrow = [&](std::size_t, const RangeTally& before) { rethrow(before); };
  return std::move(settle_file_ranges(context, {mine}, rules).front());
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
