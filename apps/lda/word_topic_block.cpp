// apps/lda/word_topic_block.cpp — packed word-topic rows: their bound, the checked view of a block, the packer's rows.
#include "lda/word_topic_block.hpp"

#include <oneapi/tbb/blocked_range.h>

#include <atomic>
#include <stdexcept>
#include <string>

namespace gyre::lda {
namespace {

[[noreturn]] void bad_row(std::size_t r, const std::string& what) {
  throw std::invalid_argument("word-topic row " + std::to_string(r) + " " + what);
}

// Row r's words after its head, which fit in the block: what is wrong with them, or empty.
std::string row_fault(const std::uint32_t* at, std::uint32_t K) {
  if (at[0] == kDenseRow) {
    for (std::uint32_t k = 0; k < K; ++k)
      if (static_cast<std::int32_t>(at[1 + k]) < 0)
        return count_fault(static_cast<std::int32_t>(at[1 + k]), k);
    return {};
  }
  const std::uint32_t n = at[0];
  for (std::uint32_t i = 0; i < n; ++i) {
    const std::uint32_t k = at[1 + i];
    if (k >= K) return "names topic " + std::to_string(k) + "; there are " + std::to_string(K);
    if (i > 0 && k <= at[i]) return "lists topic " + std::to_string(k) + " after topic " + std::to_string(at[i]) + " (topics must ascend, each once)";
    if (const auto c = static_cast<std::int32_t>(at[1 + n + i]); c <= 0)
      return count_fault(c, k);
  }
  return {};
}

}  // namespace

std::string count_fault(std::int32_t count, std::uint32_t topic) {
  return "has count " + std::to_string(count) + " in topic " + std::to_string(topic);
}

std::uint64_t packed_row_bytes(std::uint64_t tokens, std::uint32_t topics) {
  return 4 * (1 + std::min<std::uint64_t>(2 * tokens, topics));
}

std::vector<model::BlockShape> packed_shapes(const model::RowBlocks& blocks, std::span<const std::uint64_t> word_tokens,
                                             std::uint32_t topics) {
  std::vector<model::BlockShape> out;
  for (const auto& rows : blocks.rows) {
    std::uint64_t bytes = 0;
    for (const std::uint32_t word : rows) bytes += packed_row_bytes(word_tokens[word], topics);
    out.push_back({rows.size(), 0, bytes});
  }
  return out;
}

BlockRows::BlockRows(const model::Block& block, std::uint32_t topics) : rows_(block.rows()), K_(topics) {
  if (!block.packed()) {
    if (block.stride() < topics) throw std::invalid_argument("word-topic block of another topic count");
    dense_ = block.counts();
    stride_ = block.stride();
    return;
  }
  const auto words = block.words();
  words_ = words.data();
  begin_.resize(rows_ + 1);
  std::uint64_t at = 0;
  for (std::size_t r = 0; r < rows_; ++r) {
    begin_[r] = at;
    if (at >= words.size()) bad_row(r, "is missing: the block ends after " + std::to_string(r) + " rows");
    const std::uint32_t head = words[at];
    if (head != kDenseRow && head > topics)
      bad_row(r, "opens with " + std::to_string(head) + ", neither a count of at most " + std::to_string(topics) +
                     " topics nor the mark of a dense row");
    const std::uint64_t length = 1 + (head == kDenseRow ? std::uint64_t{topics} : 2 * std::uint64_t{head});
    if (length > words.size() - at) bad_row(r, "runs past the end of the block");
    at += length;
  }
  begin_[rows_] = at;
  if (at != words.size())
    throw std::invalid_argument("word-topic block of " + std::to_string(rows_) + " rows has " +
                                std::to_string(words.size() - at) + " words after its last row");
  // The rows' contents on the caller's threads; the first bad row is named, whichever finds it.
  std::atomic<std::size_t> first_bad{rows_};
  oneapi::tbb::parallel_for(oneapi::tbb::blocked_range<std::size_t>(0, rows_, 256),
                            [&](const oneapi::tbb::blocked_range<std::size_t>& range) {
                              for (std::size_t r = range.begin(); r != range.end(); ++r)
                                if (!row_fault(words_ + begin_[r], K_).empty()) {
                                  std::size_t seen = first_bad.load();
                                  while (r < seen && !first_bad.compare_exchange_weak(seen, r)) {
                                  }
                                  break;
                                }
                            });
  if (const std::size_t r = first_bad; r < rows_) bad_row(r, row_fault(words_ + begin_[r], K_));
}

void BlockRows::copy_dense(std::size_t r, std::span<std::int32_t> out) const {
  std::fill(out.begin(), out.end(), 0);
  for_each(r, [&](std::uint32_t k, std::int32_t n) { out[k] = n; });
}

void RowPacker::write_row(Scratch& s, std::uint32_t* out) const {
  const std::size_t n = s.touched.size();
  if (dense(n)) {
    out[0] = kDenseRow;
    std::memcpy(out + 1, s.counts.data(), K_ * sizeof(std::uint32_t));
    return;
  }
  s.order.sort(std::span(s.touched));
  out[0] = static_cast<std::uint32_t>(n);
  for (std::size_t i = 0; i < n; ++i) {
    out[1 + i] = s.touched[i];
    out[1 + n + i] = static_cast<std::uint32_t>(s.counts[s.touched[i]]);
  }
}

model::Block pack_block(const model::Block& dense, std::uint32_t topics, std::size_t max_bytes, RowForm form) {
  const BlockRows rows(dense, topics);
  RowPacker packer(topics, form);
  Buffer words = packer.pack(rows.rows(), [&](std::size_t r, auto add) {
    rows.for_each(r, [&](std::uint32_t k, std::int32_t n) {
      if (n < 0) bad_row(r, count_fault(n, k));
      add(k, n);
    });
  });
  return model::Block(dense.id(), dense.version(), model::BlockShape{dense.rows(), 0, max_bytes}, std::move(words));
}

model::Block unpack_block(const model::Block& packed, std::uint32_t topics, std::size_t stride) {
  const BlockRows rows(packed, topics);
  Buffer storage(rows.rows() * stride * sizeof(std::int32_t));
  auto* counts = reinterpret_cast<std::int32_t*>(storage.data());
  for (std::size_t r = 0; r < rows.rows(); ++r)
    rows.for_each(r, [&](std::uint32_t k, std::int32_t n) { counts[r * stride + k] = n; });
  return model::Block(packed.id(), packed.version(), model::BlockShape{rows.rows(), stride, 0}, std::move(storage));
}

}  // namespace gyre::lda
