// gyre/wire/body.hpp — the one reader and writer of message bodies (little-endian fields, bulk arrays, every bound
// checked) and the DecodeError every decoder of a peer's bytes throws.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "gyre/base/buffer.hpp"
#include "gyre/base/export.hpp"

namespace gyre::wire {

// What every decoder of a peer's bytes throws when they do not hold what the plan says.

class GYRE_API DecodeError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// What travels as its little-endian bytes: integers, floating point and enums (bool has no
// fixed size or representation across compilers, so it does not).
template <class T>
concept Scalar = (std::is_integral_v<T> || std::is_floating_point_v<T> || std::is_enum_v<T>) &&
                 !std::is_same_v<std::remove_cv_t<T>, bool>;

namespace detail {

template <std::size_t N>
struct UnsignedOf;
template <> struct UnsignedOf<1> { using type = std::uint8_t; };
template <> struct UnsignedOf<2> { using type = std::uint16_t; };
template <> struct UnsignedOf<4> { using type = std::uint32_t; };
template <> struct UnsignedOf<8> { using type = std::uint64_t; };

// std::byteswap is C++23; this is the same for the unsigned widths above.
template <class U>
constexpr U swap_bytes(U u) noexcept {
  U out = 0;
  for (std::size_t i = 0; i < sizeof(U); ++i) out = static_cast<U>((out << 8) | ((u >> (8 * i)) & 0xFF));
  return out;
}

}  // namespace detail

static_assert(std::endian::native == std::endian::little || std::endian::native == std::endian::big,
              "gyre's wire formats need a little- or big-endian host");
inline constexpr bool kHostIsLittle = std::endian::native == std::endian::little;

// `value` with its bytes in little-endian order, or back (the same swap both ways); the
// identity on a little-endian host, where every conversion below compiles down to a copy.
template <Scalar T>
constexpr T little(T value) noexcept {
  if constexpr (kHostIsLittle || sizeof(T) == 1) {
    return value;
  } else {
    using U = typename detail::UnsignedOf<sizeof(T)>::type;
    return std::bit_cast<T>(detail::swap_bytes(std::bit_cast<U>(value)));
  }
}

// `values` converted in place between host and little-endian order: for payloads that move
// without a copy (rotating blocks), so a big-endian host pays a pass and a little one nothing.
template <Scalar T>
GYRE_API void little_in_place(std::span<T> values) noexcept {
  if constexpr (!kHostIsLittle && sizeof(T) > 1)
    for (T& v : values) v = little(v);
}

// Little-endian bytes (unaligned, e.g. inside a received body) into `into`; sizes must agree.
template <Scalar T>
void load_little(std::span<const std::byte> from, std::span<T> into) noexcept {
  if (into.empty()) return;
  std::memcpy(into.data(), from.data(), into.size_bytes());
  little_in_place(into);
}

// Values of `width` bytes each (1, 2, 4 or 8) of a type the code at hand does not know
// (partition elements), converted in place between host and little-endian order. A no-op on a
// little-endian host; on a big-endian one, any other width is std::invalid_argument.
GYRE_API void little_in_place(std::span<std::byte> values, std::size_t width);

// Builds a body of a size known up front (every encoder computes it, so nothing reallocates).
// Writing past the end or finishing early is the encoder's bug: std::logic_error.
class GYRE_API Writer {
 public:
  // A body of exactly `size` bytes, returned by finish().
  explicit Writer(std::size_t size);
  // Into the caller's memory; finish() then checks it is full and returns an empty Buffer.
  explicit Writer(std::span<std::byte> into) noexcept : out_(into) {}

