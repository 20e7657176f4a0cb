// apps/lda/lda/worker_tokens.hpp — a worker's tokens laid out for sampling: per word block, a grid of doc groups × word sub-ranges.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "gyre/data/corpus.hpp"
#include "gyre/model/row_blocks.hpp"
#include "gyre/rotation/cell_grid.hpp"

namespace gyre::lda {

// One token as the doc-major pass sees it: its position in doc-major order, and its rank in
// its cell part's word-major walk (the rows of cell_rows in order, the run of row_slots of
// each), where the sampler keeps the token's Metropolis-Hastings state for the cell's visit. A
// token's topic is kept in both orders, so that drawing "a random token of this document" and
// "a random token of this word" each read one contiguous run instead of missing the cache.
// (Its document is not kept: a cell is in document order, so the pass finds each document from
// the positions, and 4 bytes a token is 80 MB on 20M tokens; nor is its word's row: the
// word-major passes walk rows and their slots.)
struct TokenRef {
  std::uint32_t pos;
  std::uint32_t rank;
};

// Cell (g, s) of block b holds the tokens of documents in group g whose words are in rows of
// sub-range s of block b, in document order: a document's topic counts stay in L1 across its
// tokens and the sub-range's word rows in L2. Documents never leave their worker.
//
// The documents of each group are also cut into `parts` runs balanced by tokens (the allreduce
// model samples one part of every group per sub-epoch, so that all G groups keep the threads
// busy); a part of a cell is then a contiguous run of it.
class WorkerTokens {
 public:
  WorkerTokens(const data::Corpus& shard, const model::RowBlocks& blocks, std::uint32_t groups,
               std::uint32_t parts = 1);

  std::uint32_t groups() const noexcept { return groups_; }
  std::uint32_t parts() const noexcept { return parts_; }
  std::uint32_t docs() const noexcept { return static_cast<std::uint32_t>(doc_begin_.size() - 1); }
  std::uint64_t tokens() const noexcept { return refs_.size(); }
  // Tokens of local document d occupy positions [doc_begin(d), doc_begin(d+1)).
  std::uint32_t doc_begin(std::uint32_t d) const noexcept { return doc_begin_[d]; }
  // The local document that holds position `pos` (below tokens()).
  std::uint32_t doc_at(std::uint32_t pos) const noexcept {
    return static_cast<std::uint32_t>(std::upper_bound(doc_begin_.begin(), doc_begin_.end(), pos) - doc_begin_.begin() - 1);
  }
  // Row r of block b's tokens occupy slots [rows(b)[r], rows(b)[r+1]).
  const std::uint32_t* rows(std::uint32_t block) const noexcept { return slot_begin_.data() + block_row_begin_[block]; }
  std::span<const TokenRef> cell(std::uint32_t block, std::uint32_t group, std::uint32_t sub) const;
  // The tokens of that cell whose documents are in part `part` of the group (all of them when
  // there is one part).
  std::span<const TokenRef> cell(std::uint32_t block, std::uint32_t group, std::uint32_t sub, std::uint32_t part) const;
  std::span<const TokenRef> block(std::uint32_t b) const;

  // The rows of block b whose tokens are in sub-range `sub`: [first, last).
  std::pair<std::uint32_t, std::uint32_t> sub_rows(std::uint32_t block, std::uint32_t sub) const noexcept {
    const std::uint32_t* cuts = sub_cut_.data() + static_cast<std::size_t>(block) * (groups_ + 1) + sub;
    return {cuts[0], cuts[1]};
  }
  // The slots of row r of block b whose documents are in part `part` of group `group`: one
  // run [first, last), so that a word-major pass over one cell reads its tokens in order.
  std::pair<std::uint32_t, std::uint32_t> row_slots(std::uint32_t block, std::uint32_t row, std::uint32_t group,
                                                    std::uint32_t part) const noexcept {
    const std::size_t runs = static_cast<std::size_t>(groups_) * parts_;
    const std::uint32_t* begin = run_begin_.data() + (block_row_begin_[block] + row) * (runs + 1) + group * parts_ + part;
    return {begin[0], begin[1]};
  }
  // The rows of sub-range `sub` of block b that hold tokens of part `part` of group `group`, in
  // order: the rows a word-major pass over that cell visits.
  std::span<const std::uint32_t> cell_rows(std::uint32_t block, std::uint32_t group, std::uint32_t sub,
                                           std::uint32_t part) const noexcept {
    const std::uint64_t* at = cell_rows_begin_.data() + rotation::CellIndex::of(block, group, sub, groups_) * parts_ + part;
    return {cell_rows_.data() + at[0], cell_rows_.data() + at[1]};
  }
  // Frees everything but the documents' bounds (doc_begin, docs), which is all a finished
  // sampler still reads.
  void release_index();
  // The doc-major position of the token in each slot.
  const std::uint32_t* slot_positions() const noexcept { return slot_pos_.data(); }

 private:
  std::uint32_t groups_;
  std::uint32_t parts_;
  std::vector<std::uint32_t> doc_begin_;  // local docs + 1
  std::vector<std::uint32_t> part_begin_;  // per group, parts + 1: each part's first local document (D: none)
  std::vector<TokenRef> refs_;
  rotation::CellIndex cells_;
  // Word-major slots: block b's rows start at slot_begin_[block_row_begin_[b]], one entry per
  // row plus one closing entry per block.
  std::vector<std::uint32_t> slot_begin_;
  std::vector<std::uint64_t> block_row_begin_;
  std::vector<std::uint32_t> sub_cut_;    // per block, groups + 1 row boundaries
  std::vector<std::uint32_t> run_begin_;  // per row key, groups · parts + 1 slot boundaries
  std::vector<std::uint32_t> slot_pos_;   // per slot
  std::vector<std::uint32_t> cell_rows_;  // per cell and part, the rows holding its tokens
  std::vector<std::uint64_t> cell_rows_begin_;  // per cell and part + 1: where its rows start
};

}  // namespace gyre::lda
