// gyre/runtime/job.hpp — a job: its members, the backend that links them (one call builds it from what the
// launcher set), the one run() every engine starts through, and the control a cancel reaches.
#pragma once

#include <chrono>
#include <condition_variable>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <type_traits>
#include <variant>
#include <vector>

#include "gyre/base/export.hpp"
#include "gyre/cluster/launch.hpp"
#include "gyre/net/group.hpp"
#include "gyre/net/tcp.hpp"
#include "gyre/runtime/mailbox.hpp"

namespace gyre::runtime {

// What reaches a running job from outside it: a cancel, and whether it is stopping.

// Shared by a job's run() (Job::control) and whoever may stop it: a JobHandle, or a service's
// own thread. Every engine runs through run(), so every engine is cancelled the same way: the
// links of the members this process runs are closed, which ends every wait on a mailbox, and
// the engines look at cancelled() (through Mailbox::cancelled) before each visit or step, so a
// kernel stops at its next boundary rather than after the visits already queued.
class GYRE_API JobControl {
 public:
  static constexpr const char* kCancelledText = "the job was cancelled";

  // Idempotent; a job that has already ended keeps its outcome.
  void cancel();
  bool cancelled() const;

  // --- run()'s side ---
  // A member's links: closed at once if the job is already cancelled, or when it is.
  void attach(net::Group& group);
  // Before the groups die: cancel() must not reach them after.
  void detach_all();
  // A member has failed with `error`: the job is stopping. The first one is kept, for a handle
  // that stops waiting for members that do not end (a kernel hung past its deadline).
  void note_failure(std::exception_ptr error);
  // The job has ended with `error` (null: it succeeded).
  void finish(std::exception_ptr error);

  // --- a waiter's side ---
  enum class Outcome { kRunning, kEnded, kAbandoned };
  // Waits until the job has ended, or until `grace` has passed since it began to stop (a cancel
  // or a member's failure) with some member still running, or until `deadline`.
  Outcome wait(std::chrono::steady_clock::time_point deadline, std::chrono::milliseconds grace);
  // What the job ended with; or, abandoned, what stopped it (cancelled, or the first failure).
  std::exception_ptr outcome() const;
  // Until the job's threads have all returned, abandoned or not (within `deadline`).
  bool wait_ended(std::chrono::steady_clock::time_point deadline);

 private:
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<net::Group*> groups_;
  bool cancelled_ = false;
  bool ended_ = false;
  std::optional<std::chrono::steady_clock::time_point> stopping_since_;
  std::exception_ptr first_failure_;
  std::exception_ptr error_;
};

// Every member a thread of this process, linked by in-process queues: the embedded default.
struct ThreadsBackend {};

// Every member a thread of this process, linked by tcp over loopback: the real wire without
// launching processes (tests, benchmarks). `tcp` is every member's options, rank filled in.
struct LoopbackBackend {
  net::TcpOptions tcp;  // an empty token: the job draws one of its own (its members are all here)
};

// One process per worker (mpirun, srun, or by hand), linked by tcp. Process r hosts worker r
// and the job's other members that Job::host_of gives it; process 0 also serves the rendezvous.
struct ProcessesBackend {
  cluster::Launch launch;            // this process's rank; size = the job's number of workers
  net::TcpEndpoint coordinator;      // process 0 serves the rendezvous here; everyone registers
  // Process 0's socket on `coordinator`, when the caller opened it: kept listening across every
  // job run with this backend (a loading job, then training), so that no other socket can take
  // the port between their rendezvous. Empty: each job's coordinator listens itself.
  std::shared_ptr<const net::TcpListener> coordinator_listener;
  std::string listen_host = "127.0.0.1";  // loopback unless the caller opens the job to the network
  std::string job_id = "gyre";
  std::string token;                 // shared secret; proven in every handshake, never sent
  // The job's settings, in a fixed order: name → canonical value text, e.g. {"--lambda", "0.05"}
  // or {"input --train", "12345 bytes, crc32c 0x1a2b3c4d"}. Process 0's coordinator refuses a
  // process whose settings differ from its own, telling it the first difference; their digest
  // also binds the data-plane connections. At most cluster::kMaxSettingsBytes encoded.
  cluster::JobSettings settings;
  std::chrono::milliseconds connect_timeout{std::chrono::seconds(60)};
  std::chrono::milliseconds heartbeat_timeout{std::chrono::seconds(30)};  // a peer this silent is dead
  std::function<void(const std::string&)> log;  // transport notes; default stderr
  net::FaultSpec faults;                        // injected into each worker's links (tests, benchmarks)
};

using Backend = std::variant<ThreadsBackend, LoopbackBackend, ProcessesBackend>;

// Who takes part: `workers` members 0..workers−1, then one member per role ("the scheduler",
// "server 1", "the lock service"), numbered on from `workers` in the order given.
struct GYRE_API Job {
  int workers = 1;
  std::vector<std::string> roles;
  Backend backend = ThreadsBackend{};
  // Faults injected into the links of the members named here, on any backend (tests,
  // benchmarks); across processes, only those of the members this process hosts apply.
  std::map<int, net::FaultSpec> faults;
  // How the job is stopped from outside: start() sets it; a caller that runs the job on a
  // thread of its own may set one to cancel it from another. Null: nothing outside stops it.
  std::shared_ptr<JobControl> control;

