// gyre/pipeline/p2p_job.hpp — a peer-to-peer job (Owl's third engine): every peer computes and owns a part of the model; no server.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <vector>

#include "gyre/base/export.hpp"
#include "gyre/pipeline/p2p_peer.hpp"
#include "gyre/runtime/job.hpp"
#include "gyre/scheduler/barrier.hpp"

namespace gyre::pipeline::p2p {

// The app's side, in Actor's verbs: schedule, push, pull (the owners' fold), barrier (the
// options' rule), stop; get and set are the peer's (P2pPeer).
struct P2pProgram {
  // Which keys a peer updates in its next step (its clock is given). Empty: every key.
  std::function<std::vector<Key>(int peer, std::int64_t clock)> schedule;
  // The peer's step: reads the model through peer.get(), returns updates for the keys' owners.
  std::function<KeyValues(P2pPeer& peer, std::span<const Key> keys)> push;
  Fold pull;  // how an owner folds an update into a stored value. Empty: adds it.
  // Asked after each barrier: true ends this peer. Required.
  std::function<bool(P2pPeer& peer)> stop;
  std::function<Value(Key)> initial;  // a key's value before any push. Empty: zeros.
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
