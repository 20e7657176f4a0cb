// pipeline/cluster_job.cpp — rendezvous, tcp groups, and the worker (plus scheduler on rank 0) of one process.
#include "gyre/pipeline/cluster_job.hpp"

#include <algorithm>
#include <functional>
#include <future>
#include <numeric>
#include <optional>

#include "gyre/cluster/rendezvous.hpp"
#include "gyre/pipeline/job_threads.hpp"
#include "gyre/pipeline/worker_engine.hpp"

namespace gyre::pipeline {
namespace {

// Members 0..P-1 are the processes' workers ("rank r"); member P is what process 0 hosts beside.
std::vector<std::string> member_names(const ClusterJobOptions& o) {
  const int P = o.launch.size;
  std::vector<std::string> names;
  for (int r = 0; r < P; ++r) names.push_back("rank " + std::to_string(r));
  names.push_back(o.beside_name + " (member " + std::to_string(P) + ", in process 0)");
  return names;
}

cluster::RendezvousOptions rendezvous_options(const ClusterJobOptions& o) {
  cluster::RendezvousOptions ro;
  ro.job_id = o.job_id;
  ro.token = o.token;
  ro.timeout = o.connect_timeout;
  ro.settings = o.settings;
  ro.log = o.log;
  ro.member_names = member_names(o);
  return ro;
}

std::unique_ptr<net::Group> join(const ClusterJobOptions& o, int member, int members) {
  net::TcpListener listener(o.listen_host, 0);
  const auto table =
      cluster::rendezvous(o.coordinator, member, listener.endpoint().port, members, rendezvous_options(o));
  net::TcpOptions to;
  to.rank = member;
  to.job_id = o.job_id;
  to.job_digest = cluster::settings_digest(o.settings);  // the rendezvous compared them; this binds the data plane too
  to.token = o.token;
  to.connect_timeout = o.connect_timeout;
  to.heartbeat_timeout = o.heartbeat_timeout;
  to.heartbeat_interval = std::min(to.heartbeat_interval, o.heartbeat_timeout / 4);
  to.log = o.log;
  to.member_names = member_names(o);
  return net::connect_tcp_group(std::move(listener), table, to);
}

}  // namespace

ClusterGroups join_cluster(const ClusterJobOptions& options) {
  const int P = options.launch.size;
  const int members = P + 1;
  ClusterGroups out;
  // Process 0: the coordinator and the scheduler's membership run beside the worker's joining.
  std::optional<cluster::Coordinator> coordinator;
  std::future<void> served;
  std::future<std::unique_ptr<net::Group>> scheduler_group;
  if (options.launch.rank == 0) {
    coordinator.emplace(options.coordinator, members, rendezvous_options(options));
    served = std::async(std::launch::async, [&] { coordinator->serve(); });
    scheduler_group = std::async(std::launch::async, [&] { return join(options, P, members); });
  }
  try {
    out.worker = net::with_faults(join(options, options.launch.rank, members), options.faults);
  } catch (...) {
    if (served.valid()) served.wait();
    if (scheduler_group.valid()) scheduler_group.wait();
    throw;
  }
  if (served.valid()) {
    served.get();
    out.scheduler = scheduler_group.get();
  }
  return out;
}

ClusterWorker run_cluster_worker(const ClusterJobOptions& options, const scheduler::RotationSchedule& schedule,
                                 std::vector<model::BlockShape> layout, RotationKernel& kernel,
                                 std::vector<model::Block> initial, const scheduler::PhasePolicy& policy) {
  const int P = options.launch.size;
  if (schedule.workers() != P) throw std::invalid_argument("the schedule must have one worker per process");
  ClusterGroups groups = join_cluster(options);
  ClusterWorker out;
  out.group = std::move(groups.worker);
  std::unique_ptr<net::Group> sched = std::move(groups.scheduler);

  std::function<void()> driver;
  if (sched)
    driver = [&] {
      std::vector<int> ranks(static_cast<std::size_t>(P));
      std::iota(ranks.begin(), ranks.end(), 0);
      scheduler::RotationDriver(*sched, ranks, options.timeout).run(policy);
    };
  // The worker closes nothing on failure either: the scheduler already has it (the engine
  // reports its own errors), and a connection cut now would make peers blame this rank.
  run_beside(
      [&] {
        WorkerOptions wo;
        wo.threads = options.threads_per_worker;
        wo.scheduler_rank = P;
        wo.timeout = options.timeout;
        wo.registry = options.registry;
        WorkerEngine engine(*out.group, schedule, std::move(layout), kernel, std::move(wo));
        out.held = engine.run(std::move(initial));
        out.bytes_sent = out.group->bytes_sent();
      },
      driver);
  return out;
}

}  // namespace gyre::pipeline
