// gyre/ps/p2p_job.cpp — one thread per peer of a peer-to-peer job, the peer's step loop, the result gathered by key.
#include "gyre/ps/ps_job.hpp"

#include <map>
#include <mutex>
#include <stdexcept>
#include <string>

#include "gyre/ps/p2p_peer.hpp"
#include "gyre/ps/p2p_protocol.hpp"
#include "gyre/ps/step_loop.hpp"
#include "gyre/runtime/job.hpp"
#include "gyre/runtime/collect_parts.hpp"
#include "gyre/runtime/failure.hpp"

namespace gyre::ps::p2p {
namespace {

struct PeerOutcome {
  std::map<Key, Value> values;
  std::map<Key, std::uint64_t> applied;
  P2pPeerReport report;
};

// A report as the hand-over carries it, and back.
constexpr std::size_t kReportCounters = 6;
std::vector<std::uint64_t> counters_of(const P2pPeerReport& r) {
  return {static_cast<std::uint64_t>(r.steps), static_cast<std::uint64_t>(r.held.count()), r.remote_reads, r.pushes_sent,
          r.barrier_queries, r.held_reads};
}
P2pPeerReport report_of(const std::vector<std::uint64_t>& c) {
  return {static_cast<std::int64_t>(c[0]), std::chrono::nanoseconds(static_cast<std::int64_t>(c[1])), c[2], c[3], c[4], c[5]};
}

PeerOutcome outcome_of(HandOver&& h) {
  PeerOutcome out;
  for (std::size_t i = 0; i < h.values.size(); ++i) {
    out.applied.emplace(h.values[i].first, h.applied[i]);
    out.values.emplace(h.values[i].first, std::move(h.values[i].second));
  }
  out.report = report_of(h.counters);
  return out;
}

// Peer 0's side of the end of a job across processes: one kHandOver from every other peer,
// checked like any message (keys the sender owns, whole values, its counters) before it is kept.
std::vector<std::pair<int, PeerOutcome>> collect_hand_overs(runtime::Mailbox& inbox, const P2pLayout& layout,
                                                            std::chrono::milliseconds timeout) {
  std::vector<int> peers;
  for (int r = 1; r < layout.peers; ++r) peers.push_back(r);
  std::vector<std::pair<int, PeerOutcome>> parts;
  collect_parts(inbox, kHandOver, peers, timeout, "peer-to-peer peer 0", [&](const net::Message& m) {
    parts.emplace_back(m.sender, outcome_of(decode_hand_over(m, layout, m.sender, kReportCounters)));
  });
  return parts;
}

// Runs one peer to its end. Across processes (`hand_over`) every peer but 0 then hands what it
// owns to peer 0, so that process 0 has the whole result; it returns the parts it holds.
std::vector<std::pair<int, PeerOutcome>> run_peer(runtime::Mailbox& inbox, const P2pLayout& layout, const P2pProgram& program,
                                                  const P2pJobOptions& o, bool hand_over) {
  net::Group& group = inbox.group();
  P2pPeer peer(inbox, layout, o.barrier, P2pPeerOptions{o.timeout, o.seed, program.pull, program.initial, o.tables});
  std::vector<int> others;
  for (int r : layout.peer_ranks())
    if (r != group.rank()) others.push_back(r);
  run_steps(peer, program, layout.keys, group, others, "peer-to-peer peer");
  std::vector<std::pair<int, PeerOutcome>> parts;
  parts.emplace_back(group.rank(), PeerOutcome{peer.owner().values(), peer.owner().pushes_applied(), peer.report()});
  if (!hand_over || layout.peers == 1) return parts;
  if (group.rank() > 0) {
    HandOver h;
    auto& mine = parts.front().second;
    for (auto& [k, v] : mine.values) {
      h.applied.push_back(mine.applied.contains(k) ? mine.applied.at(k) : 0);
      h.values.emplace_back(k, std::move(v));
    }
    h.counters = counters_of(mine.report);
    group.send(0, encode_hand_over(h));
    return {};  // peer 0 speaks for it now
  }
  for (auto& part : collect_hand_overs(inbox, layout, o.timeout)) parts.push_back(std::move(part));
  return parts;
}

}  // namespace

runtime::Job p2p_job(const P2pLayout& layout, runtime::Backend backend) {
  runtime::Job job;
  job.workers = layout.peers;
  job.backend = std::move(backend);
  return job;
}

std::optional<P2pJobResult> run_p2p(const runtime::Job& job, const P2pLayout& layout, const P2pProgram& program,
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
  const bool across_processes = std::holds_alternative<runtime::ProcessesBackend>(job.backend);
  runtime::run(job, [&](const runtime::Member& m) {
    auto parts = run_peer(m.mailbox, layout, program, options, across_processes);
    std::lock_guard lock(mutex);
    for (auto& [peer, out] : parts) {
      for (auto& [k, v] : out.values) result.values[static_cast<std::size_t>(k)] = std::move(v);
      for (const auto& [k, n] : out.applied) result.pushes_applied[static_cast<std::size_t>(k)] = n;
      result.peers[static_cast<std::size_t>(peer)] = out.report;
    }
  });
  // Across processes only process 0 holds the result.
  if (!runtime::reports(job.backend)) return std::nullopt;
  // Keys nobody pushed to or set hold their initial value.
  for (Key k = 0; k < layout.keys; ++k)
    if (auto& v = result.values[static_cast<std::size_t>(k)]; v.empty())
      v = program.initial ? program.initial(k) : Value(layout.value_size, 0.0);
  return result;
}

}  // namespace gyre::ps::p2p
