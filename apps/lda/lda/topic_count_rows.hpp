// apps/lda/lda/topic_count_rows.hpp — topic counts kept sparse, a row per document or word: memory follows the tokens, not rows × K.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace gyre::lda {

// A row's topics, ascending, as the rows keep them: 16 bits each when K ≤ 65 535, else 32 (the
// other span is empty).
struct TopicSpan {
  std::span<const std::uint16_t> narrow;
  std::span<const std::uint32_t> wide;
  std::size_t size() const noexcept { return narrow.size() + wide.size(); }
  bool empty() const noexcept { return size() == 0; }
  std::uint32_t operator[](std::size_t i) const noexcept { return wide.empty() ? narrow[i] : wide[i]; }
  std::vector<std::uint32_t> to_vector() const;
};

// Row by row (a document's n_dk, or a word's n_wk), the topics with a non-zero count, ascending,
// and those counts. A row has at most as many entries as it has tokens, so a model's counts cost
// at most six bytes a token (eight when K > 65 535) and never rows × K: at K = 1000, 200 000
// documents of 100 tokens take at most 120 MB against 800 MB dense, and 161 000 words of 2M
// tokens at most 12 MB against 644 MB.
class TopicCountRows {
 public:
  explicit TopicCountRows(std::uint32_t topics = 0) : K_(topics) {}
  // `sizes.size()` empty rows with room for sizes[r] entries each, for set_row to fill in any order.
  static TopicCountRows with_sizes(std::uint32_t topics, std::span<const std::uint64_t> sizes);

  std::uint32_t topics() const noexcept { return K_; }
  std::size_t rows() const noexcept { return begin_.size() - 1; }
  std::uint64_t entries() const noexcept { return count_.size(); }
  TopicSpan topics_of(std::size_t r) const noexcept {
    const auto n = static_cast<std::size_t>(begin_[r + 1] - begin_[r]);
    if (wide()) return {{}, {wide_topic_.data() + begin_[r], n}};
    return {{topic_.data() + begin_[r], n}, {}};
  }
  std::span<const std::int32_t> counts_of(std::size_t r) const noexcept {
    return {count_.data() + begin_[r], static_cast<std::size_t>(begin_[r + 1] - begin_[r])};
  }
  // Row r's count of topic k (0 when it has none).
  std::int32_t count(std::size_t r, std::uint32_t k) const noexcept;
  // Row r's K counts, zeros included.
  std::vector<std::int32_t> dense(std::size_t r) const;
  // Every row's K counts, row-major (tests and small models).
  std::vector<std::int32_t> dense() const;
  // Σ_r n_rk for every k.
  std::vector<std::int64_t> column_sums() const;

  // Appends a row whose tokens have `topics` (in any order, each below K). `scratch` is K zeros,
  // and is left so.
  void add_from_topics(std::span<const std::uint16_t> topics, std::span<std::int32_t> scratch);
  void add_from_topics(std::span<const std::uint32_t> topics, std::span<std::int32_t> scratch);
  // Appends a row given as K counts (no negative one).
  void add_dense(std::span<const std::int32_t> counts);
  // Appends row r of `other` (of the same K).
  void add_row_of(const TopicCountRows& other, std::size_t r);
  // Appends a row given sparse: ascending topics below K, each with a positive count.
  void add_sparse(std::span<const std::uint32_t> topics, std::span<const std::int32_t> counts);
  // Fills row r of a with_sizes set from its K counts, which must have exactly the row's size of
  // non-zero ones.
  void set_row(std::size_t r, std::span<const std::int32_t> counts);
  // The same from the row's non-zero counts: ascending topics below K, each with a positive count.
  void set_sparse_row(std::size_t r, std::span<const std::uint32_t> topics, std::span<const std::int32_t> counts);

  bool operator==(const TopicCountRows&) const = default;

  // The rows as one little-endian body, for a gather of rows of any size: per row a u32 count of
  // entries, its topics (u16, or u32 when K > 65 535), its counts (i32).
  std::vector<std::byte> encode() const;
  // `rows` rows of K topics from such a body; wire::DecodeError (prefixed by `context`) for one
  // that is truncated, longer, or holds a row that is not ascending topics below K with positive
  // counts.
  static TopicCountRows decode(std::uint32_t topics, std::span<const std::byte> body, std::size_t rows,
                               const std::string& context);

 private:
  bool wide() const noexcept { return K_ > 0xFFFF; }
  void push_topic(std::uint32_t k);
  void set_topic(std::uint64_t at, std::uint32_t k);
  template <class Topic>
  void add_topics(std::span<const Topic> topics, std::span<std::int32_t> scratch);

  std::uint32_t K_;
  std::vector<std::uint64_t> begin_{0};  // rows + 1
  std::vector<std::uint16_t> topic_;       // K ≤ 65 535
  std::vector<std::uint32_t> wide_topic_;  // K > 65 535
  std::vector<std::int32_t> count_;
};

}  // namespace gyre::lda
