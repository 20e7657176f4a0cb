// gyre/rotation/worker_engine.cpp — the flow graph of a worker and the loop that feeds it.
#include "gyre/rotation/worker_engine.hpp"

#include <oneapi/tbb/flow_graph.h>

#include <algorithm>
#include <condition_variable>
#include <map>
#include <mutex>
#include <optional>
#include <exception>
#include <set>
#include <stop_token>
#include <string>
#include <thread>

#include "gyre/base/thread_arena.hpp"
#include "gyre/collective/communicator.hpp"
#include "gyre/rotation/block_codec.hpp"
#include "gyre/rotation/protocol.hpp"
#include "gyre/rotation/rotation_driver.hpp"
#include "gyre/runtime/mailbox.hpp"
#include "gyre/runtime/receiver.hpp"
#include "gyre/wire/codec.hpp"

namespace gyre::rotation {
namespace flow = oneapi::tbb::flow;
using rotation::PhaseKind;
using rotation::Visit;

namespace {
// Flow-graph messages must be copyable; the handle inside stays unique.
struct Item {
  std::uint64_t seq = 0;
  std::shared_ptr<model::OwnedBlock> block;
  int from = -1;  // the rank it came from (this worker's own for a block it held)
};
}  // namespace

struct WorkerEngine::State {
  State(runtime::Mailbox& mailbox, const RotationSchedule& s, std::vector<model::BlockShape> l, RotationKernel& k,
        WorkerOptions o)
      : group(mailbox.group()),
        schedule(s),
        layout(std::move(l)),
        kernel(k),
        options(std::move(o)),
        arena(std::max(1, options.threads)),
        inbox(mailbox),
        workers(inbox, all_workers(s.workers()), collective::CollectiveOptions{options.timeout}) {}

  static std::vector<int> all_workers(int n) {
    std::vector<int> ranks(static_cast<std::size_t>(n));
    for (int r = 0; r < n; ++r) ranks[static_cast<std::size_t>(r)] = r;
    return ranks;
  }
  // What the dispatch loop takes from the member's mailbox: the rotation protocol's messages.
  // The kernel's collectives, and what comes for a later consumer of the mailbox (a gather
  // after the job, asked for before this worker's stop arrived), wait there for their taker.
  static bool for_engine(const net::Message& m) {
    return m.type == kBlockMessage || m.type == kPhaseGo || m.type == kStop;
  }

  net::Group& group;
  const RotationSchedule& schedule;
  const std::vector<model::BlockShape> layout;
  RotationKernel& kernel;
  WorkerOptions options;
  ThreadArena arena;
  runtime::Mailbox& inbox;  // the member's: shared by the dispatch loop, the kernel's collectives, later consumers
  collective::Communicator workers;  // ranks 0..P−1, ring in rank order

  std::mutex mutex;  // guards the fields below, shared by the dispatch loop and the graph
  std::map<std::uint64_t, std::pair<PhaseKind, std::vector<Visit>>> phases;
  std::map<model::BlockId, std::shared_ptr<model::OwnedBlock>> held;
  std::optional<runtime::JobFailed> error;  // this worker's own failure, once reported
  std::optional<std::pair<Visit, net::Clock::time_point>> visiting;  // the visit running, since when
  std::uint64_t phases_done = 0;  // phases whose every visit has been forwarded
  std::uint32_t visits_done = 0;  // in the current phase; touched by the serial forward node only

  // Touched by the dispatch loop only.
  std::uint64_t phases_started = 0;
  std::set<std::uint64_t> arrived;  // visits whose block came over the wire, in the window

  int rank() const { return group.rank(); }
  std::uint64_t per_phase() const { return schedule.visits_per_phase(); }

  std::pair<PhaseKind, Visit> lookup(std::uint64_t seq) {
    std::lock_guard lock(mutex);
    const auto& [kind, visits] = phases.at(seq / per_phase());
    return {kind, visits.at(seq % per_phase())};
  }

