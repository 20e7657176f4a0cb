// tests/apps/lda/lda_parts_test.cpp — a worker's documents in S parts (the allreduce model's sub-epochs): each token in one part, parts balanced, each swept once.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "gyre/collective/communicator.hpp"
#include "gyre/data/corpus.hpp"
#include "gyre/net/inproc.hpp"
#include "lda/trainer.hpp"
#include "lda/worker_tokens.hpp"

using namespace gyre;

namespace {

// 400 documents of 1..50 tokens over 100 words.
data::Corpus corpus() {
  data::Corpus c;
  for (int w = 0; w < 100; ++w) c.vocab.push_back("w" + std::to_string(w));
  std::mt19937_64 rng(3);
  for (std::uint64_t d = 0; d < 400; ++d) {
    std::vector<std::uint32_t> words(1 + rng() % 50);
    for (auto& w : words) w = static_cast<std::uint32_t>(rng() % 100);
    c.add_doc(d, words);
  }
  return c;
}

// Every local document's part, from where its tokens lie (-1: no token seen yet).
std::vector<int> part_of_docs(const lda::WorkerTokens& t, std::uint32_t blocks) {
  std::vector<int> part(t.docs(), -1);
  for (std::uint32_t b = 0; b < blocks; ++b)
    for (std::uint32_t g = 0; g < t.groups(); ++g)
      for (std::uint32_t s = 0; s < t.groups(); ++s)
        for (std::uint32_t p = 0; p < t.parts(); ++p)
          for (const auto& token : t.cell(b, g, s, p)) {
            const std::uint32_t doc = t.doc_at(token.pos);
            REQUIRE(t.doc_begin(doc) <= token.pos);
            REQUIRE(token.pos < t.doc_begin(doc + 1));
            if (part[doc] == -1) part[doc] = static_cast<int>(p);
            REQUIRE(part[doc] == static_cast<int>(p));  // a document is in one part
          }
  return part;
}

}  // namespace

TEST_CASE("document parts cut every cell into consecutive runs: each token in exactly one part, parts balanced") {
  const auto c = corpus();
  const auto blocks = model::RowBlocks::balance(data::count_words(std::span(&c, 1)), 3);
  for (std::uint32_t parts : {1u, 2u, 4u, 7u}) {
    CAPTURE(parts);
    const std::uint32_t G = 3;
    const lda::WorkerTokens t(c, blocks, G, parts);
    REQUIRE(t.parts() == parts);
    std::vector<int> seen(c.tokens(), 0);
    std::vector<std::uint64_t> per_part(parts, 0);
    for (std::uint32_t b = 0; b < 3; ++b)
      for (std::uint32_t g = 0; g < G; ++g)
        for (std::uint32_t s = 0; s < G; ++s) {
          const auto whole = t.cell(b, g, s);
          std::size_t at = 0;
          for (std::uint32_t p = 0; p < parts; ++p) {
            const auto run = t.cell(b, g, s, p);
            CHECK(run.data() == whole.data() + at);
            at += run.size();
            per_part[p] += run.size();
            for (const auto& token : run) ++seen[token.pos];
          }
          CHECK(at == whole.size());
        }
    CHECK(std::all_of(seen.begin(), seen.end(), [](int n) { return n == 1; }));
    part_of_docs(t, 3);
    // Each group's documents are cut by tokens, so a part is off its share by at most a
    // document (50 tokens) per group.
    for (std::uint32_t p = 0; p < parts; ++p) {
      CAPTURE(p);
      CHECK(std::abs(static_cast<double>(per_part[p]) - static_cast<double>(c.tokens()) / parts) <= G * 50.0);
    }
  }
}

TEST_CASE("a token's document is found from its position, empty documents passed over") {
  data::Corpus c;
  for (int w = 0; w < 4; ++w) c.vocab.push_back("w" + std::to_string(w));
  // Empty documents first, between and last: each shares its start with the next.
  const std::vector<std::vector<std::uint32_t>> docs{{}, {0, 1}, {}, {}, {2}, {3, 0, 1}, {}};
  for (std::uint64_t d = 0; d < docs.size(); ++d) c.add_doc(d, docs[d]);
  const auto blocks = model::RowBlocks::balance(data::count_words(std::span(&c, 1)), 2);
  const lda::WorkerTokens t(c, blocks, 2);
  const std::vector<std::uint32_t> expected{1, 1, 4, 5, 5, 5};
  for (std::uint32_t pos = 0; pos < expected.size(); ++pos) {
    CAPTURE(pos);
    CHECK(t.doc_at(pos) == expected[pos]);
  }
  std::vector<std::uint32_t> seen(c.tokens(), 0);  // and the cells' tokens, as the sampler walks them
  for (std::uint32_t b = 0; b < 2; ++b)
    for (std::uint32_t g = 0; g < 2; ++g)
      for (std::uint32_t s = 0; s < 2; ++s)
        for (const auto& token : t.cell(b, g, s)) ++seen[token.pos];
  CHECK(std::all_of(seen.begin(), seen.end(), [](std::uint32_t n) { return n == 1; }));
}

