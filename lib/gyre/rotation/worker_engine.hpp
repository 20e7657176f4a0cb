// gyre/rotation/worker_engine.hpp — one worker's long-lived TBB flow graph: receive, limit, update, forward.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "gyre/model/block.hpp"
#include "gyre/net/group.hpp"
#include "gyre/rotation/rotation_kernel.hpp"
#include "gyre/rotation/rotation_schedule.hpp"
#include "gyre/runtime/mailbox.hpp"

namespace gyre::rotation {

struct WorkerOptions {
  int threads = 1;          // size of this worker's task_arena: the cap on its threads
  int scheduler_rank = 0;   // where phase reports go
  // The pipeline depth: visits in flight at once (received or held, up to forwarded). Zero: the
  // schedule's blocks per worker, a whole step's.
  int depth = 0;
  // Peer liveness: the longest time the worker may sit idle waiting for a message before it
  // declares the job stuck. Dead processes are found sooner by the transport's heartbeat.
  std::chrono::milliseconds timeout{std::chrono::minutes(10)};
  // The longest one visit (one kernel call on one block) may take. A visit past it fails the
  // job at once, naming this worker and the block; the kernel cannot be interrupted, so this
  // worker's run() throws when the visit returns. Without it a long visit would surface on
  // the peers waiting for the block, as their "no message" timeout. Zero: no deadline.
  std::chrono::milliseconds visit_deadline{std::chrono::minutes(10)};
  // Counts owners per block (tests, debug). Null: no counting.
  model::OwnershipRegistry* registry = nullptr;
  // Called after every visit, from the update node (tests use it to check the schedule).
  std::function<void(const Visit&)> on_visit;
  // Called once every visit of a phase is done and before the scheduler hears of it, with the
  // blocks this worker keeps into the next phase: no visit runs until the next phase starts, so
  // these blocks and the kernel's state are this worker's part of a consistent cut (checkpoints).
  // A throw fails the job.
  std::function<void(std::uint64_t phase, PhaseKind kind, std::span<const model::Block* const> held)> at_phase_end;
};

// The graph, built once inside the worker's task_arena and reused for every phase:
//
//   inbound blocks → sequencer (schedule order) → limiter (depth) → update (serial; the
//   kernel parallelises inside) → forward (send to the ring successor, or keep at phase end)
//                                     ↑_______________ decrement ______________|
//
// The sequencer makes the order of visits on a worker independent of arrival order, which is
// what makes runs bitwise reproducible. The calling thread receives messages and, between
// messages, joins the arena to run the graph, so the worker needs no thread beyond its arena.
//
// Nothing from a peer reaches the graph unchecked: a block must have the shape `layout` gives
// its id, be the schedule's block for the visit it claims, come from the ring predecessor of
// that visit's phase, and claim a visit of the phase running or the next, once; phase signals
// must come from the scheduler, in order. Anything else fails the job with an error naming
// the sender.
class WorkerEngine {
 public:
  // `layout`: every block's shape by id (schedule.blocks() of them), as this rank's plan has it.
  // `mailbox` is the member's one receive path (runtime::Member::mailbox).
  WorkerEngine(runtime::Mailbox& mailbox, const RotationSchedule& schedule, std::vector<model::BlockShape> layout,
               RotationKernel& kernel, WorkerOptions options);
  ~WorkerEngine();
  WorkerEngine(const WorkerEngine&) = delete;
  WorkerEngine& operator=(const WorkerEngine&) = delete;

  // `initial` must be the blocks schedule.held_at_start(rank, 0), in the layout's shapes (else
  // std::invalid_argument). Runs until the scheduler says stop and returns the blocks this
  // worker then holds. Throws runtime::JobFailed when the job fails anywhere (the scheduler
  // is told first if the failure is here).
  std::vector<model::OwnedBlock> run(std::vector<model::Block> initial);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace gyre::rotation
