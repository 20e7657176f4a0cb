// apps/lasso/rows_input.cpp — labels and columns prepared; across processes, each rank's byte range of a LibSVM file (or its part of a partition) prepared together and dealt into shards, no rank holding more than its own.
#include "lasso/rows_input.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <string>

#include "gyre/base/input_error.hpp"
#include "gyre/data/id_space.hpp"
#include "gyre/data/manifest.hpp"
#include "gyre/data/regression_partition.hpp"
#include "gyre/mapreduce/mapreduce.hpp"
#include "gyre/wire/body.hpp"
#include "lasso/column_stats.hpp"
#include "lasso/solver.hpp"

namespace gyre::lasso {
namespace {

namespace fs = std::filesystem;
using mapreduce::Context;
using mapreduce::RangeTally;

// Rows on the wire: u64 samples, u32 features; then per sample its id (u64), response (f64)
// and non-zero count (u32); then every non-zero's column (u32), then every value (f64).
constexpr std::size_t kRowBytes = 8 + 8 + 4;
constexpr std::size_t kPairBytes = 4 + 8;

// Rows `rows` of `set` (all of them when null), encoded.
Buffer encode_rows(const data::RegressionSet& set, const std::vector<std::uint32_t>* rows) {
  const std::uint64_t n = rows ? rows->size() : set.samples();
  const auto row = [&](std::uint64_t k) { return rows ? std::uint64_t{(*rows)[k]} : k; };
  std::uint64_t nnz = 0;
  for (std::uint64_t k = 0; k < n; ++k) nnz += set.row_begin[row(k) + 1] - set.row_begin[row(k)];
  wire::Writer out(8 + 4 + n * kRowBytes + nnz * kPairBytes);
  out.put(n);
  out.put(set.features);
  for (std::uint64_t k = 0; k < n; ++k) out.put(set.sample_ids[row(k)]);
  for (std::uint64_t k = 0; k < n; ++k) out.put(set.y[row(k)]);
  for (std::uint64_t k = 0; k < n; ++k)
    out.put(static_cast<std::uint32_t>(set.row_begin[row(k) + 1] - set.row_begin[row(k)]));
  for (std::uint64_t k = 0; k < n; ++k) out.put_array(std::span<const std::uint32_t>(set.row_cols(row(k))));
  for (std::uint64_t k = 0; k < n; ++k) out.put_array(std::span<const double>(set.row_values(row(k))));
  return out.finish();
}

// Appends the rows rank `from` encoded to `into`, their sample ids moved on by `id_offset`.
// A body that does not decode, or rows that break the set's rules, fail the job naming `from`.
void decode_rows_into(const Context& ctx, int from, const Buffer& body, data::RegressionSet& into,
                      std::uint64_t id_offset, std::string_view verb) {
  try {
    wire::Reader in(body.bytes());
    const std::size_t n = in.count<std::uint64_t>(kRowBytes, "the sample count");
    const auto features = in.get<std::uint32_t>("the feature count");
    const auto ids = in.get_array<std::uint64_t>(n, "sample ids");
    const auto y = in.get_array<double>(n, "responses");
    const auto counts = in.get_array<std::uint32_t>(n, "non-zero counts");
    const std::uint64_t nnz = std::accumulate(counts.begin(), counts.end(), std::uint64_t{0});
    const auto cols = in.get_array<std::uint32_t>(in.check_count(nnz, kPairBytes, "non-zeros"), "columns");
    const auto values = in.get_array<double>(nnz, "values");
    in.finish();
    std::uint64_t at = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const std::span<const std::uint32_t> c(cols.data() + at, counts[i]);
      for (std::size_t k = 0; k < c.size(); ++k)
        if (c[k] >= features || (k > 0 && c[k] <= c[k - 1])) in.fail("a row's columns not increasing below the feature count");
      if (!std::isfinite(y[i])) in.fail("a response that is not finite");
      into.add_row(ids[i] + id_offset, y[i], c, std::span<const double>(values.data() + at, counts[i]));
      at += counts[i];
    }
    into.features = std::max(into.features, features);
  } catch (const wire::DecodeError& e) {
    ctx.bad_message(from, verb, e.what());
  }
}

// Every rank's one value of `mine`, in rank order; a rank that sent another count of values
// fails the job, named.
template <class T>
std::vector<T> one_each(Context& ctx, const T& mine, std::string_view verb) {
  const auto lists = ctx.allgather_values(std::vector<T>{mine}, verb);
  std::vector<T> out;
  for (int r = 0; r < ctx.size(); ++r) {
    if (lists[static_cast<std::size_t>(r)].size() != 1) ctx.bad_message(r, verb, "not one value");
    out.push_back(lists[static_cast<std::size_t>(r)][0]);
  }
  return out;
}

// A LibSVM input (a file, or a directory's files laid end to end) and this rank's byte range of
// each file.
struct SplitInput {
  fs::path path;
  std::vector<data::InputFile> files;
  std::vector<data::ByteRange> pieces;  // {0, 0} where this rank's range misses the file
};

SplitInput split_input(const fs::path& path, int rank, int parts) {
  SplitInput in{path, data::libsvm_input_files(path), {}};
  in.pieces = data::file_pieces(in.files, data::split_range(data::total_size(in.files), rank, parts));
  return in;
}

// What this rank's pieces held: their rows in input order, and per file what its piece held.
struct RangeParse {
  data::RegressionSet rows;
  std::vector<RangeTally> tallies;
};

RangeParse parse_range(const SplitInput& input, std::size_t threads) {
  RangeParse out;
  out.tallies.resize(input.files.size());
  for (std::size_t f = 0; f < input.files.size(); ++f) {
    const fs::path& file = input.files[f].path;
    RangeTally& tally = out.tallies[f];
    if (input.pieces[f].begin >= input.pieces[f].end) continue;
    const std::uint64_t rows_before = out.rows.samples();
    const data::SplitStats stats =
        data::read_split_blocks(file, input.pieces[f], data::kRangeBlockBytes * threads, [&](std::string_view block) {
          if (tally.failed) return;
          try {
            data::append_rows(out.rows, data::parse_libsvm_text(file, block, 0, threads));
          } catch (const InputError&) {
            // Its line number is relative to the range: see the rerun. The rows before it stay,
            // as the labels before it.
            tally.failed = true;
          }
        });
    tally.bytes = stats.bytes;
    tally.lines = stats.lines;
    if (tally.failed) break;  // the later files' errors come after this one
    tally.records = out.rows.samples() - rows_before;
  }
  return out;
}

// Adds `label` to `seen` if it is new; false for a third class.
bool admit(std::vector<double>& seen, double label) {
  if (std::find(seen.begin(), seen.end(), label) != seen.end()) return true;
  if (seen.size() == 2) return false;
  seen.push_back(label);
  return true;
}

// The labels seen before this rank's piece of file `file`: the lower ranks', then this rank's
// earlier pieces'.
std::vector<double> labels_before(const RangeParse& parsed, std::vector<double> seen, std::size_t file) {
  std::uint64_t row = 0;
  for (std::size_t f = 0; f < file; ++f) row += parsed.tallies[f].records;
  for (std::uint64_t i = 0; i < row; ++i) admit(seen, parsed.rows.y[i]);
  return seen;
}

// This rank's rows of a LibSVM input read by byte ranges, their sample ids numbered over the
// whole input. The first bad line, or first label of a third class, is thrown by the rank whose
// range holds it.
data::RegressionSet settle_ranges(Context& ctx, const SplitInput& input, RangeParse parsed,
                                  const data::RegressionOptions& options, std::vector<data::SplitStats>* reads) {
  const int P = ctx.size(), rank = ctx.rank();
  const bool two_classes = options.labels == data::LabelKind::two_classes;
  // The labels seen before this range, and whether a third class first comes in it (and in
  // which of its files).
  std::vector<double> seen, seen_before_mine;
  if (two_classes) {
    std::optional<int> third;
    const auto lists = ctx.allgather_values(data::first_labels(parsed.rows.y, 3), "labels");
    for (int r = 0; r < P && !third; ++r) {
      if (r == rank) seen_before_mine = seen;
      for (const double label : lists[static_cast<std::size_t>(r)])
        if (!admit(seen, label)) {
          third = r;
          break;
        }
    }
    if (third == rank) {
      std::vector<double> mine = seen_before_mine;
      std::uint64_t row = 0;
      for (RangeTally& tally : parsed.tallies) {
        const std::uint64_t end = row + tally.records;
        for (; row < end; ++row)
          if (!admit(mine, parsed.rows.y[row])) tally.failed = true;
        if (tally.failed) break;
      }
    }
  }
  mapreduce::FileRangeRules rules;
  rules.crosses = [](std::size_t, const RangeTally&, const RangeTally&) { return false; };
  rules.rethrow = [&](std::size_t f, const RangeTally& before) {  // the one-process reader's error, at its true line
    const fs::path& file = input.files[f].path;
    data::SplitStats again;
    const std::string text = data::read_split_text(file, input.pieces[f], again);
    data::TwoClassCheck classes(input.path);
    classes.reading(file);
    for (const double label : labels_before(parsed, seen_before_mine, f)) classes.see(label, 0);
    data::parse_libsvm_text(file, text, before.lines, 1, two_classes ? &classes : nullptr);
  };
  rules.check_total = [&](std::size_t f, const RangeTally& total) {
    if (total.records == 0) data::no_samples_error(input.files[f].path);
  };
  const auto starts = mapreduce::settle_file_ranges(ctx, parsed.tallies, rules);
  if (reads) {
    reads->assign(static_cast<std::size_t>(P), {});
    for (const auto& file : starts)
      for (int r = 0; r < P; ++r)
        (*reads)[static_cast<std::size_t>(r)] += {file.ranges[static_cast<std::size_t>(r)].bytes,
                                                  file.ranges[static_cast<std::size_t>(r)].lines};
  }
  if (two_classes) {  // fewer than two classes in the whole input: every rank knows it
    data::TwoClassCheck classes(input.path);
    for (const double label : seen) classes.see(label, 0);
    classes.classes();
  }

  // Sample ids moved on by the samples of the ranges before (file order).
  const auto counts = one_each<std::uint64_t>(ctx, parsed.rows.samples(), "row counts");
  std::uint64_t before = 0;
  for (int r = 0; r < rank; ++r) before += counts[static_cast<std::size_t>(r)];
  for (std::uint64_t& id : parsed.rows.sample_ids) id += before;
  return std::move(parsed.rows);
}

// The labels and columns of rows spread over the ranks, prepared as prepare_rows prepares the
// whole set, with only O(features) crossing: the two classes from every rank's first labels
// (two_classes), the columns no rank uses dropped. The job is checked against the rows of every
// rank (validate_samples): every rank throws the same error. Rank 0 keeps the preparation.
void prepare_across(Context& ctx, data::RegressionSet& mine, const LassoConfig& config, RowsInput& in) {
  std::optional<data::TwoClasses> classes;
  if (config.loss == Loss::logistic) {
    std::vector<double> firsts;  // (sample, label) pairs
    for (const data::FirstLabel& f : data::first_label_samples(mine.y, mine.sample_ids))
      firsts.insert(firsts.end(), {static_cast<double>(f.sample), f.label});
    std::vector<data::FirstLabel> all;
    const auto lists = ctx.allgather_values(firsts, "first labels");
    for (int r = 0; r < ctx.size(); ++r) {
      const auto& list = lists[static_cast<std::size_t>(r)];
      if (list.size() % 2 != 0 || list.size() > 6) ctx.bad_message(r, "first labels", "not up to three (sample, label) pairs");
      for (std::size_t k = 0; k < list.size(); k += 2) {
        if (!(list[k] >= 0 && list[k] < 0x1p63) || !std::isfinite(list[k + 1]))
          ctx.bad_message(r, "first labels", "a sample number or a label that is not one");
        all.push_back({static_cast<std::uint64_t>(list[k]), list[k + 1]});
      }
    }
    classes = data::two_classes(all);
    for (double& y : mine.y) y = y == classes->one ? 1.0 : 0.0;
  }
  std::uint32_t features = 0;
  for (const std::uint32_t f : one_each<std::uint32_t>(ctx, mine.features, "feature counts"))
    features = std::max(features, f);
  std::vector<std::uint64_t> used(features, 0);
  for (const std::uint32_t j : mine.cols) used[j] = 1;
  ctx.sum_each(used);
  data::IdTable columns;
  for (std::uint32_t j = 0; j < features; ++j)
    if (used[j]) columns.original.push_back(j);
  data::renumber_features(mine, columns);
  // The labels are 0/1 and both classes are there (two_classes): only the count is left to check.
  validate_samples(ctx.sum(mine.samples()), config);
  if (ctx.rank() == 0) in.prepared = PreparedRows{classes, std::move(columns)};
}

// Rows spread over the ranks dealt as data::shard_rows deals the whole set: rank 0 deals their
// non-zero counts (8 bytes a row, never a row), and each rank sends each of its rows to the rank
// whose shard holds it. A rank receives only rows of its own shard; they come in input order.
data::RegressionSet deal_across(Context& ctx, data::RegressionSet mine, std::uint64_t& received) {
  const int P = ctx.size(), rank = ctx.rank();
  std::vector<std::uint64_t> nnz(mine.samples());
  for (std::uint64_t i = 0; i < mine.samples(); ++i) nnz[i] = mine.row_begin[i + 1] - mine.row_begin[i];
  const auto arrived = ctx.gather(mapreduce::encode_values<std::uint64_t>(nnz), 0, "row sizes");
  // Rank 0 tells each rank the shard of each of its rows (u32 each).
  std::vector<Buffer> owners(static_cast<std::size_t>(P));
  std::vector<std::uint32_t> mine_owners;
  if (rank == 0) {
    std::vector<std::vector<std::uint64_t>> sizes(static_cast<std::size_t>(P));
    std::vector<std::uint64_t> all;
    for (int r = 0; r < P; ++r) {
      ctx.decode_from(r, arrived[static_cast<std::size_t>(r)], sizes[static_cast<std::size_t>(r)], "row sizes");
      all.insert(all.end(), sizes[static_cast<std::size_t>(r)].begin(), sizes[static_cast<std::size_t>(r)].end());
    }
    std::vector<std::uint32_t> owner(all.size());
    const auto dealt = data::deal_rows_by_nnz(all, static_cast<std::uint32_t>(P));
    for (std::size_t s = 0; s < dealt.size(); ++s)
      for (const std::uint32_t i : dealt[s]) owner[i] = static_cast<std::uint32_t>(s);
    std::size_t at = 0;
    for (int r = 0; r < P; ++r) {
      const std::size_t n = sizes[static_cast<std::size_t>(r)].size();
      std::vector<std::uint32_t> slice(owner.begin() + static_cast<std::ptrdiff_t>(at),
                                       owner.begin() + static_cast<std::ptrdiff_t>(at + n));
      at += n;
      if (r == 0) mine_owners = std::move(slice);
      else owners[static_cast<std::size_t>(r)] = mapreduce::encode_values<std::uint32_t>(slice);
    }
  }
  const auto told = ctx.exchange(std::move(owners), "the rows' shards");
  if (rank != 0) {
    ctx.decode_from(0, told[0], mine_owners, "the rows' shards");
    if (mine_owners.size() != mine.samples())
      ctx.bad_message(0, "the rows' shards", "a shard for " + std::to_string(mine_owners.size()) + " rows of " +
                                                 std::to_string(mine.samples()));
  }
  std::vector<std::vector<std::uint32_t>> to(static_cast<std::size_t>(P));
  for (std::uint32_t i = 0; i < mine_owners.size(); ++i) {
    if (mine_owners[i] >= static_cast<std::uint32_t>(P)) ctx.bad_message(0, "the rows' shards", "a shard past the last");
    to[mine_owners[i]].push_back(i);
  }
  std::vector<Buffer> outgoing(static_cast<std::size_t>(P));
  for (int r = 0; r < P; ++r)
    if (r != rank) outgoing[static_cast<std::size_t>(r)] = encode_rows(mine, &to[static_cast<std::size_t>(r)]);
  data::RegressionSet kept = data::select_rows(mine, to[static_cast<std::size_t>(rank)]);
  const std::uint32_t features = mine.features;
  mine = {};  // sent as bytes: not held twice while the shard comes in
  auto incoming = ctx.exchange(std::move(outgoing), "shards of rows");
  data::RegressionSet shard;
  shard.features = features;
  shard.feature_names = std::move(kept.feature_names);
  for (int r = 0; r < P; ++r) {
    if (r == rank) {
      for (std::uint64_t i = 0; i < kept.samples(); ++i)
        shard.add_row(kept.sample_ids[i], kept.y[i], kept.row_cols(i), kept.row_values(i));
      kept = {};
    } else {
      const std::uint64_t before = shard.samples();
      decode_rows_into(ctx, r, incoming[static_cast<std::size_t>(r)], shard, 0, "shards of rows");
      received += shard.samples() - before;
      incoming[static_cast<std::size_t>(r)] = Buffer();
    }
  }
  return shard;
}

// Any other input: rank 0 reads it whole, prepares and checks it, and sends each rank its shard
// as data::shard_rows deals it.
data::RegressionSet deal_from_rank_0(Context& ctx, const fs::path& path, const data::RegressionOptions& options,
                                     const LassoConfig& config, RowsInput& in) {
  const int P = ctx.size();
  std::vector<Buffer> outgoing(static_cast<std::size_t>(P));
  data::RegressionSet shard;
  if (ctx.rank() == 0) {
    data::RegressionSet whole = data::load_regression(path, options);  // the others wait for it below
    in.prepared = prepare_rows(whole, config.loss);
    validate(whole, config);
    const auto dealt = data::deal_rows(whole, static_cast<std::uint32_t>(P));
    for (int r = 1; r < P; ++r)
      outgoing[static_cast<std::size_t>(r)] = encode_rows(whole, &dealt[static_cast<std::size_t>(r)]);
    shard = data::select_rows(whole, dealt[0]);
  }
  auto incoming = ctx.exchange(std::move(outgoing), "shards of rows");
  if (ctx.rank() != 0) decode_rows_into(ctx, 0, incoming[0], shard, 0, "shards of rows");
  if (ctx.rank() != 0) in.rows_received = shard.samples();
  return shard;
}

// A shard's column sums: u64 samples, f64 Σy, u32 features, then per column its non-zero count
// (u64), then its sum, centred sum, square, low and high (f64 each), column after column.
Buffer encode_sums(const ShardColumnSums& s) {
  const std::uint32_t m = s.features();
  wire::Writer out(8 + 8 + 4 + std::size_t{m} * (8 + 5 * 8));
  out.put(s.samples);
  out.put(s.y_sum);
  out.put(m);
  out.put_array(std::span<const std::uint64_t>(s.count));
  for (const auto* v : {&s.sum, &s.centred, &s.square, &s.low, &s.high}) out.put_array(std::span<const double>(*v));
  return out.finish();
}

ShardColumnSums decode_sums(const Context& ctx, int from, const Buffer& body, std::uint32_t features) {
  ShardColumnSums s;
  try {
    wire::Reader in(body.bytes());
    s.samples = in.get<std::uint64_t>("the sample count");
    s.y_sum = in.get<double>("the responses' sum");
    if (in.get<std::uint32_t>("the feature count") != features) in.fail("sums of another feature count");
    s.count = in.get_array<std::uint64_t>(features, "non-zero counts");
    for (auto* v : {&s.sum, &s.centred, &s.square, &s.low, &s.high}) *v = in.get_array<double>(features, "column sums");
    in.finish();
  } catch (const wire::DecodeError& e) {
    ctx.bad_message(from, "column sums", e.what());
  }
  return s;
}

// Every shard's column sums to rank 0, which joins them in rank order into the scheduler's
// statistics (fold_column_stats: the bits of one process whose workers hold these shards), and
// its response offset to every worker.
void settle_statistics(Context& ctx, const LassoConfig& config, RowsInput& in) {
  const data::RegressionSet& mine = in.shard;
  const std::uint32_t features = mine.features;
  in.nnz = ctx.sum(mine.nnz());
  const auto held = ctx.allgather_values(std::vector<std::uint64_t>{mine.samples(), in.rows_received}, "shard sizes");
  for (int r = 0; r < ctx.size(); ++r) {
    const auto& h = held[static_cast<std::size_t>(r)];
    if (h.size() != 2) ctx.bad_message(r, "shard sizes", "not a row count and a received count");
    in.holdings.push_back({h[0], h[1]});
  }
  const auto arrived = ctx.gather(encode_sums(shard_column_sums(mine)), 0, "column sums");
  Buffer offset;
  if (ctx.rank() == 0) {
    std::vector<ShardColumnSums> sums;
    for (int r = 0; r < ctx.size(); ++r) sums.push_back(decode_sums(ctx, r, arrived[static_cast<std::size_t>(r)], features));
    in.stats = fold_column_stats(sums, config.intercept, config.standardize);
    offset = wire::Writer(16).put(in.stats.y_offset).put(in.stats.samples).finish();
  }
  offset = ctx.broadcast(std::move(offset), 0, "the response offset");
  try {
    wire::Reader r(offset.bytes());
    in.y_offset = r.get<double>("the response offset");
    in.samples = r.get<std::uint64_t>("the sample count");
    r.finish();
  } catch (const wire::DecodeError& e) {
    ctx.bad_message(0, "the response offset", e.what());
  }
}

}  // namespace