TEST_CASE("a cell's word-major pass reads one run of slots per row it visits: exactly the cell's tokens, each ranked at its own slot of the walk") {
  const auto c = corpus();
  const auto blocks = model::RowBlocks::balance(data::count_words(std::span(&c, 1)), 3);
  for (std::uint32_t parts : {1u, 3u}) {
    CAPTURE(parts);
    const std::uint32_t G = 3;
    const lda::WorkerTokens t(c, blocks, G, parts);
    std::vector<int> slot_seen(c.tokens(), 0);
    for (std::uint32_t b = 0; b < 3; ++b) {
      std::uint32_t next_row = 0;
      for (std::uint32_t s = 0; s < G; ++s) {
        const auto [first_row, last_row] = t.sub_rows(b, s);
        CHECK(first_row == next_row);  // the sub-ranges tile the block's rows
        next_row = last_row;
        for (std::uint32_t g = 0; g < G; ++g)
          for (std::uint32_t p = 0; p < parts; ++p) {
            std::vector<std::uint32_t> by_rows, rows_with_tokens;  // the slots in walk order
            for (std::uint32_t r = first_row; r < last_row; ++r) {
              const auto [first, last] = t.row_slots(b, r, g, p);
              CHECK(first >= t.rows(b)[r]);
              CHECK(last <= t.rows(b)[r + 1]);
              if (first != last) rows_with_tokens.push_back(r);
              for (std::uint32_t slot = first; slot < last; ++slot) {
                by_rows.push_back(slot);
                ++slot_seen[slot];
              }
            }
            // The rows the passes visit: those, in order, and no other.
            const auto visited = t.cell_rows(b, g, s, p);
            CHECK(std::vector<std::uint32_t>(visited.begin(), visited.end()) == rows_with_tokens);
            // Each of the cell's tokens is ranked at its own slot of that walk, and every slot
            // of it is some token's.
            std::vector<int> rank_seen(by_rows.size(), 0);
            for (const auto& token : t.cell(b, g, s, p)) {
              REQUIRE(token.rank < by_rows.size());
              ++rank_seen[token.rank];
              CHECK(t.slot_positions()[by_rows[token.rank]] == token.pos);
              const std::uint32_t row = blocks.row_of[c.words[token.pos]];
              CHECK(row >= first_row);
              CHECK(row < last_row);
            }
            CHECK(std::all_of(rank_seen.begin(), rank_seen.end(), [](int n) { return n == 1; }));
          }
      }
      CHECK(next_row == blocks.rows[b].size());
    }
    CHECK(std::all_of(slot_seen.begin(), slot_seen.end(), [](int n) { return n == 1; }));
  }
}

TEST_CASE("a sweep of one document part resamples that part's tokens only, and all parts sample every token once") {
  const auto c = corpus();
  lda::LdaConfig config;
  config.topics = 6;
  config.threads = 2;
  config.model = lda::ComputationModel::kAllreduce;
  config.syncs_per_epoch = 3;
  config.depth = 2;
  const auto plan = lda::plan_job(config, c.vocab_size(), data::count_words(std::span(&c, 1)));
  const auto kernel = lda::make_kernel(plan, 0, c);
  auto groups = net::make_inproc_groups(1);
  runtime::Mailbox inbox(*groups[0]);
  collective::Communicator one(inbox, {0});
  kernel->attach(one);
  auto blocks = lda::initial_blocks(plan, 0);
  for (auto& b : blocks) kernel->add_initial_topics(b);
  kernel->sync_totals();
  kernel->take_phase_sums(rotation::PhaseKind::kTrain);

  const lda::WorkerTokens t(c, plan.blocks, plan.groups, 3);
  const auto part = part_of_docs(t, static_cast<std::uint32_t>(blocks.size()));
  std::vector<int> part_of_token(c.tokens());
  for (std::uint32_t d = 0; d < t.docs(); ++d)
    for (std::uint32_t p = t.doc_begin(d); p < t.doc_begin(d + 1); ++p) part_of_token[p] = part[d];
  for (std::uint32_t p = 0; p < 3; ++p) {
    CAPTURE(p);
    const auto before = kernel->assignments();
    for (auto& b : blocks) kernel->sweep(b, p);
    const auto& after = kernel->assignments();
    std::size_t moved = 0, moved_elsewhere = 0;
    for (std::size_t i = 0; i < before.size(); ++i)
      if (before[i] != after[i]) (part_of_token[i] == static_cast<int>(p) ? moved : moved_elsewhere)++;
    CHECK(moved > 0);
    CHECK(moved_elsewhere == 0);
  }
  kernel->sync_totals();
  CHECK(rotation::report_of<lda::LdaReport>(kernel->take_phase_sums(rotation::PhaseKind::kTrain)).tokens_sampled ==
        static_cast<double>(c.tokens()));
  CHECK_THROWS_AS(kernel->sweep(blocks[0], 3), std::logic_error);
}
