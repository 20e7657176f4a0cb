// apps/mf/queries.cpp — what predict and recommend are asked about: pairs, users, and the items to leave out, resolved to model rows.
#include "mf/queries.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <string>

#include "gyre/base/input_error.hpp"
#include "gyre/data/ratings.hpp"
#include "gyre/data/text_input.hpp"

namespace gyre::mf {
namespace {

// Calls `row(line number, fields, count)` for every line that is not blank or a comment, with
// at most `max` fields (count max + 1 means more, or an empty one).
template <typename Row>
void for_each_line(const std::filesystem::path& file, std::size_t max, Row&& row) {
  const std::string text = data::slurp(file);
  data::LineCursor lines(text);
  std::string_view line, fields[4];
  bool any = false;
  while (lines.next(line)) {
    if (const auto hash = line.find('#'); hash != std::string_view::npos) line = line.substr(0, hash);
    const std::size_t count = data::split_fields(line, fields, max);
    if (count == 0) continue;
    row(lines.number(), line, fields, count);
    any = true;
  }
  if (!any) throw InputError(file, 0, "at least one line", "no lines");
}

float parse_rating(const std::filesystem::path& file, std::size_t line, std::string_view token) {
  float value = 0;
  const auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), value);
  if (ec != std::errc() || end != token.data() + token.size() || !std::isfinite(value))
    throw InputError(file, line, "a finite number as the rating (third field)", std::string(token));
  return value;
}

}  // namespace

Pairs read_pairs(const std::filesystem::path& file, const Scorer& scorer, bool strict) {
  Pairs out;
  for_each_line(file, 3, [&](std::size_t line, std::string_view text, const std::string_view* f, std::size_t n) {
    if (n < 2 || n > 3) throw InputError(file, line, "2 or 3 fields \"user item [rating]\"", std::string(text));
    const std::uint32_t user = strict ? scorer.user_row(file, line, f[0]) : scorer.user_row_if_known(file, line, f[0]);
    const std::uint32_t item = strict ? scorer.item_row(file, line, f[1]) : scorer.item_row_if_known(file, line, f[1]);
    if (user == Scorer::kUnknown || item == Scorer::kUnknown) {
      if (out.unknown++ == 0)
        out.first_unknown = "line " + std::to_string(line) + ": " +
                            (user == Scorer::kUnknown ? "user " + std::string(f[0]) : "item " + std::string(f[1]));
    }
    out.users.push_back(user);
    out.items.push_back(item);
    out.user_ids.push_back(user == Scorer::kUnknown ? static_cast<std::uint32_t>(std::stoul(std::string(f[0])))
                                                    : scorer.user_id(user));
    out.item_ids.push_back(item == Scorer::kUnknown ? static_cast<std::uint32_t>(std::stoul(std::string(f[1])))
                                                    : scorer.item_id(item));
    out.ratings.push_back(n == 3 ? parse_rating(file, line, f[2]) : std::numeric_limits<float>::quiet_NaN());
  });
  return out;
}

std::vector<std::uint32_t> read_users(const std::filesystem::path& file, const Scorer& scorer) {
  std::vector<std::uint32_t> out;
  for_each_line(file, 1, [&](std::size_t line, std::string_view text, const std::string_view* f, std::size_t n) {
    if (n != 1) throw InputError(file, line, "1 field, a user id", std::string(text));
    out.push_back(scorer.user_row(file, line, f[0]));
  });
  return out;
}

RatedItems read_rated_items(const std::filesystem::path& file, const Scorer& scorer) {
  const data::RatingsSet set = data::read_ratings(file);
  // Model rows of the ratings the model can place, then bucketed by user (counting sort).
  std::vector<std::pair<std::uint32_t, std::uint32_t>> known;
  known.reserve(set.ratings.size());
  for (const data::Rating& r : set.ratings) {
    const std::int64_t user = scorer.find_user(r.user), item = scorer.find_item(r.item);
    if (user >= 0 && item >= 0) known.emplace_back(static_cast<std::uint32_t>(user), static_cast<std::uint32_t>(item));
  }
  RatedItems out;
  out.offsets.assign(std::size_t{scorer.users()} + 1, 0);
  for (const auto& [user, item] : known) ++out.offsets[user + 1];
  for (std::size_t u = 0; u < scorer.users(); ++u) out.offsets[u + 1] += out.offsets[u];
  out.items.resize(known.size());
  std::vector<std::uint64_t> next(out.offsets.begin(), out.offsets.end() - 1);
  for (const auto& [user, item] : known) out.items[next[user]++] = item;
  for (std::size_t u = 0; u < scorer.users(); ++u)
    std::sort(out.items.begin() + std::ptrdiff_t(out.offsets[u]),
              out.items.begin() + std::ptrdiff_t(out.offsets[u + 1]));
  return out;
}

}  // namespace gyre::mf
