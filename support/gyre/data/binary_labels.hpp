// gyre/data/binary_labels.hpp — two-class labels for classifiers: the check while reading (file:line of a third class) and the 0/1 mapping.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <vector>

namespace gyre::data {

// A binary classifier accepts labels of any two distinct values: ±1, 0/1, or e.g. 3 and 7. The
// smaller value becomes class 0, the larger class 1 (so −1 → 0, +1 → 1), whatever order they
// come in; the original values are kept to name the classes in output.
struct TwoClasses {
  double zero = 0;  // the original label of class 0 (the smaller)
  double one = 1;   // the original label of class 1 (the larger)
};

// Watches the labels of an input (a file, or a directory's files one after another) in input
// order, for readers that know the line of each one.
class TwoClassCheck {
 public:
  explicit TwoClassCheck(std::filesystem::path input) : input_(input), file_(std::move(input)) {}
  // The file whose lines are seen next (the input itself until said).
  void reading(std::filesystem::path file) { file_ = std::move(file); }
  // Throws gyre::InputError at the first label of a third class, naming the two seen before.
  void see(double label, std::size_t line);
  // Throws gyre::InputError (the input as a whole) unless two classes were seen.
  TwoClasses classes() const;

 private:
  std::filesystem::path input_, file_;
  std::optional<double> first_, second_;
};

// The distinct values of `labels` in order of first appearance, at most `at_most` of them: three
// tell whether there are two classes, and which value comes as a third.
std::vector<double> first_labels(std::span<const double> labels, std::size_t at_most);

struct BinaryLabels {
  std::vector<double> y;  // 0 or 1 per sample
  TwoClasses classes;
};
// The labels as 0/1. Throws std::invalid_argument unless there are exactly two distinct values
// (inputs read without TwoClassCheck have no line to name, so the message names the sample).
BinaryLabels binary_labels(std::span<const double> labels);

// A label's first sample: its 0-based index in the input, and the label.
struct FirstLabel {
  std::uint64_t sample = 0;
  double label = 0;
};
// The first samples of each distinct label (at most three), in input order; `samples` gives
// each label's sample index (empty: its position in `labels`).
std::vector<FirstLabel> first_label_samples(std::span<const double> labels, std::span<const std::uint64_t> samples);
// The two classes those first samples show, as binary_labels finds them over the whole input
// (for a process that holds only some of the rows and has gathered every process's firsts, in
// input order); throws its std::invalid_argument otherwise.
TwoClasses two_classes(std::span<const FirstLabel> firsts);

}  // namespace gyre::data
