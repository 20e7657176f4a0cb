// gyre/checkpoint/part_bytes.hpp — writing a checkpoint part as plain arrays, and reading it back with every count checked against the bytes left.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "gyre/base/input_error.hpp"

namespace gyre::checkpoint {

// Parts hold numbers in the host's order: checkpoints are read back by the same build on the
// same kind of machine, and every gyre target is little-endian.
static_assert(std::endian::native == std::endian::little, "checkpoint parts hold little-endian numbers");

template <typename T>
void append(std::vector<std::byte>& out, const T* values, std::size_t count) {
  const auto* p = reinterpret_cast<const std::byte*>(values);
  out.insert(out.end(), p, p + count * sizeof(T));
}

// A part read front to back. The part's checksum has passed, but its counts are still checked
// before they size anything: a part written by another version or for other data fails with
// an InputError naming the file rather than an allocation.
class PartReader {
 public:
  PartReader(std::filesystem::path file, std::span<const std::byte> bytes) : file_(std::move(file)), bytes_(bytes) {}

  template <typename T>
  T value() {
    T v;
    take(&v, 1);
    return v;
  }
  template <typename T>
  void take(T* out, std::size_t count) {
    if (count > (bytes_.size() - at_) / sizeof(T)) fail("a part as long as its counts say");
    if (count == 0) return;  // `out` may be an empty vector's null data(), which memcpy must not get
    std::memcpy(out, bytes_.data() + at_, count * sizeof(T));
    at_ += count * sizeof(T);
  }
  template <typename T>
  std::vector<T> vector(std::uint64_t count) {
    if (count > (bytes_.size() - at_) / sizeof(T)) fail("a part as long as its counts say");
    std::vector<T> v(count);
    take(v.data(), v.size());
    return v;
  }
  bool done() const { return at_ == bytes_.size(); }
  [[noreturn]] void fail(const std::string& expected) const { throw InputError(file_, 0, expected); }

 private:
  std::filesystem::path file_;
  std::span<const std::byte> bytes_;
  std::size_t at_ = 0;
};

}  // namespace gyre::checkpoint
