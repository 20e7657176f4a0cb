// apps/lda/worker_tokens.cpp — counting sort of a shard's tokens into per-block grids.
#include "lda/worker_tokens.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

#include "gyre/rotation/cell_grid.hpp"

namespace gyre::lda {

WorkerTokens::WorkerTokens(const data::Corpus& shard, const model::RowBlocks& blocks, std::uint32_t groups,
                           std::uint32_t parts)
    : groups_(std::max(1u, groups)), parts_(std::max(1u, parts)) {
  if (shard.tokens() >= std::numeric_limits<std::uint32_t>::max())
    throw std::invalid_argument("a worker's shard has " + std::to_string(shard.tokens()) +
                                " tokens; at most 2^32-1 fit one worker: use more workers");
  const std::uint32_t G = groups_;
  const auto B = static_cast<std::uint32_t>(blocks.rows.size());
  const auto D = static_cast<std::uint32_t>(shard.docs());
  doc_begin_.resize(D + 1);
  for (std::uint32_t d = 0; d <= D; ++d) doc_begin_[d] = static_cast<std::uint32_t>(shard.doc_begin[d]);

  // A diagonal round waits for its slowest cell, so the grid is cut for equal cells.
  // Doc groups: each document, in order, to the group with the fewest tokens so far (ties to the
  // lowest), so that every group is balanced by tokens and a mix of the whole shard. Contiguous
  // ranges of documents made cells of very different sizes where neighbouring documents share
  // a vocabulary (SpamAssassin: from 24k to 211k tokens, one group's documents mostly in one
  // word sub-range). Word sub-ranges: contiguous rows of each block, cut below.
  std::vector<std::uint64_t> doc_tokens(D);
  for (std::uint32_t d = 0; d < D; ++d) doc_tokens[d] = doc_begin_[d + 1] - doc_begin_[d];
  std::vector<std::uint32_t> group_of(D);
  std::vector<std::vector<std::uint32_t>> group_docs(G);
  {
    std::vector<std::uint64_t> load(G, 0);
    for (std::uint32_t d = 0; d < D; ++d) {
      const auto g = static_cast<std::uint32_t>(std::min_element(load.begin(), load.end()) - load.begin());
      group_of[d] = g;
      group_docs[g].push_back(d);
      load[g] += doc_tokens[d];
    }
  }
  // A group's parts: runs of its documents (in id order) balanced by tokens, each kept as the
  // first document id of the run, so that a cell's part is one run of it.
  std::vector<std::uint32_t> run_of_doc(D);  // group · parts + part
  for (std::uint32_t g = 0; g < G; ++g) {
    std::vector<std::uint64_t> in_group;
    for (const std::uint32_t d : group_docs[g]) in_group.push_back(doc_tokens[d]);
    const auto cuts = rotation::balanced_cuts(in_group, parts_);
    for (std::uint32_t q = 0; q <= parts_; ++q)
      part_begin_.push_back(cuts[q] < group_docs[g].size() ? group_docs[g][cuts[q]] : D);
    for (std::uint32_t q = 0; q < parts_; ++q)
      for (std::uint32_t i = cuts[q]; i < cuts[q + 1]; ++i) run_of_doc[group_docs[g][i]] = g * parts_ + q;
  }

  std::vector<std::vector<std::uint64_t>> row_tokens(B);
  for (std::uint32_t b = 0; b < B; ++b) row_tokens[b].assign(blocks.rows[b].size(), 0);
  for (std::uint32_t w : shard.words) {
    if (w >= blocks.block_of.size())
      throw std::invalid_argument("word id " + std::to_string(w) + " outside the vocabulary");
    ++row_tokens[blocks.block_of[w]][blocks.row_of[w]];
  }
  std::vector<std::vector<std::uint32_t>> sub_of_row(B);
  sub_cut_.reserve(static_cast<std::size_t>(B) * (G + 1));
  for (std::uint32_t b = 0; b < B; ++b) {
    // Balanced by cost, not tokens: a row costs about G/2 tokens' worth a visit besides its
    // tokens (its setup in each cell that holds some of them, and the cache misses of its first
    // reads). SpamAssassin, K = 100, cut by tokens: cells of the sub-range of its rare words
    // took 1.7 times as long as the others for as many tokens; cut by this cost the sweeps ran
    // 10-15% faster, by tokens + 1/2 a row 5-8% slower than that.
    std::vector<std::uint64_t> row_cost(row_tokens[b]);
    for (auto& c : row_cost) c = 2 * c + G;  // in half tokens
    const auto cuts = rotation::balanced_cuts(row_cost, G);
    sub_cut_.insert(sub_cut_.end(), cuts.begin(), cuts.end());
    sub_of_row[b].resize(row_tokens[b].size());
    for (std::uint32_t s = 0; s < G; ++s)
      for (std::uint32_t row = cuts[s]; row < cuts[s + 1]; ++row) sub_of_row[b][row] = s;
  }

  // Word-major slots: a token's slot is its rank among the worker's tokens of its word,
  // after all tokens of the rows before it (counting sort by (block, row)).
  const auto& words = shard.words;
  block_row_begin_.resize(B + 1, 0);
  for (std::uint32_t b = 0; b < B; ++b) block_row_begin_[b + 1] = block_row_begin_[b] + blocks.rows[b].size() + 1;
  auto row_key = [&](std::uint32_t w) { return block_row_begin_[blocks.block_of[w]] + blocks.row_of[w]; };
  slot_begin_.assign(block_row_begin_[B] + 1, 0);
  for (std::uint32_t w : words) ++slot_begin_[row_key(w) + 1];
  for (std::size_t i = 0; i + 1 < slot_begin_.size(); ++i) slot_begin_[i + 1] += slot_begin_[i];

  // Tokens are produced in document order, so each cell ends up sorted by (document,
  // position) with no further sort.
  const std::size_t cells = static_cast<std::size_t>(B) * G * G;
  cells_ = rotation::CellIndex(G, rotation::bucket_by_cell<TokenRef>(
                                      [&](auto&& emit) {
                                        for (std::uint32_t d = 0; d < D; ++d)
                                          for (std::uint32_t p = doc_begin_[d]; p < doc_begin_[d + 1]; ++p) {
                                            const std::uint32_t w = words[p];
                                            const std::uint32_t b = blocks.block_of[w];
                                            const std::uint32_t row = blocks.row_of[w];
                                            emit(rotation::CellIndex::of(b, group_of[d], sub_of_row[b][row], G),
                                                 TokenRef{p, 0});
                                          }
                                      },
                                      cells, refs_));
  // A row's slots are cut into runs by (group, part) of their documents, in that order: a
  // cell's word-major pass is then one run per row.
  const std::size_t runs = static_cast<std::size_t>(G) * parts_;
  run_begin_.assign((slot_begin_.size() - 1) * (runs + 1), 0);
  for (std::uint32_t d = 0; d < D; ++d)
    for (std::uint32_t p = doc_begin_[d]; p < doc_begin_[d + 1]; ++p) ++run_begin_[row_key(words[p]) * (runs + 1) + run_of_doc[d] + 1];
  for (std::size_t key = 0; key + 1 < slot_begin_.size(); ++key) {
    std::uint32_t* run = run_begin_.data() + key * (runs + 1);
    run[0] = slot_begin_[key];
    for (std::size_t i = 0; i < runs; ++i) run[i + 1] += run[i];
  }
  // Each cell's rows that hold any of its tokens, so that its word-major passes skip the rest
  // (a rare word's row has tokens in few groups: most of a sub-range is empty for a cell), and
  // where each of those rows starts in the cell part's walk over them: a token's rank there
  // (TokenRef) is that start plus its place in its row's run.
  cell_rows_begin_.assign(cells * parts_ + 1, 0);
  std::vector<std::uint32_t> rank_base(run_begin_.size(), 0);  // per row key and run
  for (std::uint32_t b = 0; b < B; ++b)
    for (std::uint32_t g = 0; g < G; ++g)
      for (std::uint32_t s = 0; s < G; ++s)
        for (std::uint32_t q = 0; q < parts_; ++q) {
          const auto [first_row, last_row] = sub_rows(b, s);
          std::uint32_t walked = 0;
          for (std::uint32_t r = first_row; r < last_row; ++r) {
            const auto [first, last] = row_slots(b, r, g, q);
            if (first == last) continue;
            cell_rows_.push_back(r);
            rank_base[(block_row_begin_[b] + r) * (runs + 1) + g * parts_ + q] = walked;
            walked += last - first;
          }
          cell_rows_begin_[rotation::CellIndex::of(b, g, s, G) * parts_ + q + 1] = cell_rows_.size();
        }
  std::vector<std::uint32_t> next_slot(run_begin_);
  slot_pos_.resize(refs_.size());
  for (std::uint32_t b = 0; b < B; ++b)
    for (std::uint32_t g = 0; g < G; ++g)
      for (std::uint32_t s = 0; s < G; ++s) {  // the cells in their order in refs_
        const auto [first, last] = cells_.cell(b, g, s);
        if (first == last) continue;
        std::uint32_t d = doc_at(refs_[first].pos);  // a cell is in document order
        for (std::uint64_t i = first; i < last; ++i) {
          TokenRef& t = refs_[i];
          while (doc_begin_[d + 1] <= t.pos) ++d;
          const std::size_t at = row_key(words[t.pos]) * (runs + 1) + run_of_doc[d];
          const std::uint32_t slot = next_slot[at]++;
          t.rank = rank_base[at] + (slot - run_begin_[at]);
          slot_pos_[slot] = t.pos;
        }
      }
}

std::span<const TokenRef> WorkerTokens::cell(std::uint32_t block, std::uint32_t group, std::uint32_t sub) const {
  const auto [first, last] = cells_.cell(block, group, sub);
  return {refs_.data() + first, refs_.data() + last};
}

std::span<const TokenRef> WorkerTokens::cell(std::uint32_t block, std::uint32_t group, std::uint32_t sub,
                                             std::uint32_t part) const {
  const auto all = cell(block, group, sub);
  if (parts_ == 1) return all;
  // A cell is in document order, so a part's documents are one run of it.
  const std::uint32_t* bounds = part_begin_.data() + static_cast<std::size_t>(group) * (parts_ + 1) + part;
  const auto below = [this](std::uint32_t doc) { return [first = doc_begin_[doc]](const TokenRef& t) { return t.pos < first; }; };
  const auto first = std::partition_point(all.begin(), all.end(), below(bounds[0]));
  const auto last = std::partition_point(first, all.end(), below(bounds[1]));
  return {first, last};
}

void WorkerTokens::release_index() {
  // Swapped with empty ones: assigning {} would keep the capacity.
  std::vector<TokenRef>().swap(refs_);
  cells_ = rotation::CellIndex();
  for (auto* v : {&slot_begin_, &sub_cut_, &run_begin_, &slot_pos_, &cell_rows_}) std::vector<std::uint32_t>().swap(*v);
  for (auto* v : {&block_row_begin_, &cell_rows_begin_}) std::vector<std::uint64_t>().swap(*v);
}

std::span<const TokenRef> WorkerTokens::block(std::uint32_t b) const {
  const auto [first, last] = cells_.block(b);
  return {refs_.data() + first, refs_.data() + last};
}

}  // namespace gyre::lda
