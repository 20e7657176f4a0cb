// pipeline/rounds_worker.cpp — the worker loop of the rounds engine: requests in, partials out, in round order.
#include <optional>
#include <string>

#include "gyre/pipeline/rounds_job.hpp"
#include "gyre/wire/codec.hpp"

namespace gyre::pipeline {

namespace {
// The driver may be what failed; the error still ends this worker.
[[noreturn]] void fail(net::Group& group, int driver_rank, const std::string& why,
                       runtime::FailureCause cause = runtime::FailureCause::kError) {
  runtime::fail_job(group, {driver_rank}, runtime::JobFailed(group.rank(), cause, why));
}
}  // namespace

void serve_rounds(runtime::Mailbox& mailbox, int driver_rank, const scheduler::RoundsOptions& options,
                  const std::function<void(std::span<const scheduler::Step>)>& apply,
                  const std::function<std::vector<double>(const scheduler::Task&)>& push,
                  const std::function<std::vector<double>(const scheduler::Task&)>& answer) {
  net::Group& group = mailbox.group();
  const std::string me = options.name + " worker " + std::to_string(group.rank());
  // A query waits for no round: one already here is answered before the next round's task.
  const auto is_query = [](const net::Message& m) { return m.type == scheduler::kRoundQuery; };
  const auto next = [&]() -> std::optional<net::Message> {
    try {
      if (auto query = mailbox.receive_arrived(is_query)) return query;
      return mailbox.receive([](const net::Message&) { return true; }, net::Clock::now() + options.timeout);
    } catch (const net::GroupClosed& e) {
      throw runtime::JobFailed(-1, runtime::FailureCause::kPeerLost, me + ": transport closed: " + e.what());
    }
  };
  for (std::uint64_t round = 0, query = 0;;) {
    const std::optional<net::Message> m = next();
    if (!m)
      fail(group, driver_rank, me + ": no request for " + std::to_string(options.timeout.count()) + " ms",
           runtime::FailureCause::kTimeout);
    const std::string from = "rank " + std::to_string(m->sender);
    // Only the driver steers this worker: its requests carry the ids used as indices here.
    if (m->sender != driver_rank)
      fail(group, driver_rank, me + ": message type " + std::to_string(m->type) + " from " + from + ", not the scheduler",
           runtime::FailureCause::kBadMessage);
    if (m->type == scheduler::kRoundsStop) return;
    const bool is_round = m->type == scheduler::kRoundTask;
    if (!is_round && !(is_query(*m) && answer))
      fail(group, driver_rank, me + ": unexpected message type " + std::to_string(m->type) + " from " + from,
           runtime::FailureCause::kBadMessage);
    const std::string what = is_round ? "round" : "query";
    std::uint64_t& expected = is_round ? round : query;
    scheduler::RoundRequest request;
    try {
      request = scheduler::decode_request(*m, options.limits);
      if (request.round != expected)
        throw wire::DecodeError(what + " " + std::to_string(request.round) + " where " + what + " " +
                                std::to_string(expected) + " comes next");
      if (!is_round && !request.updates.empty()) throw wire::DecodeError("a query with updates");
    } catch (const std::exception& e) {
      fail(group, driver_rank, me + ": request from " + from + ": " + e.what(), runtime::FailureCause::kBadMessage);
    }
    ++expected;
    scheduler::RoundPartial partial;
    partial.round = request.round;
    try {
      if (is_round) {
        apply(request.updates);
        partial.values = push(request.task);
      } else {
        partial.values = answer(request.task);
      }
    } catch (const std::exception& e) {
      fail(group, driver_rank, me + ": " + what + " " + std::to_string(request.round) + ": " + e.what());
    }
    group.send(driver_rank, is_round ? scheduler::encode_partial(partial) : scheduler::encode_answer(partial));
  }
}

runtime::Job rounds_job(int workers, runtime::Backend backend) {
  return runtime::Job{workers, {"the scheduler"}, std::move(backend), {}};
}

}  // namespace gyre::pipeline
