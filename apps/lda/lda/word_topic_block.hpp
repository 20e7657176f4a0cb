// apps/lda/lda/word_topic_block.hpp — a word-topic block's rows packed sparse or dense, whichever is smaller, and read back checked.
#pragma once

#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/task_arena.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "gyre/base/buffer.hpp"
#include "gyre/model/block.hpp"
#include "gyre/model/row_blocks.hpp"
#include "lda/topic_order.hpp"

namespace gyre::lda {

// A packed word-topic block (model::Block::packed) is 32-bit words, row after row. A row opens
// with its head: the number n of topics it counts, then those n topics (ascending, below K),
// then their n counts (positive); or kDenseRow, then all K counts. A row is written dense only
// where that is smaller (2n > K), so a block takes at most 8 bytes a non-zero count and 4 a
// row: a rare word has at most as many non-zero topics as tokens, and at K = 1000 the 161k
// words of the SpamAssassin mails take 644 MB dense. Every field is a 32-bit word, so the
// transport converts the byte order in place as it does for dense blocks, and topics up to
// 2^32 − 2 fit.
inline constexpr std::uint32_t kDenseRow = 0xFFFFFFFFu;

// How rows are written: the smaller way (what training does), or all one way (tests showing
// that the form never changes a draw).
enum class RowForm { kSmaller, kSparse, kDense };

// "has count N in topic K": how a row's wrong count is named, by the block's reader and the kernel.
std::string count_fault(std::int32_t count, std::uint32_t topic);

// The most bytes a row of `tokens` tokens (so at most that many non-zero topics) takes packed
// the smaller way.
std::uint64_t packed_row_bytes(std::uint64_t tokens, std::uint32_t topics);
// Every block's packed shape: its rows, and the most bytes its words can take, from its words'
// tokens in the corpus. A block that arrives longer is refused before it is allocated.
std::vector<model::BlockShape> packed_shapes(const model::RowBlocks& blocks, std::span<const std::uint64_t> word_tokens,
                                             std::uint32_t topics);

// The rows of a word-topic block, dense (rows × stride counts, as Harp's allreduce model sums
// replicas) or packed, read one way. A packed block is indexed and checked as the view is made:
// std::invalid_argument naming the first bad row for words that are not `rows` rows of K topics
// well formed (a head that is neither a count of at most K nor kDenseRow, a row running past
// the end, words left over, topics not ascending or not below K, a count that is not positive,
// a dense row's negative count). A dense block's counts are not checked here: the kernel checks
// them against the corpus.
class BlockRows {
 public:
  BlockRows(const model::Block& block, std::uint32_t topics);

  std::size_t rows() const noexcept { return rows_; }
  // Calls f(topic, count) for every non-zero count of row r, topics ascending.
  template <class F>
  void for_each(std::size_t r, F&& f) const {
    if (dense_ != nullptr) {
      const std::int32_t* row = dense_ + r * stride_;
      for (std::uint32_t k = 0; k < K_; ++k)
        if (row[k] != 0) f(k, row[k]);
      return;
    }
    const std::uint32_t* at = words_ + begin_[r];
    if (at[0] == kDenseRow) {
      for (std::uint32_t k = 0; k < K_; ++k)
        if (at[1 + k] != 0) f(k, static_cast<std::int32_t>(at[1 + k]));
      return;
    }
    const std::uint32_t n = at[0];
    for (std::uint32_t i = 0; i < n; ++i) f(at[1 + i], static_cast<std::int32_t>(at[1 + n + i]));
  }
  // Row r's K counts, zeros included, into `out`.
  void copy_dense(std::size_t r, std::span<std::int32_t> out) const;

 private:
  std::size_t rows_;
  std::uint32_t K_;
  const std::int32_t* dense_ = nullptr;
  std::size_t stride_ = 0;
  const std::uint32_t* words_ = nullptr;
  std::vector<std::uint64_t> begin_;  // packed: where each row's head is
};

// Writes `rows` packed rows on the calling arena's threads. fill(r, add) calls add(topic, count)
// for what row r counts: any topics below K, in any order, a topic as often as it comes, each
// count positive (they are summed).
class RowPacker {
 public:
  RowPacker(std::uint32_t topics, RowForm form = RowForm::kSmaller) : K_(topics), form_(form) {}

