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
// and on each worker a shard (rounds/rounds_job.hpp: serve_rounds):
//   void apply(std::span<const Step>);
//   std::vector<double> push(const Task&);
#pragma once

#include <algorithm>
#include <concepts>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "gyre/rounds/rounds_driver.hpp"
#include "gyre/runtime/failure.hpp"

namespace gyre::scheduler {

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

}  // namespace gyre::scheduler