  // `error` is what a graph body caught. A kernel's exception of the embedder's own type
  // travels nested in it (see update) and is kept as the failure's original.
  void report_failure(const std::string& what, const std::exception& error,
                      runtime::FailureCause cause = runtime::FailureCause::kError) {
    std::exception_ptr original;
    if (const auto* nested = dynamic_cast<const std::nested_exception*>(&error))
      if (runtime::is_own_type(nested->nested_ptr())) original = nested->nested_ptr();
    runtime::JobFailed failure(rank(), cause, what, original);
    {
      std::lock_guard lock(mutex);
      if (error_reported()) return;
      this->error = failure;
    }
    for (int to : {options.scheduler_rank, rank()}) {  // the scheduler, and our own dispatch loop
      try {
        group.send(to, runtime::failure_message(failure));
      } catch (const std::exception&) {
      }
    }
  }
  void report_failure(const std::string& what, runtime::FailureCause cause = runtime::FailureCause::kError) {
    report_failure(what, std::runtime_error(what), cause);
  }
  bool error_reported() const { return error.has_value(); }

  Item update(const Item& item) {
    const auto [kind, visit] = lookup(item.seq);
    // A cancel stops the kernel here, not after the visits already queued in the graph.
    if (inbox.cancelled())
      throw runtime::JobFailed(rank(), runtime::FailureCause::kCancelled,
                               "cancelled before the visit of block " + std::to_string(visit.block));
    model::Block& block = **item.block;
    if (block.id() != visit.block)
      throw std::logic_error("worker " + std::to_string(rank()) + ": got block " + std::to_string(block.id()) +
                             " for the visit of block " + std::to_string(visit.block));
    struct Visiting {  // what the visit watchdog sees
      State& s;
      Visiting(State& state, const Visit& v) : s(state) {
        std::lock_guard lock(s.mutex);
        s.visiting.emplace(v, net::Clock::now());
      }
      ~Visiting() {
        std::lock_guard lock(s.mutex);
        s.visiting.reset();
      }
    };
    try {
      const Visiting now(*this, visit);
      if (kind == PhaseKind::kTrain) {
        kernel.train(block, visit);
        block.bump_version();
      } else {
        kernel.evaluate(block, visit);
      }
    } catch (const std::exception& e) {
      if (runtime::is_job_failure(e)) throw;  // e.g. a collective interrupted by the job's failure: that text names the cause
      // The kernel checks what the block holds (LDA's counts); say where the block came from.
      // The kernel's own exception rides along, nested, for an embedder in this process.
      const std::string origin = item.from == rank() ? " (held here)" : " from rank " + std::to_string(item.from);
      std::throw_with_nested(std::runtime_error("block " + std::to_string(block.id()) + origin + ": " + e.what()));
    }
    if (options.on_visit) options.on_visit(visit);
    return item;
  }

  // Until `stop`: fails the job once a visit has run past the deadline. Polls a few times per
  // deadline (at most every 100 ms), so a hung kernel is named within about a quarter of it.
  void watch_visits(std::stop_token stop) {
    const auto deadline = options.visit_deadline;
    const auto period = std::clamp<std::chrono::milliseconds>(deadline / 4, std::chrono::milliseconds(1),
                                                               std::chrono::milliseconds(100));
    std::mutex sleep_mutex;
    std::condition_variable_any sleep;
    for (;;) {
      {
        std::unique_lock lock(sleep_mutex);
        if (sleep.wait_for(lock, stop, period, [] { return false; }) || stop.stop_requested()) return;
      }
      std::string late;
      {
        std::lock_guard lock(mutex);
        if (error_reported() || !visiting) continue;
        const auto& [v, since] = *visiting;
        const auto ran = net::Clock::now() - since;
        if (ran < deadline) continue;
        late = "worker " + std::to_string(rank()) + ": its visit of block " + std::to_string(v.block) + " (phase " +
               std::to_string(v.phase) + ", step " + std::to_string(v.step) + ") has run for " +
               std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(ran).count()) +
               " ms, past the visit deadline of " + std::to_string(deadline.count()) + " ms";
      }
      report_failure(late, runtime::FailureCause::kTimeout);
    }
  }

