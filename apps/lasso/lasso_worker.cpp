// apps/lasso/lasso_worker.cpp — the worker loop: requests in, sums out, in round order.
#include "lasso/lasso_worker.hpp"

#include <string>

#include "gyre/scheduler/protocol.hpp"
#include "gyre/runtime/mailbox.hpp"
#include "gyre/wire/codec.hpp"
#include "lasso/round_protocol.hpp"

namespace gyre::lasso {

namespace {
// The scheduler may be what failed; the error still ends this worker.
[[noreturn]] void fail(net::Group& group, int scheduler_rank, const std::string& why,
                       runtime::FailureCause cause = runtime::FailureCause::kError) {
  runtime::fail_job(group, {scheduler_rank}, runtime::JobFailed(group.rank(), cause, why));
}
}  // namespace

void run_lasso_worker(runtime::Mailbox& mailbox, ResidualShard& shard, const WorkerLoopOptions& options) {
  net::Group& group = mailbox.group();
  const std::string me = "lasso worker " + std::to_string(group.rank());
  for (std::uint64_t round = 0;; ++round) {
    std::optional<net::Message> m;
    try {
      m = mailbox.receive([](const net::Message&) { return true; }, net::Clock::now() + options.timeout);
    } catch (const net::GroupClosed& e) {
      throw runtime::JobFailed(-1, runtime::FailureCause::kPeerLost, me + ": transport closed: " + e.what());
    }
    if (!m)
      fail(group, options.scheduler_rank, me + ": no request for " + std::to_string(options.timeout.count()) + " ms",
           runtime::FailureCause::kTimeout);
    const std::string from = "rank " + std::to_string(m->sender);
    // Only the scheduler steers this worker: its requests carry the coordinates used as column
    // indices here.
    if (m->sender != options.scheduler_rank)
      fail(group, options.scheduler_rank, me + ": message type " + std::to_string(m->type) + " from " + from +
                                              ", not the scheduler");
    if (m->type == scheduler::kStop) return;
    if (m->type != kRoundRequest)
      fail(group, options.scheduler_rank, me + ": unexpected message type " + std::to_string(m->type) + " from " + from);
    RoundSums sums;
    try {
      const RoundRequest request = decode_request(*m, shard.features());
      if (request.round != round)
        throw wire::DecodeError("round " + std::to_string(request.round) + " where round " + std::to_string(round) +
                                " comes next");
      sums.round = request.round;
      shard.apply(request.steps);
      if (request.kind == RoundKind::kPartials) {
        sums.values.resize(request.features.size());
        shard.partial_gradients(request.features, sums.values);
      } else {
        ShardCheck check = shard.check(request.residual_mean);
        sums.values = std::move(check.raw_gradient);
        sums.values.push_back(check.centred_rss);
        sums.values.push_back(check.centred_dot_y);
      }
    } catch (const std::exception& e) {
      fail(group, options.scheduler_rank, me + ": request from " + from + ": " + e.what());
    }
    group.send(options.scheduler_rank, encode_sums(sums));
  }
}

}  // namespace gyre::lasso