  template <class Fill>
  Buffer pack(std::size_t rows, Fill&& fill) {
    // One pass: each chunk of rows packs into words of its own, then the chunks are laid end to
    // end. Counting every row twice (once to size it, once to write it) cost twice as much: 7%
    // of a sweep on spam at K = 10 000 against 4%. The price is the block held twice for a
    // moment, as chunks and as the result.
    constexpr std::size_t kChunk = 1024;
    const std::size_t chunks = (rows + kChunk - 1) / kChunk;
    std::vector<std::vector<std::uint32_t>> packed(chunks);
    const auto threads = static_cast<std::size_t>(oneapi::tbb::this_task_arena::max_concurrency());
    if (scratch_.size() < threads) scratch_.resize(threads);
    oneapi::tbb::parallel_for(std::size_t{0}, chunks, [&](std::size_t c) {
      Scratch& s = scratch();
      std::vector<std::uint32_t>& out = packed[c];
      for (std::size_t r = c * kChunk; r < std::min(rows, (c + 1) * kChunk); ++r) {
        s.gather(r, fill);
        const std::size_t at = out.size();
        out.resize(at + row_words(s.touched.size()));
        write_row(s, out.data() + at);
        s.clear();
      }
    });
    std::vector<std::size_t> begin(chunks + 1, 0);
    for (std::size_t c = 0; c < chunks; ++c) begin[c + 1] = begin[c] + packed[c].size();
    Buffer out(begin[chunks] * sizeof(std::uint32_t));
    auto* words = reinterpret_cast<std::uint32_t*>(out.data());
    oneapi::tbb::parallel_for(std::size_t{0}, chunks, [&](std::size_t c) {
      std::copy(packed[c].begin(), packed[c].end(), words + begin[c]);
      std::vector<std::uint32_t>().swap(packed[c]);
    });
    return out;
  }

 private:
  // One thread's row being summed: K counts (zero between rows) and the topics made non-zero.
  struct Scratch {
    std::vector<std::int32_t> counts;
    std::vector<std::uint32_t> touched;
    TopicOrder order;
    template <class Fill>
    void gather(std::size_t r, Fill& fill) {
      fill(r, [this](std::uint32_t k, std::int32_t n) {
        if (counts[k] == 0) touched.push_back(k);
        counts[k] += n;
      });
    }
    void clear() {
      for (const std::uint32_t k : touched) counts[k] = 0;
      touched.clear();
    }
  };
  // The calling thread's, by its index in the arena running the pack: one thread uses a slot at
  // a time, since filling a row starts no parallel work. (Not enumerable_thread_specific:
  // with oneTBB's own build under ThreadSanitizer, GCC 12 warns of an uninitialised member in
  // its segment table, which -Werror makes an error.)
  Scratch& scratch() {
    Scratch& s = scratch_[static_cast<std::size_t>(oneapi::tbb::this_task_arena::current_thread_index())];
    if (s.counts.size() != K_) {
      s.counts.assign(K_, 0);
      s.order = TopicOrder(K_);
    }
    return s;
  }
  bool dense(std::size_t nonzero) const noexcept {
    return form_ == RowForm::kDense || (form_ == RowForm::kSmaller && 2 * nonzero > K_);
  }
  std::uint64_t row_words(std::size_t nonzero) const noexcept { return 1 + (dense(nonzero) ? K_ : 2 * nonzero); }
  void write_row(Scratch& s, std::uint32_t* out) const;

  std::uint32_t K_;
  RowForm form_;
  std::vector<Scratch> scratch_;  // by thread index in the arena
};

// The same counts in the other form: a dense block's rows packed (a checkpoint of version 1,
// tests), a packed block's rows dense with rows of `stride`.
model::Block pack_block(const model::Block& dense, std::uint32_t topics, std::size_t max_bytes, RowForm form = RowForm::kSmaller);
model::Block unpack_block(const model::Block& packed, std::uint32_t topics, std::size_t stride);

}  // namespace gyre::lda
