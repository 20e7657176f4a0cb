// apps/lda/doc_topic_counts.cpp — sparse doc-topic rows from token topics, dense rows or another set of rows.
#include "lda/doc_topic_counts.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace gyre::lda {

std::vector<std::int32_t> DocTopicCounts::dense(std::size_t d) const {
  std::vector<std::int32_t> row(K_, 0);
  const auto topics = topics_of(d);
  const auto counts = counts_of(d);
  for (std::size_t i = 0; i < topics.size(); ++i) row[topics[i]] = counts[i];
  return row;
}

void DocTopicCounts::add_from_topics(std::span<const std::uint16_t> topics, std::span<std::int32_t> scratch) {
  if (scratch.size() != K_) throw std::invalid_argument("doc-topic scratch is not K counts");
  for (const std::uint16_t k : topics)  // before any change: a refused row leaves the rows as they were
    if (k >= K_) throw std::invalid_argument("topic " + std::to_string(k) + " is not below K");
  const std::size_t first = topic_.size();
  for (const std::uint16_t k : topics)
    if (scratch[k]++ == 0) topic_.push_back(k);
  std::sort(topic_.begin() + static_cast<std::ptrdiff_t>(first), topic_.end());
  for (std::size_t i = first; i < topic_.size(); ++i) {
    count_.push_back(scratch[topic_[i]]);
    scratch[topic_[i]] = 0;
  }
  begin_.push_back(topic_.size());
}

void DocTopicCounts::add_dense(std::span<const std::int32_t> counts) {
  if (counts.size() != K_) throw std::invalid_argument("a doc-topic row of " + std::to_string(counts.size()) + " counts, not K");
  if (std::any_of(counts.begin(), counts.end(), [](std::int32_t n) { return n < 0; }))
    throw std::invalid_argument("a negative doc-topic count");
  for (std::uint32_t k = 0; k < K_; ++k) {
    if (counts[k] == 0) continue;
    topic_.push_back(static_cast<std::uint16_t>(k));
    count_.push_back(counts[k]);
  }
  begin_.push_back(topic_.size());
}

void DocTopicCounts::add_row_of(const DocTopicCounts& other, std::size_t d) {
  if (other.K_ != K_) throw std::invalid_argument("doc-topic rows of another K");
  const auto topics = other.topics_of(d);
  const auto counts = other.counts_of(d);
  topic_.insert(topic_.end(), topics.begin(), topics.end());
  count_.insert(count_.end(), counts.begin(), counts.end());
  begin_.push_back(topic_.size());
}

}  // namespace gyre::lda
