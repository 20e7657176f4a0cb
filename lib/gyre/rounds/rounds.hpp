// gyre/rounds/rounds.hpp — the rounds engine's loop: an app schedules, the workers push, the app pulls, up to depth rounds in flight.
//
// STRADS's programming model as a library. Per round the control plane *schedules* a task (a
// set of parameters, picked by priority and a dependency check), every worker *pushes* a
// partial result over its data shard, and the control plane *pulls*: folds the partials (in
// worker order) and turns them into steps on the parameters, which travel to every worker
// with the next task. With depth d, d rounds are in flight: a round is scheduled before the
// steps of the d − 1 rounds before it are known (bounded staleness), which hides the
// round trip.
//
// An app for run_rounds provides, on the control plane:
//   Next schedule();                  // called while fewer than depth() rounds are in flight
//   Task check_task();                // the exact round Next::check() asks for (see below)
//   std::size_t partial_size(const Task&);
//   std::vector<Step> pull(const Task&, std::span<const double> folded);
//   int depth();                      // rounds in flight allowed now (may change as it runs)
// and on each worker a shard (serve_rounds, below):
//   void apply(std::span<const Step>);
//   std::vector<double> push(const Task&);
#pragma once

#include <algorithm>
#include <chrono>
#include <concepts>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <numeric>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "gyre/base/export.hpp"
#include "gyre/runtime/failure.hpp"
#include "gyre/runtime/job.hpp"
#include "gyre/runtime/mailbox.hpp"

namespace gyre::rounds {

// What a rounds app's control plane and workers exchange: a task, the steps it led to, the limits both check.

// What the control plane schedules for one round: a set of parameters and what to compute for
// them, both the app's to interpret (kind 0 might be "partial sums for these coordinates", kind
// 1 "an exact check of everything"). `scalar` is one number the round needs besides the ids (a
// residual mean, a dual scale), decided by the driver when it sends the round.
struct Task {
  std::uint8_t kind = 0;
  double scalar = 0;
  std::vector<std::uint32_t> params;
};

// A change the control plane made to one parameter, which every worker applies to its own
// state (a residual, margins) before it pushes the next task.
struct Step {
  std::uint32_t param = 0;
  double delta = 0;
};

// What a receiver allows: a peer must not be able to name a parameter or a kind that does not
// exist, nor choose an allocation.
struct RoundsLimits {
  std::uint32_t params = 0;  // every id < params
  std::uint8_t kinds = 1;    // every kind < kinds
};

// The control plane's side of the rounds: send tasks, fold the workers' partials in worker order.

// What both sides of a rounds job agree on.
struct RoundsOptions {
  std::string name = "rounds";  // errors say "<name> scheduler: …", "<name> worker 3: …"
  RoundsLimits limits;          // the parameters and kinds that exist
  // Longest wait for any one message; past it the job fails naming who is silent.
  std::chrono::milliseconds timeout{std::chrono::minutes(10)};
  bool finite_partials = true;  // refuse a partial holding a NaN or an infinity, naming its sender
  // How a worker's partial joins the ones before it (acc, partial); empty: element-wise sum.
  // Partials join in worker order whatever order they arrive in, so the folded values are the
  // same bits on every backend and every run.
  std::function<void(std::span<double>, std::span<const double>)> fold;
};

// Sends rounds to every worker and returns them folded, oldest first, with up to as many in
// flight as the caller sends before it receives. Each request carries the updates queued since
// the previous one, so a worker applies every update before it pushes the next task.
//
// Replies that arrive ahead of their round are parked until it is folded; a reply for a round
// not sent, a second reply, a malformed or non-finite one, or one from a member that is not a
// worker fails the job (runtime::FailureCause::kBadMessage, naming the sender), as does
// silence past the timeout (kTimeout, naming the silent workers). A failure notice from a
// worker is passed on to the others. Every failure ends in runtime::JobFailed.
class GYRE_API RoundsDriver {
 public:
  struct Folded {
    std::uint64_t round = 0;
    Task task;
    std::vector<double> values;  // the workers' partials folded
  };

  RoundsDriver(runtime::Mailbox& mailbox, std::vector<int> workers, RoundsOptions options);
  ~RoundsDriver();
  RoundsDriver(const RoundsDriver&) = delete;
  RoundsDriver& operator=(const RoundsDriver&) = delete;

  // Steps to send with the next request.
  void queue(std::span<const Step> steps);
  // Sends `task` (with the queued steps) to every worker; each must answer with `partial_size`
  // values. Returns the round's number (0, 1, … in sending order).
  std::uint64_t send(Task task, std::size_t partial_size);
  // Waits until the oldest round in flight has every worker's partial.
  Folded receive_oldest();
  // Asks every worker `task` outside the rounds: a question about the workers' data that no
  // step changes (the dependency check's inner products), which a worker answers between two
  // rounds, before the rounds already queued for it. Returns each worker's answer (at most
  // `most` values), in worker order; partials of the rounds in flight that arrive meanwhile
  // are parked. The rounds in flight stay in flight.
  std::vector<std::vector<double>> ask(Task task, std::size_t most);
  std::size_t in_flight() const noexcept;
  std::uint64_t rounds_sent() const noexcept;

  // Tells every worker the job is over.
  void stop();
  // Tells the workers, then throws: this scheduler's own failure (kError), keeping the
  // exception of the embedder's own type that caused it, if any (JobFailed::original).
  [[noreturn]] void fail(const std::string& why, std::exception_ptr original = nullptr);
  // The same for a failure member `rank` is at fault for.
  [[noreturn]] void fail(const std::string& why, int rank, runtime::FailureCause cause);

  const RoundsOptions& options() const noexcept;
  const std::vector<int>& workers() const noexcept;

