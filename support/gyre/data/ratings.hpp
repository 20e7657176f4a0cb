// gyre/data/ratings.hpp — rating triples in memory and the readers for ratings files.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <ostream>
#include <string_view>
#include <vector>

#include "gyre/data/byte_ranges.hpp"
#include "gyre/data/text_input.hpp"

namespace gyre::data {

// One observed entry of the ratings matrix; ids are 0-based in memory.
struct Rating {
  std::uint32_t user;
  std::uint32_t item;
  float value;
};
static_assert(sizeof(Rating) == 12);

// A set of ratings with the id space it lives in: every user id < users, item id < items.
struct RatingsSet {
  std::vector<Rating> ratings;
  std::uint32_t users = 0;
  std::uint32_t items = 0;
};

// Largest id a reader accepts (ids index dense factor arrays).
inline constexpr std::uint64_t kMaxId = (std::uint64_t{1} << 31) - 2;

// Reads a ratings file, choosing the format from its first line:
//  - "%%MatrixMarket matrix coordinate real|integer general": 1-based ids as the format says,
//    converted to 0-based; the size line bounds the ids and fixes users/items;
//  - otherwise "user item rating" triples separated by spaces, tabs or commas, ids as written
//    (0-based or not; users/items = max id + 1); '#' starts a comment; blank lines are skipped.
// Throws gyre::InputError naming file, line and what was expected for a missing or empty file,
// a malformed line, a negative, non-integer or out-of-range id, or a rating that is not a
// finite number.
// `threads` line-aligned pieces of the file are parsed at once, as TBB tasks in the calling arena;
// the ratings, their order and any error (the first in the file) are the same for every count.
RatingsSet read_ratings(const std::filesystem::path& file, std::size_t threads = 1);

// The files of a ratings input: the file itself, or a directory's files in name order, hidden
// ones and subdirectories left out (list_input_files). Throws gyre::InputError naming a directory
// that holds none.
std::vector<InputFile> ratings_input_files(const std::filesystem::path& input);
// A ratings file, or a directory of them read as one: each file as read_ratings reads it (its
// own format, header and declared count), their ratings in file order; users and items the
// largest of theirs.
RatingsSet read_ratings_input(const std::filesystem::path& input, std::size_t threads = 1);

// What the first lines of a ratings file say, as a reader of one byte range of it needs them:
// the format and, for MatrixMarket, the size line, and where the ratings begin.
struct RatingsHeader {
  bool matrix_market = false;
  MatrixMarketSize size;        // MatrixMarket only
  std::size_t lines = 0;        // lines before the ratings (banner, comments, size line)
  std::uint64_t body_begin = 0; // byte offset of the line after them
};

// The header of a file that starts with `start` (whole lines), or nullopt when `start` ends
// before a MatrixMarket size line. Throws gyre::InputError as read_ratings does for an empty
// file or a bad banner or size line.
std::optional<RatingsHeader> parse_ratings_header(const std::filesystem::path& file, std::string_view start);
// The same from the file itself, reading only as far as the header goes.
RatingsHeader read_ratings_header(const std::filesystem::path& file);

// Parses whole lines of the file's body as read_ratings does, on `threads` threads; the first is
// line lines_before + 1. With `records_before` (the ratings earlier in the file) a MatrixMarket
// file's declared count is checked at the first line past it; without, only check_ratings_total
// checks it. Ids are 0-based; users and items are the caller's to set.
std::vector<Rating> parse_ratings_body(const std::filesystem::path& file, const RatingsHeader& header,
                                       std::string_view text, std::size_t lines_before,
                                       std::optional<std::uint64_t> records_before, std::size_t threads);
// Throws read_ratings's error for a file of `total` ratings in all: none, or not the declared count.
void check_ratings_total(const std::filesystem::path& file, const RatingsHeader& header, std::uint64_t total);

// Writes triples "user item rating\n" (0-based ids, shortest round-trip floats), to a file
// through gyre::OutputFile or to a stream.
void write_ratings(const std::filesystem::path& file, const RatingsSet& set);
void write_ratings(std::ostream& out, const RatingsSet& set);

}  // namespace gyre::data
