// gyre/data/regression.hpp — a sparse regression data set (X by rows, y) in memory, readers and writer.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gyre/data/binary_labels.hpp"
#include "gyre/data/byte_ranges.hpp"

namespace gyre::data {

// n samples × m features, X stored by row (CSR): row i is cols/values[row_begin[i] ..
// row_begin[i+1]), columns strictly increasing, no explicit zeros (readers drop them).
// Values are doubles, not floats: readers must give back exactly what the text said (LibSVM
// files written by other tools carry 17 digits), and Lasso's coordinate descent updates a
// residual in place over thousands of sweeps, where float rounding would stall the duality gap
// above the tolerances people ask for. At 12 bytes per non-zero, 5M non-zeros are 60 MB.
struct RegressionSet {
  std::vector<std::uint64_t> row_begin{0};    // size samples()+1
  std::vector<std::uint32_t> cols;            // < features
  std::vector<double> values;                 // same size as cols
  std::vector<double> y;                      // the response, one per sample
  std::uint32_t features = 0;                 // m, the column id space
  std::vector<std::string> feature_names;     // empty, or one per feature (CSV header)
  std::vector<std::uint64_t> sample_ids;      // per sample: its 0-based index in the whole input
                                              // (input order), which shards keep

  std::uint64_t samples() const noexcept { return y.size(); }
  std::uint64_t nnz() const noexcept { return cols.size(); }
  std::span<const std::uint32_t> row_cols(std::uint64_t i) const {
    return {cols.data() + row_begin[i], cols.data() + row_begin[i + 1]};
  }
  std::span<const double> row_values(std::uint64_t i) const {
    return {values.data() + row_begin[i], values.data() + row_begin[i + 1]};
  }
  // Appends a sample; `row_cols` must be strictly increasing and < features.
  void add_row(std::uint64_t sample_id, double response, std::span<const std::uint32_t> row_cols,
               std::span<const double> row_values);
};

// Every reader throws gyre::InputError naming file, line and what was expected; an input with
// no samples is an error. Samples get their 0-based input order as sample id.

// What the labels must be: any number (regression), or two classes for a binary classifier,
// checked while reading so that the first label of a third class is named by its line
// (TwoClassCheck in binary_labels.hpp; the labels are kept as written, binary_labels() maps them).
enum class LabelKind { any, two_classes };

// LibSVM / SVMlight: one sample per line, "label idx:val idx:val ...", blank-separated; feature
// indices are 1-based as the format says (index 0 is an error), strictly increasing within a
// line; '#' starts a comment; "qid:N" tokens are ignored; blank lines are skipped; a label may
// carry a leading '+' ("+1"). features = the largest index seen.
// `threads` line-aligned pieces are parsed at once (TBB tasks in the calling arena), with the
// same set and the same first error for every count. `input` may also be a directory of LibSVM
// files, read as one in name order (libsvm_input_files); each must hold a sample, and two-class
// labels are two classes over them all.
RegressionSet read_libsvm(const std::filesystem::path& input, LabelKind labels = LabelKind::any, std::size_t threads = 1);
// The files of a LibSVM input: the file, or a directory's (list_input_files: name order, hidden
// files and subdirectories left out). Throws gyre::InputError for a directory with none, or with
// a .csv or .mtx file, which the LibSVM parser would only fail on.
std::vector<InputFile> libsvm_input_files(const std::filesystem::path& input);

// The LibSVM lines of `text`: a whole file's, or a piece of one whose first line is line
// lines_before + 1 (errors name the file's true line), parsed on `threads` as read_libsvm does;
// sample ids count from 0, features = the largest index seen. With `classes`, the labels are
// watched in input order on one thread, so that the first error of either kind wins. No check
// that a sample was read.
RegressionSet parse_libsvm_text(const std::filesystem::path& file, std::string_view text, std::size_t lines_before,
                                std::size_t threads, TwoClassCheck* classes = nullptr);
// The same rows appended to `into` (their sample ids and offsets after its own), with no copy
// between: on one thread parsed straight into it.
void append_libsvm_text(RegressionSet& into, const std::filesystem::path& file, std::string_view text,
                        std::size_t lines_before, std::size_t threads, TwoClassCheck* classes = nullptr);
// Appends `piece`'s rows to `into`, their sample ids moved on by into.samples(); features
// becomes the larger of the two.
void append_rows(RegressionSet& into, const RegressionSet& piece);
// Throws the reader's error for a file without samples.
[[noreturn]] void no_samples_error(const std::filesystem::path& file);

// MatrixMarket "coordinate real|integer general" (1-based, any order; a repeated entry is an
// error) for X, and the response in a separate file: one finite number per line (blank lines
// and '#' comments skipped), as many as the matrix has rows.
RegressionSet read_matrix_market_regression(const std::filesystem::path& matrix,
                                            const std::filesystem::path& response);
// The same with y taken from column `response_column` (1-based) of the matrix, which is then
// dropped from X (the columns after it shift down by one).
RegressionSet read_matrix_market_regression(const std::filesystem::path& matrix, std::uint32_t response_column);

// Dense CSV with a header row of column names (surrounding blanks and one pair of double quotes
// are stripped; quoted commas are not supported). The response is the column named
// `response_column`, or if no column has that name and it is a number J, the J-th column
// (1-based); empty: the last column. The other columns become the features, named by the
// header. Every row must have as many fields as the header; values are finite numbers, zeros
// are stored sparsely; blank lines are skipped.
RegressionSet read_csv_regression(const std::filesystem::path& file, const std::string& response_column = {});

enum class RegressionFormat { automatic, libsvm, matrix_market, csv };

struct RegressionOptions {
  RegressionFormat format = RegressionFormat::automatic;
  std::filesystem::path response;  // MatrixMarket: the response file (default: STEM.response beside it)
  std::string response_column;     // MatrixMarket: a 1-based column number; CSV: a name or number
  LabelKind labels = LabelKind::any;  // LibSVM only; other inputs have no label lines to name, and
                                      // binary_labels() checks them afterwards
  std::size_t threads = 1;            // LibSVM: parsed on this many threads (read_libsvm)
};

// What load_regression reads for `path`: a row partition directory, one file of a format (a
// directory with data.libsvm is that LibSVM file), or a directory of LibSVM files. Throws as
// load_regression does for options that do not apply.
struct RegressionSource {
  enum class Kind { partition, libsvm, matrix_market, csv } kind = Kind::libsvm;
  std::filesystem::path path;  // the partition directory, the file, or the directory of LibSVM files
};
RegressionSource regression_source(const std::filesystem::path& path, const RegressionOptions& options = {});

// The one entry point apps use. Automatic detection (regression_source), in order:
//  - a directory with manifest.json of kind "rows": a row partition, shards merged back by sample id;
//  - a directory with data.libsvm: that file; any other directory: its LibSVM files (read_libsvm);
//  - a file ending in .csv: CSV;
//  - a file ending in .mtx: MatrixMarket, y from options.response_column, else from
//    options.response, else from STEM.response beside the matrix;
//  - any other file: LibSVM.
// Options that do not apply to the chosen format throw std::invalid_argument.
RegressionSet load_regression(const std::filesystem::path& path, const RegressionOptions& options = {});

// LibSVM lines "label idx:val ..." (1-based indices, shortest round-trip numbers), written
// atomically; sample ids and feature names are not kept.
void write_libsvm(const std::filesystem::path& file, const RegressionSet& set);

}  // namespace gyre::data
