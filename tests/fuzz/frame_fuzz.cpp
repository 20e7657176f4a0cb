// tests/fuzz/frame_fuzz.cpp — libFuzzer target: arbitrary bytes through the frame header and every protocol's decoder.
//
// Whatever a peer sends must be refused or decoded without a crash, an unchecked allocation
// or a read out of bounds. The bytes are read as a frame, the way the tcp backend reads a
// stream; the message type then picks the decoder its receiver runs, given the receiver's
// plan (fuzz_plan.hpp), exactly as the engines call it. Collectives run the real
// Communicator on rank 0 of an inproc group, with the fuzzed message already in its inbox
// from rank 1. Refusals are std::runtime_error (wire::DecodeError, JobFailed, …) or
// std::invalid_argument; any other exception — a std::length_error or std::bad_alloc from an
// unchecked size, an std::out_of_range from an unchecked index — escapes and is reported.
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "fuzz_plan.hpp"
#include "gyre/averaging/model_averager.hpp"
#include "gyre/cluster/launch.hpp"
#include "gyre/collective/communicator.hpp"
#include "gyre/collective/delta_exchange.hpp"
#include "gyre/collective/partition_collectives.hpp"
#include "gyre/locks/lock_client.hpp"
#include "gyre/locks/lock_service.hpp"
#include "gyre/mapreduce/collection.hpp"
#include "gyre/net/handshake.hpp"
#include "gyre/net/inproc.hpp"
#include "gyre/net/group.hpp"
#include "gyre/ps/peer_barrier.hpp"
#include "gyre/ps/ps_messages.hpp"
#include "gyre/rotation/block_codec.hpp"
#include "gyre/rotation/gather.hpp"
#include "gyre/rotation/protocol.hpp"
#include "gyre/rotation/rotation_driver.hpp"
#include "gyre/rounds/rounds_protocol.hpp"
#include "gyre/runtime/mailbox.hpp"
#include "gyre/wire/codec.hpp"
#include "gyre/wire/frame.hpp"

using namespace gyre;
using namespace gyre_fuzz;

