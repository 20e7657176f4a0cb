// tests/apps/mf/cell_order_test.cpp — sort_cell gives std::sort's (user, item, value) order, for dense and sparse id ranges, with repeated pairs.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "mf/cell_order.hpp"

using gyre::mf::LocalRating;

TEST_CASE("sort_cell: the order std::sort gives by user, item and value, whatever the cell's size and id ranges") {
  std::mt19937 random(11);
  const auto by_comparison = [](std::vector<LocalRating> cell) {
    std::sort(cell.begin(), cell.end(), [](const LocalRating& x, const LocalRating& y) {
      return x.user != y.user ? x.user < y.user : x.item != y.item ? x.item < y.item : x.value < y.value;
    });
    return cell;
  };
  for (const std::size_t n : {0u, 1u, 63u, 64u, 65u, 1000u, 50000u})
    for (const std::uint32_t spread : {3u, 50u, 5000u, 4000000u}) {  // few ids (many repeated pairs) to very sparse
      CAPTURE(n);
      CAPTURE(spread);
      std::vector<LocalRating> cell(n);
      const std::uint32_t user_base = random() % 1000, item_base = random() % 1000;
      for (auto& r : cell)
        r = {user_base + static_cast<std::uint32_t>(random() % spread), item_base + static_cast<std::uint32_t>(random() % spread),
             static_cast<float>(random() % 5) + 0.5f};
      const auto expected = by_comparison(cell);
      gyre::mf::sort_cell(cell);
      bool same = true;
      for (std::size_t i = 0; i < n; ++i)
        same = same && cell[i].user == expected[i].user && cell[i].item == expected[i].item &&
               cell[i].value == expected[i].value;
      CHECK(same);
    }
}
