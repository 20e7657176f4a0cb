// gyre/mapreduce/context.hpp — one rank's view of a map-reduce job: its number, its peers, and the exchanges the verbs are made of.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "gyre/base/buffer.hpp"
#include "gyre/base/export.hpp"
#include "gyre/collective/communicator.hpp"
#include "gyre/mapreduce/codec.hpp"
#include "gyre/runtime/mailbox.hpp"
#include "gyre/wire/decode_error.hpp"

namespace gyre::mapreduce {

struct Options {
  // The most bytes one rank may send, and the most it may receive, in one communicating verb
  // (a shuffle, a collect): past it the verb throws std::length_error naming this limit instead
  // of the job growing until the system kills it. At most 1 GiB (the transport's largest frame).
  std::uint64_t max_shuffle_bytes = std::uint64_t{256} << 20;
  // Longest wait for one peer's part of an exchange; past it the verb throws naming the peer.
  std::chrono::milliseconds timeout{std::chrono::minutes(10)};
};

// A peer sent something that does not decode: what() names its rank, sender() is that rank.
class GYRE_API BadMessage : public std::runtime_error {
 public:
  BadMessage(int sender, const std::string& text) : std::runtime_error(text), sender_(sender) {}
  int sender() const noexcept { return sender_; }

 private:
  int sender_;
};

// Each worker of a job is a rank; a collection is one partition per rank. Every rank must call
// the same communicating verbs in the same order (as with collectives in MPI): each exchange is
// numbered, and its messages are matched by that number and their sender.
class GYRE_API Context {
 public:
  // Ranks 0..workers−1 of the mailbox's group take part; this member must be one of them.
  Context(runtime::Mailbox& mailbox, int workers, Options options = {});

  int rank() const noexcept { return comm_.index(); }
  int size() const noexcept { return comm_.size(); }
  const Options& options() const noexcept { return options_; }
  // The member's one receive path, for a protocol of the program's own beside the verbs.
  runtime::Mailbox& mailbox() const noexcept { return mailbox_; }

  // Throws std::length_error naming the limit when `bytes` (sent or received by `verb`) is over it.
  void check_limit(std::uint64_t bytes, std::string_view verb, std::string_view direction) const;

  // All to all: outgoing[m] goes to rank m (this rank's own entry is not sent, and comes back
  // empty); returns what every rank sent this one. Both directions are checked against the limit.
  std::vector<Buffer> exchange(std::vector<Buffer> outgoing, std::string_view verb);
  // Every rank's `mine`, in rank order, on every rank.
  std::vector<Buffer> allgather(const Buffer& mine, std::string_view verb);
  // Every rank's `mine`, in rank order, on `root`; an empty vector elsewhere.
  std::vector<Buffer> gather(Buffer mine, int root, std::string_view verb);
  // Every rank's values, decoded, in rank order (a body that does not decode: BadMessage).
  template <Encodable T>
  std::vector<std::vector<T>> allgather_values(const std::vector<T>& mine, std::string_view verb) {
    std::vector<std::vector<T>> out(static_cast<std::size_t>(size()));
    const auto bodies = allgather(encode_values<T>(mine), verb);
    for (int r = 0; r < size(); ++r) decode_from(r, bodies[static_cast<std::size_t>(r)], out[static_cast<std::size_t>(r)], verb);
    return out;
  }
  // `root`'s `mine` on every rank.
  Buffer broadcast(Buffer mine, int root, std::string_view verb);
  // The sum of every rank's `value`.
  std::uint64_t sum(std::uint64_t value);
  // Element by element, the sums of every rank's `values` (all of one length), in place.
  void sum_each(std::span<std::uint64_t> values);

  // The values rank `from` encoded in `body` (encode_values), appended to `into`; a body that
  // does not decode throws BadMessage naming `from` and the verb.
  template <Encodable T>
  void decode_from(int from, const Buffer& body, std::vector<T>& into, std::string_view verb) const {
    try {
      decode_values<T>(body.bytes(), into, {});
    } catch (const wire::DecodeError& e) {
      bad_message(from, verb, e.what());
    }
  }
  [[noreturn]] void bad_message(int from, std::string_view verb, const std::string& why) const;

 private:
  Buffer receive(int from, std::uint64_t op, std::uint64_t& received, std::string_view verb);

  runtime::Mailbox& mailbox_;
  collective::Communicator comm_;
  Options options_;
};

}  // namespace gyre::mapreduce
