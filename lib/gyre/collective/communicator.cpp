// gyre/collective/communicator.cpp — ring collectives on top of an Inbox.
#include "gyre/collective/communicator.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>

#include "gyre/runtime/receiver.hpp"

namespace gyre::collective {
namespace {

// Chunk c of n over `count` elements: [begin, end) in elements, sizes differing by at most one.
std::pair<std::size_t, std::size_t> chunk(std::size_t count, int n, int c) {
  const auto k = static_cast<std::size_t>(c);
  const auto parts = static_cast<std::size_t>(n);
  return {count * k / parts, count * (k + 1) / parts};
}

int wrap(int i, int n) { return ((i % n) + n) % n; }

}  // namespace

Communicator::Communicator(runtime::Mailbox& inbox, std::vector<int> members, CollectiveOptions options)
    : inbox_(inbox), members_(std::move(members)), options_(options) {
  const auto it = std::find(members_.begin(), members_.end(), inbox_.group().rank());
  if (it == members_.end()) throw std::invalid_argument("rank is not a member of its communicator");
  index_ = static_cast<int>(it - members_.begin());
}

void Communicator::send(int to_index, std::uint64_t op, std::uint32_t step, Buffer body) {
  net::Message m;
  m.type = kCollectiveMessage;
  m.tag = message_tag(op, step);
  m.body = std::move(body);
  inbox_.group().send(members_[static_cast<std::size_t>(to_index)], std::move(m));
}

void Communicator::send(int to_index, std::uint64_t op, std::uint32_t step, std::span<const std::byte> bytes) {
  Buffer body(bytes.size());
  if (!bytes.empty()) std::memcpy(body.data(), bytes.data(), bytes.size());
  send(to_index, op, step, std::move(body));
}

Buffer Communicator::receive(int from_index, std::uint64_t op, std::uint32_t step) {
  const int sender = members_[static_cast<std::size_t>(from_index)];
  const std::uint64_t tag = message_tag(op, step);
  net::Message m = runtime::Receiver(inbox_, "collective", options_.timeout)
                       .receive([&](const net::Message& x) { return x.type == kCollectiveMessage && x.sender == sender && x.tag == tag; },
                                [&] { return runtime::Silence{sender, "part from rank " + std::to_string(sender)}; });
  return std::move(m.body);
}

void Communicator::receive(int from_index, std::uint64_t op, std::uint32_t step, std::span<std::byte> into) {
  const Buffer body = receive(from_index, op, step);
  if (body.size() != into.size())
    throw std::runtime_error("collective: rank " + std::to_string(member(from_index)) + " sent " +
                             std::to_string(body.size()) + " bytes where " + std::to_string(into.size()) +
                             " were expected (members disagree on the call)");
  if (!into.empty()) std::memcpy(into.data(), body.data(), into.size());
}

void Communicator::allreduce_bytes(std::span<std::byte> data, std::size_t element, Combine combine) {
  const std::uint64_t op = next_op_++;
  const int n = size();
  if (n == 1) return;
  const std::size_t count = data.size() / element;
  auto bytes_of = [&](int c) {
    const auto [b, e] = chunk(count, n, c);
    return data.subspan(b * element, (e - b) * element);
  };
  std::vector<std::byte> incoming;
  // Reduce-scatter: after n−1 steps member i holds the full sum of chunk i+1.
  for (int s = 0; s < n - 1; ++s) {
    const int send_chunk = wrap(index_ - s, n);
    const int recv_chunk = wrap(index_ - s - 1, n);
    send(next(), op, static_cast<std::uint32_t>(s), bytes_of(send_chunk));
    auto target = bytes_of(recv_chunk);
    incoming.resize(target.size());
    receive(previous(), op, static_cast<std::uint32_t>(s), incoming);
    combine(target.data(), incoming.data(), target.size() / element);
  }
  // Allgather of the reduced chunks around the same ring.
  for (int s = 0; s < n - 1; ++s) {
    const int send_chunk = wrap(index_ + 1 - s, n);
    const int recv_chunk = wrap(index_ - s, n);
    const auto step = static_cast<std::uint32_t>(n - 1 + s);
    send(next(), op, step, bytes_of(send_chunk));
    receive(previous(), op, step, bytes_of(recv_chunk));
  }
}

void Communicator::allgather_bytes(std::span<const std::byte> mine, std::span<std::byte> all) {
  const std::uint64_t op = next_op_++;
  const int n = size();
  if (all.size() != mine.size() * static_cast<std::size_t>(n))
    throw std::invalid_argument("allgather: output is not members × input");
  auto part = [&](int c) { return all.subspan(static_cast<std::size_t>(c) * mine.size(), mine.size()); };
  if (!mine.empty()) std::memcpy(part(index_).data(), mine.data(), mine.size());
  for (int s = 0; s < n - 1; ++s) {
    send(next(), op, static_cast<std::uint32_t>(s), part(wrap(index_ - s, n)));
    receive(previous(), op, static_cast<std::uint32_t>(s), part(wrap(index_ - s - 1, n)));
  }
}

void Communicator::broadcast_bytes(std::span<std::byte> data, int root_index) {
  const std::uint64_t op = next_op_++;
  const int n = size();
  if (root_index < 0 || root_index >= n) throw std::invalid_argument("broadcast: root is not a member");
  // Down the ring from the root: the last member before the root does not pass it on.
  if (index_ != root_index) receive(previous(), op, 0, data);
  if (next() != root_index) send(next(), op, 0, data);
}

}  // namespace gyre::collective