PreparedRows prepare_rows(data::RegressionSet& set, Loss loss) {
  PreparedRows out;
  if (loss == Loss::logistic) {
    data::BinaryLabels labels = data::binary_labels(set.y);
    set.y = std::move(labels.y);
    out.classes = labels.classes;
  }
  data::RegressionSet* sets[] = {&set};
  out.columns = data::compact_features(sets);
  return out;
}

RowsInput load_rows_across(const fs::path& path, const data::RegressionOptions& options, const LassoConfig& config,
                           const runtime::ProcessesBackend& backend, std::vector<data::SplitStats>* reads) {
  const int P = backend.launch.size, rank = backend.launch.rank;
  const data::RegressionSource source = data::regression_source(path, options);
  const bool by_ranges = source.kind == data::RegressionSource::Kind::libsvm;
  // A row partition of one part per process: rank r reads part r (data::shard_rows dealt it).
  const bool own_parts = source.kind == data::RegressionSource::Kind::partition && P > 1 &&
                         data::read_manifest(source.path, "rows").shards.size() == static_cast<std::size_t>(P);
  SplitInput split;
  RangeParse parsed;
  RowsInput in;
  if (by_ranges) {
    split = split_input(source.path, rank, P);
    parsed = parse_range(split, std::max<std::size_t>(options.threads, 1));
  }

  mapreduce::run_loading(backend, [&](Context& ctx) {
    if (by_ranges || own_parts) {
      // Read inside the job, so that a bad part stops the others at once.
      data::RegressionSet mine = by_ranges ? settle_ranges(ctx, split, std::move(parsed), options, reads)
                                           : data::read_row_shard(source.path, static_cast<std::uint32_t>(rank));
      prepare_across(ctx, mine, config, in);
      // A partition's parts are data::shard_rows's shards already.
      in.shard = own_parts ? std::move(mine) : deal_across(ctx, std::move(mine), in.rows_received);
    } else {
      in.shard = deal_from_rank_0(ctx, path, options, config, in);
    }
    settle_statistics(ctx, config, in);
  });
  return in;
}

}  // namespace gyre::lasso