  template <Scalar T>
  Writer& put(T value) {
    value = little(value);
    return put_bytes(std::as_bytes(std::span<const T>(&value, 1)));
  }
  // In one copy on a little-endian host: the hot path of blocks of floats.
  template <Scalar T>
  Writer& put_array(std::span<const T> values) {
    if constexpr (kHostIsLittle || sizeof(T) == 1) {
      return put_bytes(std::as_bytes(values));
    } else {
      for (const T v : values) put(v);
      return *this;
    }
  }
  // Host-order values of `width` bytes each, written little-endian (see little_in_place).
  Writer& put_values(std::span<const std::byte> values, std::size_t width);
  // Bytes as they are (already in wire order, or opaque).
  Writer& put_bytes(std::span<const std::byte> bytes);
  // A u32 length, then the bytes; std::length_error when longer than `max`.
  Writer& put_text(std::string_view text, std::uint32_t max);

  std::size_t written() const noexcept { return at_; }
  std::size_t remaining() const noexcept { return out_.size() - at_; }
  Buffer finish();

 private:
  Buffer owned_;
  std::span<std::byte> out_;
  std::size_t at_ = 0;
};

// Reads a received body front to back. Every read is checked against the bytes that remain,
// and every count against them (and a caller's cap) before anything is sized from it, so a
// peer cannot choose an allocation. Errors are DecodeError: `context` + what was wrong,
// where `what` names the field ("truncated at a key count").
class GYRE_API Reader {
 public:
  explicit Reader(std::span<const std::byte> bytes, std::string context = {})
      : bytes_(bytes), context_(std::move(context)) {}

  template <Scalar T>
  T get(std::string_view what) {
    T value;
    std::memcpy(&value, take(sizeof(T), what).data(), sizeof(T));
    return little(value);
  }

  // A count of type C, of items of `item_bytes` each that must all fit in what remains, and at
  // most `cap` of them. Checked before it is returned, so the caller may allocate that many.
  template <class C = std::uint32_t>
  std::size_t count(std::size_t item_bytes, std::string_view what,
                    std::size_t cap = std::numeric_limits<std::size_t>::max()) {
    static_assert(std::is_unsigned_v<C>);
    return check_count(get<C>(what), item_bytes, what, cap);
  }
  // The same checks for a count the caller already has (from a header read elsewhere).
  std::size_t check_count(std::uint64_t n, std::size_t item_bytes, std::string_view what,
                          std::size_t cap = std::numeric_limits<std::size_t>::max()) const;

  // `n` values, checked against what remains before the vector is sized.
  template <Scalar T>
  std::vector<T> get_array(std::size_t n, std::string_view what) {
    const auto bytes = take_items(n, sizeof(T), what);
    std::vector<T> out(n);
    load_little<T>(bytes, out);
    return out;
  }
  template <Scalar T>
  void get_array_into(std::span<T> into, std::string_view what) {
    load_little<T>(take_items(into.size(), sizeof(T), what), into);
  }
  // Every byte that remains as values of T, which must be a whole number of them, at most `cap`.
  template <Scalar T>
  std::vector<T> get_rest(std::string_view what, std::size_t cap = std::numeric_limits<std::size_t>::max()) {
    if (remaining() % sizeof(T) != 0) whole_items_error(sizeof(T), what);
    return get_array<T>(check_count(remaining() / sizeof(T), sizeof(T), what, cap), what);
  }

  // A view of the next `n` bytes (into the body, which must outlive it).
  std::span<const std::byte> take(std::size_t n, std::string_view what);
  std::span<const std::byte> take_items(std::size_t n, std::size_t item_bytes, std::string_view what);
  // A u32 length (at most `max`, checked before the string is sized), then the bytes.
  std::string get_text(std::uint32_t max, std::string_view what);

  std::size_t remaining() const noexcept { return bytes_.size() - at_; }
  // Every byte must have been read: trailing bytes are an error too.
  void finish() const;
  // Throws DecodeError(context + why): for a codec's own checks, worded like the Reader's.
  [[noreturn]] void fail(const std::string& why) const;

 private:
  [[noreturn]] void whole_items_error(std::size_t item_bytes, std::string_view what) const;

  std::span<const std::byte> bytes_;
  std::size_t at_ = 0;
  std::string context_;
};

}  // namespace gyre::wire
