// gyre/wire/body.cpp — the body reader's bound checks and error texts, and the writer's.
#include "gyre/wire/body.hpp"

#include <algorithm>
#include <stdexcept>

namespace gyre::wire {

void little_in_place(std::span<std::byte> values, std::size_t width) {
  if constexpr (kHostIsLittle) return;
  if (width != 1 && width != 2 && width != 4 && width != 8)
    throw std::invalid_argument("little_in_place: values of " + std::to_string(width) + " bytes");
  if (values.size() % width != 0)
    throw std::invalid_argument("little_in_place: " + std::to_string(values.size()) +
                                " bytes are not whole values of " + std::to_string(width));
  for (std::size_t i = 0; i < values.size(); i += width)
    std::reverse(values.begin() + static_cast<std::ptrdiff_t>(i), values.begin() + static_cast<std::ptrdiff_t>(i + width));
}

Writer::Writer(std::size_t size) : owned_(size), out_(owned_.bytes()) {}

Writer& Writer::put_bytes(std::span<const std::byte> bytes) {
  if (bytes.size() > remaining())
    throw std::logic_error("Writer: " + std::to_string(bytes.size()) + " bytes written where " +
                           std::to_string(remaining()) + " remain");
  if (!bytes.empty()) std::memcpy(out_.data() + at_, bytes.data(), bytes.size());
  at_ += bytes.size();
  return *this;
}

Writer& Writer::put_values(std::span<const std::byte> values, std::size_t width) {
  const std::size_t at = at_;
  put_bytes(values);
  little_in_place(out_.subspan(at, values.size()), width);
  return *this;
}

Writer& Writer::put_text(std::string_view text, std::uint32_t max) {
  if (text.size() > max)
    throw std::length_error("text of " + std::to_string(text.size()) + " bytes over the limit of " +
                            std::to_string(max));
  put(static_cast<std::uint32_t>(text.size()));
  return put_bytes(std::as_bytes(std::span<const char>(text.data(), text.size())));
}

Buffer Writer::finish() {
  if (at_ != out_.size())
    throw std::logic_error("Writer: finished after " + std::to_string(at_) + " of " +
                           std::to_string(out_.size()) + " bytes");
  return std::move(owned_);
}

std::size_t Reader::check_count(std::uint64_t n, std::size_t item_bytes, std::string_view what,
                                std::size_t cap) const {
  if (n > cap) fail(std::string(what) + " of " + std::to_string(n) + " is over the limit of " + std::to_string(cap));
  // Divided, not multiplied: a peer's count times the item size could overflow.
  if (item_bytes != 0 && n > remaining() / item_bytes)
    fail(std::string(what) + " of " + std::to_string(n) + " does not fit the " + std::to_string(remaining()) +
         " bytes left");
  return static_cast<std::size_t>(n);
}

std::span<const std::byte> Reader::take(std::size_t n, std::string_view what) {
  if (n > remaining()) fail("truncated at " + std::string(what));
  const auto out = bytes_.subspan(at_, n);
  at_ += n;
  return out;
}

std::span<const std::byte> Reader::take_items(std::size_t n, std::size_t item_bytes, std::string_view what) {
  return take(check_count(n, item_bytes, what) * item_bytes, what);
}

std::string Reader::get_text(std::uint32_t max, std::string_view what) {
  const auto n = check_count(get<std::uint32_t>(what), 1, what, max);
  const auto bytes = take(n, what);
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

void Reader::finish() const {
  if (remaining() != 0) fail(std::to_string(remaining()) + " trailing bytes");
}

void Reader::fail(const std::string& why) const { throw DecodeError(context_ + why); }

void Reader::whole_items_error(std::size_t item_bytes, std::string_view what) const {
  fail(std::string(what) + " of " + std::to_string(remaining()) + " bytes is not a whole number of " +
       std::to_string(item_bytes) + "-byte values");
}

}  // namespace gyre::wire
