// tests/fuzz/write_seeds.cpp — writes the frame fuzzer's seed inputs: one well-formed frame per protocol, made by the real encoders.
//
// Each seed is a message its receiver accepts under the fuzzer's plan (fuzz_plan.hpp), so
// libFuzzer starts next to the paths past every check. Regenerate after a format change with
//   build-fuzz/tests/fuzz/fuzz-write-seeds tests/fuzz/seeds
// and commit the .bin files (tests/fuzz/meson.build lists them).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "fuzz_plan.hpp"
#include "gyre/averaging/model_averager.hpp"
#include "gyre/base/crc32c.hpp"
#include "gyre/collective/communicator.hpp"
#include "gyre/collective/delta_exchange.hpp"
#include "gyre/collective/partition_wire.hpp"
#include "gyre/locks/lock_protocol.hpp"
#include "gyre/mapreduce/collection.hpp"
#include "gyre/ps/p2p_protocol.hpp"
#include "gyre/ps/peer_barrier.hpp"
#include "gyre/ps/ps_messages.hpp"
#include "gyre/rotation/block_codec.hpp"
#include "gyre/rotation/gather.hpp"
#include "gyre/rotation/protocol.hpp"
#include "gyre/rotation/rotation_driver.hpp"
#include "gyre/rounds/rounds_protocol.hpp"
#include "gyre/runtime/failure.hpp"
#include "gyre/wire/codec.hpp"
#include "gyre/wire/frame.hpp"

using namespace gyre;
using namespace gyre_fuzz;

