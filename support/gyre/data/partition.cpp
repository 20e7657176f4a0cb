// gyre/data/partition.cpp — greedy user-to-shard assignment balanced by ratings count.
#include "gyre/data/partition.hpp"

#include <algorithm>
#include <functional>
#include <queue>
#include <stdexcept>
#include <utility>

namespace gyre::data {

UserPartition partition_users(const RatingsSet& set, std::uint32_t parts) {
  std::vector<std::uint64_t> count(set.users, 0);
  for (const Rating& r : set.ratings) {
    if (r.user >= set.users) throw std::invalid_argument("partition_users: user id outside the id space");
    ++count[r.user];
  }
  return partition_users(count, parts);
}

UserPartition partition_users(std::span<const std::uint64_t> count, std::uint32_t parts) {
  if (parts == 0) throw std::invalid_argument("partition_users: parts must be at least 1");
  const auto users = static_cast<std::uint32_t>(count.size());

  UserPartition partition;
  partition.parts = parts;
  partition.user_to_part.assign(users, 0);

  std::vector<std::uint32_t> rated;
  for (std::uint32_t u = 0; u < users; ++u) {
    if (count[u] > 0) {
      rated.push_back(u);
    } else {
      partition.user_to_part[u] = u % parts;
    }
  }
  // Heaviest first is the classic LPT rule: the late, light users fill the gaps the heavy
  // ones leave, which keeps max/mean close to 1 even for power-law user activity.
  std::sort(rated.begin(), rated.end(), [&](std::uint32_t a, std::uint32_t b) {
    return count[a] != count[b] ? count[a] > count[b] : a < b;
  });
  // (load, part) min-heap: ties go to the lowest part index, so the result is deterministic.
  using Load = std::pair<std::uint64_t, std::uint32_t>;
  std::priority_queue<Load, std::vector<Load>, std::greater<>> least;
  for (std::uint32_t p = 0; p < parts; ++p) least.push({0, p});
  for (const std::uint32_t u : rated) {
    auto [load, p] = least.top();
    least.pop();
    partition.user_to_part[u] = p;
    least.push({load + count[u], p});
  }
  return partition;
}

std::vector<RatingsSet> split_by_user(const RatingsSet& set, const UserPartition& partition) {
  if (partition.user_to_part.size() < set.users)
    throw std::invalid_argument("split_by_user: the partition covers fewer users than the set");
  std::vector<RatingsSet> shards(partition.parts);
  std::vector<std::size_t> sizes(partition.parts, 0);
  for (const Rating& r : set.ratings) ++sizes[partition.user_to_part.at(r.user)];
  for (std::uint32_t p = 0; p < partition.parts; ++p) {
    shards[p].users = set.users;
    shards[p].items = set.items;
    shards[p].ratings.reserve(sizes[p]);
  }
  for (const Rating& r : set.ratings) shards[partition.user_to_part[r.user]].ratings.push_back(r);
  return shards;
}

double balance(const std::vector<RatingsSet>& shards) {
  std::vector<std::uint64_t> sizes;
  for (const RatingsSet& s : shards) sizes.push_back(s.ratings.size());
  return max_over_mean(sizes);
}

double max_over_mean(std::span<const std::uint64_t> sizes) {
  std::uint64_t total = 0, largest = 0;
  for (const std::uint64_t n : sizes) {
    total += n;
    largest = std::max(largest, n);
  }
  if (total == 0) return 1.0;
  return static_cast<double>(largest) / (static_cast<double>(total) / static_cast<double>(sizes.size()));
}

std::vector<MergedRecord> merge_by_id(std::span<const std::span<const std::uint64_t>> ids_per_shard) {
  std::vector<MergedRecord> order;
  for (std::uint32_t s = 0; s < ids_per_shard.size(); ++s)
    for (std::uint64_t i = 0; i < ids_per_shard[s].size(); ++i) order.push_back({ids_per_shard[s][i], s, i});
  std::stable_sort(order.begin(), order.end(), [](const MergedRecord& a, const MergedRecord& b) { return a.id < b.id; });
  return order;
}

}  // namespace gyre::data
