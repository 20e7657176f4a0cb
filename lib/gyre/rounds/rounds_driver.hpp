// gyre/rounds/rounds_driver.hpp — the control plane's side of the rounds: send tasks, fold the workers' partials in worker order.
#pragma once

#include <chrono>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "gyre/base/export.hpp"
#include "gyre/rounds/task.hpp"
#include "gyre/runtime/failure.hpp"
#include "gyre/runtime/mailbox.hpp"

namespace gyre::scheduler {

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

}  // namespace gyre::scheduler