  void forward(const Item& item) {
    const auto [kind, visit] = lookup(item.seq);
    if (visit.next == Visit::kKeep) {
      std::lock_guard lock(mutex);
      held[visit.block] = item.block;
    } else {
      group.send(visit.next, encode_block(item.block->release(), item.seq + schedule.blocks_per_worker()));
    }
    if (++visits_done == per_phase()) {
      visits_done = 0;
      std::vector<const model::Block*> blocks;
      {
        std::lock_guard lock(mutex);
        for (auto& entry : held) blocks.push_back(&**entry.second);
      }
      kernel.end_phase(visit.phase, kind, blocks);
      if (options.at_phase_end) options.at_phase_end(visit.phase, kind, blocks);
      {
        std::lock_guard lock(mutex);
        ++phases_done;
      }
      group.send(options.scheduler_rank, encode_phase_done(visit.phase, kernel.take_phase_sums(kind)));
    }
  }

  // A block from the wire, checked against the plan before anything indexes into it.
  Item receive_block(net::Message m) {
    const int from = m.sender;
    auto decoded = decode_block(std::move(m), layout);
    check_arrival(schedule, rank(), phases_started, from, decoded.block.id(), decoded.seq);
    if (!arrived.insert(decoded.seq).second)
      throw wire::DecodeError("block " + std::to_string(decoded.block.id()) + " from rank " + std::to_string(from) +
                              " is for visit " + std::to_string(decoded.seq) + ", whose block has already arrived");
    return Item{decoded.seq, std::make_shared<model::OwnedBlock>(std::move(decoded.block), options.registry), from};
  }

  // Records the phase plan and puts the blocks held since the last phase into the graph.
  std::vector<Item> start_phase(const net::Message& m) {
    const auto go = decode_phase_go(m, options.scheduler_rank, phases_started);
    const auto kind = static_cast<PhaseKind>(go.kind);
    // No visit of this phase can run yet: its first ones are the held blocks put below.
    kernel.start_phase(go.phase, kind, m.body.bytes());
    auto visits = schedule.visits(rank(), go.phase);
    std::vector<Item> items;
    std::lock_guard lock(mutex);
    if (phases_done != go.phase)
      throw std::runtime_error("rank " + std::to_string(m.sender) + " started phase " + std::to_string(go.phase) +
                               " while phase " + std::to_string(phases_done) + " is still running here");
    for (const Visit& v : visits) {
      if (v.step != 0) break;
      auto it = held.find(v.block);
      if (it == held.end())
        throw std::logic_error("worker " + std::to_string(rank()) + " does not hold block " +
                               std::to_string(v.block) + " at the start of phase " + std::to_string(go.phase));
      items.push_back(Item{v.seq, std::move(it->second), rank()});
      held.erase(it);
    }
    phases.erase(phases.begin(), phases.lower_bound(go.phase));  // finished phases
    phases[go.phase] = {kind, std::move(visits)};
    ++phases_started;
    // Blocks of the phase before can no longer arrive (the window moved past it).
    arrived.erase(arrived.begin(), arrived.lower_bound(go.phase * per_phase()));
    return items;
  }

  // The layout is the plan's and the initial blocks must fit it: a mismatch here is the
  // caller's, not a peer's.
  void hold_initial(std::vector<model::Block> initial) {
    if (layout.size() != static_cast<std::size_t>(schedule.blocks()))
      throw std::invalid_argument("worker " + std::to_string(rank()) + ": a layout of " + std::to_string(layout.size()) +
                                  " blocks for a schedule of " + std::to_string(schedule.blocks()));
    for (auto& b : initial) {
      const auto id = b.id();
      if (id >= layout.size() || b.shape() != layout[id] || held.count(id) != 0)
        throw std::invalid_argument("worker " + std::to_string(rank()) + ": initial block " + std::to_string(id) +
                                    " is not in the layout's shape, or given twice");
      held[id] = std::make_shared<model::OwnedBlock>(std::move(b), options.registry);
    }
  }
};

WorkerEngine::WorkerEngine(runtime::Mailbox& mailbox, const RotationSchedule& schedule,
                           std::vector<model::BlockShape> layout, RotationKernel& kernel, WorkerOptions options)
    : state_(std::make_unique<State>(mailbox, schedule, std::move(layout), kernel, std::move(options))) {}

