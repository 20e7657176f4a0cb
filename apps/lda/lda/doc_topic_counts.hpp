// apps/lda/lda/doc_topic_counts.hpp — documents' topic counts n_dk kept sparse: memory follows the tokens, not documents × K.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace gyre::lda {

// Row by row, each document's topics with a non-zero count, ascending, and those counts. A
// document has at most as many entries as tokens, so a model's doc-topic counts cost at most six
// bytes a token and never documents × K (at K = 1000, 200 000 documents of 100 tokens: 120 MB
// at most, against 800 MB dense).
class DocTopicCounts {
 public:
  explicit DocTopicCounts(std::uint32_t topics = 0) : K_(topics) {}

  std::uint32_t topics() const noexcept { return K_; }
  std::size_t docs() const noexcept { return begin_.size() - 1; }
  std::uint64_t entries() const noexcept { return topic_.size(); }
  std::span<const std::uint16_t> topics_of(std::size_t d) const noexcept {
    return {topic_.data() + begin_[d], static_cast<std::size_t>(begin_[d + 1] - begin_[d])};
  }
  std::span<const std::int32_t> counts_of(std::size_t d) const noexcept {
    return {count_.data() + begin_[d], static_cast<std::size_t>(begin_[d + 1] - begin_[d])};
  }
  // Document d's K counts, zeros included.
  std::vector<std::int32_t> dense(std::size_t d) const;

  // Appends a document whose tokens have `topics` (in any order, each below K). `scratch` is K
  // zeros, and is left so.
  void add_from_topics(std::span<const std::uint16_t> topics, std::span<std::int32_t> scratch);
  // Appends a document given as K counts (no negative one).
  void add_dense(std::span<const std::int32_t> counts);
  // Appends document d of `other` (of the same K).
  void add_row_of(const DocTopicCounts& other, std::size_t d);

  bool operator==(const DocTopicCounts&) const = default;

 private:
  std::uint32_t K_;
  std::vector<std::uint64_t> begin_{0};  // docs + 1
  std::vector<std::uint16_t> topic_;
  std::vector<std::int32_t> count_;
};

}  // namespace gyre::lda