  int members() const noexcept { return workers + static_cast<int>(roles.size()); }
  // Across processes, the process that runs `member`: worker r runs in process r; the roles
  // are dealt out in turn from process 0 (so one scheduler lives beside worker 0, and S
  // servers spread over the processes).
  int host_of(int member) const;
  // How messages name `member`: "rank 3", or "the scheduler (member 4, in rank 0's process)"
  // rather than a "rank 4" that a 4-process job does not have: what died is named by the rank a
  // launcher (mpirun, srun) gave its process.
  std::string name(int member) const;
  // Throws std::invalid_argument for a job that cannot run (no workers, a process count that
  // is not the number of workers).
  void validate() const;
};

// What each part is given: its member number, its links to the job, and its one receive
// path, which everything the part runs shares (an engine, the collectives inside its kernel,
// a gather after it), so that a message one of them is not ready for waits for the other.
struct Member {
  int rank;
  net::Group& group;
  Mailbox& mailbox;
};

// Runs part(member) for every member this process hosts (all of them, on one machine), each
// on a thread of its own, and returns once all have ended. If any part throws, the job stops
// everywhere and the root cause is rethrown: inside one process the original exception (an
// embedder's own type survives), elsewhere the JobFailed that names the member.
// A job across processes that never forms throws JobFailed with cause kSetup, naming the member
// that never joined or was refused (rank(); -1 when only the coordinator's text says who).
//
// On one machine a failing part's group is closed, so that parts waiting on it stop too.
// Across processes nothing is closed on failure: the engines tell the job themselves, and a
// connection cut early would make the peers blame this process instead.
GYRE_API void run(const Job& job, const std::function<void(const Member&)>& part);

struct StartOptions {
  // How long a handle waits, once the job has begun to stop (a cancel, or a member's failure),
  // for members that have not ended, before wait() and wait_for() abandon them and return: a
  // kernel hung inside a visit cannot be interrupted, and a service must not hang on it. An
  // abandoned job's threads run on until the kernel returns; the handle's destructor joins them.
  std::chrono::milliseconds grace{std::chrono::milliseconds(500)};
};

// A job started in the background, for a service that must stay responsive: cancel() stops
// it, wait() collects its outcome. Any engine is started so (see start()): each runs through
// run(), which the job's control reaches. The destructor cancels a job still running and joins
// its threads, even abandoned ones (the program may refer to the caller's objects): a caller
// that must not block keeps the handle until join_for() says they are gone.
class GYRE_API JobHandle {
 public:
  // Starts program(job) on a thread of its own, job.control set to this handle's.
  JobHandle(Job job, std::function<void(const Job&)> program, StartOptions options = {});
  // Starts run(job, part).
  JobHandle(Job job, std::function<void(const Member&)> part, StartOptions options = {});
  ~JobHandle();
  JobHandle(const JobHandle&) = delete;
  JobHandle& operator=(const JobHandle&) = delete;
  JobHandle(JobHandle&&) noexcept = default;
  JobHandle& operator=(JobHandle&&) = delete;  // would have to join the job it replaces

