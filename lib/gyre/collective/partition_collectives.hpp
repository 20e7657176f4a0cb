// gyre/collective/partition_collectives.hpp — Harp's partition-table collectives: regroup, allgather, push, pull.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <span>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include "gyre/collective/communicator.hpp"
#include "gyre/collective/partition_wire.hpp"

namespace gyre::collective {

// A keyed model, as in Harp: partitions with integer ids, each a vector of numbers; two copies
// of a partition combine by elementwise sum, so the same partition may be held (as a partial
// sum or a delta) by several members.
template <class T>
struct PartitionTable {
  static_assert(std::is_arithmetic_v<T> && !std::is_same_v<T, bool>);
  std::map<std::uint32_t, std::vector<T>> parts;

  bool operator==(const PartitionTable&) const = default;
};

// The member (an index into the communicator's members, not a group rank) that owns partition
// `id`. Every member must pass the same partitioner to a collective; an empty one means id mod n.
using Partitioner = std::function<int(std::uint32_t id)>;

namespace detail {

// `partitioner`'s (or the default) owner of `id` among `members`; throws std::invalid_argument
// for an answer out of range.
int owner_index(const Partitioner& partitioner, std::uint32_t id, int members);

// A received body and the partitions decoded from it, which point into the body.
struct ReceivedPartitions {
  Buffer body;
  std::vector<PartitionBytes> parts;
};
// Member `from`'s partitions of the op's step. With `owned_here` set, each must be one this
// member owns under that partitioner, else it throws naming the sender.
ReceivedPartitions receive_partitions(Communicator& comm, int from, std::uint64_t op, std::uint32_t step,
                                      std::size_t element_size, const Partitioner* owned_here = nullptr);

// Throws naming `owner_rank` unless `got` holds exactly the ids in `wanted`.
void check_pulled(std::span<const std::uint32_t> wanted, std::span<const PartitionBytes> got, int owner_rank);

[[noreturn]] void length_mismatch(std::uint32_t id, int rank, std::size_t elements, std::size_t expected,
                                  const char* expected_what);

template <class T>
PartitionBytes bytes_of(std::uint32_t id, const std::vector<T>& values) {
  return {id, values.size(), std::as_bytes(std::span<const T>(values))};
}

// Folds member `rank`'s copy of a partition into `parts`: a new id is copied in, a known one
// summed into (the received bytes need not be aligned for T).
template <class T>
void combine(std::map<std::uint32_t, std::vector<T>>& parts, const PartitionBytes& part, int rank) {
  auto [it, fresh] = parts.try_emplace(part.id);
  auto& into = it->second;
  if (fresh) {
    into.resize(part.elements);
    if (part.elements != 0) std::memcpy(into.data(), part.bytes.data(), part.bytes.size());
    return;
  }
  if (into.size() != part.elements)
    length_mismatch(part.id, rank, part.elements, into.size(), "the copies combined before it have");
  for (std::size_t i = 0; i < into.size(); ++i) {
    T x;
    std::memcpy(&x, part.bytes.data() + i * sizeof(T), sizeof(T));
    into[i] += x;
  }
}

// Replaces `into` with the owner's (rank `rank`) value of a partition, which must have its length.
template <class T>
void assign(std::vector<T>& into, const PartitionBytes& part, int rank) {
  if (into.size() != part.elements) length_mismatch(part.id, rank, part.elements, into.size(), "the local copy has");
  if (part.elements != 0) std::memcpy(into.data(), part.bytes.data(), part.bytes.size());
}

// One step of op: sends `to[m]` to every other member m, then folds into `into`, in member
// order, this member's own `to[index]` and what every other member sent it.
template <class T>
void send_and_combine(Communicator& comm, std::uint64_t op, const std::vector<std::vector<PartitionBytes>>& to,
                      std::map<std::uint32_t, std::vector<T>>& into, const Partitioner* owned_here) {
  for (int m = 0; m < comm.size(); ++m)
    if (m != comm.index()) comm.send(m, op, 0, encode_partitions(to[static_cast<std::size_t>(m)], sizeof(T)));
  for (int m = 0; m < comm.size(); ++m) {
    if (m == comm.index()) {
      for (const auto& p : to[static_cast<std::size_t>(m)]) combine(into, p, comm.member(m));
      continue;
    }
    const auto received = receive_partitions(comm, m, op, 0, sizeof(T), owned_here);
    for (const auto& p : received.parts) combine(into, p, comm.member(m));
  }
}

}  // namespace detail

// All four are collective: every member calls them in the same order, with the same
// partitioner. Partitions are combined in member order, whatever order messages arrive in, so
// floating-point results are bitwise reproducible and the same on every backend. A member
// that sends a malformed message, or a partition whose length differs from another member's
// copy, makes the call throw std::runtime_error naming that member's rank.

// For a model too large to replicate: `global` holds the partitions this member owns, `local`
// whichever partitions (typically deltas) this member has. Every member's local partitions are
// sent to their owners, which sum them into their global ones (creating those absent). `local`
// and `global` must be different tables; on error `global` may be partly updated.
template <class T>
void push(Communicator& comm, const PartitionTable<T>& local, PartitionTable<T>& global,
          const Partitioner& partitioner = {}) {
  if (&local == &global) throw std::invalid_argument("push: local and global are the same table");
  const std::uint64_t op = comm.begin_op();
  const int n = comm.size();
  std::vector<std::vector<PartitionBytes>> by_owner(static_cast<std::size_t>(n));
  for (const auto& [id, values] : local.parts) {
    const int owner = detail::owner_index(partitioner, id, n);
    by_owner[static_cast<std::size_t>(owner)].push_back(detail::bytes_of(id, values));
  }
  detail::send_and_combine(comm, op, by_owner, global.parts, &partitioner);
}

// Moves every partition to its owner, summing all members' copies of it: afterwards `table`
// holds exactly the partitions this member owns that some member held. Each member sends one
// message to each other member. On error `table` is unchanged.
template <class T>
void regroup(Communicator& comm, PartitionTable<T>& table, const Partitioner& partitioner = {}) {
  PartitionTable<T> owned;
  push(comm, table, owned, partitioner);
  table = std::move(owned);
}

// Gives every member every partition of every member's table, copies of one id summed in
// member order (after a regroup there is one copy of each). regroup then allgather is an
// allreduce of a sparse model. On error `table` is unchanged.
template <class T>
void allgather(Communicator& comm, PartitionTable<T>& table) {
  const std::uint64_t op = comm.begin_op();
  std::vector<PartitionBytes> mine;
  for (const auto& [id, values] : table.parts) mine.push_back(detail::bytes_of(id, values));
  PartitionTable<T> all;
  detail::send_and_combine(comm, op, std::vector(static_cast<std::size_t>(comm.size()), mine), all.parts, nullptr);
  table = std::move(all);
}

// Refreshes every partition in `local` from its owner's partition in `global` (see push). Only
// the ids a member holds travel: it asks each owner for its ids, and each owner answers with
// those values. An id whose owner holds no such global partition is an error naming the owner;
// on error `local` may be partly refreshed.
template <class T>
void pull(Communicator& comm, const PartitionTable<T>& global, PartitionTable<T>& local,
          const Partitioner& partitioner = {}) {
  const std::uint64_t op = comm.begin_op();
  const int n = comm.size();
  const int me = comm.index();
  std::vector<std::vector<std::uint32_t>> wanted(static_cast<std::size_t>(n));
  for (const auto& [id, values] : local.parts)
    wanted[static_cast<std::size_t>(detail::owner_index(partitioner, id, n))].push_back(id);
  for (int m = 0; m < n; ++m)
    if (m != me) comm.send(m, op, 0, encode_partition_ids(wanted[static_cast<std::size_t>(m)]));
  // Answer every member before this member's own checks can throw, so none is left waiting. An
  // id this member does not own or hold goes unanswered, and the asker names this member.
  for (int m = 0; m < n; ++m) {
    if (m == me) continue;
    const auto asked = decode_partition_ids(comm.receive(m, op, 0).bytes(), comm.member(m));
    std::vector<PartitionBytes> answer;
    for (const std::uint32_t id : asked) {
      const auto it = global.parts.find(id);
      if (it != global.parts.end() && detail::owner_index(partitioner, id, n) == me)
        answer.push_back(detail::bytes_of(id, it->second));
    }
    comm.send(m, op, 1, encode_partitions(answer, sizeof(T)));
  }
  for (int m = 0; m < n; ++m) {
    const auto& ids = wanted[static_cast<std::size_t>(m)];
    if (m == me) {
      std::vector<PartitionBytes> own;
      for (const std::uint32_t id : ids)
        if (const auto it = global.parts.find(id); it != global.parts.end())
          own.push_back(detail::bytes_of(id, it->second));
      detail::check_pulled(ids, own, comm.member(m));
      for (const auto& p : own) detail::assign(local.parts.at(p.id), p, comm.member(m));
      continue;
    }
    const auto received = detail::receive_partitions(comm, m, op, 1, sizeof(T));
    detail::check_pulled(ids, received.parts, comm.member(m));
    for (const auto& p : received.parts) detail::assign(local.parts.at(p.id), p, comm.member(m));
  }
}

}  // namespace gyre::collective
