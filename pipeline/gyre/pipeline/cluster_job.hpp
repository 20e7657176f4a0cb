// gyre/pipeline/cluster_job.hpp — one process's part of a multi-process rotation job over tcp.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "gyre/cluster/launch.hpp"
#include "gyre/cluster/settings.hpp"
#include "gyre/model/ownership.hpp"
#include "gyre/net/faults.hpp"
#include "gyre/net/tcp.hpp"
#include "gyre/pipeline/rotation_kernel.hpp"
#include "gyre/scheduler/rotation_driver.hpp"
#include "gyre/scheduler/rotation_schedule.hpp"

namespace gyre::pipeline {

struct ClusterJobOptions {
  cluster::Launch launch;            // this process's rank; size = number of workers P
  net::TcpEndpoint coordinator;      // rank 0 serves the rendezvous here; everyone registers there
  std::string listen_host = "0.0.0.0";
  std::string job_id = "gyre";
  std::string token;                 // shared secret; proven in every handshake, never sent
  // The job's settings, in a fixed order: name → canonical value text, e.g. {"--lambda", "0.05"}
  // or {"input --train", "12345 bytes, crc32c 0x1a2b3c4d"}. Rank 0's coordinator refuses a
  // process whose settings differ from its own, telling it the first difference; their digest
  // also binds the data-plane connections. At most cluster::kMaxSettingsBytes encoded.
  cluster::JobSettings settings;
  int threads_per_worker = 1;
  std::chrono::milliseconds connect_timeout{std::chrono::seconds(60)};
  std::chrono::milliseconds timeout{std::chrono::minutes(10)};  // longest wait of a worker for work
  std::chrono::milliseconds heartbeat_timeout{std::chrono::seconds(30)};  // a peer this silent is dead
  model::OwnershipRegistry* registry = nullptr;
  std::function<void(const std::string&)> log;  // transport notes; default stderr
  // What process 0 runs beside its worker as member P of the job ("the scheduler", "the
  // server"), for messages: "the scheduler (member 4, in process 0)" rather than a "rank 4"
  // that a 4-process job does not have.
  std::string beside_name = "the scheduler";
  net::FaultSpec faults;                        // injected into the worker's links (tests, benchmarks)
};

// What a process keeps after the job: its worker's blocks, and its worker's group, still
// connected, so that the app can gather results over it (rank 0 collects).
struct ClusterWorker {
  std::vector<model::OwnedBlock> held;
  std::unique_ptr<net::Group> group;
  std::uint64_t bytes_sent = 0;  // by the worker's group during the rotation
};

// This process's connections to a job of P + 1 members: the P workers (member r in process r)
// and the scheduler (member P, in process 0 next to worker 0). Process 0 also serves the
// rendezvous. `worker` carries the injected faults; `scheduler` is set on process 0 only.
struct ClusterGroups {
  std::unique_ptr<net::Group> worker;
  std::unique_ptr<net::Group> scheduler;
};
ClusterGroups join_cluster(const ClusterJobOptions& options);

// The job has P + 1 members: the P workers (member r runs in process r) and the scheduler
// (member P, in process 0 next to worker 0, so `mpirun -np 4` gives 4 workers). Process 0 also
// serves the rendezvous. Every process: registers its listening ports, connects its group(s),
// runs its worker engine (and, on 0, the driver with `policy`) to the end. `layout` is every
// block's shape by id, from this process's plan: blocks that arrive in another shape (a peer
// with other data or flags) fail the job. Throws scheduler::JobFailed, naming the rank, if any
// part of the job fails.
ClusterWorker run_cluster_worker(const ClusterJobOptions& options, const scheduler::RotationSchedule& schedule,
                                 std::vector<model::BlockShape> layout, RotationKernel& kernel,
                                 std::vector<model::Block> initial, const scheduler::PhasePolicy& policy);

}  // namespace gyre::pipeline