  // Closes the links of every member this process runs, so that every wait on a mailbox ends;
  // a rotation kernel stops before its next visit, a step loop at its next step. Then wait()
  // throws JobFailed with cause kCancelled. Idempotent; a job that has already ended keeps its
  // outcome. Across processes, a cancel during the rendezvous takes effect once the links
  // exist (at most the connect timeout later).
  void cancel();
  // True once the outcome is known (within `timeout`): the job has ended, or it has been
  // stopping for longer than the grace and was abandoned.
  bool wait_for(std::chrono::milliseconds timeout);
  // Waits for the outcome; rethrows what run() would have thrown (for an abandoned job, what
  // stopped it: the cancel, or the first member's failure).
  void wait();
  // Whether the job's threads have all returned (within `timeout`), abandoned or not: for a
  // caller that must know before its process exits or what the program refers to dies.
  bool join_for(std::chrono::milliseconds timeout);

 private:
  std::shared_ptr<JobControl> control_;
  std::thread thread_;  // runs the program; joined by the destructor, abandoned or not
  StartOptions options_;
};

// A handle over an engine that returns a value on this process (a gathered model, a result
// that only rank 0 has): wait() returns it.
template <class Result>
class Handle {
 public:
  Handle(Job job, std::function<Result(const Job&)> program, StartOptions options = {})
      : result_(std::make_shared<std::optional<Result>>()),
        handle_(std::move(job),
                std::function<void(const Job&)>([result = result_, program = std::move(program)](const Job& j) {
                  *result = program(j);
                }),
                options) {}

  void cancel() { handle_.cancel(); }
  bool wait_for(std::chrono::milliseconds timeout) { return handle_.wait_for(timeout); }
  Result wait() {
    handle_.wait();
    return std::move(**result_);
  }
  bool join_for(std::chrono::milliseconds timeout) { return handle_.join_for(timeout); }

 private:
  std::shared_ptr<std::optional<Result>> result_;
  JobHandle handle_;
};

// Starts any engine in the background: `program` is given the job, its control set, and runs
// the engine on it (rotation::run_rotation(job, …), run_rounds, run_ps, mapreduce::run, …).
//   auto h = start(job, [&](const Job& j) { return run_ps(j, layout, program); });
//   … h.cancel(); … auto result = h.wait();
template <class Program>
auto start(Job job, Program program, StartOptions options = {}) {
  using Result = std::invoke_result_t<Program&, const Job&>;
  if constexpr (std::is_void_v<Result>) {
    return JobHandle(std::move(job), std::function<void(const Job&)>(std::move(program)), options);
  } else {
    return Handle<Result>(std::move(job), std::function<Result(const Job&)>(std::move(program)), options);
  }
}

// A process's backend in one call, from what its launcher set.

// The backend this process runs a job on, from what its launcher put in `env`
// (cluster::environment_of(envp): the library never reads the environment itself):
//  - started by mpirun or srun (cluster::from_launcher), a ProcessesBackend for this process:
//    the coordinator from GYRE_COORDINATOR (HOST:PORT, served by process 0), the token from
//    GYRE_TOKEN, the data plane on loopback when the coordinator is, else on every address;
//  - otherwise ThreadsBackend: every worker a thread of this process.
// Throws std::invalid_argument naming the variable that is missing or malformed.
GYRE_API Backend backend_from(const cluster::Environment& env, const std::string& job_id = "gyre");

// The workers of a job on `backend`: one per process across processes, else `threads`.
GYRE_API int workers_on(const Backend& backend, int threads);
// Whether this process is the one that reports for the job (prints, writes): process 0, or
// the only one.
GYRE_API bool reports(const Backend& backend);

}  // namespace gyre::runtime
