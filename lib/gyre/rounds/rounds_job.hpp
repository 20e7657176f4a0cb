// gyre/rounds/rounds_job.hpp — a worker's side of the rounds engine, and a whole rounds job on the runtime.
#pragma once

#include <concepts>
#include <functional>
#include <numeric>
#include <span>
#include <vector>

#include "gyre/base/export.hpp"
#include "gyre/rounds/rounds.hpp"
#include "gyre/runtime/job.hpp"
#include "gyre/runtime/mailbox.hpp"

namespace gyre::pipeline {

// A worker's state in a rounds job: its shard of the data and what the steps so far made of it.
template <class Shard>
concept RoundsShard = requires(Shard& shard, std::span<const scheduler::Step> steps, const scheduler::Task& task) {
  shard.apply(steps);
  { shard.push(task) } -> std::same_as<std::vector<double>>;
};

// Serves the driver at `driver_rank` until its stop: per request, apply(updates) then
// push(task), answered in round order. Throws runtime::JobFailed when the job fails: a
// failure notice, a closed transport, silence past the timeout, a request that is malformed,
// out of order or not from the driver, or an exception from the shard (the driver is told
// of the last ones, naming this worker).
// `answer`: the worker's answer to the driver's queries (RoundsDriver::ask), taken before the
// next round whenever one is waiting; empty: a query fails the job.
GYRE_API void serve_rounds(runtime::Mailbox& mailbox, int driver_rank, const scheduler::RoundsOptions& options,
                           const std::function<void(std::span<const scheduler::Step>)>& apply,
                           const std::function<std::vector<double>(const scheduler::Task&)>& push,
                           const std::function<std::vector<double>(const scheduler::Task&)>& answer = {});

template <RoundsShard Shard>
void serve_rounds(runtime::Mailbox& mailbox, int driver_rank, const scheduler::RoundsOptions& options, Shard& shard) {
  serve_rounds(
      mailbox, driver_rank, options, [&](std::span<const scheduler::Step> steps) { shard.apply(steps); },
      [&](const scheduler::Task& task) { return shard.push(task); });
}

// The job of a rounds run: `workers` workers, then the driver (the scheduler).
GYRE_API runtime::Job rounds_job(int workers, runtime::Backend backend);

// Runs the members of `job` (a rounds_job) that this process hosts: worker r serves the shard
// `shard_for(r)` makes (a Shard, or a pointer-like to one); the driver calls drive(driver),
// typically run_rounds(driver, app) with an app it builds there. Throws as runtime::run does.
template <class ShardFor, class Drive>
void run_rounds_job(const runtime::Job& job, const scheduler::RoundsOptions& options, ShardFor&& shard_for,
                    Drive&& drive) {
  runtime::run(job, [&](const runtime::Member& m) {
    if (m.rank < job.workers) {
      auto shard = shard_for(m.rank);
      if constexpr (RoundsShard<decltype(shard)>) serve_rounds(m.mailbox, job.workers, options, shard);
      else serve_rounds(m.mailbox, job.workers, options, *shard);
      return;
    }
    std::vector<int> workers(static_cast<std::size_t>(job.workers));
    std::iota(workers.begin(), workers.end(), 0);
    scheduler::RoundsDriver driver(m.mailbox, std::move(workers), options);
    drive(driver);
  });
}

// The same with the driver running `app` (scheduler::run_rounds(driver, app)): the rounds engine
// in one call. `limits`: the parameters and task kinds that exist (RoundsOptions::limits). The
// app runs where the driver does, in the process that hosts worker 0.
template <class ShardFor, scheduler::RoundsApp App>
void run_rounds_app(const runtime::Job& job, scheduler::RoundsLimits limits, ShardFor&& shard_for, App& app,
                    scheduler::RoundsOptions options = {}) {
  options.limits = limits;
  run_rounds_job(job, options, std::forward<ShardFor>(shard_for),
                 [&](scheduler::RoundsDriver& driver) { scheduler::run_rounds(driver, app); });
}

// The same with worker w serving a Shard(w, workers), built where the worker runs.
template <RoundsShard Shard, scheduler::RoundsApp App>
  requires std::constructible_from<Shard, int, int>
void run_rounds_app(const runtime::Job& job, scheduler::RoundsLimits limits, App& app, scheduler::RoundsOptions options = {}) {
  run_rounds_app(job, limits, [&job](int worker) { return Shard(worker, job.workers); }, app, std::move(options));
}

}  // namespace gyre::pipeline