 private:
  struct State;  // the rounds in flight, the parked replies and the receive path (rounds_driver.cpp)
  std::unique_ptr<State> state_;
};

// What the app wants next.
struct Next {
  enum class Kind {
    kSend,   // send `task` now
    kWait,   // nothing to send until the oldest round in flight is pulled
    kCheck,  // an exact round: pull every round in flight, then send check_task() — built on
             // the state every step so far has made — alone, and pull it before anything else
    kStop,   // pull the rounds still in flight, then stop the workers
  };
  Kind kind = Kind::kWait;
  Task task;

  static Next send(Task task) { return Next{Kind::kSend, std::move(task)}; }
  static Next wait() { return Next{Kind::kWait, {}}; }
  static Next check() { return Next{Kind::kCheck, {}}; }
  static Next stop() { return Next{Kind::kStop, {}}; }
};

template <class App>
concept RoundsApp = requires(App& app, const Task& task, std::span<const double> folded) {
  { app.schedule() } -> std::same_as<Next>;
  { app.check_task() } -> std::same_as<Task>;
  { app.partial_size(task) } -> std::convertible_to<std::size_t>;
  { app.pull(task, folded) } -> std::same_as<std::vector<Step>>;
  { app.depth() } -> std::convertible_to<int>;
};

// Runs the rounds until the app says stop, then stops the workers. An exception from the app
// fails the job ("<name> scheduler: " + what), telling every worker; every failure ends in
// runtime::JobFailed. An app that asks to wait with nothing in flight is a bug in it, reported
// the same way.
template <RoundsApp App>
void run_rounds(RoundsDriver& driver, App& app) {
  const std::string me = driver.options().name + " scheduler";
  auto pull_oldest = [&] {
    RoundsDriver::Folded done = driver.receive_oldest();
    const std::vector<Step> steps = app.pull(done.task, done.values);
    driver.queue(steps);
  };
  auto drain = [&] {
    while (driver.in_flight() > 0) pull_oldest();
  };
  try {
    for (;;) {
      if (driver.in_flight() >= static_cast<std::size_t>(std::max(1, app.depth()))) {
        pull_oldest();
        continue;
      }
      Next next = app.schedule();
      switch (next.kind) {
        case Next::Kind::kSend: {
          const std::size_t size = app.partial_size(next.task);
          driver.send(std::move(next.task), size);
          break;
        }
        case Next::Kind::kWait:
          if (driver.in_flight() == 0) throw std::logic_error("the app waits with no round in flight");
          pull_oldest();
          break;
        case Next::Kind::kCheck: {
          drain();
          Task task = app.check_task();
          const std::size_t size = app.partial_size(task);
          driver.send(std::move(task), size);
          pull_oldest();
          break;
        }
        case Next::Kind::kStop:
          drain();
          driver.stop();
          return;
      }
    }
  } catch (const runtime::JobFailed&) {
    throw;
  } catch (const std::exception& e) {
    const auto error = std::current_exception();
    driver.fail(me + ": " + e.what(), runtime::is_own_type(error) ? error : nullptr);
  }
}

// A worker's side of the rounds engine, and a whole rounds job on the runtime.

// A worker's state in a rounds job: its shard of the data and what the steps so far made of it.
template <class Shard>
concept RoundsShard = requires(Shard& shard, std::span<const Step> steps, const Task& task) {
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
GYRE_API void serve_rounds(runtime::Mailbox& mailbox, int driver_rank, const RoundsOptions& options,
                           const std::function<void(std::span<const Step>)>& apply,
                           const std::function<std::vector<double>(const Task&)>& push,
                           const std::function<std::vector<double>(const Task&)>& answer = {});

template <RoundsShard Shard>
void serve_rounds(runtime::Mailbox& mailbox, int driver_rank, const RoundsOptions& options, Shard& shard) {
  serve_rounds(
      mailbox, driver_rank, options, [&](std::span<const Step> steps) { shard.apply(steps); },
      [&](const Task& task) { return shard.push(task); });
}

// The job of a rounds run: `workers` workers, then the driver (the scheduler).
GYRE_API runtime::Job rounds_job(int workers, runtime::Backend backend);

// Runs the members of `job` (a rounds_job) that this process hosts: worker r serves the shard
// `shard_for(r)` makes (a Shard, or a pointer-like to one); the driver calls drive(driver),
// typically run_rounds(driver, app) with an app it builds there. Throws as runtime::run does.
template <class ShardFor, class Drive>
void run_rounds_job(const runtime::Job& job, const RoundsOptions& options, ShardFor&& shard_for,
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
    RoundsDriver driver(m.mailbox, std::move(workers), options);
    drive(driver);
  });
}

// The same with the driver running `app` (run_rounds(driver, app)): the rounds engine
// in one call. `limits`: the parameters and task kinds that exist (RoundsOptions::limits). The
// app runs where the driver does, in the process that hosts worker 0.
template <class ShardFor, RoundsApp App>
void run_rounds_app(const runtime::Job& job, RoundsLimits limits, ShardFor&& shard_for, App& app,
                    RoundsOptions options = {}) {
  options.limits = limits;
  run_rounds_job(job, options, std::forward<ShardFor>(shard_for),
                 [&](RoundsDriver& driver) { run_rounds(driver, app); });
}

// The same with worker w serving a Shard(w, workers), built where the worker runs.
template <RoundsShard Shard, RoundsApp App>
  requires std::constructible_from<Shard, int, int>
void run_rounds_app(const runtime::Job& job, RoundsLimits limits, App& app, RoundsOptions options = {}) {
  run_rounds_app(job, limits, [&job](int worker) { return Shard(worker, job.workers); }, app, std::move(options));
}

}  // namespace gyre::rounds
