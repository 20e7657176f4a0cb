// gyre/rotation/gather.hpp — after a cluster job: every worker's blocks and local rows collected at rank 0.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include "gyre/model/block.hpp"
#include "gyre/net/group.hpp"
#include "gyre/runtime/mailbox.hpp"
#include "gyre/wire/body.hpp"
#include "gyre/wire/channels.hpp"

namespace gyre::rotation {

// Rows a worker keeps to itself while the blocks rotate (MF's user factors, LDA's doc-topic
// counts), keyed by the app's ids. The values travel as bytes so that any row type can:
// `ids.size()` rows of GatherOptions::row_bytes each, held little-endian (of() and values_as()
// convert), since they go on the wire as they are; or, with kAnyRowBytes, rows of any size in
// one body that the app encodes and decodes itself (LDA's sparse topic counts).
struct LocalRows {
  std::vector<std::uint64_t> ids;
  std::vector<std::byte> values;

  template <class Id, class T>
  static LocalRows of(std::span<const Id> ids, std::span<const T> values) {
    static_assert(std::is_integral_v<Id> && wire::Scalar<T>);
    LocalRows r;
    r.ids.assign(ids.begin(), ids.end());
    const auto bytes = std::as_bytes(values);
    r.values.assign(bytes.begin(), bytes.end());
    wire::little_in_place(std::span<std::byte>(r.values), sizeof(T));
    return r;
  }
  template <class Id>
  std::vector<Id> ids_as() const {
    static_assert(std::is_integral_v<Id>);
    return {ids.begin(), ids.end()};  // the ids were the sender's own Id values
  }
  template <class T>
  std::vector<T> values_as() const {
    static_assert(wire::Scalar<T>);
    if (values.size() % sizeof(T) != 0) throw std::invalid_argument("local rows are not whole values");
    std::vector<T> out(values.size() / sizeof(T));
    wire::load_little<T>(values, out);
    return out;
  }
};

struct GatheredModel {
  std::vector<model::Block> blocks;  // every block of the schedule, each once, in no particular order
  std::vector<LocalRows> rows;       // index: worker rank
};

// GatherOptions::row_bytes of rows whose sizes differ: the app decodes and checks the values.
inline constexpr std::size_t kAnyRowBytes = 0;

struct GatherOptions {
  int workers = 1;                        // P: worker ranks 0..P-1 of the job's group
  std::vector<model::BlockShape> layout;  // every block's shape by id (the schedule's B blocks)
  std::size_t row_bytes = kAnyRowBytes;   // one local row; the same on every rank
  // Local row ids are the app's: below this bound (MF's users, LDA's documents).
  std::uint64_t id_limit = std::numeric_limits<std::uint64_t>::max();
  std::chrono::milliseconds timeout{std::chrono::minutes(10)};  // longest wait for any one part
};

// Every worker of a finished rotation calls this once, in its part (run_rotation's `after`),
// with its member's mailbox, the blocks it holds (taken) and its own rows. Rank 0 asks the others for their parts and returns the
// whole model; the others answer and return nullopt. Parts are checked against the options
// (the plan at rank 0) before anything is allocated for them. Throws runtime::JobFailed
// naming the rank that was awaited when a part does not arrive in time, std::runtime_error
// naming the sender on a malformed or duplicate part.
std::optional<GatheredModel> gather_at_root(runtime::Mailbox& mailbox, std::vector<model::OwnedBlock>& held,
                                            LocalRows mine, const GatherOptions& options);

// Message types of the gather channel (0x0201–), after the rotation: rank 0 asks, then every
// other rank answers with its rows and its held blocks (as block messages).
inline constexpr std::uint16_t kCollectRequest = wire::channels::kGather.at(0);
inline constexpr std::uint16_t kLocalRows = wire::channels::kGather.at(1);

// A worker's local rows as a message, and as rank 0 decodes it: rows of `row_bytes`, ids below
// `id_limit`; decoding throws std::runtime_error naming the sender otherwise.
net::Message encode_local_rows(const LocalRows& rows, std::size_t row_bytes);
LocalRows decode_local_rows(const net::Message& m, std::size_t row_bytes, std::uint64_t id_limit);

}  // namespace gyre::rotation
