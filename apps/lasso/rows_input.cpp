// apps/lasso/rows_input.cpp — labels and columns prepared; across processes, byte ranges of a LibSVM file gathered on rank 0 and its shards sent out.
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
#include "gyre/mapreduce/job.hpp"
#include "gyre/mapreduce/range_parse.hpp"
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

// Rank 0's rows of a LibSVM input read by byte ranges: every range's, in input order (empty on
// the other ranks). The first bad line, or first label of a third class, is thrown by the rank
// whose range holds it.
data::RegressionSet gather_ranges(Context& ctx, const SplitInput& input, RangeParse parsed,
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

  // Every range's rows to rank 0, in rank order: file order, their sample ids moved on by the
  // samples of the ranges before.
  data::RegressionSet whole;
  if (rank != 0) {
    Buffer mine = encode_rows(parsed.rows, nullptr);
    parsed.rows = {};  // sent as bytes: not held twice while its shard comes back
    ctx.gather(std::move(mine), 0, "rows to rank 0");
    return whole;
  }
  auto arrived = ctx.gather(Buffer(), 0, "rows to rank 0");
  whole = std::move(parsed.rows);
  for (int r = 1; r < P; ++r) {
    decode_rows_into(ctx, r, arrived[static_cast<std::size_t>(r)], whole, whole.samples(), "rows to rank 0");
    arrived[static_cast<std::size_t>(r)] = Buffer();
  }
  return whole;
}

// The two classes (if any) and the columns kept: u64 column count, u8 classes flag, f64 zero,
// f64 one, then the columns (u32 each).
Buffer encode_preparation(const RowsInput& in) {
  const auto& columns = in.prepared.columns.original;
  wire::Writer out(8 + 1 + 16 + columns.size() * 4);
  out.put(std::uint64_t{columns.size()});
  out.put(static_cast<std::uint8_t>(in.prepared.classes ? 1 : 0));
  out.put(in.prepared.classes ? in.prepared.classes->zero : 0.0);
  out.put(in.prepared.classes ? in.prepared.classes->one : 0.0);
  out.put_array(std::span<const std::uint32_t>(columns));
  return out.finish();
}

void decode_preparation(const Context& ctx, const Buffer& body, RowsInput& in) {
  try {
    wire::Reader r(body.bytes());
    const std::size_t columns = r.check_count(r.get<std::uint64_t>("the column count"), 4, "columns");
    const auto has_classes = r.get<std::uint8_t>("the classes flag");
    const auto zero = r.get<double>("class 0's label"), one = r.get<double>("class 1's label");
    in.prepared.columns.original = r.get_array<std::uint32_t>(columns, "columns");
    r.finish();
    if (has_classes > 1) r.fail("a classes flag other than 0 or 1");
    if (has_classes) in.prepared.classes = data::TwoClasses{zero, one};
    if (!std::is_sorted(in.prepared.columns.original.begin(), in.prepared.columns.original.end()))
      r.fail("columns not ascending");
  } catch (const wire::DecodeError& e) {
    ctx.bad_message(0, "the rows' preparation", e.what());
  }
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
  const data::RegressionSet& mine = ctx.size() > 1 ? in.shard : in.whole;
  const std::uint32_t features = mine.features;
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
  // A row partition of one part per process: rank r > 0 reads part r (data::shard_rows dealt
  // it, as rank 0 deals the whole set) and prepares it as rank 0 says.
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
    // Read inside the job, so that a bad part stops the others at once.
    if (own_parts && rank != 0) in.shard = data::read_row_shard(source.path, static_cast<std::uint32_t>(rank));
    data::RegressionSet whole;
    if (by_ranges) {
      whole = gather_ranges(ctx, split, std::move(parsed), options, reads);
    } else if (rank == 0) {
      whole = data::load_regression(path, options);  // the others wait for it in the exchange below
    }
    // Rank 0 prepares and deals the rows, and sends each rank its shard (unless it read its
    // own part) and how the rows were prepared.
    std::vector<Buffer> outgoing(static_cast<std::size_t>(P));
    if (rank == 0) {
      in.prepared = prepare_rows(whole, config.loss);
      validate(whole, config);
      if (P > 1) {
        const auto dealt = data::deal_rows(whole, static_cast<std::uint32_t>(P));
        if (!own_parts)
          for (int r = 1; r < P; ++r)
            outgoing[static_cast<std::size_t>(r)] = encode_rows(whole, &dealt[static_cast<std::size_t>(r)]);
        in.shard = data::select_rows(whole, dealt[0]);
      }
      in.whole = std::move(whole);
    }
    const Buffer prepared = ctx.broadcast(rank == 0 ? encode_preparation(in) : Buffer(), 0, "the rows' preparation");
    if (rank != 0) decode_preparation(ctx, prepared, in);
    auto incoming = ctx.exchange(std::move(outgoing), "shards of rows");
    if (rank != 0 && !own_parts) {
      decode_rows_into(ctx, 0, incoming[0], in.shard, 0, "shards of rows");
    } else if (rank != 0) {
      if (in.prepared.classes)
        for (double& y : in.shard.y) y = y == in.prepared.classes->one ? 1.0 : 0.0;
      data::renumber_features(in.shard, in.prepared.columns);
    }
    if (rank != 0) {
      in.shard.features = static_cast<std::uint32_t>(in.prepared.columns.original.size());
      in.prepared = {};  // rank 0's to keep: it writes the output
    }
    settle_statistics(ctx, config, in);
  });
  return in;
}

}  // namespace gyre::lasso
