// pipeline/cluster_job.cpp — an app's multi-process options as the runtime's backend.
#include "gyre/pipeline/cluster_job.hpp"

namespace gyre::pipeline {

runtime::ProcessesBackend processes_backend(const ClusterJobOptions& o) {
  runtime::ProcessesBackend p;
  p.launch = o.launch;
  p.coordinator = o.coordinator;
  p.listen_host = o.listen_host;
  p.job_id = o.job_id;
  p.token = o.token;
  p.settings = o.settings;
  p.connect_timeout = o.connect_timeout;
  p.heartbeat_timeout = o.heartbeat_timeout;
  p.log = o.log;
  p.faults = o.faults;
  return p;
}

RotationOptions rotation_options(const ClusterJobOptions& o, int threads) {
  RotationOptions r;
  r.threads_per_worker = threads;
  r.timeout = o.timeout;
  r.registry = o.registry;
  return r;
}

}  // namespace gyre::pipeline
