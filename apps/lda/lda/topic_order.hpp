// apps/lda/lda/topic_order.hpp — a row's distinct topics put in increasing order, by a K-bit set when they are many.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <utility>
#include <vector>

namespace gyre::lda {

// A word's row holds as many distinct topics as its tokens, at most: at K = 100 000 a frequent
// word's run to thousands, and std::sort of them (to pack the row, and to sum its
// log-likelihood in topic order) took 13% of an epoch on the generated corpus. Many topics are
// put in order by setting their bits in a set of K bits and reading the set once (the words
// between the lowest and the highest topic, cleared as they are read): O(n + K/64). Few, whose
// read of the set would cost more than sorting them, go to std::sort.
class TopicOrder {
 public:
  explicit TopicOrder(std::uint32_t K = 0) : words_((static_cast<std::size_t>(K) + 63) / 64, 0) {}

  // `topics`: distinct, each below K.
  template <class Topic>
  void sort(std::span<Topic> topics) {
    const std::size_t n = topics.size();
    if (n * static_cast<std::size_t>(std::bit_width(n)) < words_.size()) {
      std::sort(topics.begin(), topics.end());
      return;
    }
    std::size_t lowest = words_.size(), highest = 0;
    for (const Topic k : topics) {
      const std::size_t w = static_cast<std::size_t>(k) >> 6;
      words_[w] |= std::uint64_t{1} << (k & 63);
      lowest = std::min(lowest, w);
      highest = std::max(highest, w);
    }
    Topic* out = topics.data();
    Topic* const end = out + n;
    for (std::size_t w = lowest; w <= highest && w < words_.size(); ++w) {
      std::uint64_t bits = std::exchange(words_[w], 0);
      for (; bits != 0; bits &= bits - 1) *out++ = static_cast<Topic>(w * 64 + static_cast<std::size_t>(std::countr_zero(bits)));
    }
    if (out != end) throw std::logic_error("TopicOrder::sort: a topic given twice");  // fewer bits than topics
  }

 private:
  std::vector<std::uint64_t> words_;
};

}  // namespace gyre::lda
