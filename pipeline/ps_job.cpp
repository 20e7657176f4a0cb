// gyre/pipeline/ps_job.cpp — threads for the servers and the workers of a parameter-server job, and the worker's step loop.
#include "gyre/pipeline/ps_job.hpp"

#include <mutex>
#include <numeric>
#include <stdexcept>
#include <string>

#include "gyre/net/inproc.hpp"
#include "gyre/pipeline/job_threads.hpp"
#include "gyre/scheduler/rotation_driver.hpp"

namespace gyre::pipeline::ps {
namespace {

void run_worker(net::Group& group, const PsLayout& layout, const PsProgram& program, const PsJobOptions& o) {
  net::Inbox inbox(group, scheduler::is_failure, scheduler::failure_text);
  PsWorker worker(inbox, layout, o.barrier, PsWorkerOptions{o.timeout, o.seed, o.cache_clocks});
  std::vector<Key> every(static_cast<std::size_t>(layout.keys));
  std::iota(every.begin(), every.end(), Key{0});
  try {
    for (;;) {
      const auto keys = program.schedule ? program.schedule(worker.index(), worker.clock()) : every;
      for (const auto& [k, delta] : program.push(worker, keys)) worker.push(k, delta);
      worker.barrier();
      if (program.stop(worker)) break;
    }
    worker.stop();
  } catch (const net::GroupClosed&) {
    throw;  // the job failed elsewhere, and everyone has been told
  } catch (const scheduler::JobFailed&) {
    throw;
  } catch (const std::exception& e) {
    // A bad reply from a server or peer, or the program's own error. Across processes nothing
    // closes this rank's links, so the servers and peers are told, or they would wait for this
    // worker until their timeouts.
    std::vector<int> others;
    for (int r : layout.all_ranks())
      if (r != group.rank()) others.push_back(r);
    scheduler::fail_job(group, others, "parameter-server worker " + std::to_string(group.rank()) + ": " + e.what());
  }
}

// Runs server `index` to the end: what it holds (only its keys' values are filled in) and,
// from server 0, the workers' reports.
PsJobResult run_server(net::Group& group, const PsLayout& layout, int index, const PsProgram& program,
                       const PsJobOptions& o) {
  net::Inbox inbox(group, scheduler::is_failure, scheduler::failure_text);
  PsServer server(inbox, layout, index, PsServerOptions{o.timeout, program.pull, program.initial});
  server.run();
  PsJobResult r;
  r.values.resize(static_cast<std::size_t>(layout.keys));
  for (const auto& [k, v] : server.values()) r.values[static_cast<std::size_t>(k)] = v;
  r.deferred_reads = server.deferred_reads();
  if (index == 0) r.workers = server.reports();
  return r;
}

// Folds one server's part into the job's result.
void merge(PsJobResult& into, PsJobResult&& part) {
  for (std::size_t k = 0; k < part.values.size(); ++k)
    if (!part.values[k].empty()) into.values[k] = std::move(part.values[k]);
  into.deferred_reads += part.deferred_reads;
  if (!part.workers.empty()) into.workers = std::move(part.workers);
}

void check(const PsLayout& layout, const PsProgram& program) {
  layout.validate();
  if (!program.push || !program.stop) throw std::invalid_argument("parameter server: the program needs push and stop");
}

}  // namespace

PsJobResult run_ps_job(std::vector<std::unique_ptr<net::Group>> groups, const PsLayout& layout, const PsProgram& program,
                       const PsJobOptions& options) {
  check(layout, program);
  if (static_cast<int>(groups.size()) != layout.workers + layout.servers)
    throw std::invalid_argument("parameter server: groups must have workers + servers ranks");
  std::mutex mutex;
  PsJobResult result;
  result.values.resize(static_cast<std::size_t>(layout.keys));
  run_parts(groups, [&](int r) {
    auto& group = *groups[static_cast<std::size_t>(r)];
    if (r < layout.workers) return run_worker(group, layout, program, options);
    auto server = run_server(group, layout, r - layout.workers, program, options);
    std::lock_guard lock(mutex);
    merge(result, std::move(server));
  });
  return result;
}

PsJobResult run_ps_embedded(const PsLayout& layout, const PsProgram& program, const PsJobOptions& options) {
  return run_ps_job(net::make_inproc_groups(layout.workers + layout.servers), layout, program, options);
}

std::optional<PsJobResult> run_ps_cluster(const ClusterJobOptions& cluster, const PsLayout& layout,
                                          const PsProgram& program, const PsJobOptions& options) {
  check(layout, program);
  if (layout.workers != cluster.launch.size || layout.servers != 1)
    throw std::invalid_argument("parameter server across processes: one worker per process and one server");
  ClusterJobOptions named = cluster;
  named.beside_name = "the server";
  ClusterGroups groups = join_cluster(named);
  std::optional<PsJobResult> result;
  std::function<void()> server;
  if (groups.scheduler) server = [&] { result = run_server(*groups.scheduler, layout, 0, program, options); };
  run_beside([&] { run_worker(*groups.worker, layout, program, options); }, server);
  return result;
}

}  // namespace gyre::pipeline::ps
