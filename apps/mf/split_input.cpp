// apps/mf/split_input.cpp — a rank's byte range of a ratings file, its ids and counts agreed with the others, its ratings sent to their users' shards.
#include "mf/split_input.hpp"

#include <algorithm>
#include <memory>
#include <optional>
#include <stdexcept>

#include "gyre/base/input_error.hpp"
#include "gyre/data/byte_ranges.hpp"
#include "gyre/data/id_space.hpp"
#include "gyre/data/partition.hpp"
#include "gyre/data/ratings.hpp"
#include "gyre/mapreduce/mapreduce.hpp"

namespace gyre::mapreduce {

template <>
struct Codec<data::Rating> {
  static constexpr std::size_t min_size = 12;
  static std::size_t size(const data::Rating&) noexcept { return min_size; }
  static void put(wire::Writer& w, const data::Rating& r) {
    w.put(r.user);
    w.put(r.item);
    w.put(r.value);
  }
  static data::Rating get(wire::Reader& r) {
    const auto user = r.get<std::uint32_t>("a user id");
    const auto item = r.get<std::uint32_t>("an item id");
    return {user, item, r.get<float>("a rating")};
  }
};

}  // namespace gyre::mapreduce

namespace gyre::mf {
namespace {

using mapreduce::Context;

struct RangeParse {
  std::vector<data::Rating> ratings;
  data::SplitStats read;
  bool failed = false;
};

// This rank's lines, parsed before their line numbers are known: a failure is only noted here.
RangeParse parse_range(const std::filesystem::path& file, const data::RatingsHeader& header, data::ByteRange range,
                       std::size_t threads) {
  RangeParse out;
  std::uint64_t lines = 0;  // in the blocks before, for the parser's (relative) numbering
  out.read = data::read_split_blocks(file, range, data::kRangeBlockBytes * threads, [&](std::string_view block) {
    if (out.failed) return;
    try {
      auto ratings = data::parse_ratings_body(file, header, block, lines, std::nullopt, threads);
      if (out.ratings.empty()) {
        // The range's ratings at this block's density: one allocation, not a doubling series.
        out.ratings.reserve(static_cast<std::size_t>(
            static_cast<double>(ratings.size()) * static_cast<double>(range.end - range.begin) /
            static_cast<double>(block.size()) * 1.01) + 1);
      }
      out.ratings.insert(out.ratings.end(), ratings.begin(), ratings.end());
    } catch (const InputError&) {
      out.failed = true;  // its line number is relative to the range: see the rerun
      out.ratings = {};
    }
    lines += static_cast<std::uint64_t>(std::count(block.begin(), block.end(), '\n'));
  });
  return out;
}

}  // namespace

void gather_item_sums(TrainingInput& in, const runtime::ProcessesBackend& backend) {
  const auto rank = static_cast<std::size_t>(backend.launch.rank);
  if (rank >= in.shards.size()) throw std::logic_error("gather_item_sums: no shard for rank " + std::to_string(rank));
  const std::uint32_t items = in.stats.items;
  std::vector<double> sums(items, 0.0);
  for (const data::Rating& r : in.shards[rank].ratings) sums[r.item] += r.value;
  mapreduce::run_loading(backend, [&](Context& ctx) {
    const auto parts = ctx.allgather_values(sums, "item sums");
    // Added in rank order: the same bits on every rank.
    std::fill(sums.begin(), sums.end(), 0.0);
    for (std::size_t r = 0; r < parts.size(); ++r) {
      if (parts[r].size() != items) ctx.bad_message(static_cast<int>(r), "item sums", "not one sum per item");
      for (std::uint32_t i = 0; i < items; ++i) sums[i] += parts[r][i];
    }
  });
  in.stats.item_sums = std::move(sums);
}

TrainingInput load_split_input(const std::filesystem::path& train, const std::filesystem::path& test,
                               std::size_t threads, const runtime::ProcessesBackend& backend, std::vector<data::SplitStats>* reads) {
  const int P = backend.launch.size, rank = backend.launch.rank;
  // The files laid end to end, cut as one text; each file's ratings begin after its header,
  // which every rank reads itself (a bad one is thrown in file order, below), and the ranges of
  // its body are cut as the whole input's are, so that the bytes read tile the input.
  const std::vector<data::InputFile> files = data::ratings_input_files(train);
  std::vector<std::optional<data::RatingsHeader>> heads(files.size());
  for (std::size_t f = 0; f < files.size(); ++f) {
    try {
      heads[f] = data::read_ratings_header(files[f].path);
    } catch (const InputError&) {  // settled in file order: an earlier file's error comes first
    }
  }
  const std::uint64_t total_bytes = data::total_size(files);
  // This rank's range of each file's body.
  std::vector<data::ByteRange> pieces = data::file_pieces(files, data::split_range(total_bytes, rank, P));
  std::vector<mapreduce::RangeTally> tallies(files.size());
  std::vector<data::Rating> ratings;
  for (std::size_t f = 0; f < files.size(); ++f) {
    data::ByteRange& piece = pieces[f];
    if (!heads[f] || piece.begin >= piece.end) continue;
    // The header's bytes are read by the range that holds the file's first byte.
    const std::uint64_t body = heads[f]->body_begin, header_bytes = piece.begin == 0 ? body : 0;
    piece.begin = std::max(piece.begin, body);
    piece.end = std::max(piece.end, body);
    RangeParse parsed = parse_range(files[f].path, *heads[f], piece, threads);
    tallies[f] = {parsed.read.bytes + header_bytes, parsed.read.lines, parsed.ratings.size(), 0, parsed.failed};
    if (ratings.empty()) ratings = std::move(parsed.ratings);
    else ratings.insert(ratings.end(), parsed.ratings.begin(), parsed.ratings.end());
  }

  TrainingInput in;
  if (!test.empty()) in.test = data::read_ratings(test, threads);

  mapreduce::run_loading(
      backend,
      [&](Context& ctx) {
        // 1. Line and rating counts: where each range starts in each file, and the first error
        // in file order, as the one-process reader meets it.
        mapreduce::FileRangeRules rules;
        rules.check_head = [&](std::size_t f) {
          if (!heads[f]) data::read_ratings_header(files[f].path);  // throws its error again
        };
        rules.crosses = [&](std::size_t f, const mapreduce::RangeTally&, const mapreduce::RangeTally& through) {
          return heads[f]->matrix_market && through.records > heads[f]->size.entries;
        };
        rules.rethrow = [&](std::size_t f, const mapreduce::RangeTally& before) {  // the serial reader's error
          data::SplitStats again;
          const std::string text = data::read_split_text(files[f].path, pieces[f], again);
          data::parse_ratings_body(files[f].path, *heads[f], text, heads[f]->lines + before.lines, before.records, threads);
        };
        rules.check_total = [&](std::size_t f, const mapreduce::RangeTally& total) {
          data::check_ratings_total(files[f].path, *heads[f], total.records);
        };
        const auto starts = mapreduce::settle_file_ranges(ctx, tallies, rules);
        if (reads) {
          reads->assign(static_cast<std::size_t>(P), {});
          std::uint64_t first_byte = 0;
          for (std::size_t f = 0; f < files.size(); first_byte += files[f].size, ++f)
            for (int r = 0; r < P; ++r) {
              const auto& t = starts[f].ranges[static_cast<std::size_t>(r)];
              const data::ByteRange theirs = data::split_range(total_bytes, r, P);
              const bool header = theirs.begin <= first_byte && first_byte < theirs.end;
              (*reads)[static_cast<std::size_t>(r)] += {t.bytes, t.lines + (header ? heads[f]->lines : 0)};
            }
        }

        // 2. Ids: the distinct ids of every range and of the test set, numbered as compact_ids
        // over the whole file and the test set numbers them.
        data::RatingsSet mine{std::move(ratings), 0, 0};
        data::IdTables seen;
        for (auto& ids : ctx.allgather_values(data::distinct_ids(mine.ratings, &data::Rating::user), "user ids"))
          seen.users.original.insert(seen.users.original.end(), ids.begin(), ids.end());
        for (auto& ids : ctx.allgather_values(data::distinct_ids(mine.ratings, &data::Rating::item), "item ids"))
          seen.items.original.insert(seen.items.original.end(), ids.begin(), ids.end());
        data::RatingsSet* sets[] = {&mine, &in.test};
        in.ids = data::compact_ids(sets, seen);
        const std::uint32_t users = in.ids.users.size(), items = in.ids.items.size();

        // 3. Ratings per user and per item over the whole file; users placed as shard_by_user does.
        std::vector<std::uint64_t> per_id(std::size_t{users} + items, 0);
        for (const data::Rating& r : mine.ratings) {
          ++per_id[r.user];
          ++per_id[std::size_t{users} + r.item];
        }
        ctx.sum_each(per_id);
        const std::span<const std::uint64_t> user_ratings(per_id.data(), users);
        const data::UserPartition placed = data::partition_users(user_ratings, static_cast<std::uint32_t>(P));

        // 4. Each rating to its user's shard, encoded straight from the parsed ones (which then
        // go); a shard's ratings arrive in rank order, which is file order.
        const auto part_of = [&](const data::Rating& r) { return static_cast<int>(placed.user_to_part[r.user]); };
        std::vector<std::uint64_t> sends(static_cast<std::size_t>(P), 0);
        for (const data::Rating& r : mine.ratings) ++sends[static_cast<std::size_t>(part_of(r))];
        std::vector<std::unique_ptr<wire::Writer>> writers(static_cast<std::size_t>(P));
        for (int r = 0; r < P; ++r) {
          if (r == rank) continue;
          const auto n = sends[static_cast<std::size_t>(r)];
          writers[static_cast<std::size_t>(r)] = std::make_unique<wire::Writer>(
              sizeof(std::uint64_t) + n * mapreduce::Codec<data::Rating>::min_size);
          writers[static_cast<std::size_t>(r)]->put(n);
        }
        std::vector<data::Rating> own;
        own.reserve(sends[static_cast<std::size_t>(rank)]);
        for (const data::Rating& r : mine.ratings) {
          if (const int to = part_of(r); to == rank) own.push_back(r);
          else mapreduce::Codec<data::Rating>::put(*writers[static_cast<std::size_t>(to)], r);
        }
        mine = {};
        std::vector<Buffer> outgoing(static_cast<std::size_t>(P));
        for (int r = 0; r < P; ++r)
          if (r != rank) outgoing[static_cast<std::size_t>(r)] = writers[static_cast<std::size_t>(r)]->finish();
        writers.clear();
        auto incoming = ctx.exchange(std::move(outgoing), "ratings to their shards");
        data::RatingsSet shard{{}, users, items};
        std::uint64_t arriving = own.size();
        for (const Buffer& b : incoming) arriving += b.size() / mapreduce::Codec<data::Rating>::min_size;
        shard.ratings.reserve(arriving);
        for (int r = 0; r < P; ++r) {
          if (r == rank) {
            shard.ratings.insert(shard.ratings.end(), own.begin(), own.end());
            own = {};
            continue;
          }
          const std::size_t before = shard.ratings.size();
          ctx.decode_from(r, incoming[static_cast<std::size_t>(r)], shard.ratings, "ratings to their shards");
          incoming[static_cast<std::size_t>(r)] = Buffer();
          for (std::size_t i = before; i < shard.ratings.size(); ++i) {
            const data::Rating& x = shard.ratings[i];
            if (x.user >= users || x.item >= items || part_of(x) != rank)
              ctx.bad_message(r, "ratings to their shards", "a rating of another shard or outside the id space");
          }
        }

        // 5. The statistics: placements, item counts, and every shard's moments in shard order.
        data::RatingsStats& s = in.stats;
        s.users = users;
        s.items = items;
        s.user_part.assign(users, data::kNoPart);
        for (std::uint32_t u = 0; u < users; ++u)
          if (user_ratings[u] > 0) s.user_part[u] = placed.user_to_part[u];
        s.item_ratings.assign(per_id.begin() + users, per_id.end());
        const data::RatingsMoments m = data::moments_of(shard);
        for (const auto& other : ctx.allgather_values<double>({static_cast<double>(m.count), m.sum, m.sum_squares}, "moments")) {
          if (other.size() != 3) ctx.bad_message(0, "moments", "not 3 numbers");
          s.parts.push_back({static_cast<std::uint64_t>(other[0]), other[1], other[2]});
        }
        check_worker_count(train, static_cast<std::uint32_t>(P), s.rated_users());
        in.shards.assign(static_cast<std::size_t>(P), data::RatingsSet{{}, users, items});
        in.shards[static_cast<std::size_t>(rank)] = std::move(shard);
      });
  return in;
}

}  // namespace gyre::mf
