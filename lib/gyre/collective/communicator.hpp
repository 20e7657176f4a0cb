// gyre/collective/communicator.hpp — collectives over a ring of group ranks: allreduce, allgather, broadcast.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <span>
#include <type_traits>
#include <vector>

#include "gyre/base/buffer.hpp"
#include "gyre/base/export.hpp"
#include "gyre/runtime/mailbox.hpp"
#include "gyre/wire/channels.hpp"

namespace gyre::collective {

// Message type of collective traffic, the collective channel's one type (0x0100).
inline constexpr std::uint16_t kCollectiveMessage = wire::channels::kCollective.at(0);

struct CollectiveOptions {
  // Longest wait for one peer's part; past it the collective throws, naming the peer.
  std::chrono::milliseconds timeout{std::chrono::minutes(10)};
};

// The members (group ranks, in ring order) of the collectives this rank takes part in. Every
// member must call the same collectives in the same order with the same sizes (as in MPI):
// each call is numbered, and its messages are matched by that number and the sender, so a
// fast member's next collective never mixes with this one.
class GYRE_API Communicator {
 public:
  Communicator(runtime::Mailbox& inbox, std::vector<int> members, CollectiveOptions options = {});

  int size() const noexcept { return static_cast<int>(members_.size()); }
  int index() const noexcept { return index_; }  // this rank's position among the members
  int member(int index) const { return members_.at(static_cast<std::size_t>(index)); }  // its group rank
  runtime::Mailbox& inbox() noexcept { return inbox_; }  // the inbox its waits share with other consumers

  // Elementwise sum, the result on every member. Ring reduce-scatter then allgather: each
  // member sends and receives 2(n−1)/n of the data, whatever n. Integer sums are exact; the
  // order of floating-point additions depends only on n, so results are reproducible.
  template <class T>
  void allreduce_sum(std::span<T> data) {
    static_assert(std::is_arithmetic_v<T>);
    allreduce_bytes(std::as_writable_bytes(data), sizeof(T), [](std::byte* into, const std::byte* from, std::size_t n) {
      auto* a = reinterpret_cast<T*>(into);
      const auto* b = reinterpret_cast<const T*>(from);
      for (std::size_t i = 0; i < n; ++i) a[i] += b[i];
    });
  }

  // Every member's `mine` (all the same size), concatenated in member order into `all`.
  template <class T>
  void allgather(std::span<const T> mine, std::span<T> all) {
    static_assert(std::is_trivially_copyable_v<T>);
    allgather_bytes(std::as_bytes(mine), std::as_writable_bytes(all));
  }

  // The root member's `data` on every member.
  template <class T>
  void broadcast(std::span<T> data, int root_index) {
    static_assert(std::is_trivially_copyable_v<T>);
    broadcast_bytes(std::as_writable_bytes(data), root_index);
  }

  // The parts other collectives are made of (partition tables, in partition_collectives.hpp):
  // each collective takes the next op number, then sends at most one message per member and
  // step of that op. The messages carry type kCollectiveMessage and tag message_tag(op, step).
  std::uint64_t begin_op() noexcept { return next_op_++; }
  static std::uint64_t message_tag(std::uint64_t op, std::uint32_t step) noexcept { return (op << 20) | step; }
  void send(int to_index, std::uint64_t op, std::uint32_t step, Buffer body);
  // That member's message of the op's step, whatever its size; throws naming the member's rank
  // when none comes within the timeout.
  Buffer receive(int from_index, std::uint64_t op, std::uint32_t step);

 private:
  using Combine = void (*)(std::byte* into, const std::byte* from, std::size_t elements);
  void allreduce_bytes(std::span<std::byte> data, std::size_t element, Combine combine);
  void allgather_bytes(std::span<const std::byte> mine, std::span<std::byte> all);
  void broadcast_bytes(std::span<std::byte> data, int root_index);

  void send(int to_index, std::uint64_t op, std::uint32_t step, std::span<const std::byte> bytes);
  void receive(int from_index, std::uint64_t op, std::uint32_t step, std::span<std::byte> into);  // exactly its size
  int next() const noexcept { return (index_ + 1) % size(); }
  int previous() const noexcept { return (index_ + size() - 1) % size(); }

  runtime::Mailbox& inbox_;
  std::vector<int> members_;
  int index_ = -1;
  CollectiveOptions options_;
  std::uint64_t next_op_ = 0;
};

}  // namespace gyre::collective
