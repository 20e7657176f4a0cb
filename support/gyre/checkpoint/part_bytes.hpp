// gyre/checkpoint/part_bytes.hpp — a checkpoint part's bytes: values and counted arrays written one after another, read back with every count checked.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "gyre/base/input_error.hpp"
#include "gyre/checkpoint/store.hpp"

namespace gyre::checkpoint {

// Parts hold numbers in the host's order: checkpoints are read back by the same build on the
// same kind of machine, and every gyre target is little-endian.
static_assert(std::endian::native == std::endian::little, "checkpoint parts hold little-endian numbers");

// Values and arrays of values, one after the other.
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

// Reads what a StateWriter wrote. The part's checksum has passed, but its counts are still
// checked before they size anything: a count past the bytes left, or bytes left over, is an
// InputError naming the file (a part of another version or for other data), never an allocation.
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
  [[noreturn]] void fail(const std::string& expected) const { throw InputError(file_, 0, expected); }
  const std::filesystem::path& file() const noexcept { return file_; }

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

// Rank `rank`'s part of the checkpoint `found`, its seal checked, ready to read.
struct OpenedPart {
  std::filesystem::path file;
  std::vector<std::byte> bytes;
  StateReader reader() const { return StateReader(file, bytes); }
};
inline OpenedPart open_part(const Found& found, int rank) {
  OpenedPart out;
  out.file = found.directory / ("rank-" + std::to_string(rank) + ".part");
  out.bytes = read_sealed(out.file);
  return out;
}

}  // namespace gyre::checkpoint
