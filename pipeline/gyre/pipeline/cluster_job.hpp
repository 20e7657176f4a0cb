// gyre/pipeline/cluster_job.hpp — what an app knows of a multi-process job: its process, peers, secrets and limits.
#pragma once

#include <chrono>
#include <functional>
#include <string>

#include "gyre/cluster/launch.hpp"
#include "gyre/cluster/settings.hpp"
#include "gyre/model/ownership.hpp"
#include "gyre/net/faults.hpp"
#include "gyre/net/tcp.hpp"
#include "gyre/pipeline/rotation_job.hpp"
#include "gyre/runtime/job.hpp"

namespace gyre::pipeline {

struct ClusterJobOptions {
  cluster::Launch launch;            // this process's rank; size = number of workers P
  net::TcpEndpoint coordinator;      // rank 0 serves the rendezvous here; everyone registers there
  std::string listen_host = "127.0.0.1";  // loopback unless the caller opens the job to the network
  std::string job_id = "gyre";
  std::string token;                 // shared secret; proven in every handshake, never sent
  // The job's settings, in a fixed order: name → canonical value text, e.g. {"--lambda", "0.05"}
  // or {"input --train", "12345 bytes, crc32c 0x1a2b3c4d"}. Rank 0's coordinator refuses a
  // process whose settings differ from its own, telling it the first difference; their digest
  // also binds the data-plane connections. At most cluster::kMaxSettingsBytes encoded.
  cluster::JobSettings settings;
  std::chrono::milliseconds connect_timeout{std::chrono::seconds(60)};
  std::chrono::milliseconds timeout{std::chrono::minutes(10)};  // longest wait of a worker for work
  std::chrono::milliseconds heartbeat_timeout{std::chrono::seconds(30)};  // a peer this silent is dead
  model::OwnershipRegistry* registry = nullptr;
  std::function<void(const std::string&)> log;  // transport notes; default stderr
  net::FaultSpec faults;                        // injected into the worker's links (tests, benchmarks)
};

// The runtime's view of the same: how this process joins the job's tcp links.
runtime::ProcessesBackend processes_backend(const ClusterJobOptions& options);
// And its engine options for a rotation run, with `threads` per worker.
RotationOptions rotation_options(const ClusterJobOptions& options, int threads);

}  // namespace gyre::pipeline
