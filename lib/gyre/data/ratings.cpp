// gyre/data/ratings.cpp — MatrixMarket and triples readers, triples writer, for ratings files.
#include "gyre/data/ratings.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <string>
#include <string_view>

#include "gyre/base/atomic_file.hpp"
#include "gyre/base/input_error.hpp"
#include "gyre/data/text_input.hpp"

namespace gyre::data {
namespace {

// Splits a line into at most `max` fields on runs of blanks or on one comma with optional blanks
// around it. Returns the field count, or max + 1 when there are more fields or an empty one
// (",,"), so that every malformed shape reports as "wrong number of fields".
std::size_t split_fields(std::string_view line, std::string_view* fields, std::size_t max) {
  std::size_t n = 0, i = 0;
  while (i < line.size() && is_blank(line[i])) ++i;
  while (i < line.size()) {
    const std::size_t start = i;
    while (i < line.size() && !is_blank(line[i]) && line[i] != ',') ++i;
    if (i == start || n == max) return max + 1;
    fields[n++] = line.substr(start, i - start);
    while (i < line.size() && is_blank(line[i])) ++i;
    if (i < line.size() && line[i] == ',') {
      ++i;
      while (i < line.size() && is_blank(line[i])) ++i;
      if (i == line.size()) return max + 1;  // trailing comma: an empty last field
    }
  }
  return n;
}

struct Context {
  const std::filesystem::path& file;
  std::size_t line;
};

// Parses an id and checks it against [lowest, highest]; `what` is "user id" or "item id".
std::uint64_t parse_id(const Context& at, std::string_view token, const char* what, std::uint64_t lowest,
                       std::uint64_t highest) {
  if (!token.empty() && token.front() == '-')
    throw InputError(at.file, at.line, std::string("a non-negative ") + what, std::string(token));
  std::uint64_t value = 0;
  const auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), value);
  if (ec == std::errc::invalid_argument || end != token.data() + token.size())
    throw InputError(at.file, at.line, std::string("an integer ") + what, std::string(token));
  if (ec == std::errc::result_out_of_range || value < lowest || value > highest)
    throw InputError(at.file, at.line,
                     std::string(what) + " in [" + std::to_string(lowest) + ", " +
                         std::to_string(highest) + "]",
                     std::string(token));
  return value;
}

float parse_rating(const Context& at, std::string_view token) {
  float value = 0;
  const auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), value);
  if (ec != std::errc() || end != token.data() + token.size() || !std::isfinite(value))
    throw InputError(at.file, at.line, "a finite number as the rating", std::string(token));
  return value;
}

