// gyre/ps/ps_job.cpp — threads for the servers and the workers of a parameter-server job, and the worker's step loop.
#include "gyre/ps/ps_job.hpp"

#include <mutex>
#include <numeric>
#include <stdexcept>
#include <string>

#include "gyre/ps/ps_messages.hpp"
#include "gyre/ps/ps_server.hpp"
#include "gyre/ps/ps_worker.hpp"
#include "gyre/ps/step_loop.hpp"
#include "gyre/runtime/job.hpp"
#include "gyre/runtime/collect_parts.hpp"
#include "gyre/runtime/mailbox.hpp"

namespace gyre::ps {
namespace {

void run_worker(runtime::Mailbox& inbox, const PsLayout& layout, const PsProgram& program, const PsJobOptions& o) {
  net::Group& group = inbox.group();
  PsWorker worker(inbox, layout, o.barrier, PsWorkerOptions{o.timeout, o.seed, o.cache_clocks, o.tables});
  std::vector<int> others;
  for (int r : layout.all_ranks())
    if (r != group.rank()) others.push_back(r);
  run_steps(worker, program, layout.keys, group, others, "parameter-server worker");
}

// Server 0's side of the hand-over: one kHandOver from every other server, checked like any
// message (keys the sender holds, values of the layout's length) before it is folded in.
void collect_hand_overs(runtime::Mailbox& inbox, const PsLayout& layout, std::chrono::milliseconds timeout,
                        PsJobResult& into) {
  std::vector<int> servers;
  for (int s = 1; s < layout.servers; ++s) servers.push_back(layout.server_rank(s));
  collect_parts(inbox, kHandOver, servers, timeout, "parameter server 0", [&](const net::Message& m) {
    std::int64_t deferred = 0;
    for (auto& [k, v] : decode_hand_over(m, layout, m.sender - layout.workers, deferred))
      into.values[static_cast<std::size_t>(k)] = std::move(v);
    into.deferred_reads += static_cast<std::uint64_t>(deferred);
  });
}

// Runs server `index` to the end: what it holds (only its keys' values are filled in) and,
// from server 0, the workers' reports. Across processes (`hand_over`) the servers end in
// different processes: each server s > 0 hands what it holds to server 0, which folds it in,
// so that process 0 has the whole model.
PsJobResult run_server(runtime::Mailbox& inbox, const PsLayout& layout, int index, const PsProgram& program,
                       const PsJobOptions& o, bool hand_over) {
  net::Group& group = inbox.group();
  PsServer server(inbox, layout, index, PsServerOptions{o.timeout, program.pull, program.initial, o.ordered_folds.value_or(o.barrier.bsp())});
  server.run();
  PsJobResult r;
  r.values.resize(static_cast<std::size_t>(layout.keys));
  for (const auto& [k, v] : server.values()) r.values[static_cast<std::size_t>(k)] = v;
  r.deferred_reads = server.deferred_reads();
  if (index == 0) r.workers = server.reports();
  if (!hand_over || layout.servers == 1) return r;
  if (index > 0) {
    net::Message m;
    m.type = kHandOver;
    m.body = encode_key_values(KeyValues(server.values().begin(), server.values().end()),
                               static_cast<std::int64_t>(r.deferred_reads));
    group.send(layout.server_rank(0), std::move(m));
    return {};  // server 0 speaks for it now
  }
  collect_hand_overs(inbox, layout, o.timeout, r);
  return r;
}

// Folds one server's part into the job's result.
void merge(PsJobResult& into, PsJobResult&& part) {
  for (std::size_t k = 0; k < part.values.size(); ++k)
    if (!part.values[k].empty()) into.values[k] = std::move(part.values[k]);
  into.deferred_reads += part.deferred_reads;
  if (!part.workers.empty()) into.workers = std::move(part.workers);
}

void check(const PsLayout& layout, const PsProgram& program) {
  layout.validate();
  if (!program.push || !program.stop) throw std::invalid_argument("parameter server: the program needs push and stop");
}

}  // namespace

runtime::Job ps_job(const PsLayout& layout, runtime::Backend backend) {
  runtime::Job job;
  job.workers = layout.workers;
  for (int s = 0; s < layout.servers; ++s)
    job.roles.push_back(layout.servers == 1 ? "the server" : "server " + std::to_string(s));
  job.backend = std::move(backend);
  return job;
}

std::optional<PsJobResult> run_ps(const runtime::Job& job, const PsLayout& layout, const PsProgram& program,
                                  const PsJobOptions& options) {
  check(layout, program);
  if (job.workers != layout.workers || job.members() != layout.workers + layout.servers)
    throw std::invalid_argument("parameter server: the job must have the layout's workers, then its servers");
  const bool across_processes = std::holds_alternative<runtime::ProcessesBackend>(job.backend);
  std::mutex mutex;
  PsJobResult result;
  result.values.resize(static_cast<std::size_t>(layout.keys));
  runtime::run(job, [&](const runtime::Member& m) {
    if (m.rank < layout.workers) return run_worker(m.mailbox, layout, program, options);
    auto server = run_server(m.mailbox, layout, m.rank - layout.workers, program, options, across_processes);
    std::lock_guard lock(mutex);
    merge(result, std::move(server));
  });
  // Process 0 hosts server 0, which collected the others' parts.
  if (!runtime::reports(job.backend)) return std::nullopt;
  return result;
}

}  // namespace gyre::ps
