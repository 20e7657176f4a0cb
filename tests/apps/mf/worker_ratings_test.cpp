// tests/apps/mf/worker_ratings_test.cpp — a worker's grid holds every rating of its shard once, packed to 10 bytes, in sub-blocks no wider than 16-bit rows reach.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <tuple>
#include <vector>

#include "mf/worker_ratings.hpp"

using namespace gyre;

namespace {

// A block far wider than 65,536 rows whose ratings are mostly on its first rows: cuts balanced
// by ratings alone would leave the long tail of rarely rated rows in one sub-block.
struct WideShard {
  data::RatingsSet train;
  mf::ItemBlocks blocks;
};

WideShard wide_shard(std::uint32_t items, std::uint32_t blocks, std::uint32_t busy_ratings = 200) {
  WideShard w;
  std::mt19937 rng(11);
  const std::uint32_t users = 300;
  w.train.users = users;
  w.train.items = items;
  for (std::uint32_t i = 0; i < items; ++i) {
    const std::uint32_t times = i < 500 ? busy_ratings : 1;
    for (std::uint32_t t = 0; t < times; ++t)
      w.train.ratings.push_back({static_cast<std::uint32_t>(rng() % users), i, static_cast<float>(rng() % 1000) / 100.0f});
  }
  std::shuffle(w.train.ratings.begin(), w.train.ratings.end(), rng);
  std::vector<std::uint64_t> counts(items, 0);
  for (const auto& r : w.train.ratings) ++counts[r.item];
  w.blocks = mf::ItemBlocks::balance(counts, blocks);
  return w;
}

using Triple = std::tuple<std::uint32_t, std::uint32_t, float>;  // global user, global item, value

// A cell's sort order, (user, row), as one number.
std::uint64_t order_key(const mf::CellRating& r) { return std::uint64_t{r.user} << 16 | r.row; }

}  // namespace

TEST_CASE("a grid over blocks wider than 16-bit rows holds every rating once, its sub-blocks capped and cells sorted") {
  for (const std::uint32_t B : {1u, 2u}) {
    CAPTURE(B);
    WideShard w = wide_shard(200'000, B);
    const std::uint32_t G = mf::min_groups(w.blocks);
    CHECK(G == (B == 1 ? 4u : 2u));  // 200,000 rows in one block; two blocks of about 100,000
    const mf::LocalUsers users = mf::LocalUsers::of(w.train, data::RatingsSet{});
    std::vector<Triple> expected;
    for (const auto& r : w.train.ratings) expected.emplace_back(r.user, r.item, r.value);
    const mf::WorkerRatings grid(w.train.ratings, users, w.blocks, G, 2);
    REQUIRE(grid.size() == expected.size());

    std::vector<Triple> seen;
    std::uint64_t position = 0;
    for (std::uint32_t b = 0; b < B; ++b) {
      std::uint64_t block_ratings = 0;
      for (std::uint32_t g = 0; g < G; ++g) {
        std::uint32_t first_row = 0;
        for (std::uint32_t s = 0; s < G; ++s) {
          const mf::Cell cell = grid.cell(b, g, s);
          CHECK(grid.position_of(cell) == position);  // cells lie one after another
          position += cell.ratings.size();
          block_ratings += cell.ratings.size();
          CHECK(cell.first_row >= first_row);
          first_row = cell.first_row;
          const std::uint32_t next_first = s + 1 < G ? grid.cell(b, g, s + 1).first_row : static_cast<std::uint32_t>(w.blocks.rows[b].size());
          CHECK(next_first - cell.first_row <= mf::kMaxSubBlockRows);
          for (std::size_t k = 0; k < cell.ratings.size(); ++k) {
            const mf::CellRating r = cell.ratings[k];
            const std::uint32_t row = cell.first_row + r.row;
            REQUIRE(row < next_first);
            // CellRating is packed: its members are read by value, never bound to a reference.
            const float value = r.value;
            seen.emplace_back(users.global_ids[r.user], w.blocks.rows[b][row], value);
            if (k > 0) {
              const mf::CellRating before = cell.ratings[k - 1];
              CHECK(order_key(before) <= order_key(r));
            }
          }
        }
      }
      CHECK(grid.block_size(b) == block_ratings);
    }
    std::sort(expected.begin(), expected.end());
    std::sort(seen.begin(), seen.end());
    CHECK(seen == expected);
  }
}

TEST_CASE("the rows of a tail that balanced cuts would put in one sub-block are spread") {
  WideShard w = wide_shard(150'000, 1, 600);
  // The 500 busy rows hold 300,000 of 449,500 ratings: cuts balanced by ratings alone would
  // leave over 100,000 tail rows in the last sub-block.
  std::vector<std::uint64_t> row_counts(150'000, 0);
  for (const auto& r : w.train.ratings) ++row_counts[w.blocks.row_of[r.item]];
  const auto by_ratings = rotation::balanced_cuts(row_counts, 4);
  REQUIRE(by_ratings[4] - by_ratings[3] > 100'000);

  const mf::LocalUsers users = mf::LocalUsers::of(w.train, data::RatingsSet{});
  const mf::WorkerRatings grid(w.train.ratings, users, w.blocks, 4, 1);
  std::vector<std::uint32_t> firsts;
  for (std::uint32_t s = 0; s < 4; ++s) firsts.push_back(grid.cell(0, 0, s).first_row);
  firsts.push_back(150'000);
  for (std::size_t s = 0; s < 4; ++s) CHECK(firsts[s + 1] - firsts[s] <= mf::kMaxSubBlockRows);
  CHECK(firsts[1] == by_ratings[1]);  // the busy rows' cuts stay where the ratings put them
}

TEST_CASE("a grid with too few groups for its blocks' rows is refused") {
  WideShard w = wide_shard(140'000, 1);
  const mf::LocalUsers users = mf::LocalUsers::of(w.train, data::RatingsSet{});
  CHECK_THROWS_AS(mf::WorkerRatings(w.train.ratings, users, w.blocks, 2, 1), std::invalid_argument);
  CHECK_NOTHROW(mf::WorkerRatings(w.train.ratings, users, w.blocks, 3, 1));
}
