// gyre/rounds/rounds_worker.cpp — the worker loop of the rounds engine: requests in, partials out, in round order.
#include <string>

#include "gyre/rounds/rounds.hpp"
#include "gyre/rounds/rounds_protocol.hpp"
#include "gyre/runtime/receiver.hpp"
#include "gyre/wire/codec.hpp"

namespace gyre::rounds {

void serve_rounds(runtime::Mailbox& mailbox, int driver_rank, const RoundsOptions& options,
                  const std::function<void(std::span<const Step>)>& apply,
                  const std::function<std::vector<double>(const Task&)>& push,
                  const std::function<std::vector<double>(const Task&)>& answer) {
  net::Group& group = mailbox.group();
  const std::string me = options.name + " worker " + std::to_string(group.rank());
  // A query waits for no round: one already here is answered before the next round's task.
  const auto is_query = [](const net::Message& m) { return m.type == kRoundQuery; };
  // The driver may be what failed; a failure found here still ends this worker.
  const runtime::Receiver receiver(mailbox, me, options.timeout, {driver_rank});
  const int self = group.rank();
  const auto next = [&]() -> net::Message {
    if (auto query = receiver.receive_arrived(is_query)) return std::move(*query);
    return receiver.receive([](const net::Message&) { return true; },
                            [&] { return runtime::Silence{driver_rank, "request from the scheduler"}; });
  };
  for (std::uint64_t round = 0, query = 0;;) {
    const net::Message m = next();
    const std::string from = "rank " + std::to_string(m.sender);
    const auto bad = runtime::FailureCause::kBadMessage;
    // Only the driver steers this worker: its requests carry the ids used as indices here.
    if (m.sender != driver_rank)
      receiver.fail(self, bad, "message type " + std::to_string(m.type) + " from " + from + ", not the scheduler");
    if (m.type == kRoundsStop) return;
    const bool is_round = m.type == kRoundTask;
    if (!is_round && !(is_query(m) && answer))
      receiver.fail(self, bad, "unexpected message type " + std::to_string(m.type) + " from " + from);
    const std::string what = is_round ? "round" : "query";
    std::uint64_t& expected = is_round ? round : query;
    RoundRequest request;
    try {
      request = decode_request(m, options.limits);
      if (request.round != expected)
        throw wire::DecodeError(what + " " + std::to_string(request.round) + " where " + what + " " +
                                std::to_string(expected) + " comes next");
      if (!is_round && !request.updates.empty()) throw wire::DecodeError("a query with updates");
    } catch (const std::exception& e) {
      receiver.fail(self, bad, "request from " + from + ": " + e.what());
    }
    ++expected;
    RoundPartial partial;
    partial.round = request.round;
    try {
      if (is_round) {
        apply(request.updates);
        partial.values = push(request.task);
      } else {
        partial.values = answer(request.task);
      }
    } catch (const std::exception& e) {
      receiver.fail(self, runtime::FailureCause::kError, what + " " + std::to_string(request.round) + ": " + e.what());
    }
    group.send(driver_rank, is_round ? encode_partial(partial) : encode_answer(partial));
  }
}

runtime::Job rounds_job(int workers, runtime::Backend backend) {
  return runtime::Job{workers, {"the scheduler"}, std::move(backend), {}, {}};
}

}  // namespace gyre::rounds
