// gyre/mapreduce/context.cpp — the exchanges under the verbs: all to all, gathers, broadcast, each bounded by the byte limit.
#include "gyre/mapreduce/collection.hpp"

#include <cstring>
#include <numeric>

namespace gyre::mapreduce {
namespace {

constexpr std::uint64_t kMaxLimit = std::uint64_t{1} << 30;  // wire::FrameLimits::max_body

std::vector<int> first_ranks(int workers) {
  if (workers < 1) throw std::invalid_argument("Context: a job needs at least one worker");
  std::vector<int> ranks(static_cast<std::size_t>(workers));
  std::iota(ranks.begin(), ranks.end(), 0);
  return ranks;
}

Buffer copy_of(const Buffer& b) {
  Buffer out(b.size());
  if (!b.empty()) std::memcpy(out.data(), b.data(), b.size());
  return out;
}

}  // namespace

Context::Context(runtime::Mailbox& mailbox, int workers, Options options)
    : mailbox_(mailbox), comm_(mailbox, first_ranks(workers), collective::CollectiveOptions{options.timeout}), options_(options) {
  if (options_.max_shuffle_bytes == 0 || options_.max_shuffle_bytes > kMaxLimit)
    throw std::invalid_argument("mapreduce: max_shuffle_bytes must be between 1 and " + std::to_string(kMaxLimit) +
                                " (the largest frame), not " + std::to_string(options_.max_shuffle_bytes));
}

void Context::check_limit(std::uint64_t bytes, std::string_view verb, std::string_view direction) const {
  if (bytes <= options_.max_shuffle_bytes) return;
  throw std::length_error("mapreduce " + std::string(verb) + ": rank " + std::to_string(rank()) + " would " +
                          std::string(direction) + " " + std::to_string(bytes) + " bytes, over the shuffle limit of " +
                          std::to_string(options_.max_shuffle_bytes) + " bytes (max_shuffle_bytes)");
}

void Context::bad_message(int from, std::string_view verb, const std::string& why) const {
  throw BadMessage(from, "mapreduce " + std::string(verb) + ": rank " + std::to_string(from) +
                             " sent a malformed message: " + why);
}

Buffer Context::receive(int from, std::uint64_t op, std::uint64_t& received, std::string_view verb) {
  Buffer body = comm_.receive(from, op, 0);
  received += body.size();
  check_limit(received, verb, "receive");
  return body;
}

std::vector<Buffer> Context::exchange(std::vector<Buffer> outgoing, std::string_view verb) {
  if (outgoing.size() != static_cast<std::size_t>(size()))
    throw std::invalid_argument("Context::exchange: one buffer per rank");
  std::uint64_t sent = 0;
  for (int m = 0; m < size(); ++m)
    if (m != rank()) sent += outgoing[static_cast<std::size_t>(m)].size();
  check_limit(sent, verb, "send");
  const std::uint64_t op = comm_.begin_op();
  for (int m = 0; m < size(); ++m)
    if (m != rank()) comm_.send(m, op, 0, std::move(outgoing[static_cast<std::size_t>(m)]));
  std::vector<Buffer> in(static_cast<std::size_t>(size()));
  std::uint64_t received = 0;
  for (int m = 0; m < size(); ++m)
    if (m != rank()) in[static_cast<std::size_t>(m)] = receive(m, op, received, verb);
  return in;
}

std::vector<Buffer> Context::allgather(const Buffer& mine, std::string_view verb) {
  std::vector<Buffer> out(static_cast<std::size_t>(size()));
  for (int m = 0; m < size(); ++m)
    if (m != rank()) out[static_cast<std::size_t>(m)] = copy_of(mine);
  out = exchange(std::move(out), verb);
  out[static_cast<std::size_t>(rank())] = copy_of(mine);
  return out;
}

std::vector<Buffer> Context::gather(Buffer mine, int root, std::string_view verb) {
  if (root < 0 || root >= size()) throw std::invalid_argument("mapreduce: root " + std::to_string(root) + " is no rank");
  const std::uint64_t op = comm_.begin_op();
  if (rank() != root) {
    check_limit(mine.size(), verb, "send");
    comm_.send(root, op, 0, std::move(mine));
    return {};
  }
  std::vector<Buffer> out(static_cast<std::size_t>(size()));
  std::uint64_t received = 0;
  for (int m = 0; m < size(); ++m)
    out[static_cast<std::size_t>(m)] = m == rank() ? std::move(mine) : receive(m, op, received, verb);
  return out;
}

Buffer Context::broadcast(Buffer mine, int root, std::string_view verb) {
  if (root < 0 || root >= size()) throw std::invalid_argument("mapreduce: root " + std::to_string(root) + " is no rank");
  const std::uint64_t op = comm_.begin_op();
  if (rank() == root) {
    check_limit(mine.size() * static_cast<std::uint64_t>(size() - 1), verb, "send");
    for (int m = 0; m < size(); ++m)
      if (m != rank()) comm_.send(m, op, 0, copy_of(mine));
    return mine;
  }
  std::uint64_t received = 0;
  return receive(root, op, received, verb);
}

std::uint64_t Context::sum(std::uint64_t value) {
  comm_.allreduce_sum(std::span<std::uint64_t>(&value, 1));
  return value;
}

void Context::sum_each(std::span<std::uint64_t> values) { comm_.allreduce_sum(values); }

}  // namespace gyre::mapreduce
