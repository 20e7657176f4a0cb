// gyre/data/binary_labels.cpp — the two-class check and the 0/1 mapping of labels.
#include "gyre/data/binary_labels.hpp"

#include <algorithm>
#include <charconv>
#include <stdexcept>
#include <string>

#include "gyre/base/input_error.hpp"

namespace gyre::data {
namespace {

std::string shortest(double value) {
  char text[32];
  const auto [end, ec] = std::to_chars(text, text + sizeof text, value);
  return std::string(text, end);
}

// Records `label` as the first or second class if it is new; false for a third class.
bool admit(std::optional<double>& first, std::optional<double>& second, double label) {
  if (label == first || label == second) return true;
  if (!first) {
    first = label;
  } else if (!second) {
    second = label;
  } else {
    return false;
  }
  return true;
}

}  // namespace

void TwoClassCheck::see(double label, std::size_t line) {
  if (!admit(first_, second_, label))
    throw InputError(file_, line,
                     "a label of one of two classes (a binary classifier; the input already has labels " +
                         shortest(*first_) + " and " + shortest(*second_) + ")",
                     "label " + shortest(label));
}

TwoClasses TwoClassCheck::classes() const {
  if (!second_)
    throw InputError(input_, 0, "labels of two classes (a binary classifier)",
                     first_ ? "only label " + shortest(*first_) : "no labels");
  return {std::min(*first_, *second_), std::max(*first_, *second_)};
}

std::vector<double> first_labels(std::span<const double> labels, std::size_t at_most) {
  std::vector<double> out;
  for (const double v : labels) {
    if (out.size() == at_most) break;
    if (std::find(out.begin(), out.end(), v) == out.end()) out.push_back(v);
  }
  return out;
}

std::vector<FirstLabel> first_label_samples(std::span<const double> labels, std::span<const std::uint64_t> samples) {
  std::vector<FirstLabel> out;
  for (std::size_t i = 0; i < labels.size() && out.size() < 3; ++i)
    if (std::none_of(out.begin(), out.end(), [&](const FirstLabel& f) { return f.label == labels[i]; }))
      out.push_back({samples.empty() ? i : samples[i], labels[i]});
  return out;
}

TwoClasses two_classes(std::span<const FirstLabel> firsts) {
  std::optional<double> low, high;
  for (const FirstLabel& f : firsts)
    if (!admit(low, high, f.label))
      throw std::invalid_argument("a binary classifier needs labels of two classes; sample " +
                                  std::to_string(f.sample + 1) + " has label " + shortest(f.label) + " beside " +
                                  shortest(*low) + " and " + shortest(*high));
  if (!high)
    throw std::invalid_argument("a binary classifier needs labels of two classes, " +
                                (low ? "all samples have label " + shortest(*low) : std::string("there are none")));
  return {std::min(*low, *high), std::max(*low, *high)};
}

BinaryLabels binary_labels(std::span<const double> labels) {
  BinaryLabels out;
  out.classes = two_classes(first_label_samples(labels, {}));
  out.y.reserve(labels.size());
  for (const double v : labels) out.y.push_back(v == out.classes.one ? 1.0 : 0.0);
  return out;
}

}  // namespace gyre::data
