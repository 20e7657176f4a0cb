// tests/apps/lda/lda_topic_order_test.cpp — TopicOrder puts distinct topics in the order std::sort does, by either of its two ways, and can be used again.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <span>
#include <stdexcept>
#include <vector>

#include "lda/topic_order.hpp"

using namespace gyre::lda;

namespace {

// n distinct topics below K, shuffled.
template <class Topic>
std::vector<Topic> distinct_topics(std::uint32_t K, std::size_t n, std::mt19937_64& rng) {
  std::vector<Topic> all(K);
  std::iota(all.begin(), all.end(), Topic{0});
  std::shuffle(all.begin(), all.end(), rng);
  all.resize(n);
  return all;
}

template <class Topic>
void check_orders(std::uint32_t K) {
  std::mt19937_64 rng(K);
  TopicOrder order(K);
  // From none to every topic: small sets take std::sort, large ones the bit set; the same
  // TopicOrder serves each in turn, so a set left uncleared would show in the next.
  for (const std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{2}, std::size_t{7}, std::size_t{40},
                              std::size_t{K / 8}, std::size_t{K / 2}, std::size_t{K - 1}, std::size_t{K}}) {
    for (int round = 0; round < 3; ++round) {
      CAPTURE(K);
      CAPTURE(n);
      auto topics = distinct_topics<Topic>(K, n, rng);
      auto expected = topics;
      std::sort(expected.begin(), expected.end());
      order.sort(std::span(topics));
      CHECK(topics == expected);
    }
  }
}

}  // namespace

TEST_CASE("TopicOrder sorts distinct topics as std::sort does, at small and large K, 16- and 32-bit") {
  check_orders<std::uint16_t>(1000);
  check_orders<std::uint16_t>(64);
  check_orders<std::uint32_t>(100000);
  check_orders<std::uint32_t>(70001);
}

TEST_CASE("TopicOrder refuses a topic given twice, and is clean for the next row") {
  TopicOrder order(1000);
  std::vector<std::uint32_t> twice(200);
  std::iota(twice.begin(), twice.end(), 0u);
  twice[199] = 5;  // 200 topics of which 199 distinct: the bit set's way (200 · 8 ≥ 16 words)
  CHECK_THROWS_AS(order.sort(std::span(twice)), std::logic_error);
  std::vector<std::uint32_t> next{999, 3, 500, 0, 64, 63, 65, 128, 1, 2, 4, 6, 7, 8, 9, 10};
  auto expected = next;
  std::sort(expected.begin(), expected.end());
  order.sort(std::span(next));
  CHECK(next == expected);
}
