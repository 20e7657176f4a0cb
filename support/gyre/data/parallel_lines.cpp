// gyre/data/parallel_lines.cpp — where a text's line-aligned chunks begin.
#include "gyre/data/parallel_lines.hpp"

namespace gyre::data {

std::vector<std::size_t> line_aligned_splits(std::string_view text, std::size_t parts) {
  std::vector<std::size_t> splits(parts + 1, text.size());
  splits[0] = 0;
  for (std::size_t c = 1; c < parts; ++c) {
    // ⌊c·size/parts⌋, without forming c·size.
    const std::size_t share = text.size() / parts * c + text.size() % parts * c / parts;
    // A line starts at `share` if the byte before it ends a line; a later chunk never starts
    // before an earlier one.
    const std::size_t from = std::max(share, splits[c - 1]);
    if (from == 0 || from >= text.size()) {
      splits[c] = from == 0 ? 0 : text.size();
      continue;
    }
    const std::size_t newline = text.find('\n', from - 1);
    splits[c] = newline == std::string_view::npos ? text.size() : newline + 1;
  }
  return splits;
}

}  // namespace gyre::data
