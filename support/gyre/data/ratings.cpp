// gyre/data/ratings.cpp — MatrixMarket and triples readers, triples writer, for ratings files.
#include "gyre/data/ratings.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <string>
#include <string_view>

#include "gyre/base/input_error.hpp"
#include "gyre/base/output_file.hpp"
#include "gyre/data/byte_ranges.hpp"
#include "gyre/data/line_scan.hpp"
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

[[noreturn]] void no_size_line(const std::filesystem::path& file) {
  throw InputError(file, 0, "a MatrixMarket size line and at least one rating", "no ratings");
}

}  // namespace

std::vector<Rating> parse_ratings_body(const std::filesystem::path& file, const RatingsHeader& header,
                                       std::string_view text, std::size_t lines_before,
                                       std::optional<std::uint64_t> records_before, std::size_t threads) {
  if (!header.matrix_market) {
    const auto triples = [&](LineCursor& lines, std::size_t, std::vector<Rating>& out) {
      std::string_view line, f[4];
      TripleFields fast;
      while (lines.next(line)) {
        if (parse_triple_line(line, fast) && fast.first <= kMaxId && fast.second <= kMaxId) {
          out.push_back({static_cast<std::uint32_t>(fast.first), static_cast<std::uint32_t>(fast.second), fast.value});
          continue;
        }
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
    return parse_lines<Rating>(text, lines_before, threads, SIZE_MAX, triples);
  }
  const std::uint64_t rows = header.size.rows, cols = header.size.cols, declared = header.size.entries;
  const std::uint64_t earlier = records_before.value_or(0);
  const auto entries = [&](LineCursor& body, std::size_t before, std::vector<Rating>& out) {
    std::string_view line, f[4];
    TripleFields fast;
    const auto past_declared = [&] { return records_before && earlier + before + out.size() == declared; };
    while (body.next(line)) {
      if (parse_triple_line(line, fast) && !past_declared() && fast.first - 1 < rows && fast.second - 1 < cols) {
        // Unsigned: an id of 0 wraps round and fails the bound, as it must.
        out.push_back({static_cast<std::uint32_t>(fast.first - 1), static_cast<std::uint32_t>(fast.second - 1), fast.value});
        continue;
      }
      const Context at{file, body.number()};
      if (!line.empty() && line.front() == '%') continue;
      const std::size_t count = split_fields(line, f, 3);
      if (count == 0) continue;
      check_field_count(at, count, line, "row column value");
      if (past_declared())
        throw InputError(file, at.line, std::to_string(declared) + " entries as declared on line " +
                                            std::to_string(header.size.line) + ", no more",
                         std::string(line));
      const auto user = parse_id(at, f[0], "user id (row)", 1, rows);
      const auto item = parse_id(at, f[1], "item id (column)", 1, cols);
      out.push_back({static_cast<std::uint32_t>(user - 1), static_cast<std::uint32_t>(item - 1),
                     parse_rating(at, f[2])});
    }
  };
  const std::size_t max_records = !records_before ? SIZE_MAX : earlier >= declared ? 0 : declared - earlier;
  return parse_lines<Rating>(text, lines_before, threads, max_records, entries);
}

std::optional<RatingsHeader> parse_ratings_header(const std::filesystem::path& file, std::string_view start) {
  LineCursor lines(start);
  std::string_view first;
  if (!lines.next(first)) throw InputError(file, 0, "at least one rating", "an empty file");
  RatingsHeader header;
  if (!is_matrix_market_banner(first)) return header;
  header.matrix_market = true;
  const auto size = read_matrix_market_size(file, first, lines, kMaxId + 1);
  if (!size) return std::nullopt;
  header.size = *size;
  header.lines = lines.number();
  header.body_begin = start.size() - lines.rest().size();
  return header;
}

RatingsHeader read_ratings_header(const std::filesystem::path& file) {
  // A MatrixMarket header is a few lines, but its comments may be long: read on until it ends.
  auto [header, skipped] = parse_file_start(file, [&](std::string_view start, bool whole) {
    auto h = parse_ratings_header(file, start);
    if (!h && whole) no_size_line(file);
    return h;
  });
  // A body at byte 0 (triples) starts the file, whose mark the range reader drops itself.
  if (header.body_begin > 0) header.body_begin += skipped;
  return header;
}

void check_ratings_total(const std::filesystem::path& file, const RatingsHeader& header, std::uint64_t total) {
  if (header.matrix_market && total != header.size.entries)
    throw InputError(file, header.size.line,
                     std::to_string(header.size.entries) + " entries as declared on this size line",
                     std::to_string(total) + " entries");
  if (total == 0) throw InputError(file, 0, "at least one rating", "no ratings");
}

namespace {

// The whole file's count checked; the id space the header declares, or the ids seen.
RatingsSet finish_ratings(const std::filesystem::path& file, const RatingsHeader& header, RatingsSet set) {
  check_ratings_total(file, header, set.ratings.size());
  if (header.matrix_market) {
    set.users = static_cast<std::uint32_t>(header.size.rows);
    set.items = static_cast<std::uint32_t>(header.size.cols);
    return set;
  }
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
  RatingsSet set;
  RatingsHeader header;
  if (const auto whole = read_if_stream(file)) {  // a pipe: read once, header and all
    const auto parsed = parse_ratings_header(file, *whole);
    if (!parsed) no_size_line(file);
    header = *parsed;
    set.ratings = parse_ratings_body(file, header, std::string_view(*whole).substr(header.body_begin), header.lines, 0, threads);
    return finish_ratings(file, header, std::move(set));
  }
  header = read_ratings_header(file);
  std::error_code ec;
  const std::uint64_t size = std::filesystem::file_size(file, ec);
  if (ec) throw InputError(file, 0, "a readable file", ec.message());
  const ByteRange body{header.body_begin, std::max(size, header.body_begin)};
  // Read in blocks through one buffer rather than mapped: the file's pages then never count
  // against the process, and a block's ratings are appended while they are still in cache.
  std::uint64_t lines = header.lines;
  read_split_blocks(file, body, kRangeBlockBytes * threads, [&](std::string_view block) {
    const std::vector<Rating> part = parse_ratings_body(file, header, block, lines, set.ratings.size(), threads);
    lines += static_cast<std::uint64_t>(std::count(block.begin(), block.end(), '\n'));
    if (set.ratings.empty())  // the file's ratings at this block's density: one allocation
      set.ratings.reserve(static_cast<std::size_t>(static_cast<double>(part.size()) *
                                                   static_cast<double>(body.end - body.begin) /
                                                   static_cast<double>(block.size()) * 1.01) + 1);
    set.ratings.insert(set.ratings.end(), part.begin(), part.end());
  });
  return finish_ratings(file, header, std::move(set));
}

std::vector<InputFile> ratings_input_files(const std::filesystem::path& input) {
  return nonempty_input_files(input, "ratings files");
}

RatingsSet read_ratings_input(const std::filesystem::path& input, std::size_t threads) {
  std::error_code ec;
  // A missing file is read_ratings's error, as for any reader of one file.
  if (!std::filesystem::is_directory(input, ec)) return read_ratings(input, threads);
  RatingsSet all;
  for (const InputFile& f : ratings_input_files(input)) {
    RatingsSet set = read_ratings(f.path, threads);
    all.users = std::max(all.users, set.users);
    all.items = std::max(all.items, set.items);
    if (all.ratings.empty()) all.ratings = std::move(set.ratings);
    else all.ratings.insert(all.ratings.end(), set.ratings.begin(), set.ratings.end());
  }
  return all;
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
