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
#include "gyre/mapreduce/job.hpp"
#include "gyre/mapreduce/range_parse.hpp"

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

// Blocks of this many bytes of the range are parsed at a time, so that the text held is one
// block's, not the range's.
constexpr std::uint64_t kBlockBytes = std::uint64_t{64} << 20;

// This rank's lines, parsed before their line numbers are known: a failure is only noted here.
RangeParse parse_range(const std::filesystem::path& file, const data::RatingsHeader& header, data::ByteRange range,
                       std::size_t threads) {
  RangeParse out;
  std::uint64_t lines = 0;  // in the blocks before, for the parser's (relative) numbering
  out.read = data::read_split_blocks(file, range, kBlockBytes, [&](std::string_view block) {
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

TrainingInput load_split_input(const std::filesystem::path& train, const std::filesystem::path& test,
                               std::size_t threads, const runtime::ProcessesBackend& backend, std::vector<data::SplitStats>* reads) {
  const int P = backend.launch.size, rank = backend.launch.rank;
  const data::RatingsHeader header = data::read_ratings_header(train);
  const std::uint64_t size = data::list_input_files(train).front().size;
  // The ratings begin after the header: every rank reads the header itself, and the ranges of
  // the body are cut as the whole file's are, so that the bytes read tile the file.
  data::ByteRange range = data::split_range(size, rank, P);
  range.begin = std::max(range.begin, header.body_begin);
  range.end = std::max(range.end, header.body_begin);
  RangeParse parsed = parse_range(train, header, range, threads);
  const data::SplitStats& stats = parsed.read;

  TrainingInput in;
  if (!test.empty()) in.test = data::read_ratings(test, threads);

  mapreduce::run_loading(
      backend,
      [&](Context& ctx) {
        // 1. Line and rating counts: where each range starts in the file, and the first bad rank.
        const mapreduce::RangeStarts starts = mapreduce::settle_ranges(
            ctx, {stats.bytes + (rank == 0 ? header.body_begin : 0), stats.lines, parsed.ratings.size(), 0, parsed.failed},
            [&](const mapreduce::RangeTally&, const mapreduce::RangeTally& through) {
              return header.matrix_market && through.records > header.size.entries;
            },
            [&](const mapreduce::RangeTally& before) {  // again with the true numbers: the serial reader's error
              data::SplitStats again;
              const std::string text = data::read_split_text(train, range, again);
              data::parse_ratings_body(train, header, text, header.lines + before.lines, before.records, threads);
            });
        const std::uint64_t total = starts.total.records;
        if (reads)
          for (const auto& t : starts.ranges) reads->push_back({t.bytes, t.lines + (reads->empty() ? header.lines : 0)});
        data::check_ratings_total(train, header, total);

        // 2. Ids: the distinct ids of every range and of the test set, numbered as compact_ids
        // over the whole file and the test set numbers them.
        data::RatingsSet mine{std::move(parsed.ratings), 0, 0};
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
