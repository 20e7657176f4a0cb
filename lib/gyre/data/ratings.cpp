// gyre/data/ratings.cpp — MatrixMarket and triples readers, triples writer, for ratings files.
#include "gyre/data/ratings.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <string>
#include <string_view>

#include "gyre/base/output_file.hpp"
#include "gyre/base/input_error.hpp"
#include "gyre/data/parallel_lines.hpp"
#include "gyre/data/text_input.hpp"

namespace gyre::data {
namespace {

struct Context {
  const std::filesystem::path& file;
  std::size_t line;
};

std::uint64_t parse_id(const Context& at, std::string_view token, const char* what, std::uint64_t lowest,
                       std::uint64_t highest) {
  // A good id takes the short way; parse_bounded, which builds its message strings, only tells
  // what is wrong with a bad one.
  std::uint64_t id = 0;
  if (parse_decimal(token, id, highest) && id >= lowest) return id;
  return parse_bounded(at.file, at.line, token, what, lowest, highest);
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

RatingsSet read_matrix_market(const std::filesystem::path& file, LineCursor& lines, std::string_view banner,
                              std::size_t threads) {
  const auto size = read_matrix_market_size(file, banner, lines, kMaxId + 1);
  if (!size) throw InputError(file, 0, "a MatrixMarket size line and at least one rating", "no ratings");
  const std::uint64_t rows = size->rows, cols = size->cols, declared = size->entries;
  const std::size_t size_line = size->line;
  RatingsSet set;
  set.users = static_cast<std::uint32_t>(rows);
  set.items = static_cast<std::uint32_t>(cols);
  const auto entries = [&](LineCursor& body, std::size_t before, std::vector<Rating>& out) {
    std::string_view line, f[4];
    while (body.next(line)) {
      const Context at{file, body.number()};
      if (!line.empty() && line.front() == '%') continue;
      const std::size_t count = split_fields(line, f, 3);
      if (count == 0) continue;
      check_field_count(at, count, line, "row column value");
      if (before + out.size() == declared)
        throw InputError(file, at.line, std::to_string(declared) + " entries as declared on line " +
                                            std::to_string(size_line) + ", no more",
                         std::string(line));
      const auto user = parse_id(at, f[0], "user id (row)", 1, rows);
      const auto item = parse_id(at, f[1], "item id (column)", 1, cols);
      out.push_back({static_cast<std::uint32_t>(user - 1), static_cast<std::uint32_t>(item - 1),
                     parse_rating(at, f[2])});
    }
  };
  set.ratings = parse_lines<Rating>(lines.rest(), lines.number(), threads, declared, entries);
  if (set.ratings.size() != declared)
    throw InputError(file, size_line, std::to_string(declared) + " entries as declared on this size line",
                     std::to_string(set.ratings.size()) + " entries");
  if (declared == 0) throw InputError(file, 0, "at least one rating", "no ratings");
  return set;
}

RatingsSet read_triples(const std::filesystem::path& file, std::string_view text, std::size_t threads) {
  const auto triples = [&](LineCursor& lines, std::size_t, std::vector<Rating>& out) {
    std::string_view line, f[4];
    while (lines.next(line)) {
      const Context at{file, lines.number()};
      if (const auto hash = line.find('#'); hash != std::string_view::npos) line = line.substr(0, hash);
      const std::size_t count = split_fields(line, f, 3);
      if (count == 0) continue;
      check_field_count(at, count, line, "user item rating");
      const auto user = parse_id(at, f[0], "user id", 0, kMaxId);
      const auto item = parse_id(at, f[1], "item id", 0, kMaxId);
      out.push_back({static_cast<std::uint32_t>(user), static_cast<std::uint32_t>(item), parse_rating(at, f[2])});
    }
  };
  RatingsSet set;
  set.ratings = parse_lines<Rating>(text, 0, threads, SIZE_MAX, triples);
  if (set.ratings.empty()) throw InputError(file, 0, "at least one rating", "no ratings");
  std::uint32_t max_user = 0, max_item = 0;
  for (const Rating& r : set.ratings) {
    max_user = std::max(max_user, r.user);
    max_item = std::max(max_item, r.item);
  }
  set.users = max_user + 1;
  set.items = max_item + 1;
  return set;
}

}  // namespace

RatingsSet read_ratings(const std::filesystem::path& file, std::size_t threads) {
  const FileText input(file);
  LineCursor lines(input.text());
  std::string_view first;
  if (!lines.next(first)) throw InputError(file, 0, "at least one rating", "an empty file");
  if (is_matrix_market_banner(first)) return read_matrix_market(file, lines, first, threads);
  return read_triples(file, input.text(), threads);
}

void write_ratings(const std::filesystem::path& file, const RatingsSet& set) {
  OutputFile out(file);
  write_ratings(out.stream(), set);
  out.commit();
}

void write_ratings(std::ostream& out, const RatingsSet& set) {
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
      out.write(buffer.data(), static_cast<std::streamsize>(buffer.size()));
      buffer.clear();
    }
  }
  out.write(buffer.data(), static_cast<std::streamsize>(buffer.size()));
}

}  // namespace gyre::data
