// gyre/data/regression.cpp — LibSVM, MatrixMarket(+response) and CSV readers for regression data, format detection, LibSVM writer.
#include "gyre/data/regression.hpp"

#include <algorithm>
#include <charconv>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string_view>
#include <system_error>
#include <utility>

#include "gyre/base/input_error.hpp"
#include "gyre/base/output_file.hpp"
#include "gyre/data/binary_labels.hpp"
#include "gyre/data/byte_ranges.hpp"
#include "gyre/data/line_scan.hpp"
#include "gyre/data/manifest.hpp"
#include "gyre/data/parallel_lines.hpp"
#include "gyre/data/ratings.hpp"
#include "gyre/data/regression_partition.hpp"
#include "gyre/data/text_input.hpp"

namespace gyre::data {
namespace {

namespace fs = std::filesystem;

// Feature ids index dense per-feature arrays (β, column norms), bounded as ratings ids are.
constexpr std::uint64_t kMaxFeatures = kMaxId + 1;

std::string_view strip_comment(std::string_view line) {
  if (const auto hash = line.find('#'); hash != std::string_view::npos) line = line.substr(0, hash);
  return line;
}

[[noreturn]] void empty_set_error(const fs::path& file) { throw InputError(file, 0, "at least one sample", "no samples"); }

// The response file beside a MatrixMarket matrix: one number per line, one line per matrix row.
std::vector<double> read_response(const fs::path& file, const fs::path& matrix, std::uint64_t rows) {
  const std::string text = slurp(file);
  LineCursor lines(text);
  std::string_view line;
  std::vector<double> y;
  y.reserve(rows);
  const std::string per_row = std::to_string(rows) + " values, one per row of " + matrix.string();
  while (lines.next(line)) {
    line = trim_blanks(strip_comment(line));
    if (line.empty()) continue;
    if (y.size() == rows) throw InputError(file, lines.number(), per_row + ", no more", std::string(line));
    double v = 0;
    if (!parse_finite(line, v))
      throw InputError(file, lines.number(), "a finite number as the response (one per line)", std::string(line));
    y.push_back(v);
  }
  if (y.empty()) throw InputError(file, 0, per_row, "an empty response");
  if (y.size() != rows) throw InputError(file, 0, per_row, std::to_string(y.size()) + " values");
  return y;
}

struct Entry {
  std::uint32_t row, col;
  double value;
  std::size_t line;
};

// Entries of a MatrixMarket coordinate file, checked against its size line, in input order.
std::vector<Entry> read_matrix_market_entries(const fs::path& file, MatrixMarketSize& size) {
  const std::string text = slurp(file);
  LineCursor lines(text);
  std::string_view line, f[4];
  if (!lines.next(line))
    throw InputError(file, 0, "a MatrixMarket matrix (\"%%MatrixMarket matrix coordinate ...\")", "an empty file");
  if (!is_matrix_market_banner(line))
    throw InputError(file, 1, "\"%%MatrixMarket matrix coordinate real|integer general\"", std::string(line));
  const auto found = read_matrix_market_size(file, line, lines, kMaxFeatures);
  if (!found) throw InputError(file, 0, "a MatrixMarket size line \"rows columns entries\"", "none");
  size = *found;
  std::vector<Entry> entries;
  entries.reserve(size.entries);
  while (lines.next(line)) {
    const std::size_t at = lines.number();
    if (!line.empty() && line.front() == '%') continue;
    const std::size_t count = split_fields(line, f, 3);
    if (count == 0) continue;
    if (count != 3) throw InputError(file, at, "3 fields \"row column value\"", std::string(line));
    if (entries.size() == size.entries)
      throw InputError(file, at,
                       std::to_string(size.entries) + " entries as declared on line " + std::to_string(size.line) +
                           ", no more",
                       std::string(line));
    const auto row = parse_bounded(file, at, f[0], "row (1-based)", 1, size.rows);
    const auto col = parse_bounded(file, at, f[1], "column (1-based)", 1, size.cols);
    double value = 0;
    if (!parse_finite(f[2], value)) throw InputError(file, at, "a finite number as the value", std::string(f[2]));
    entries.push_back({static_cast<std::uint32_t>(row - 1), static_cast<std::uint32_t>(col - 1), value, at});
  }
  if (entries.size() != size.entries)
    throw InputError(file, size.line, std::to_string(size.entries) + " entries as declared on this size line",
                     std::to_string(entries.size()) + " entries");
  if (size.rows == 0) empty_set_error(file);
  if (size.rows > std::numeric_limits<std::uint32_t>::max())
    throw InputError(file, size.line, "at most 2^32 - 1 rows", std::to_string(size.rows));
  // By row then column; a stable sort keeps a repeated entry after its first occurrence.
  std::stable_sort(entries.begin(), entries.end(),
                   [](const Entry& a, const Entry& b) { return a.row != b.row ? a.row < b.row : a.col < b.col; });
  for (std::size_t k = 1; k < entries.size(); ++k)
    if (entries[k].row == entries[k - 1].row && entries[k].col == entries[k - 1].col)
      throw InputError(file, entries[k].line,
                       "each entry once (row " + std::to_string(entries[k].row + 1) + ", column " +
                           std::to_string(entries[k].col + 1) + " is also on line " +
                           std::to_string(entries[k - 1].line) + ")",
                       "a repeated entry");
  return entries;
}

// X from sorted entries; `skip` (a 0-based column, or none) is left out and later columns shift down.
RegressionSet rows_from_entries(const std::vector<Entry>& entries, std::uint64_t rows, std::uint64_t cols,
                                std::uint64_t skip = UINT64_MAX) {
  RegressionSet set;
  set.features = static_cast<std::uint32_t>(skip < cols ? cols - 1 : cols);
  set.y.assign(rows, 0.0);
  set.sample_ids.resize(rows);
  set.row_begin.assign(rows + 1, 0);
  set.cols.reserve(entries.size());
  set.values.reserve(entries.size());
  for (std::uint64_t i = 0; i < rows; ++i) set.sample_ids[i] = i;
  for (const Entry& e : entries) {
    if (e.col == skip) {
      set.y[e.row] = e.value;
      continue;
    }
    if (e.value == 0) continue;
    set.cols.push_back(e.col > skip ? e.col - 1 : e.col);
    set.values.push_back(e.value);
    ++set.row_begin[e.row + 1];
  }
  for (std::uint64_t i = 0; i < rows; ++i) set.row_begin[i + 1] += set.row_begin[i];
  return set;
}

// CSV fields split on every comma (no quoting), blanks and one pair of double quotes around a
// field stripped.
void split_csv(std::string_view line, std::vector<std::string_view>& fields) {
  fields.clear();
  for (;;) {
    const std::size_t comma = line.find(',');
    std::string_view field = trim_blanks(line.substr(0, comma));
    if (field.size() >= 2 && field.front() == '"' && field.back() == '"') field = field.substr(1, field.size() - 2);
    fields.push_back(field);
    if (comma == std::string_view::npos) return;
    line.remove_prefix(comma + 1);
  }
}

template <typename T>
void append_number(std::string& buffer, T value) {
  char field[32];
  const auto [end, ec] = std::to_chars(field, field + sizeof field, value);  // shortest round-trip form
  buffer.append(field, end);
}

}  // namespace

void RegressionSet::add_row(std::uint64_t sample_id, double response, std::span<const std::uint32_t> row_cols,
                            std::span<const double> row_values) {
  cols.insert(cols.end(), row_cols.begin(), row_cols.end());
  values.insert(values.end(), row_values.begin(), row_values.end());
  row_begin.push_back(cols.size());
  y.push_back(response);
  sample_ids.push_back(sample_id);
}

namespace {

// A feature token "index:value" of a line whose last index was `previous`: its index, and its
// value in `value`; InputError at file:at for any other token.
std::uint64_t parse_feature(const fs::path& file, std::size_t at, std::string_view token, std::uint64_t previous,
                            double& value) {
  const std::size_t colon = token.find(':');
  if (colon == std::string_view::npos)
    throw InputError(file, at, "a feature \"index:value\"", std::string(token));
  const std::string_view index_text = token.substr(0, colon), value_text = token.substr(colon + 1);
  std::uint64_t index = 0;
  if (parse_decimal(index_text, index) && index == 0)
    throw InputError(file, at, "a 1-based feature index (LibSVM indices start at 1, 0 is not one)",
                     std::string(token));
  index = parse_bounded(file, at, index_text, "feature index (1-based)", 1, kMaxFeatures);
  if (index <= previous)
    throw InputError(file, at,
                     "feature indices increasing within a line (after " + std::to_string(previous) + ")",
                     std::string(token));
  if (!parse_finite(value_text, value))
    throw InputError(file, at, "a finite number as the value of feature " + std::to_string(index),
                     std::string(token));
  return index;
}

// LibSVM's line loop: the rows of `lines` appended to `set`, sample ids counted from
// set.samples() and set.features the largest index seen; `classes`, when given, sees every label.
void parse_libsvm_lines(const fs::path& file, LineCursor& lines, RegressionSet& set, TwoClassCheck* classes) {
  std::uint64_t max_index = set.features;
  std::string_view line;
  while (lines.next(line)) {
    const std::size_t at = lines.number();
    line = strip_comment(line);
    std::size_t i = 0;
    bool have_label = false;
    std::uint64_t previous = 0;
    double label = 0;
    while (i < line.size()) {
      while (i < line.size() && is_blank(line[i])) ++i;
      if (i == line.size()) break;
      const std::size_t start = i;
      while (i < line.size() && !is_blank(line[i])) ++i;
      const std::string_view token = line.substr(start, i - start);
      if (!have_label) {
        // Classification files write the positive class as "+1" (LibSVM's own heart_scale does).
        const bool plus = token.size() > 1 && token[0] == '+' && token[1] != '-' && token[1] != '+';
        const char* p = token.data();
        const bool scanned = scan_double(p, token.data() + token.size(), label) && p == token.data() + token.size();
        if (!scanned && !parse_finite(plus ? token.substr(1) : token, label))
          throw InputError(file, at, "a finite number as the label (\"label index:value ...\")", std::string(token));
        if (classes) classes->see(label, at);
        have_label = true;
        continue;
      }
      std::uint64_t index = 0;
      double value = 0;
      if (const char *p = token.data(), *end = p + token.size();
          scan_digits(p, end, index) && index > previous && index <= kMaxFeatures && p < end && *p == ':' &&
          scan_double(++p, end, value) && p == end) {
        // The usual "index:value", taken in one pass (line_scan.hpp); anything else goes the long way.
      } else {
        if (token.starts_with("qid:")) continue;  // ranking groups mean nothing to a regression
        index = parse_feature(file, at, token, previous, value);
      }
      previous = index;
      max_index = std::max(max_index, index);
      if (value == 0) continue;
      set.cols.push_back(static_cast<std::uint32_t>(index - 1));
      set.values.push_back(value);
    }
    if (!have_label) continue;  // blank or comment-only line
    set.row_begin.push_back(set.cols.size());
    set.sample_ids.push_back(set.y.size());
    set.y.push_back(label);
  }
  set.features = static_cast<std::uint32_t>(max_index);
}

}  // namespace

void append_libsvm_text(RegressionSet& into, const fs::path& file, std::string_view text, std::size_t lines_before,
                        std::size_t threads, TwoClassCheck* classes) {
  if (classes || threads <= 1) {
    LineCursor lines(text, lines_before);
    parse_libsvm_lines(file, lines, into, classes);
    return;
  }
  // One pair per ':' at most: a cheap upper bound to reserve.
  const auto reserving = [&](LineCursor& lines, std::size_t, RegressionSet& out) {
    const std::string_view rest = lines.rest();
    const auto pairs = static_cast<std::size_t>(std::count(rest.begin(), rest.end(), ':'));
    out.cols.reserve(pairs);
    out.values.reserve(pairs);
    parse_libsvm_lines(file, lines, out, nullptr);
  };
  // The chunks' rows go straight onto `into`, each chunk freed as it goes, so that resident
  // memory stays near one copy.
  const auto append_chunks = [&](std::vector<RegressionSet>& chunks, std::size_t) {
    for (RegressionSet& c : chunks) {
      append_rows(into, c);
      c = {};
    }
    return RegressionSet{};
  };
  parse_chunks<RegressionSet>(text, lines_before, threads, SIZE_MAX, reserving,
                              [](const RegressionSet& s) { return s.samples(); }, append_chunks);
}

RegressionSet parse_libsvm_text(const fs::path& file, std::string_view text, std::size_t lines_before,
                                std::size_t threads, TwoClassCheck* classes) {
  RegressionSet set;
  append_libsvm_text(set, file, text, lines_before, threads, classes);
  return set;
}

void no_samples_error(const fs::path& file) { empty_set_error(file); }

void append_rows(RegressionSet& into, const RegressionSet& piece) {
  const std::uint64_t rows_before = into.y.size(), nnz_before = into.cols.size();
  into.cols.insert(into.cols.end(), piece.cols.begin(), piece.cols.end());
  into.values.insert(into.values.end(), piece.values.begin(), piece.values.end());
  for (std::size_t r = 1; r < piece.row_begin.size(); ++r) into.row_begin.push_back(nnz_before + piece.row_begin[r]);
  for (const std::uint64_t id : piece.sample_ids) into.sample_ids.push_back(rows_before + id);
  into.y.insert(into.y.end(), piece.y.begin(), piece.y.end());
  into.features = std::max(into.features, piece.features);
}

std::vector<InputFile> libsvm_input_files(const fs::path& input) {
  std::vector<InputFile> files = nonempty_input_files(input, "LibSVM files");
  std::error_code ec;
  if (fs::is_directory(input, ec))
    for (const InputFile& f : files) {
      // Read as LibSVM, these would fail at their first line with a LibSVM complaint.
      const std::string ext = lower(f.path.extension().string());
      if (ext == ".csv" || ext == ".mtx")
        throw InputError(f.path, 0, "a LibSVM file (a directory without a manifest is read as LibSVM files)",
                         ext == ".csv" ? "a CSV file" : "a MatrixMarket file");
    }
  return files;
}

namespace {

// One LibSVM file's rows appended to `into`, the file read in blocks through one buffer rather
// than mapped (its pages would count against the process) and parsed on T threads.
void append_libsvm_file(RegressionSet& into, const fs::path& file, std::size_t threads, TwoClassCheck* classes = nullptr) {
  const std::uint64_t samples_before = into.samples();
  if (const auto whole = read_if_stream(file)) {  // a pipe: read once
    append_libsvm_text(into, file, *whole, 0, threads, classes);
    if (into.samples() == samples_before) empty_set_error(file);
    return;
  }
  std::error_code ec;
  const auto size = static_cast<double>(fs::file_size(file, ec));  // for the reservation only
  std::uint64_t lines = 0;
  bool first = true;
  read_split_blocks(file, {0, kToTheEnd}, kRangeBlockBytes * threads, [&](std::string_view block) {
    const std::uint64_t rows = into.samples(), nnz = into.nnz();
    append_libsvm_text(into, file, block, lines, threads, classes);
    lines += static_cast<std::uint64_t>(std::count(block.begin(), block.end(), '\n'));
    if (std::exchange(first, false) && !ec) {
      // The file's rows at its first block's density: one allocation each, not a doubling series.
      const double scale = size / static_cast<double>(block.size()) * 1.01;
      const auto more = [&](std::uint64_t n) { return static_cast<std::size_t>(static_cast<double>(n) * scale) + 1; };
      const std::size_t more_rows = more(into.samples() - rows), more_nnz = more(into.nnz() - nnz);
      into.y.reserve(rows + more_rows);
      into.sample_ids.reserve(rows + more_rows);
      into.row_begin.reserve(rows + more_rows + 1);
      into.cols.reserve(nnz + more_nnz);
      into.values.reserve(nnz + more_nnz);
    }
  });
  if (into.samples() == samples_before) empty_set_error(file);
}

}  // namespace

RegressionSet read_libsvm(const fs::path& input, LabelKind labels, std::size_t threads) {
  std::error_code ec;
  // A missing file is the block reader's error, as for any reader of one file.
  const std::vector<InputFile> files =
      fs::is_directory(input, ec) ? libsvm_input_files(input) : std::vector<InputFile>{{input, 0}};
  // Which line brings a third class is a serial question, asked again (with every other check,
  // so that the input's first error wins) only when the answer is an error.
  const auto serial_class_check = [&] {
    TwoClassCheck classes(input);
    RegressionSet ignored;
    for (const InputFile& f : files) {
      classes.reading(f.path);
      append_libsvm_file(ignored, f.path, 1, &classes);
      ignored = {};
    }
    classes.classes();
  };
  RegressionSet set;
  try {
    for (const InputFile& f : files) append_libsvm_file(set, f.path, threads);
  } catch (const InputError&) {
    if (labels == LabelKind::two_classes) serial_class_check();
    throw;
  }
  if (labels == LabelKind::two_classes) {
    if (first_labels(set.y, 3).size() != 2) {
      serial_class_check();
      throw std::logic_error("read_libsvm: a class check failed once but not when run again");
    }
  }
  return set;
}

RegressionSet read_matrix_market_regression(const fs::path& matrix, const fs::path& response) {
  MatrixMarketSize size;
  const std::vector<Entry> entries = read_matrix_market_entries(matrix, size);
  std::vector<double> y = read_response(response, matrix, size.rows);
  RegressionSet set = rows_from_entries(entries, size.rows, size.cols);
  set.y = std::move(y);
  return set;
}

RegressionSet read_matrix_market_regression(const fs::path& matrix, std::uint32_t response_column) {
  MatrixMarketSize size;
  const std::vector<Entry> entries = read_matrix_market_entries(matrix, size);
  if (response_column < 1 || response_column > size.cols)
    throw InputError(matrix, size.line,
                     "a response column in [1, " + std::to_string(size.cols) + "] (the matrix's columns)",
                     std::to_string(response_column));
  return rows_from_entries(entries, size.rows, size.cols, response_column - 1);
}

RegressionSet read_csv_regression(const fs::path& file, const std::string& response_column) {
  const std::string text = slurp(file);
  LineCursor lines(text);
  std::string_view line;
  std::vector<std::string_view> fields;
  std::size_t header_line = 0;
  while (lines.next(line))
    if (!trim_blanks(line).empty()) {
      header_line = lines.number();
      break;
    }
  if (header_line == 0) throw InputError(file, 0, "a CSV header row of column names", "an empty file");
  split_csv(line, fields);
  const std::vector<std::string> names(fields.begin(), fields.end());
  for (std::size_t c = 0; c < names.size(); ++c)
    if (names[c].empty())
      throw InputError(file, header_line, "a name for every column in the header", "column " + std::to_string(c + 1) + " unnamed");
  if (names.size() < 2)
    throw InputError(file, header_line, "a header with the response and at least one feature column",
                     std::string(line));
  if (names.size() - 1 > kMaxFeatures)
    throw InputError(file, header_line, "at most " + std::to_string(kMaxFeatures) + " feature columns",
                     std::to_string(names.size() - 1));

  std::size_t response = names.size() - 1;
  if (!response_column.empty()) {
    const auto named = std::find(names.begin(), names.end(), response_column);
    std::uint64_t number = 0;
    if (named != names.end())
      response = static_cast<std::size_t>(named - names.begin());
    else if (parse_decimal(response_column, number) && number >= 1 && number <= names.size())
      response = static_cast<std::size_t>(number - 1);
    else
      throw InputError(file, header_line,
                       "a column named \"" + response_column + "\" or a column number in [1, " +
                           std::to_string(names.size()) + "] for the response",
                       std::string(line));
  }

  RegressionSet set;
  set.features = static_cast<std::uint32_t>(names.size() - 1);
  for (std::size_t c = 0; c < names.size(); ++c)
    if (c != response) set.feature_names.push_back(names[c]);
  const std::string shape = std::to_string(names.size()) + " fields as in the header (line " +
                            std::to_string(header_line) + ")";
  while (lines.next(line)) {
    const std::size_t at = lines.number();
    if (trim_blanks(line).empty()) continue;
    split_csv(line, fields);
    if (fields.size() != names.size())
      throw InputError(file, at, shape, std::to_string(fields.size()) + " fields");
    double y = 0;
    for (std::size_t c = 0; c < fields.size(); ++c) {
      double v = 0;
      if (!parse_finite(fields[c], v))
        throw InputError(file, at, "a finite number in column \"" + names[c] + "\"", std::string(fields[c]));
      if (c == response) {
        y = v;
      } else if (v != 0) {
        set.cols.push_back(static_cast<std::uint32_t>(c < response ? c : c - 1));
        set.values.push_back(v);
      }
    }
    set.row_begin.push_back(set.cols.size());
    set.sample_ids.push_back(set.y.size());
    set.y.push_back(y);
  }
  if (set.y.empty()) empty_set_error(file);
  return set;
}

RegressionSource regression_source(const fs::path& path, const RegressionOptions& options) {
  using Kind = RegressionSource::Kind;
  std::error_code ec;
  const bool is_dir = fs::is_directory(path, ec);
  const std::string ext = lower(path.extension().string());
  RegressionFormat format = options.format;
  if (format == RegressionFormat::automatic && !is_dir)
    format = ext == ".csv" ? RegressionFormat::csv
             : ext == ".mtx" ? RegressionFormat::matrix_market
                             : RegressionFormat::libsvm;
  if (format == RegressionFormat::libsvm && (!options.response.empty() || !options.response_column.empty()))
    throw std::invalid_argument("a response file or column applies to MatrixMarket and CSV input, not to LibSVM");
  if (format == RegressionFormat::csv && !options.response.empty())
    throw std::invalid_argument("a response file applies to MatrixMarket input, not to CSV (use a response column)");
  if (format == RegressionFormat::matrix_market && !options.response.empty() && !options.response_column.empty())
    throw std::invalid_argument("give either a response file or a response column, not both");

  if (is_dir) {
    const bool partition = is_partition_directory(path);
    if (format == RegressionFormat::automatic && partition) return {Kind::partition, path};
    if (format != RegressionFormat::automatic && format != RegressionFormat::libsvm)
      throw InputError(path, 0, "a file", "a directory");
    // What gyre-gen regression writes: DIR/data.libsvm (+ beta.tsv).
    if (fs::exists(path / "data.libsvm", ec)) return {Kind::libsvm, path / "data.libsvm"};
    if (partition) throw InputError(path, 0, "LibSVM files", "a row partition (read it without --format)");
    return {Kind::libsvm, path};  // LibSVM files, read as one (read_libsvm)
  }
  switch (format) {
    case RegressionFormat::csv: return {Kind::csv, path};
    case RegressionFormat::matrix_market: return {Kind::matrix_market, path};
    default: return {Kind::libsvm, path};
  }
}

RegressionSet load_regression(const fs::path& path, const RegressionOptions& options) {
  const RegressionSource source = regression_source(path, options);
  switch (source.kind) {
    case RegressionSource::Kind::partition:
      return merge_row_shards(read_row_partition(source.path));
    case RegressionSource::Kind::csv:
      return read_csv_regression(source.path, options.response_column);
    case RegressionSource::Kind::matrix_market: {
      if (!options.response_column.empty()) {
        std::uint64_t column = 0;
        if (!parse_decimal(options.response_column, column, UINT32_MAX) || column == 0)
          throw std::invalid_argument("a MatrixMarket response column is a 1-based column number, not \"" +
                                      options.response_column + "\"");
        return read_matrix_market_regression(source.path, static_cast<std::uint32_t>(column));
      }
      fs::path response = options.response;
      if (response.empty()) response = source.path.parent_path() / (source.path.stem().string() + ".response");
      return read_matrix_market_regression(source.path, response);
    }
    case RegressionSource::Kind::libsvm:
      break;
  }
  return read_libsvm(source.path, options.labels, options.threads);
}

void write_libsvm(const fs::path& file, const RegressionSet& set) {
  OutputFile out(file);
  // Formatting into one large buffer keeps millions of lines to a few hundred write calls.
  constexpr std::size_t kFlushAt = std::size_t{1} << 20;
  std::string buffer;
  buffer.reserve(kFlushAt + 64);
  for (std::uint64_t i = 0; i < set.samples(); ++i) {
    append_number(buffer, set.y[i]);
    for (std::uint64_t k = set.row_begin[i]; k < set.row_begin[i + 1]; ++k) {
      buffer.push_back(' ');
      append_number(buffer, std::uint64_t{set.cols[k]} + 1);
      buffer.push_back(':');
      append_number(buffer, set.values[k]);
      if (buffer.size() >= kFlushAt) {
        out.stream().write(buffer.data(), static_cast<std::streamsize>(buffer.size()));
        buffer.clear();
      }
    }
    buffer.push_back('\n');
  }
  out.stream().write(buffer.data(), static_cast<std::streamsize>(buffer.size()));
  out.commit();
}

}  // namespace gyre::data
