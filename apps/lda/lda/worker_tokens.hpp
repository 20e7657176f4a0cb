// apps/lda/lda/worker_tokens.hpp — a worker's tokens laid out for sampling: per word block, a grid of doc groups × word sub-ranges.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "gyre/data/corpus.hpp"
#include "gyre/model/row_blocks.hpp"

namespace gyre::lda {

// One token as the sampler sees it: its document (local index), its word's row in the word's
// block, and its position in the worker's doc-major token order (where its topic lives).
struct TokenRef {
  std::uint32_t doc;
  std::uint32_t row;
  std::uint32_t pos;
};

// Cell (g, s) of block b holds the tokens of documents in group g whose words are in rows of
// sub-range s of block b, in document order: a document's topic counts stay in L1 across its
// tokens and the sub-range's word rows in L2. Documents never leave their worker.
class WorkerTokens {
 public:
  WorkerTokens(const data::Corpus& shard, const model::RowBlocks& blocks, std::uint32_t groups);

  std::uint32_t groups() const noexcept { return groups_; }
  std::uint32_t docs() const noexcept { return static_cast<std::uint32_t>(doc_begin_.size() - 1); }
  std::uint64_t tokens() const noexcept { return refs_.size(); }
  // Tokens of local document d occupy positions [doc_begin(d), doc_begin(d+1)).
  std::uint32_t doc_begin(std::uint32_t d) const noexcept { return doc_begin_[d]; }
  std::span<const TokenRef> cell(std::uint32_t block, std::uint32_t group, std::uint32_t sub) const;
  std::span<const TokenRef> block(std::uint32_t b) const;
  std::uint32_t word(std::uint32_t pos) const noexcept { return words_[pos]; }
  // Positions of this worker's tokens of row `row` of block b (the tokens of one word).
  std::span<const std::uint32_t> positions(std::uint32_t block, std::uint32_t row) const {
    const std::uint64_t* begin = row_begin_.data() + block_row_begin_[block] + row;
    return {positions_.data() + begin[0], positions_.data() + begin[1]};
  }

 private:
  std::uint32_t groups_;
  std::vector<std::uint32_t> doc_begin_;  // local docs + 1
  std::vector<std::uint32_t> words_;      // word id per position
  std::vector<TokenRef> refs_;
  std::vector<std::uint64_t> cell_begin_;  // (block·G + g)·G + s → offset; one extra at the end
  // positions_ grouped by (block, row): row r of block b is [row_begin_[block_row_begin_[b] + r], … + 1).
  std::vector<std::uint32_t> positions_;
  std::vector<std::uint64_t> row_begin_;
  std::vector<std::uint64_t> block_row_begin_;
};

}  // namespace gyre::lda
