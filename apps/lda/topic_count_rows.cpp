// apps/lda/topic_count_rows.cpp — sparse topic-count rows from token topics, dense rows or other rows.
#include "lda/topic_count_rows.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "gyre/wire/body.hpp"
#include "gyre/wire/codec.hpp"

namespace gyre::lda {
namespace {

void check_dense(std::span<const std::int32_t> counts, std::uint32_t K) {
  if (counts.size() != K) throw std::invalid_argument("a topic-count row of " + std::to_string(counts.size()) + " counts, not K");
  if (std::any_of(counts.begin(), counts.end(), [](std::int32_t n) { return n < 0; }))
    throw std::invalid_argument("a negative topic count");
}

}  // namespace

std::vector<std::uint32_t> TopicSpan::to_vector() const {
  std::vector<std::uint32_t> out(size());
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = (*this)[i];
  return out;
}

void TopicCountRows::set_topic(std::uint64_t at, std::uint32_t k) {
  if (wide())
    wide_topic_[at] = k;
  else
    topic_[at] = static_cast<std::uint16_t>(k);
}

void TopicCountRows::push_topic(std::uint32_t k) {
  if (wide())
    wide_topic_.push_back(k);
  else
    topic_.push_back(static_cast<std::uint16_t>(k));
}

TopicCountRows TopicCountRows::with_sizes(std::uint32_t topics, std::span<const std::uint64_t> sizes) {
  TopicCountRows rows(topics);
  rows.begin_.reserve(sizes.size() + 1);
  for (const std::uint64_t n : sizes) {
    if (n > topics) throw std::invalid_argument("a topic-count row of more than K entries");
    rows.begin_.push_back(rows.begin_.back() + n);
  }
  if (rows.wide())
    rows.wide_topic_.resize(rows.begin_.back());
  else
    rows.topic_.resize(rows.begin_.back());
  rows.count_.resize(rows.begin_.back());
  return rows;
}

std::int32_t TopicCountRows::count(std::size_t r, std::uint32_t k) const noexcept {
  const auto topics = topics_of(r);
  const auto find = [&](auto span) {
    const auto it = std::lower_bound(span.begin(), span.end(), k);
    return it != span.end() && *it == k ? counts_of(r)[static_cast<std::size_t>(it - span.begin())] : 0;
  };
  return topics.wide.empty() ? find(topics.narrow) : find(topics.wide);
}

std::vector<std::int32_t> TopicCountRows::dense(std::size_t r) const {
  std::vector<std::int32_t> row(K_, 0);
  const auto topics = topics_of(r);
  const auto counts = counts_of(r);
  for (std::size_t i = 0; i < topics.size(); ++i) row[topics[i]] = counts[i];
  return row;
}

std::vector<std::int32_t> TopicCountRows::dense() const {
  std::vector<std::int32_t> all(rows() * K_, 0);
  for (std::size_t r = 0; r < rows(); ++r) {
    const auto topics = topics_of(r);
    const auto counts = counts_of(r);
    for (std::size_t i = 0; i < topics.size(); ++i) all[r * K_ + topics[i]] = counts[i];
  }
  return all;
}

std::vector<std::int64_t> TopicCountRows::column_sums() const {
  std::vector<std::int64_t> sums(K_, 0);
  if (wide())
    for (std::size_t i = 0; i < wide_topic_.size(); ++i) sums[wide_topic_[i]] += count_[i];
  else
    for (std::size_t i = 0; i < topic_.size(); ++i) sums[topic_[i]] += count_[i];
  return sums;
}

template <class Topic>
void TopicCountRows::add_topics(std::span<const Topic> topics, std::span<std::int32_t> scratch) {
  if (scratch.size() != K_) throw std::invalid_argument("topic-count scratch is not K counts");
  for (const Topic k : topics)  // before any change: a refused row leaves the rows as they were
    if (k >= K_) throw std::invalid_argument("topic " + std::to_string(k) + " is not below K");
  const auto fill = [&](auto& stored) {
    const std::size_t first = stored.size();
    for (const Topic k : topics)
      if (scratch[k]++ == 0) stored.push_back(static_cast<typename std::decay_t<decltype(stored)>::value_type>(k));
    std::sort(stored.begin() + static_cast<std::ptrdiff_t>(first), stored.end());
    for (std::size_t i = first; i < stored.size(); ++i) {
      count_.push_back(scratch[stored[i]]);
      scratch[stored[i]] = 0;
    }
  };
  if (wide())
    fill(wide_topic_);
  else
    fill(topic_);
  begin_.push_back(count_.size());
}

void TopicCountRows::add_from_topics(std::span<const std::uint16_t> topics, std::span<std::int32_t> scratch) {
  add_topics(topics, scratch);
}

void TopicCountRows::add_from_topics(std::span<const std::uint32_t> topics, std::span<std::int32_t> scratch) {
  add_topics(topics, scratch);
}

void TopicCountRows::add_dense(std::span<const std::int32_t> counts) {
  check_dense(counts, K_);
  for (std::uint32_t k = 0; k < K_; ++k) {
    if (counts[k] == 0) continue;
    push_topic(k);
    count_.push_back(counts[k]);
  }
  begin_.push_back(count_.size());
}

void TopicCountRows::add_row_of(const TopicCountRows& other, std::size_t r) {
  if (other.K_ != K_) throw std::invalid_argument("topic-count rows of another K");
  const auto topics = other.topics_of(r);
  const auto counts = other.counts_of(r);
  for (std::size_t i = 0; i < topics.size(); ++i) push_topic(topics[i]);
  count_.insert(count_.end(), counts.begin(), counts.end());
  begin_.push_back(count_.size());
}

void TopicCountRows::add_sparse(std::span<const std::uint32_t> topics, std::span<const std::int32_t> counts) {
  if (topics.size() != counts.size()) throw std::invalid_argument("a sparse topic-count row of unequal lengths");
  for (std::size_t i = 0; i < topics.size(); ++i) {
    if (topics[i] >= K_ || (i > 0 && topics[i] <= topics[i - 1]) || counts[i] <= 0)
      throw std::invalid_argument("a sparse topic-count row whose topics are not ascending below K = " +
                                  std::to_string(K_) + " with positive counts");
  }
  for (const std::uint32_t k : topics) push_topic(k);
  count_.insert(count_.end(), counts.begin(), counts.end());
  begin_.push_back(count_.size());
}

std::vector<std::byte> TopicCountRows::encode() const {
  // Written straight into the returned bytes: the body is as large as the rows, so no second copy.
  const std::size_t topic_bytes = wide() ? sizeof(std::uint32_t) : sizeof(std::uint16_t);
  std::vector<std::byte> body(rows() * sizeof(std::uint32_t) + count_.size() * (topic_bytes + sizeof(std::int32_t)));
  wire::Writer w{std::span<std::byte>(body)};
  for (std::size_t r = 0; r < rows(); ++r) {
    w.put(static_cast<std::uint32_t>(begin_[r + 1] - begin_[r]));
    const TopicSpan topics = topics_of(r);
    if (wide())
      w.put_array(topics.wide);
    else
      w.put_array(topics.narrow);
    w.put_array(counts_of(r));
  }
  w.finish();
  return body;
}

TopicCountRows TopicCountRows::decode(std::uint32_t topics, std::span<const std::byte> body, std::size_t rows,
                                      const std::string& context) {
  TopicCountRows out(topics);
  wire::Reader in(body, context);
  for (std::size_t r = 0; r < rows; ++r) {
    // An entry takes 6 bytes (8 when K > 65 535): the count is bounded by what was sent before
    // anything is sized.
    const bool wide = topics > 0xFFFF;
    const std::size_t n = in.count<std::uint32_t>((wide ? 4 : 2) + sizeof(std::int32_t), "a row's entries");
    std::vector<std::uint32_t> row_topics;
    if (wide) {
      row_topics = in.get_array<std::uint32_t>(n, "a row's topics");
    } else {
      const auto narrow = in.get_array<std::uint16_t>(n, "a row's topics");
      row_topics.assign(narrow.begin(), narrow.end());
    }
    const auto row_counts = in.get_array<std::int32_t>(n, "a row's counts");
    try {
      out.add_sparse(row_topics, row_counts);
    } catch (const std::invalid_argument& e) {
      in.fail(e.what());
    }
  }
  in.finish();
  return out;
}

void TopicCountRows::set_row(std::size_t r, std::span<const std::int32_t> counts) {
  check_dense(counts, K_);
  if (r >= rows()) throw std::invalid_argument("topic-count row " + std::to_string(r) + " is not one of the set's");
  const auto nonzero = static_cast<std::uint64_t>(std::count_if(counts.begin(), counts.end(), [](std::int32_t n) { return n != 0; }));
  if (nonzero != begin_[r + 1] - begin_[r])
    throw std::invalid_argument("topic-count row " + std::to_string(r) + " has " + std::to_string(nonzero) +
                                " non-zero counts, not the " + std::to_string(begin_[r + 1] - begin_[r]) + " planned");
  std::uint64_t at = begin_[r];
  for (std::uint32_t k = 0; k < K_; ++k)
    if (counts[k] != 0) {
      set_topic(at, k);
      count_[at++] = counts[k];
    }
}

void TopicCountRows::set_sparse_row(std::size_t r, std::span<const std::uint32_t> topics,
                                    std::span<const std::int32_t> counts) {
  if (r >= rows()) throw std::invalid_argument("topic-count row " + std::to_string(r) + " is not one of the set's");
  if (topics.size() != counts.size() || topics.size() != begin_[r + 1] - begin_[r])
    throw std::invalid_argument("topic-count row " + std::to_string(r) + " has " + std::to_string(topics.size()) +
                                " non-zero counts, not the " + std::to_string(begin_[r + 1] - begin_[r]) + " planned");
  for (std::size_t i = 0; i < topics.size(); ++i) {
    if (topics[i] >= K_ || (i > 0 && topics[i] <= topics[i - 1]) || counts[i] <= 0)
      throw std::invalid_argument("a sparse topic-count row whose topics are not ascending below K = " +
                                  std::to_string(K_) + " with positive counts");
    set_topic(begin_[r] + i, topics[i]);
    count_[begin_[r] + i] = counts[i];
  }
}

}  // namespace gyre::lda
