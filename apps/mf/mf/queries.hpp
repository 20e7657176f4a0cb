// apps/mf/mf/queries.hpp — what predict and recommend are asked about: pairs, users, and the items to leave out, resolved to model rows.
#pragma once

#include <cstdint>
#include <filesystem>
#include <vector>

#include "mf/scorer.hpp"

namespace gyre::mf {

// A pairs file: "user item [rating]" lines, fields separated by blanks or one comma, '#' starts
// a comment, blank lines skipped (the ratings triples format, with the rating optional).
struct Pairs {
  std::vector<std::uint32_t> users;  // model rows; Scorer::kUnknown for an id the model lacks
  std::vector<std::uint32_t> items;
  std::vector<std::uint32_t> user_ids, item_ids;  // as written
  std::vector<float> ratings;        // NaN where a line has no rating
  std::uint64_t unknown = 0;         // pairs naming a user or item the model lacks
  std::string first_unknown;         // "line 7: user 42", for the note about them
};

// `strict`: every id must be one the model has, gyre::InputError at file:line otherwise;
// else an unknown id is kept as Scorer::kUnknown and counted. A malformed line or a rating that
// is not a finite number is an InputError either way.
Pairs read_pairs(const std::filesystem::path& file, const Scorer& scorer, bool strict);

// A users file: one user id per line (comments and blank lines as above); model rows, in file order.
std::vector<std::uint32_t> read_users(const std::filesystem::path& file, const Scorer& scorer);

// The items each user rated in a ratings file (any format data::read_ratings takes), by user
// row, as sorted item rows. Users and items the model lacks are skipped: they can neither be
// asked about nor recommended.
struct RatedItems {
  std::vector<std::uint64_t> offsets;  // user row r's items are items[offsets[r] .. offsets[r+1])
  std::vector<std::uint32_t> items;

  bool empty() const noexcept { return items.empty(); }
};
RatedItems read_rated_items(const std::filesystem::path& file, const Scorer& scorer);

}  // namespace gyre::mf
