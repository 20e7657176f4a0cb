// scheduler/inner_products.cpp — a shard's Gram columns and shared-row products, and the same summed over every worker's shard.
#include "gyre/scheduler/inner_products.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>

namespace gyre::scheduler {

ShardInnerProducts::ShardInnerProducts(SparseLines rows, SparseLines columns, std::span<const std::uint64_t> row_ids,
                                       std::uint64_t samples)
    : rows_(rows), columns_(columns), sampled_(rows.lines(), 0), entries_(rows.lines()), dot_(columns.lines(), 0.0), marked_(columns.lines(), 0) {
  if (row_ids.size() != rows.lines()) throw std::invalid_argument("inner products: a row number per row");
  const std::uint64_t stride = gram_stride(samples);
  for (std::size_t i = 0; i < row_ids.size(); ++i) sampled_[i] = row_ids[i] % stride == 0;
}

std::vector<std::vector<double>> ShardInnerProducts::sampled_gram(std::span<const std::uint32_t> columns) {
  const auto m = static_cast<std::uint32_t>(columns_.lines());
  std::vector<std::vector<double>> out;
  out.reserve(columns.size());
  for (const std::uint32_t j : columns) {
    if (j >= m) throw std::invalid_argument("inner products: column " + std::to_string(j) + " of " + std::to_string(m));
    std::vector<double> dots(m, 0.0);
    for (std::uint64_t e = columns_.begin[j]; e < columns_.begin[j + 1]; ++e) {
      const std::uint64_t i = columns_.index[e];
      if (!sampled_[i]) continue;
      const double x = columns_.values[e];
      for (std::uint64_t f = rows_.begin[i]; f < rows_.begin[i + 1]; ++f) dots[rows_.index[f]] += x * rows_.values[f];
    }
    out.push_back(std::move(dots));
  }
  return out;
}

std::vector<SharedProduct> ShardInnerProducts::shared(std::span<const std::uint32_t> candidates,
                                                      std::span<const std::uint32_t> others) {
  const auto m = static_cast<std::uint32_t>(columns_.lines());
  for (const auto* list : {&candidates, &others})
    for (const std::uint32_t j : *list)
      if (j >= m) throw std::invalid_argument("inner products: column " + std::to_string(j) + " of " + std::to_string(m));
  for (const std::uint32_t k : others)
    for (std::uint64_t e = columns_.begin[k]; e < columns_.begin[k + 1]; ++e)
      entries_[columns_.index[e]].push_back({k, columns_.values[e]});
  std::vector<SharedProduct> out;
  for (std::uint32_t c = 0; c < candidates.size(); ++c) {
    const std::uint32_t j = candidates[c];
    for (std::uint64_t e = columns_.begin[j]; e < columns_.begin[j + 1]; ++e) {
      const double x = columns_.values[e];
      for (const Entry& other : entries_[columns_.index[e]]) {
        if (other.column == j) continue;
        if (!marked_[other.column]) {
          marked_[other.column] = 1;
          touched_.push_back(other.column);
        }
        dot_[other.column] += x * other.value;
      }
    }
    std::sort(touched_.begin(), touched_.end());
    for (const std::uint32_t k : touched_) {
      out.push_back({c, k, dot_[k]});
      dot_[k] = 0;
      marked_[k] = 0;
    }
    touched_.clear();
  }
  for (const std::uint32_t k : others)
    for (std::uint64_t e = columns_.begin[k]; e < columns_.begin[k + 1]; ++e) entries_[columns_.index[e]].clear();
  return out;
}

WorkersInnerProducts::WorkersInnerProducts(RoundsDriver& driver, InnerProductKinds kinds, std::uint32_t features)
    : driver_(driver), kinds_(kinds), features_(features) {}

std::vector<std::vector<double>> WorkersInnerProducts::sampled_gram(std::span<const std::uint32_t> columns) {
  const std::size_t want = columns.size() * features_;
  const auto answers = driver_.ask(Task{kinds_.gram, 0, {columns.begin(), columns.end()}}, want);
  std::vector<std::vector<double>> out(columns.size(), std::vector<double>(features_, 0.0));
  for (std::size_t w = 0; w < answers.size(); ++w) {
    if (answers[w].size() != want)
      driver_.fail(driver_.options().name + " scheduler: rank " + std::to_string(driver_.workers()[w]) + " answered " +
                       std::to_string(answers[w].size()) + " values for " + std::to_string(want),
                   driver_.workers()[w], runtime::FailureCause::kBadMessage);
    for (std::size_t c = 0; c < columns.size(); ++c)
      for (std::uint32_t k = 0; k < features_; ++k) out[c][k] += answers[w][c * features_ + k];
  }
  return out;
}

std::vector<SharedProduct> WorkersInnerProducts::shared(std::span<const std::uint32_t> candidates,
                                                        std::span<const std::uint32_t> others) {
  Task task{kinds_.shared, static_cast<double>(candidates.size()), {candidates.begin(), candidates.end()}};
  task.params.insert(task.params.end(), others.begin(), others.end());
  // At most one product per candidate and other.
  const std::size_t most = 3 * candidates.size() * others.size();
  const auto answers = driver_.ask(std::move(task), most);
  std::map<std::pair<std::uint32_t, std::uint32_t>, double> sums;
  for (std::size_t w = 0; w < answers.size(); ++w) {
    const auto& a = answers[w];
    const auto bad = [&](const std::string& why) {
      driver_.fail(driver_.options().name + " scheduler: rank " + std::to_string(driver_.workers()[w]) +
                       "'s inner products: " + why,
                   driver_.workers()[w], runtime::FailureCause::kBadMessage);
    };
    if (a.size() % 3 != 0) bad("not triples");
    for (std::size_t t = 0; t < a.size(); t += 3) {
      const double c = a[t], k = a[t + 1];
      if (!(c >= 0 && c < static_cast<double>(candidates.size()) && c == std::floor(c)) ||
          !(k >= 0 && k < static_cast<double>(features_) && k == std::floor(k)))
        bad("a candidate or a column out of range");
      sums[{static_cast<std::uint32_t>(c), static_cast<std::uint32_t>(k)}] += a[t + 2];
    }
  }
  std::vector<SharedProduct> out;
  out.reserve(sums.size());
  for (const auto& [key, dot] : sums) out.push_back({key.first, key.second, dot});
  return out;
}

std::vector<double> answer_inner_products(InnerProducts& shard, const Task& task, InnerProductKinds kinds) {
  std::vector<double> out;
  if (task.kind == kinds.gram) {
    for (const auto& column : shard.sampled_gram(task.params)) out.insert(out.end(), column.begin(), column.end());
    return out;
  }
  if (task.kind != kinds.shared) throw std::invalid_argument("a task that asks for no inner products");
  const double count = task.scalar;
  if (!(count >= 0 && count <= static_cast<double>(task.params.size()) && count == std::floor(count)))
    throw std::invalid_argument("a count of candidates outside the task's parameters");
  const auto n = static_cast<std::size_t>(count);
  const std::span<const std::uint32_t> params(task.params);
  for (const SharedProduct& p : shard.shared(params.first(n), params.subspan(n))) {
    out.push_back(p.candidate);
    out.push_back(p.column);
    out.push_back(p.dot);
  }
  return out;
}

}  // namespace gyre::scheduler
