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

PsWorkerReport run_worker(net::Group& group, const PsLayout& layout, const PsProgram& program, const PsJobOptions& o) {
  net::Inbox inbox(group, scheduler::is_failure, scheduler::failure_text);
  PsWorker worker(inbox, layout, o.barrier, PsWorkerOptions{o.timeout, o.seed, o.cache_clocks});
  std::vector<Key> every(static_cast<std::size_t>(layout.keys));
  std::iota(every.begin(), every.end(), Key{0});
  PsWorkerReport report;
  for (;;) {
    const auto keys = program.schedule ? program.schedule(worker.index(), worker.clock()) : every;
    for (const auto& [k, delta] : program.push(worker, keys)) worker.push(k, delta);
    report.held += worker.barrier();
    ++report.steps;
    if (program.stop(worker)) break;
  }
  worker.stop();
  report.reads = worker.reads();
  report.cache_hits = worker.cache_hits();
  return report;
}

}  // namespace

PsJobResult run_ps_job(std::vector<std::unique_ptr<net::Group>> groups, const PsLayout& layout, const PsProgram& program,
                       const PsJobOptions& options) {
  layout.validate();
  if (static_cast<int>(groups.size()) != layout.workers + layout.servers)
    throw std::invalid_argument("parameter server: groups must have workers + servers ranks");
  if (!program.push || !program.stop) throw std::invalid_argument("parameter server: the program needs push and stop");
  std::mutex mutex;
  std::exception_ptr first_error;
  PsJobResult result;
  result.workers.resize(static_cast<std::size_t>(layout.workers));
  result.values.resize(static_cast<std::size_t>(layout.keys));
  std::vector<std::thread> threads;
  for (int r = 0; r < layout.workers + layout.servers; ++r)
    threads.emplace_back([&, r] {
      auto& group = *groups[static_cast<std::size_t>(r)];
      try {
        if (r < layout.workers) {
          result.workers[static_cast<std::size_t>(r)] = run_worker(group, layout, program, options);
          return;
        }
        net::Inbox inbox(group, scheduler::is_failure, scheduler::failure_text);
        PsServer server(inbox, layout, r - layout.workers, PsServerOptions{options.timeout, program.pull, program.initial});
        server.run();
        std::lock_guard lock(mutex);
        for (const auto& [k, v] : server.values()) result.values[static_cast<std::size_t>(k)] = v;
        result.deferred_reads += server.deferred_reads();
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

}  // namespace gyre::pipeline::ps
