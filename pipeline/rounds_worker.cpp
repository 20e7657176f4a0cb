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
                  const std::function<std::vector<double>(const scheduler::Task&)>& push) {
  net::Group& group = mailbox.group();
  const std::string me = options.name + " worker " + std::to_string(group.rank());
  for (std::uint64_t round = 0;; ++round) {
    std::optional<net::Message> m;
    try {
      m = mailbox.receive([](const net::Message&) { return true; }, net::Clock::now() + options.timeout);
    } catch (const net::GroupClosed& e) {
      throw runtime::JobFailed(-1, runtime::FailureCause::kPeerLost, me + ": transport closed: " + e.what());
    }
    if (!m)
      fail(group, driver_rank, me + ": no request for " + std::to_string(options.timeout.count()) + " ms",
           runtime::FailureCause::kTimeout);
    const std::string from = "rank " + std::to_string(m->sender);
    // Only the driver steers this worker: its requests carry the ids used as indices here.
    if (m->sender != driver_rank)
      fail(group, driver_rank, me + ": message type " + std::to_string(m->type) + " from " + from + ", not the scheduler",
           runtime::FailureCause::kBadMessage);
    if (m->type == scheduler::kRoundsStop) return;
    if (m->type != scheduler::kRoundTask)
      fail(group, driver_rank, me + ": unexpected message type " + std::to_string(m->type) + " from " + from,
           runtime::FailureCause::kBadMessage);
    scheduler::RoundRequest request;
    try {
      request = scheduler::decode_request(*m, options.limits);
      if (request.round != round)
        throw wire::DecodeError("round " + std::to_string(request.round) + " where round " + std::to_string(round) +
                                " comes next");
    } catch (const std::exception& e) {
      fail(group, driver_rank, me + ": request from " + from + ": " + e.what(), runtime::FailureCause::kBadMessage);
    }
    scheduler::RoundPartial partial;
    partial.round = request.round;
    try {
      apply(request.updates);
      partial.values = push(request.task);
    } catch (const std::exception& e) {
      fail(group, driver_rank, me + ": round " + std::to_string(round) + ": " + e.what());
    }
    group.send(driver_rank, scheduler::encode_partial(partial));
  }
}

runtime::Job rounds_job(int workers, runtime::Backend backend) {
  return runtime::Job{workers, {"the scheduler"}, std::move(backend), {}};
}

}  // namespace gyre::pipeline
