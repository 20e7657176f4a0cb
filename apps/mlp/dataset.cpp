// apps/mlp/dataset.cpp — reads "label,f1,...,fd" lines into a dense Dataset, checking each line's shape and label.
#include "mlp/dataset.hpp"

#include <string>
#include <string_view>

#include "gyre/base/input_error.hpp"
#include "gyre/data/text_input.hpp"

namespace gyre::mlp {

Dataset read_dataset(const std::filesystem::path& file, int classes, int features) {
  const std::string text = data::slurp(file);
  data::LineCursor lines(text);
  std::string_view line;
  constexpr std::size_t kMaxFields = 1 << 16;
  std::vector<std::string_view> fields(kMaxFields + 1);
  std::vector<double> values;
  std::vector<int> labels;
  while (lines.next(line)) {
    const auto trimmed = data::trim_blanks(line);
    if (trimmed.empty() || trimmed.front() == '#') continue;
    const std::size_t n = data::split_fields(trimmed, fields.data(), kMaxFields);
    if (features == 0) {
      if (n < 2 || n > kMaxFields)
        throw InputError(file, lines.number(), "a label and at least one feature, comma-separated", std::string(trimmed));
      features = static_cast<int>(n - 1);
    }
    if (n != static_cast<std::size_t>(features) + 1)
      throw InputError(file, lines.number(),
                       std::to_string(features + 1) + " fields (a label and " + std::to_string(features) + " features)",
                       n > kMaxFields ? "more, or an empty field" : std::to_string(n) + " fields");
    labels.push_back(static_cast<int>(data::parse_bounded(file, lines.number(), fields[0], "class label", 0,
                                                          static_cast<std::uint64_t>(classes - 1))));
    for (std::size_t k = 1; k < n; ++k) {
      double v = 0;
      if (!data::parse_finite(fields[k], v))
        throw InputError(file, lines.number(), "a finite number as feature " + std::to_string(k), std::string(fields[k]));
      values.push_back(v);
    }
  }
  if (labels.empty()) throw InputError(file, 0, "at least one sample", "no samples");
  Dataset set;
  set.classes = classes;
  set.labels = std::move(labels);
  set.x = Eigen::Map<const decltype(set.x)>(values.data(), static_cast<Eigen::Index>(set.labels.size()), features);
  return set;
}

}  // namespace gyre::mlp
