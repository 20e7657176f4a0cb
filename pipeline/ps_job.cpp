// gyre/pipeline/ps_job.cpp — threads for the servers and the workers of a parameter-server job, and the worker's step loop.
#include "gyre/pipeline/ps_job.hpp"

#include <exception>
#include <mutex>
#include <numeric>
#include <stdexcept>
#include <string>
#include <thread>

#include "gyre/net/inproc.hpp"
#include "gyre/scheduler/rotation_driver.hpp"

namespace gyre::pipeline::ps {
namespace {

void run_worker(net::Group& group, const PsLayout& layout, const PsProgram& program, const PsJobOptions& o) {
  net::Inbox inbox(group, scheduler::is_failure, scheduler::failure_text);
  PsWorker worker(inbox, layout, o.barrier, PsWorkerOptions{o.timeout, o.seed, o.cache_clocks});
  std::vector<Key> every(static_cast<std::size_t>(layout.keys));
  std::iota(every.begin(), every.end(), Key{0});
  for (;;) {
    const auto keys = program.schedule ? program.schedule(worker.index(), worker.clock()) : every;
    for (const auto& [k, delta] : program.push(worker, keys)) worker.push(k, delta);
    worker.barrier();
    if (program.stop(worker)) break;
  }
  worker.stop();
}

// Runs server `index` to the end and folds what it holds (and, for server 0, the workers'
// reports) into `result`.
void run_server(net::Group& group, const PsLayout& layout, int index, const PsProgram& program, const PsJobOptions& o,
                PsJobResult& result) {
  net::Inbox inbox(group, scheduler::is_failure, scheduler::failure_text);
  PsServer server(inbox, layout, index, PsServerOptions{o.timeout, program.pull, program.initial});
  server.run();
  for (const auto& [k, v] : server.values()) result.values[static_cast<std::size_t>(k)] = v;
  result.deferred_reads += server.deferred_reads();
  if (index == 0) result.workers = server.reports();
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
  std::exception_ptr first_error;
  PsJobResult result;
  result.values.resize(static_cast<std::size_t>(layout.keys));
  std::vector<std::thread> threads;
  for (int r = 0; r < layout.workers + layout.servers; ++r)
    threads.emplace_back([&, r] {
      auto& group = *groups[static_cast<std::size_t>(r)];
      try {
        if (r < layout.workers) return run_worker(group, layout, program, options);
        PsJobResult mine;
        mine.values.resize(result.values.size());
        run_server(group, layout, r - layout.workers, program, options, mine);
        std::lock_guard lock(mutex);
        for (Key k = 0; k < layout.keys; ++k)
          if (layout.server_of(k) == r - layout.workers) result.values[static_cast<std::size_t>(k)] = std::move(mine.values[k]);
        result.deferred_reads += mine.deferred_reads;
        if (r == layout.workers) result.workers = std::move(mine.workers);
      } catch (...) {
        {
          std::lock_guard lock(mutex);
          if (!first_error) first_error = std::current_exception();
        }
        group.close("rank " + std::to_string(r) + " failed");
      }
    });
  for (auto& t : threads) t.join();
  if (first_error) std::rethrow_exception(first_error);
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
  ClusterGroups groups = join_cluster(cluster);
  std::optional<PsJobResult> result;
  std::exception_ptr server_error;
  std::thread server_thread;
  if (groups.scheduler)
    server_thread = std::thread([&] {
      try {
        PsJobResult r;
        r.values.resize(static_cast<std::size_t>(layout.keys));
        run_server(*groups.scheduler, layout, 0, program, options, r);
        result = std::move(r);
      } catch (...) {
        server_error = std::current_exception();
      }
    });
  std::exception_ptr worker_error;
  try {
    run_worker(*groups.worker, layout, program, options);
  } catch (...) {
    worker_error = std::current_exception();
  }
  if (server_thread.joinable()) server_thread.join();
  if (server_error) std::rethrow_exception(server_error);
  if (worker_error) std::rethrow_exception(worker_error);
  return result;
}

}  // namespace gyre::pipeline::ps
