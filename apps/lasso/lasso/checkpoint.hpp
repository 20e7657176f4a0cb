// apps/lasso/lasso/checkpoint.hpp — Lasso's checkpoints: taken at a check, each worker's residual and the scheduler's whole state, and reading them back.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "gyre/checkpoint/store.hpp"
#include "lasso/active_set_cycle.hpp"

namespace gyre::lasso {

// Where a run's checkpoints go and the one it starts from. A checkpoint is taken right after a
// check (an exact full gradient) has been decided, when no round is in flight: the scheduler
// sends every worker a snapshot round (RoundKind::kSnapshot, carrying the steps still queued);
// each worker applies them, writes its part (rank-r.part: its residual, which cannot be
// recomputed from β bit for bit, as it is the sum of every step in the order taken) and answers;
// then the scheduler writes its own (rank-P.part: β, priorities and the sampler's state, the λ
// path so far and its position, batch and depth, the counters) and the manifest. A checkpoint's
// number ("epoch" in the store) is the number of checks reported so far.
struct CheckpointTarget {
  std::shared_ptr<const checkpoint::Store> store;  // null: no checkpoints
  int every = 1;                                   // checks between checkpoints
  cluster::JobSettings settings;                   // recorded in each manifest
};

struct Checkpoints {
  CheckpointTarget target;
  std::optional<checkpoint::Found> resume;  // the checkpoint this run continues from
};

// Values and arrays of values, little-endian as this machine's, one after the other.
class StateWriter {
 public:
  template <class T>
  void put(T value) {
    static_assert(std::is_trivially_copyable_v<T>);
    const auto* p = reinterpret_cast<const std::byte*>(&value);
    bytes_.insert(bytes_.end(), p, p + sizeof(T));
  }
  // The count (u64), then the elements.
  template <class T>
  void put_all(std::span<const T> values) {
    put<std::uint64_t>(values.size());
    const auto* p = reinterpret_cast<const std::byte*>(values.data());
    bytes_.insert(bytes_.end(), p, p + values.size_bytes());
  }
  template <class T>
  void put_all(const std::vector<T>& values) { put_all(std::span<const T>(values)); }
  std::vector<std::byte>& bytes() { return bytes_; }

 private:
  std::vector<std::byte> bytes_;
};

// Reads what a StateWriter wrote; a count past the bytes left, or bytes left over, is an
// InputError naming the file.
class StateReader {
 public:
  StateReader(std::filesystem::path file, std::span<const std::byte> bytes) : file_(std::move(file)), bytes_(bytes) {}
  template <class T>
  T get() {
    T value;
    copy(&value, sizeof(T));
    return value;
  }
  template <class T>
  std::vector<T> get_all() {
    const auto count = get<std::uint64_t>();
    if (count > (bytes_.size() - at_) / sizeof(T)) fail("an array no longer than the part");
    std::vector<T> out(count);
    copy(out.data(), count * sizeof(T));
    return out;
  }
  // An array of exactly `count` elements (`what` names it in the error).
  template <class T>
  std::vector<T> get_all(std::size_t count, const std::string& what) {
    auto out = get_all<T>();
    if (out.size() != count) fail(std::to_string(count) + " values of " + what + ", as this run has");
    return out;
  }
  void finish() const {
    if (at_ != bytes_.size()) fail("a part that ends where its state does");
  }
  [[noreturn]] void fail(const std::string& expected) const;

 private:
  void copy(void* out, std::size_t size) {
    if (size > bytes_.size() - at_) fail("a part as long as its state");
    if (size == 0) return;  // an empty array's data() may be null, which memcpy may not take
    std::memcpy(out, bytes_.data() + at_, size);
    at_ += size;
  }
  std::filesystem::path file_;
  std::span<const std::byte> bytes_;
  std::size_t at_ = 0;
};

// The part of rank `rank` of the checkpoint `found`, checked (read_sealed) and opened.
struct OpenedPart {
  std::filesystem::path file;
  std::vector<std::byte> bytes;
  StateReader reader() const { return StateReader(file, bytes); }
};
OpenedPart open_part(const checkpoint::Found& found, int rank);

// What the two shards (residuals, margins) share in their parts: how many parts their rows are
// dealt into (which --threads decides, and the sums' bits depend on), and, for a worker that runs
// cycles, the coefficients it follows, one scalar (μᵀβ or the intercept) and its cycle depth.
void save_parts(StateWriter& out, std::size_t parts);
void check_parts(StateReader& in, std::size_t parts);
void save_cycles(StateWriter& out, bool cycles, const std::vector<double>& gamma, double scalar,
                 const CycleTolerance& depth);
struct CycleState {
  bool cycles;                 // whether this run's shard runs them
  std::vector<double>& gamma;  // sized to the features
  double& scalar;
  CycleTolerance& depth;
};
void restore_cycles(StateReader& in, const CycleState& state);

// The manifest's state: which check the checkpoint was taken after.
std::string manifest_state(std::uint64_t checks);

}  // namespace gyre::lasso