WorkerEngine::~WorkerEngine() = default;

std::vector<model::OwnedBlock> WorkerEngine::run(std::vector<model::Block> initial) {
  State& s = *state_;
  const std::string me = "worker " + std::to_string(s.rank());
  s.hold_initial(std::move(initial));
  s.kernel.attach(s.workers);
  std::jthread watchdog;
  if (s.options.visit_deadline.count() > 0) watchdog = std::jthread([&s](std::stop_token stop) { s.watch_visits(stop); });

  std::optional<runtime::JobFailed> failure;  // why the loop ended, if not by kStop
  s.arena.execute([&] {
    flow::graph g;
    // Each body catches so that a failure becomes a job error reported to the scheduler, not
    // a silently cancelled graph.
    flow::sequencer_node<Item> sequencer(g, [](const Item& i) { return static_cast<std::size_t>(i.seq); });
    const int depth = s.options.depth > 0 ? s.options.depth : s.schedule.blocks_per_worker();
    flow::limiter_node<Item> limiter(g, static_cast<std::size_t>(depth));
    flow::multifunction_node<Item, std::tuple<Item>> update(
        g, flow::serial, [&](const Item& item, auto& ports) {
          try {
            std::get<0>(ports).try_put(s.update(item));
          } catch (const std::exception& e) {
            s.report_failure(me + ": " + e.what(), e);
          }
        });
    flow::function_node<Item, flow::continue_msg> forward(g, flow::serial, [&](const Item& item) {
      try {
        s.forward(item);
      } catch (const std::exception& e) {
        s.report_failure(me + ": " + e.what());
      }
      return flow::continue_msg();
    });
    flow::make_edge(sequencer, limiter);
    flow::make_edge(limiter, update);
    flow::make_edge(std::get<0>(update.output_ports()), forward);
    flow::make_edge(forward, limiter.decrementer());

    // The flow graph may be running a visit: silence is reported to ourselves (report_failure),
    // which drains the graph before the loop ends on the notice.
    const runtime::Receiver receiver(s.inbox, me, s.options.timeout);
    for (;;) {
      std::optional<net::Message> m;
      try {
        m = receiver.receive_until(State::for_engine, net::Clock::now() + s.options.timeout);
      } catch (const runtime::JobFailed& e) {
        failure = e;  // our own notice (see report_failure), another member's, or a lost peer
        break;
      }
      if (!m) {
        s.report_failure(me + ": no message for " + std::to_string(s.options.timeout.count()) + " ms",
                         runtime::FailureCause::kTimeout);
        continue;  // our own failure message ends the loop
      }
      // Every accepted item is within the sequencer's window and new to it, so a refused put
      // would be the engine's own error.
      auto put = [&](const Item& item) {
        if (!sequencer.try_put(item))
          throw std::logic_error("the sequencer refused visit " + std::to_string(item.seq));
      };
      try {
        if (m->type == kStop) {
          if (m->sender == s.options.scheduler_rank) break;
          throw std::runtime_error("rank " + std::to_string(m->sender) + " sent a stop, but the scheduler is rank " +
                                   std::to_string(s.options.scheduler_rank));
        }
        if (m->type == kBlockMessage) {
          put(s.receive_block(std::move(*m)));
        } else if (m->type == kPhaseGo) {
          for (const Item& item : s.start_phase(*m)) put(item);
        }
      } catch (const std::exception& e) {
        s.report_failure(me + ": " + e.what());
      }
      g.wait_for_all();  // run what just became runnable, this thread helping
    }
    g.wait_for_all();
  });

  if (failure) {
    // A failure this worker reported is what it throws, however the loop heard the job end (its
    // own notice, the scheduler's relay of it, or a group closed before either arrived): only
    // that one keeps what the kernel threw.
    std::lock_guard lock(s.mutex);
    throw s.error ? *s.error : *failure;
  }
  std::vector<model::OwnedBlock> out;
  for (auto& [id, block] : s.held) out.push_back(std::move(*block));
  s.held.clear();
  return out;
}

}  // namespace gyre::rotation
