// gyre/rotation/cluster_job.cpp — an app's multi-process options as a rotation's engine options.
#include "gyre/rotation/rotation_job.hpp"

namespace gyre::rotation {

RotationOptions rotation_options(const ClusterJobOptions& o, int threads, int depth) {
  RotationOptions r;
  r.threads_per_worker = threads;
  r.depth = depth;
  r.timeout = o.timeout;
  r.visit_deadline = o.visit_deadline;
  r.registry = o.registry;
  return r;
}

}  // namespace gyre::rotation