namespace {

std::string out_dir;

void write(const std::string& name, const net::Message& m) {
  wire::FrameHeader h;
  h.type = m.type;
  h.sender = m.sender;
  h.tag = m.tag;
  h.meta_length = static_cast<std::uint32_t>(m.meta.size());
  h.body_length = m.body.size();
  h.crc = crc32c(m.body.data(), m.body.size(), crc32c(m.meta.data(), m.meta.size()));
  const auto header = wire::encode_header(h);
  std::ofstream out(out_dir + "/" + name, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(header.data()), static_cast<std::streamsize>(header.size()));
  out.write(reinterpret_cast<const char*>(m.meta.data()), static_cast<std::streamsize>(m.meta.size()));
  out.write(reinterpret_cast<const char*>(m.body.data()), static_cast<std::streamsize>(m.body.size()));
  if (!out) throw std::runtime_error("cannot write " + out_dir + "/" + name);
}

net::Message message(std::uint16_t type, int sender, std::uint64_t tag = 0) {
  net::Message m;
  m.type = type;
  m.sender = sender;
  m.tag = tag;
  return m;
}

Buffer bytes_of(const void* p, std::size_t n) {
  Buffer b(n);
  if (n > 0) std::memcpy(b.data(), p, n);
  return b;
}

// Worker 0, no phase started (tag 0): the first visit of step 1 of phase 0, from its ring
// predecessor, in the plan's shape.
void block() {
  const auto& s = schedule();
  const rotation::Visit v = s.visits(0, 0)[static_cast<std::size_t>(kDepth)];
  const auto ring = s.ring(0);
  const auto at = static_cast<std::size_t>(std::find(ring.begin(), ring.end(), 0) - ring.begin());
  const model::BlockShape shape = layout()[v.block];
  model::Block b(v.block, shape.rows, shape.stride);
  for (float& x : b.values()) x = 0.5f;
  auto m = rotation::encode_block(std::move(b), v.seq);
  m.sender = ring[(at + ring.size() - 1) % ring.size()];
  m.tag = 0;
  write("block_frame.bin", m);
}

void phases() {
  auto go = message(rotation::kPhaseGo, kSchedulerRank, 1);
  go.meta = wire::encode(rotation::PhaseGo{1, 0});
  write("phase_go_frame.bin", go);
  auto done = message(rotation::kPhaseDone, 1, 2);
  const auto encoded = rotation::encode_phase_done(2, {1.0, 2.0});
  done.meta = encoded.meta;
  done.body = bytes_of(encoded.body.data(), encoded.body.size());
  write("phase_done_frame.bin", done);
  auto failure = runtime::failure_message(
      runtime::JobFailed(2, runtime::FailureCause::kError, "worker 2: disk on fire"));
  failure.sender = 2;
  write("failure_frame.bin", failure);
}

void round_messages() {
  rounds::RoundRequest r;
  r.round = 3;
  r.updates = {{1, 0.25}, {7, -1.5}};
  r.task.params = {0, 4, 9};
  auto request = rounds::encode_request(r);
  request.sender = kSchedulerRank;
  write("round_request_frame.bin", request);
  rounds::RoundPartial sums;
  sums.round = 3;
  sums.values = {1.0, 2.0, 3.0};
  auto reply = rounds::encode_partial(sums);  // tag 3: three sums asked
  reply.sender = 1;
  write("round_sums_frame.bin", reply);
}

void clocks() {
  auto q = message(ps::kClockQuery, 1, 5);
  const std::int64_t clock = 4;
  q.body = bytes_of(&clock, sizeof clock);
  write("clock_query_frame.bin", q);
}

void parameter_server() {
  const auto l = ps_layout();
  std::vector<ps::Key> held;  // by the updated server
  for (ps::Key k = 0; k < l.keys; ++k)
    if (l.server_of(k) == kUpdatedServer) held.push_back(k);
  auto push = message(ps::kPush, 1, 1);
  push.body = ps::encode_key_values({{held.front(), {1, 2, 3}}, {held.back(), {4, 5, 6}}}, 0);
  write("ps_push_frame.bin", push);
  auto get = message(ps::kGet, 0, 7);
  get.body = ps::encode_keys(held, 2);
  write("ps_get_frame.bin", get);
  ps::KeyValues answer;
  for (ps::Key k : asked_keys()) answer.emplace_back(k, ps::Value(l.value_size, 1.0));
  auto reply = message(ps::kGetReply, l.server_rank(0), 7);
  reply.body = ps::encode_key_values(answer, 2);
  write("ps_get_reply_frame.bin", reply);
  auto stop = message(ps::kStop, 1);
  stop.body = ps::encode_report({5, std::chrono::nanoseconds(100), 6, 2, 3});
  write("ps_stop_frame.bin", stop);
  std::vector<ps::Key> listed;
  for (ps::Key k = 0; k < l.keys; ++k)
    if (l.server_of(k) == kListingServer) listed.push_back(k);
  auto keys = message(ps::kKeysReply, l.server_rank(kListingServer), 9);
  keys.body = ps::encode_keys(listed, 0);
  write("ps_keys_reply_frame.bin", keys);
  auto hand_over = message(ps::kHandOver, l.server_rank(kUpdatedServer));
  hand_over.body = ps::encode_key_values({{held.front(), {1, 2, 3}}}, 4);
  write("ps_hand_over_frame.bin", hand_over);
}

void lock_messages() {
  auto acquire = message(locks::kLockAcquire, 1, 1);
  acquire.meta = wire::encode(locks::LockRequest{static_cast<std::uint8_t>(locks::LockMode::kAny), 0, 2});
  acquire.body = locks::encode_keys(lock_candidates());
  write("lock_acquire_frame.bin", acquire);
  auto release = message(locks::kLockRelease, 1);
  release.body = locks::encode_keys(held_locks());
  write("lock_release_frame.bin", release);
  auto grant = message(locks::kLockGrant, 0, 1);  // odd tag: a kAny request's grant
  const std::vector<locks::LockKey> granted{lock_candidates()[0], lock_candidates()[2]};
  grant.body = locks::encode_keys(granted);
  write("lock_grant_frame.bin", grant);
  write("lock_value_frame.bin", locks::encode_value(granted[0], Buffer(16)));
}

void collectives() {
  // Op 0, step 0 of an allreduce over two members: rank 1's chunk of kAllreduceDoubles.
  auto allreduce = message(collective::kCollectiveMessage, 1, collective::Communicator::message_tag(0, 0));
  const std::vector<double> chunk(kAllreduceDoubles - kAllreduceDoubles / 2, 2.0);
  allreduce.body = bytes_of(chunk.data(), chunk.size() * sizeof(double));
  write("allreduce_frame.bin", allreduce);
  // Op 0, step 0 of a regroup: rank 1's copy of partition 0, which rank 0 owns.
  auto regroup = message(collective::kCollectiveMessage, 1, collective::Communicator::message_tag(0, 0));
  const std::vector<float> values{1.0f, 2.0f};
  const collective::PartitionBytes part{0, values.size(), std::as_bytes(std::span<const float>(values))};
  regroup.body = collective::encode_partitions(std::span(&part, 1), sizeof(float));
  write("regroup_frame.bin", regroup);
  // Op 0, step 0 of a pull: the ids rank 1 asks rank 0 for.
  auto pull = message(collective::kCollectiveMessage, 1, collective::Communicator::message_tag(0, 0));
  const std::vector<std::uint32_t> ids{0, 2};
  pull.body = collective::encode_partition_ids(ids);
  write("pull_ids_frame.bin", pull);
  // An averaging offer from rank 1.
  auto offer = message(averaging::kAveragerMessage, 1);
  offer.meta.resize(1 + sizeof(std::uint64_t));
  offer.meta[0] = std::byte{1};
  const std::uint64_t id = 1;
  std::memcpy(offer.meta.data() + 1, &id, sizeof id);
  const std::vector<double> model(kAveragedDoubles, 0.5);
  offer.body = bytes_of(model.data(), model.size() * sizeof(double));
  write("averager_frame.bin", offer);
  // A no-sync push from rank 1: its first change of a summed model.
  auto push = message(collective::kDeltaMessage, 1, 0);
  push.body = bytes_of(model.data(), model.size() * sizeof(double));
  write("delta_frame.bin", push);
}

void gathered_rows() {
  const std::vector<std::uint32_t> ids{3, 99};
  const std::vector<std::int32_t> values(2 * kRowBytes / sizeof(std::int32_t), 7);
  auto m = rotation::encode_local_rows(
      rotation::LocalRows::of(std::span<const std::uint32_t>(ids), std::span<const std::int32_t>(values)), kRowBytes);
  m.sender = 2;
  write("local_rows_frame.bin", m);
}

}  // namespace