void check_field_count(const Context& at, std::size_t n, std::string_view line, const char* shape) {
  if (n != 3) throw InputError(at.file, at.line, std::string("3 fields \"") + shape + "\"", std::string(line));
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

RatingsSet read_matrix_market(const std::filesystem::path& file, LineCursor& lines, std::string_view banner) {
  std::string_view f[6];
  const std::size_t n = split_fields(banner, f, 5);
  if (n != 5 || lower(f[1]) != "matrix" || lower(f[2]) != "coordinate" ||
      (lower(f[3]) != "real" && lower(f[3]) != "integer") || lower(f[4]) != "general")
    throw InputError(file, 1, "\"%%MatrixMarket matrix coordinate real|integer general\"", std::string(banner));

  std::string_view line;
  bool have_size = false;
  std::size_t size_line = 0;
  std::uint64_t rows = 0, cols = 0, declared = 0;
  RatingsSet set;
  while (lines.next(line)) {
    const Context at{file, lines.number()};
    if (!line.empty() && line.front() == '%') continue;
    const std::size_t count = split_fields(line, f, 3);
    if (count == 0) continue;
    if (!have_size) {
      if (count != 3) throw InputError(file, at.line, "a size line \"rows columns entries\"", std::string(line));
      rows = parse_id(at, f[0], "row count", 0, kMaxId + 1);
      cols = parse_id(at, f[1], "column count", 0, kMaxId + 1);
      declared = parse_id(at, f[2], "entry count", 0, rows * cols);
      have_size = true;
      size_line = at.line;
      set.users = static_cast<std::uint32_t>(rows);
      set.items = static_cast<std::uint32_t>(cols);
      set.ratings.reserve(declared);
      continue;
    }
    check_field_count(at, count, line, "row column value");
    if (set.ratings.size() == declared)
      throw InputError(file, at.line, std::to_string(declared) + " entries as declared on line " +
                                          std::to_string(size_line) + ", no more",
                       std::string(line));
    const auto user = parse_id(at, f[0], "user id (row)", 1, rows);
    const auto item = parse_id(at, f[1], "item id (column)", 1, cols);
    set.ratings.push_back({static_cast<std::uint32_t>(user - 1), static_cast<std::uint32_t>(item - 1),
                           parse_rating(at, f[2])});
  }
  if (!have_size) throw InputError(file, 0, "a MatrixMarket size line and at least one rating", "no ratings");
  if (set.ratings.size() != declared)
    throw InputError(file, size_line, std::to_string(declared) + " entries as declared on this size line",
                     std::to_string(set.ratings.size()) + " entries");
  if (declared == 0) throw InputError(file, 0, "at least one rating", "no ratings");
  return set;
}

RatingsSet read_triples(const std::filesystem::path& file, LineCursor& lines, std::size_t expected_count) {
  RatingsSet set;
  set.ratings.reserve(expected_count);
  std::uint64_t max_user = 0, max_item = 0;
  std::string_view line, f[4];
  while (lines.next(line)) {
    const Context at{file, lines.number()};
    if (const auto hash = line.find('#'); hash != std::string_view::npos) line = line.substr(0, hash);
    const std::size_t count = split_fields(line, f, 3);
    if (count == 0) continue;
    check_field_count(at, count, line, "user item rating");
    const auto user = parse_id(at, f[0], "user id", 0, kMaxId);
    const auto item = parse_id(at, f[1], "item id", 0, kMaxId);
    max_user = std::max(max_user, user);
    max_item = std::max(max_item, item);
    set.ratings.push_back({static_cast<std::uint32_t>(user), static_cast<std::uint32_t>(item),
                           parse_rating(at, f[2])});
  }
  if (set.ratings.empty()) throw InputError(file, 0, "at least one rating", "no ratings");
  set.users = static_cast<std::uint32_t>(max_user + 1);
  set.items = static_cast<std::uint32_t>(max_item + 1);
  return set;
}

}  // namespace

RatingsSet read_ratings(const std::filesystem::path& file) {
  const std::string text = slurp(file);
  LineCursor lines(text);
  std::string_view first;
  if (!lines.next(first)) throw InputError(file, 0, "at least one rating", "an empty file");
  if (first.starts_with("%%MatrixMarket") || first.starts_with("%%matrixmarket"))
    return read_matrix_market(file, lines, first);
  // One rating per line at most, so the newline count bounds the reservation.
  const auto newlines = static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
  LineCursor again(text);
  return read_triples(file, again, newlines + 1);
}

void write_ratings(const std::filesystem::path& file, const RatingsSet& set) {
  AtomicFile out(file, std::ios::binary);
  // Formatting into one large buffer keeps 20M lines to a few hundred write calls.
  constexpr std::size_t kFlushAt = std::size_t{1} << 20;
  std::string buffer;
  buffer.reserve(kFlushAt + 64);
  char field[32];
  const auto append = [&](auto value) {
    const auto [end, ec] = std::to_chars(field, field + sizeof field, value);
    buffer.append(field, end);
  };
  for (const Rating& r : set.ratings) {
    append(r.user);
    buffer.push_back(' ');
    append(r.item);
    buffer.push_back(' ');
    append(r.value);  // shortest form that reads back to the same float
    buffer.push_back('\n');
    if (buffer.size() >= kFlushAt) {
      out.stream().write(buffer.data(), static_cast<std::streamsize>(buffer.size()));
      buffer.clear();
    }
  }
  out.stream().write(buffer.data(), static_cast<std::streamsize>(buffer.size()));
  out.commit();
}

}  // namespace gyre::data
