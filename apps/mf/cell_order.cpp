// apps/mf/cell_order.cpp — a cell's ratings in (user, item, value) order: two counting sorts, then runs by value.
#include "mf/cell_order.hpp"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace gyre::mf {
namespace {

bool before(const LocalRating& x, const LocalRating& y) {
  return x.user != y.user ? x.user < y.user : x.item != y.item ? x.item < y.item : x.value < y.value;
}

// Moves `from` into `to` stably by key(r) - low, a key in [0, range).
template <class Key>
void counting_pass(std::span<const LocalRating> from, std::span<LocalRating> to, std::uint32_t low, std::size_t range,
                   std::vector<std::size_t>& starts, const Key& key) {
  starts.assign(range + 1, 0);
  for (const LocalRating& r : from) ++starts[key(r) - low + 1];
  for (std::size_t k = 1; k <= range; ++k) starts[k] += starts[k - 1];
  for (const LocalRating& r : from) to[starts[key(r) - low]++] = r;
}

}  // namespace

void sort_cell(std::span<LocalRating> cell) {
  const std::size_t n = cell.size();
  if (n < 64) {
    std::sort(cell.begin(), cell.end(), before);
    return;
  }
  std::uint32_t user_low = UINT32_MAX, user_high = 0, item_low = UINT32_MAX, item_high = 0;
  for (const LocalRating& r : cell) {
    user_low = std::min(user_low, r.user);
    user_high = std::max(user_high, r.user);
    item_low = std::min(item_low, r.item);
    item_high = std::max(item_high, r.item);
  }
  const std::size_t users = std::size_t{user_high} - user_low + 1, items = std::size_t{item_high} - item_low + 1;
  if (users + items > 4 * n) {  // counts mostly zero: comparison is cheaper
    std::sort(cell.begin(), cell.end(), before);
    return;
  }
  std::vector<LocalRating> by_item(n);
  std::vector<std::size_t> starts;
  counting_pass(cell, by_item, item_low, items, starts, [](const LocalRating& r) { return r.item; });
  counting_pass(by_item, cell, user_low, users, starts, [](const LocalRating& r) { return r.user; });
  // Now by (user, item), ties in input order: each run of one pair by value.
  for (std::size_t i = 0; i < n;) {
    std::size_t j = i + 1;
    while (j < n && cell[j].user == cell[i].user && cell[j].item == cell[i].item) ++j;
    if (j - i > 1) std::sort(cell.begin() + static_cast<std::ptrdiff_t>(i), cell.begin() + static_cast<std::ptrdiff_t>(j), before);
    i = j;
  }
}

}  // namespace gyre::mf
