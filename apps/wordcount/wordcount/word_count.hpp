// apps/wordcount/wordcount/word_count.hpp — Owl Actor's word count on the map-reduce engine: words as tr makes them, counted across ranks.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

#include "gyre/mapreduce/mapreduce.hpp"
#include "gyre/runtime/job.hpp"

namespace gyre::wordcount {

// The words of `text` as `tr -cs A-Za-z '\n' | tr A-Z a-z` makes them: maximal runs of ASCII
// letters, lower-cased; every other byte (digits, punctuation, UTF-8's bytes) separates words.
template <class Emit>
void for_each_word(std::string_view text, Emit emit) {
  std::string word;
  for (const char c : text) {
    if (c >= 'A' && c <= 'Z') {
      word.push_back(static_cast<char>(c - 'A' + 'a'));
    } else if (c >= 'a' && c <= 'z') {
      word.push_back(c);
    } else if (!word.empty()) {
      emit(word);
      word.clear();
    }
  }
  if (!word.empty()) emit(word);
}

using Count = std::pair<std::string, std::uint64_t>;  // word, count

struct CountOptions {
  std::filesystem::path input;                // a text file or a directory of them
  std::unordered_set<std::string> stop_words;  // lower-case words left out of the counts
  // Called by each rank at the end with the bytes its links sent (--report-traffic); may be empty.
  std::function<void(std::uint64_t bytes)> on_traffic;
};

// The words of a stop-word file (any layout: the same rule as the input's words). Throws
// gyre::InputError for a missing or unreadable file.
std::unordered_set<std::string> read_stop_words(const std::filesystem::path& file);

// Sorted as the output is: count descending, then word (bytewise, as LC_ALL=C sort).
void sort_counts(std::vector<Count>& counts);

// Collective: each rank counts the words of its byte range of the input, the counts are summed
// by reduce_by_key (a shuffle of each rank's distinct words), and rank 0 gets every word's
// count, sorted (sort_counts); the other ranks get an empty vector.
std::vector<Count> count_words(mapreduce::Context& context, const CountOptions& options);

// The same as a whole job: `job`'s workers are the ranks. Returns rank 0's counts when this
// process hosts rank 0, else an empty vector.
std::vector<Count> count_words(const runtime::Job& job, const CountOptions& options,
                               const mapreduce::Options& limits = {});

}  // namespace gyre::wordcount
