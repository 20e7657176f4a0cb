// gyre/collective/partition_collectives.cpp — the checks of partition-table collectives that need no element type.
#include "gyre/collective/partition_collectives.hpp"

#include <string>

#include "gyre/wire/body.hpp"

namespace gyre::collective::detail {

int owner_index(const Partitioner& partitioner, std::uint32_t id, int members) {
  if (!partitioner) return static_cast<int>(id % static_cast<std::uint32_t>(members));
  const int owner = partitioner(id);
  if (owner < 0 || owner >= members)
    throw std::invalid_argument("partition collective: the partitioner gives partition " + std::to_string(id) +
                                " to member " + std::to_string(owner) + " of " + std::to_string(members));
  return owner;
}

ReceivedPartitions receive_partitions(Communicator& comm, int from, std::uint64_t op, std::uint32_t step,
                                      std::size_t element_size, const Partitioner* owned_here) {
  ReceivedPartitions received;
  received.body = comm.receive(from, op, step);
  const int sender = comm.member(from);
  received.parts = decode_partitions(received.body.bytes(), element_size, sender);
  // The elements arrived little-endian; combine() and assign() read them in host order.
  if constexpr (!wire::kHostIsLittle)
    for (const auto& p : received.parts)
      wire::little_in_place(
          received.body.bytes().subspan(static_cast<std::size_t>(p.bytes.data() - received.body.data()), p.bytes.size()),
          element_size);
  if (owned_here != nullptr)
    for (const auto& p : received.parts)
      if (const int owner = owner_index(*owned_here, p.id, comm.size()); owner != comm.index())
        throw std::runtime_error("partition collective: rank " + std::to_string(sender) + " sent partition " +
                                 std::to_string(p.id) + " to rank " + std::to_string(comm.member(comm.index())) +
                                 ", but it belongs to rank " + std::to_string(comm.member(owner)) +
                                 " (members' partitioners disagree)");
  return received;
}

void check_pulled(std::span<const std::uint32_t> wanted, std::span<const PartitionBytes> got, int owner_rank) {
  // Both lists are strictly increasing, so the first position where they differ names the
  // id that is missing or was not asked for.
  std::size_t i = 0;
  while (i < wanted.size() && i < got.size() && wanted[i] == got[i].id) ++i;
  if (i < got.size() && (i == wanted.size() || got[i].id < wanted[i]))
    throw std::runtime_error("partition collective: rank " + std::to_string(owner_rank) + " returned partition " +
                             std::to_string(got[i].id) + ", which was not asked for");
  if (i < wanted.size())
    throw std::runtime_error("partition collective: rank " + std::to_string(owner_rank) + " has no global partition " +
                             std::to_string(wanted[i]) + " to pull (or members' partitioners disagree)");
}

void length_mismatch(std::uint32_t id, int rank, std::size_t elements, std::size_t expected,
                     const char* expected_what) {
  throw std::runtime_error("partition collective: rank " + std::to_string(rank) + "'s partition " + std::to_string(id) +
                           " has " + std::to_string(elements) + " elements, where " + expected_what + " " +
                           std::to_string(expected));
}

}  // namespace gyre::collective::detail
