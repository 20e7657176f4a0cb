// apps/wordcount/word_count.cpp — word count: count each split's words locally, reduce_by_key, collect on rank 0.
#include "wordcount/word_count.hpp"

#include <algorithm>
#include <functional>
#include <unordered_map>

#include "gyre/base/input_error.hpp"
#include "gyre/data/byte_ranges.hpp"

namespace gyre::wordcount {

std::unordered_set<std::string> read_stop_words(const std::filesystem::path& file) {
  std::unordered_set<std::string> words;
  const auto files = data::list_input_files(file);  // InputError for a missing or unreadable path
  for (const auto& f : files)
    data::read_split(std::span(&f, 1), 0, 1, [&](std::string_view line) {
      for_each_word(line, [&](const std::string& w) { words.insert(w); });
    });
  return words;
}

void sort_counts(std::vector<Count>& counts) {
  std::sort(counts.begin(), counts.end(), [](const Count& a, const Count& b) {
    return a.second != b.second ? a.second > b.second : a.first < b.first;
  });
}

std::vector<Count> count_words(mapreduce::Context& context, const CountOptions& options) {
  // Combining in the mapper: one pair per distinct word of this split goes into the shuffle.
  std::unordered_map<std::string, std::uint64_t> local;
  mapreduce::load_lines(context, options.input, [&](std::string_view line) {
    for_each_word(line, [&](const std::string& w) {
      if (!options.stop_words.contains(w)) ++local[w];
    });
  });
  mapreduce::Collection<Count> pairs(context, std::vector<Count>(local.begin(), local.end()));
  local.clear();
  auto counts = mapreduce::reduce_by_key(std::move(pairs), std::plus<std::uint64_t>{});
  auto all = mapreduce::collect(counts, 0);
  sort_counts(all);
  return all;
}

std::vector<Count> count_words(const runtime::Job& job, const CountOptions& options, const mapreduce::Options& limits) {
  std::vector<Count> out;
  mapreduce::run(
      job,
      [&](mapreduce::Context& context) {
        auto counts = count_words(context, options);
        if (options.on_traffic) options.on_traffic(context.mailbox().group().bytes_sent());
        if (context.rank() == 0) out = std::move(counts);
      },
      limits);
  return out;
}

}  // namespace gyre::wordcount