namespace {

// A map-reduce part as the verbs decode it (Context::decode_from), for value types of each
// shape the built-in codecs compose: scalars, strings, pairs, vectors, and nestings of them.
template <class T>
void map_reduce_part(std::span<const std::byte> bytes) {
  std::vector<T> into;
  try {
    mapreduce::decode_values<T>(bytes, into, "fuzz");
  } catch (const wire::DecodeError&) {
  }
}
void map_reduce_values(std::span<const std::byte> bytes) {
  map_reduce_part<std::uint64_t>(bytes);
  map_reduce_part<std::string>(bytes);
  map_reduce_part<std::pair<std::string, std::uint64_t>>(bytes);  // word counts
  map_reduce_part<std::pair<std::int32_t, std::pair<double, std::string>>>(bytes);  // a join's rows
  map_reduce_part<std::vector<std::vector<float>>>(bytes);
}

template <class T>
void try_decode(std::span<const std::byte> bytes) {
  try {
    (void)wire::decode<T>(bytes);
  } catch (const wire::DecodeError&) {
  }
}

// Runs one receiver's decoding; refusals are the expected outcome of most inputs.
void refused_or_decoded(const std::function<void()>& receive) {
  try {
    receive();
  } catch (const std::runtime_error&) {
  } catch (const std::invalid_argument&) {
  }
}

net::Message copy_of(const net::Message& m) {
  net::Message c;
  c.type = m.type;
  c.sender = m.sender;
  c.tag = m.tag;
  c.meta = m.meta;
  c.body = Buffer(m.body.size());
  if (!m.body.empty()) std::memcpy(c.body.data(), m.body.data(), m.body.size());
  return c;
}

// Rank 0 of members {0, 1} runs `collective` with rank 1's fuzzed part already in its inbox;
// nothing else will come (the wait for the next part ends after 1 ms), so at most one step
// can succeed.
void on_rank_0(const net::Message& part, const std::function<void(collective::Communicator&)>& collective) {
  auto groups = net::make_inproc_groups(2);
  net::Message m = copy_of(part);
  m.type = collective::kCollectiveMessage;
  groups[1]->send(0, std::move(m));
  runtime::Mailbox inbox(*groups[0]);
  collective::Communicator comm(inbox, {0, 1}, collective::CollectiveOptions{std::chrono::milliseconds(1)});
  refused_or_decoded([&] { collective(comm); });
}

void collectives(const net::Message& m) {
  on_rank_0(m, [](collective::Communicator& c) {
    std::vector<double> v(kAllreduceDoubles, 1.0);
    c.allreduce_sum(std::span<double>(v));
  });
  on_rank_0(m, [](collective::Communicator& c) {
    const std::vector<float> mine(kAllgatherFloats, 1.0f);
    std::vector<float> all(2 * kAllgatherFloats);
    c.allgather(std::span<const float>(mine), std::span<float>(all));
  });
  on_rank_0(m, [](collective::Communicator& c) {
    std::vector<std::int32_t> v(kBroadcastInts);
    c.broadcast(std::span<std::int32_t>(v), 1);
  });
  on_rank_0(m, [](collective::Communicator& c) {
    collective::PartitionTable<float> t;
    t.parts[0] = {1, 2};
    t.parts[1] = {3};
    collective::regroup(c, t);
  });
  on_rank_0(m, [](collective::Communicator& c) {
    collective::PartitionTable<double> t;
    t.parts[4] = {1, 2, 3};
    collective::allgather(c, t);
  });
  on_rank_0(m, [](collective::Communicator& c) {
    collective::PartitionTable<double> global, local;
    global.parts[0] = {1, 2};
    global.parts[2] = {3, 4};
    local.parts[1] = {0, 0};
    collective::pull(c, global, local);
  });
}

void receive(net::Message m) {
  const std::uint64_t tag = m.tag;
  switch (m.type) {
    case rotation::kBlockMessage:
      return refused_or_decoded([&] {
        const int sender = m.sender;
        const auto decoded = rotation::decode_block(std::move(m), layout());
        rotation::check_arrival(schedule(), receiver_of(tag), phases_started_of(tag), sender, decoded.block.id(),
                                decoded.seq);
      });
    case rotation::kPhaseGo:
      return refused_or_decoded([&] { rotation::decode_phase_go(m, kSchedulerRank, expected_phase_of(tag)); });
    case rotation::kPhaseDone:
      return refused_or_decoded([&] { rotation::decode_phase_done(m, expected_phase_of(tag)); });
    case runtime::kFailureNotice:
    case locks::kLockAbort:
      (void)runtime::read_failure(m);
      return;
    case rounds::kRoundTask:
      return refused_or_decoded([&] { rounds::decode_request(m, rounds::RoundsLimits{kFeatures, 2}); });
    case rounds::kRoundPartial:
      return refused_or_decoded([&] { rounds::decode_partial(m, expected_sums_of(tag), true); });
    case rounds::kRoundQuery:
      return refused_or_decoded([&] { rounds::decode_request(m, rounds::RoundsLimits{kFeatures, 2}); });
    case rounds::kQueryAnswer:
      return refused_or_decoded([&] { rounds::decode_answer(m, expected_sums_of(tag), true); });
    case rounds::kRoundsStop:
      return;
    case ps::kClockQuery:
    case ps::kClockAnswer:
    case ps::kClockFinished:
      return refused_or_decoded([&] { ps::decode_clock(m); });
    case ps::kPush:
    case ps::kSet:
      return refused_or_decoded([&] { ps::decode_updates(m, ps_layout(), kUpdatedServer); });
    case ps::kGet:
      return refused_or_decoded([&] {
        std::int64_t clock = 0;
        ps::decode_read(m, ps_layout(), kUpdatedServer, clock);
      });
    case ps::kGetReply:
      return refused_or_decoded([&] {
        std::int64_t clock = 0;
        ps::decode_reply(m, asked_keys(), ps_layout(), clock);
      });
    case ps::kStop:
      return refused_or_decoded([&] { ps::decode_report(m); });
    case ps::kKeysReply:
      return refused_or_decoded([&] { ps::decode_key_list(m, ps_layout(), kListingServer); });
    case ps::kHandOver:
      return refused_or_decoded([&] {
        std::int64_t deferred = 0;
        ps::decode_hand_over(m, ps_layout(), kUpdatedServer, deferred);
      });
    case locks::kLockAcquire:
      return refused_or_decoded([&] {
        locks::LockTable table(kLockKeys);
        table.submit(locks::decode_lock_request(m, kLockKeys), locks::LockTable::Clock::now());
      });
    case locks::kLockRelease:
      return refused_or_decoded([&] {
        locks::LockTable table(kLockKeys);
        const auto now = locks::LockTable::Clock::now();
        table.submit({m.sender, 0, locks::LockMode::kAll, locks::LockWait::kUntilFree, 0, held_locks()}, now);
        table.release(m.sender, locks::decode_keys(m.body, kLockKeys), now);
      });
    case locks::kLockValue:
      return refused_or_decoded([&] { (void)locks::decode_value_key(m, kLockKeys); });
    case locks::kLockGrant:
      return refused_or_decoded([&] {
        const auto mode = tag % 2 == 0 ? locks::LockMode::kAll : locks::LockMode::kAny;
        locks::decode_grant(m, mode, kGrantCount, lock_candidates());
      });
    case collective::kCollectiveMessage:
      map_reduce_values(m.body.bytes());  // the map-reduce verbs' parts ride on the collectives
      return collectives(m);
    case averaging::kAveragerMessage:
      (void)averaging::check_snapshot(m, averager_peers(), kAveragedDoubles);
      return;
    case collective::kDeltaMessage:
      (void)collective::check_change(m, 0, kAveragedDoubles, sizeof(double), true);
      return;
    case ps::p2p::kPush:
    case ps::p2p::kSet:
      return refused_or_decoded([&] { ps::p2p::decode_owned_values(m, p2p_layout(), kP2pOwner); });
    case ps::p2p::kGet:
      return refused_or_decoded([&] {
        std::int64_t clock = 0;
        ps::p2p::decode_owned_keys(m, p2p_layout(), kP2pOwner, clock);
      });
    case ps::p2p::kHandOver:
      return refused_or_decoded([&] { ps::p2p::decode_hand_over(m, p2p_layout(), kP2pOwner, kP2pCounters); });
    case ps::p2p::kGetReply:
      return refused_or_decoded([&] { ps::p2p::decode_get_reply(m, asked_keys(), p2p_layout()); });
    case rotation::kLocalRows:
      return refused_or_decoded([&] { rotation::decode_local_rows(m, kRowBytes, kRowIdLimit); });
    default:
      return;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::span<const std::byte> input(reinterpret_cast<const std::byte*>(data), size);
  // Every fixed-size record that crosses the wire, straight from the bytes.
  map_reduce_values(input);
  try_decode<rotation::PhaseGo>(input);
  try_decode<rotation::PhaseDoneRecord>(input);
  try_decode<rotation::BlockMeta>(input);
  try_decode<net::HelloRecord>(input);
  try_decode<net::ChallengeRecord>(input);
  try_decode<net::ProofRecord>(input);
  try {
    (void)cluster::decode_settings(input);
  } catch (const wire::DecodeError&) {
  }

  // A frame: header, then meta and body as the header announces them, within the limits the
  // backend uses by default (so a huge announced length is refused before any allocation).
  if (size < wire::kFrameHeaderSize) return 0;
  std::array<std::byte, wire::kFrameHeaderSize> header;
  std::memcpy(header.data(), data, header.size());
  std::string why;
  const wire::FrameLimits limits;
  const auto h = wire::parse_header(header, limits, why);
  if (!h) return 0;
  const std::size_t rest = size - wire::kFrameHeaderSize;
  if (h->meta_length > rest || h->body_length > rest - h->meta_length) return 0;  // a truncated frame
  net::Message m;
  m.type = h->type;
  // The transport fills in the sender from the connection; here the header's field stands for
  // it, so that the fuzzer chooses who sent the message.
  m.sender = h->sender;
  m.tag = h->tag;
  m.meta.assign(input.begin() + static_cast<std::ptrdiff_t>(wire::kFrameHeaderSize),
                input.begin() + static_cast<std::ptrdiff_t>(wire::kFrameHeaderSize + h->meta_length));
  m.body = Buffer(static_cast<std::size_t>(h->body_length));
  if (!m.body.empty()) std::memcpy(m.body.data(), data + wire::kFrameHeaderSize + h->meta_length, m.body.size());
  receive(std::move(m));
  return 0;
}
