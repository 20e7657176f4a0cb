// gyre/ps/p2p_job.hpp — a peer-to-peer job (Owl's third engine): every peer computes and owns a part of the model; no server.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <vector>

#include "gyre/base/export.hpp"
#include "gyre/ps/barrier.hpp"
#include "gyre/ps/ps_layout.hpp"
#include "gyre/ps/worker.hpp"
#include "gyre/runtime/job.hpp"

namespace gyre::pipeline::p2p {

using ps::Fold;
using ps::Versioned;
using ps::Worker;

// The app's side (worker.hpp), in Actor's verbs: schedule, push, pull (the owners' fold),
// barrier (the options' rule), stop. The same program runs on the parameter server (ps_job.hpp):
// peer to peer is the parameter server with a server co-located with each worker, which owns
// that server's keys.
using P2pProgram = ps::Program;

// What a peer did.
struct P2pPeerReport {
  std::int64_t steps = 0;
  std::chrono::nanoseconds held{0};  // at the barrier
  std::uint64_t remote_reads = 0, pushes_sent = 0, barrier_queries = 0;
  std::uint64_t held_reads = 0;  // other peers' reads this peer's owner held for their bound
};

struct P2pJobOptions {
  scheduler::Barrier barrier;  // a BarrierSpec, or an embedder's BarrierRule with its sampling
  std::chrono::milliseconds timeout{std::chrono::minutes(10)};
  std::uint64_t seed = 1;
};

struct P2pJobResult {
  std::vector<Value> values;                  // by key
  std::vector<std::uint64_t> pushes_applied;  // by key: pushes its owner folded in
  std::vector<P2pPeerReport> peers;           // by peer
};

// The job of a peer-to-peer run: layout.peers workers and no other role.
GYRE_API runtime::Job p2p_job(const P2pLayout& layout, runtime::Backend backend);

// Runs this process's peers of `job` (every peer, on one machine; across processes, one per
// process) to the end. If any peer fails the whole job stops and the root cause is rethrown
// (runtime::run), naming it. Returns the whole model on one machine or in process 0, where
// peer 0 collects every other peer's keys, counts and report at the end; nullopt in the other
// processes.
GYRE_API std::optional<P2pJobResult> run_p2p(const runtime::Job& job, const P2pLayout& layout, const P2pProgram& program,
                                             const P2pJobOptions& options);

}  // namespace gyre::pipeline::p2p
