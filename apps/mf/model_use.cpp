// apps/mf/model_use.cpp — using a trained model: scores of given pairs (predict) and each user's best items (recommend).
#include "mf/model_use.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <span>

#include "mf/text_output.hpp"

namespace gyre::mf {
namespace {

// Large enough that a task's overhead vanishes, small enough to spread over the threads.
constexpr std::size_t kPairsPerChunk = 16384;
// A block's scores (users × items floats) should stay in cache-sized pieces of work.
constexpr std::size_t kUsersPerBlock = 32;

struct Candidate {
  float score;
  std::uint32_t item;
};

// Ranks before: a higher score, or the same score and a lower item id (rows follow ids).
bool ranks_before(const Candidate& a, const Candidate& b) {
  return a.score > b.score || (a.score == b.score && a.item < b.item);
}

// The `top` best of one user's scores, best first, skipping the sorted rows in `skip`. A heap
// of the best so far whose root is the worst of them: O(items · log top).
void best_items(const float* scores, std::uint32_t items, std::uint32_t top, std::span<const std::uint32_t> skip,
                std::vector<Candidate>& heap) {
  heap.clear();
  auto next_skip = skip.begin();
  for (std::uint32_t i = 0; i < items; ++i) {
    if (next_skip != skip.end() && *next_skip == i) {
      while (next_skip != skip.end() && *next_skip == i) ++next_skip;  // a rating listed twice
      continue;
    }
    if (heap.size() < top) {
      heap.push_back({scores[i], i});
      std::push_heap(heap.begin(), heap.end(), ranks_before);
    } else if (scores[i] > heap.front().score) {
      // Items come in id order, so one that only ties the worst kept ranks after it: the
      // common case, a lower score, costs one comparison.
      std::pop_heap(heap.begin(), heap.end(), ranks_before);
      heap.back() = {scores[i], i};
      std::push_heap(heap.begin(), heap.end(), ranks_before);
    }
  }
  std::sort_heap(heap.begin(), heap.end(), ranks_before);
}

}  // namespace

PredictSummary predict(const Scorer& scorer, const Pairs& pairs, std::ostream& out) {
  const std::size_t n = pairs.users.size();
  const std::size_t chunks = (n + kPairsPerChunk - 1) / kPairsPerChunk;
  // Per chunk, summed in chunk order afterwards: the same RMSE for any thread count.
  std::vector<double> squared(chunks, 0.0);
  std::vector<std::uint64_t> rated(chunks, 0);
  write_chunks(out, chunks, [&](std::size_t c, std::string& text) {
    const std::size_t end = std::min(n, (c + 1) * kPairsPerChunk);
    for (std::size_t k = c * kPairsPerChunk; k < end; ++k) {
      const float score = scorer.score_partly(pairs.users[k], pairs.items[k]);
      if (!std::isnan(pairs.ratings[k])) {
        const double e = double{pairs.ratings[k]} - score;
        squared[c] += e * e;
        ++rated[c];
      }
      text += std::to_string(pairs.user_ids[k]);
      append_field(text, pairs.item_ids[k]);
      append_field(text, score);
      text.push_back('\n');
    }
  });
  PredictSummary summary;
  summary.pairs = n;
  summary.rated = std::accumulate(rated.begin(), rated.end(), std::uint64_t{0});
  const double total = std::accumulate(squared.begin(), squared.end(), 0.0);
  summary.rmse = summary.rated > 0 ? std::sqrt(total / static_cast<double>(summary.rated)) : 0.0;
  return summary;
}

void recommend(const Scorer& scorer, const std::vector<std::uint32_t>& users, std::uint32_t top,
               const RatedItems* exclude, std::ostream& out) {
  const std::size_t blocks = (users.size() + kUsersPerBlock - 1) / kUsersPerBlock;
  write_chunks(out, blocks, [&](std::size_t b, std::string& text) {
    const auto first = users.begin() + std::ptrdiff_t(b * kUsersPerBlock);
    const std::size_t count = std::min(kUsersPerBlock, users.size() - b * kUsersPerBlock);
    const std::vector<std::uint32_t> block(first, first + std::ptrdiff_t(count));
    Scorer::Matrix scores;
    scorer.score_all_items(block, scores);
    std::vector<Candidate> best;
    for (std::size_t r = 0; r < block.size(); ++r) {
      const std::uint32_t user = block[r];
      std::span<const std::uint32_t> skip;
      if (exclude != nullptr && !exclude->empty())
        skip = std::span<const std::uint32_t>(exclude->items)
                   .subspan(exclude->offsets[user], exclude->offsets[user + 1] - exclude->offsets[user]);
      best_items(scores.row(static_cast<Eigen::Index>(r)).data(), scorer.items(), top, skip, best);
      for (std::size_t k = 0; k < best.size(); ++k) {
        text += std::to_string(scorer.user_id(user));
        append_field(text, scorer.item_id(best[k].item));
        append_field(text, best[k].score);
        append_field(text, k + 1);
        text.push_back('\n');
      }
    }
  });
}

}  // namespace gyre::mf
