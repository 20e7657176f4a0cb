// pipeline/p2p_job.cpp — one thread per peer of a peer-to-peer job, the peer's step loop, the result gathered by key.
#include "gyre/pipeline/p2p_job.hpp"

#include <map>
#include <mutex>
#include <stdexcept>
#include <string>

#include "gyre/pipeline/step_loop.hpp"
#include "gyre/runtime/failure.hpp"

namespace gyre::pipeline::p2p {
namespace {

struct PeerOutcome {
  std::map<Key, Value> values;
  std::map<Key, std::uint64_t> applied;
  P2pPeerReport report;
};

PeerOutcome run_peer(runtime::Mailbox& inbox, const P2pLayout& layout, const P2pProgram& program, const P2pJobOptions& o) {
  net::Group& group = inbox.group();
  P2pPeer peer(inbox, layout, o.barrier, P2pPeerOptions{o.timeout, o.seed, program.pull, program.initial});
  std::vector<int> others;
  for (int r : layout.peer_ranks())
    if (r != group.rank()) others.push_back(r);
  run_steps(peer, program, layout.keys, group, others, "peer-to-peer peer");
  return {peer.owner().values(), peer.owner().pushes_applied(), peer.report()};
}

}  // namespace

runtime::Job p2p_job(const P2pLayout& layout, runtime::Backend backend) {
  runtime::Job job;
  job.workers = layout.peers;
  job.backend = std::move(backend);
  return job;
}

P2pJobResult run_p2p(const runtime::Job& job, const P2pLayout& layout, const P2pProgram& program,
                     const P2pJobOptions& options) {
  layout.validate();
  if (!program.push || !program.stop) throw std::invalid_argument("peer-to-peer: the program needs push and stop");
  if (job.workers != layout.peers || job.members() != layout.peers)
    throw std::invalid_argument("peer-to-peer: the job must have the layout's peers and no other member");
  std::mutex mutex;
  P2pJobResult result;
  result.values.resize(static_cast<std::size_t>(layout.keys));
  result.pushes_applied.resize(static_cast<std::size_t>(layout.keys), 0);
  result.peers.resize(static_cast<std::size_t>(layout.peers));
  runtime::run(job, [&](const runtime::Member& m) {
    auto out = run_peer(m.mailbox, layout, program, options);
    std::lock_guard lock(mutex);
    for (auto& [k, v] : out.values) result.values[static_cast<std::size_t>(k)] = std::move(v);
    for (const auto& [k, n] : out.applied) result.pushes_applied[static_cast<std::size_t>(k)] = n;
    result.peers[static_cast<std::size_t>(m.rank)] = out.report;
  });
  // Keys nobody pushed to or set hold their initial value.
  for (Key k = 0; k < layout.keys; ++k) {
    auto& v = result.values[static_cast<std::size_t>(k)];
    const bool here = std::holds_alternative<runtime::ProcessesBackend>(job.backend)
                          ? layout.owner_of(k) == std::get<runtime::ProcessesBackend>(job.backend).launch.rank
                          : true;
    if (v.empty() && here) v = program.initial ? program.initial(k) : Value(layout.value_size, 0.0);
  }
  return result;
}

P2pJobResult run_p2p_embedded(const P2pLayout& layout, const P2pProgram& program, const P2pJobOptions& options) {
  return run_p2p(p2p_job(layout, runtime::ThreadsBackend{}), layout, program, options);
}

}  // namespace gyre::pipeline::p2p