void peer_to_peer() {
  namespace p2p = ps::p2p;
  const auto l = p2p_layout();
  std::vector<ps::Key> owned;  // by the fuzzer's owner
  for (ps::Key k = 0; k < l.keys; ++k)
    if (l.owner_of(k) == kP2pOwner) owned.push_back(k);
  auto push = message(p2p::kPush, 1, 3);
  push.body = ps::encode_key_values({{owned.front(), {1, 2, 3}}}, 0);
  write("p2p_push_frame.bin", push);
  auto get = message(p2p::kGet, 1, 8);
  get.body = ps::encode_keys(owned, 2);  // held until every peer has ended step 2
  write("p2p_get_frame.bin", get);
  p2p::HandOver h;
  h.values = {{owned.front(), {1, 2, 3}}};
  h.applied = {4};
  h.counters.assign(kP2pCounters, 1);
  auto hand_over = p2p::encode_hand_over(h);
  hand_over.sender = 1;
  write("p2p_hand_over_frame.bin", hand_over);
}

// A map-reduce part as it travels inside a collective (word counts); the fuzzer also decodes
// its raw input as such parts, so this seed is not a frame.
void map_reduce() {
  const std::vector<std::pair<std::string, std::uint64_t>> counts{{"the", 64}, {"lord", 7}};
  const Buffer body = mapreduce::encode_values<std::pair<std::string, std::uint64_t>>(counts);
  std::ofstream out(out_dir + "/mapreduce_counts.bin", std::ios::binary);
  out.write(reinterpret_cast<const char*>(body.data()), static_cast<std::streamsize>(body.size()));
  if (!out) throw std::runtime_error("cannot write " + out_dir + "/mapreduce_counts.bin");
}

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s SEED_DIR\n", argv[0]);
    return 2;
  }
  out_dir = argv[1];
  block();
  phases();
  round_messages();
  clocks();
  parameter_server();
  lock_messages();
  collectives();
  gathered_rows();
  peer_to_peer();
  map_reduce();
  return 0;
}
