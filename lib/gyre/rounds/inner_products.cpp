// gyre/rounds/inner_products.cpp — a shard's Gram columns and shared-row products, and the same summed over every worker's shard.
#include "gyre/rounds/scheduling.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>

namespace gyre::rounds {

ShardInnerProducts::ShardInnerProducts(SparseLines rows, SparseLines columns, std::span<const std::uint64_t> row_ids,
                                       std::uint64_t samples)
    : rows_(rows),
      columns_(columns),
      sampled_(rows.lines(), 0),
      occupants_(rows.lines(), 0),
      first_(rows.lines()),
      more_(rows.lines()),
      indexed_(columns.lines(), 0),
      slot_(columns.lines(), 0),
      wanted_(columns.lines(), 0),
      dot_(columns.lines(), 0.0),
      marked_(columns.lines(), 0) {
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

void ShardInnerProducts::enter(std::uint32_t k) {
  if (indexed_[k]) return;
  indexed_[k] = 1;
  slot_[k] = static_cast<std::uint32_t>(indexed_list_.size());
  indexed_list_.push_back(k);
  for (std::uint64_t e = columns_.begin[k]; e < columns_.begin[k + 1]; ++e) {
    const std::uint64_t row = columns_.index[e];
    if (occupants_[row]++ == 0) first_[row] = {k, columns_.values[e]};
    else more_[row].push_back({k, columns_.values[e]});
  }
}

void ShardInnerProducts::leave(std::uint32_t k) {
  indexed_[k] = 0;
  for (std::uint64_t e = columns_.begin[k]; e < columns_.begin[k + 1]; ++e) {
    const std::uint64_t row = columns_.index[e];
    auto& rest = more_[row];
    --occupants_[row];
    if (first_[row].column == k) {
      if (!rest.empty()) {
        first_[row] = rest.back();
        rest.pop_back();
      }
      continue;
    }
    const auto it = std::find_if(rest.begin(), rest.end(), [k](const Entry& x) { return x.column == k; });
    *it = rest.back();
    rest.pop_back();
  }
}

void ShardInnerProducts::land(std::uint32_t k) {
  if (!indexed_[k]) return;
  leave(k);
  const std::uint32_t last = indexed_list_.back();
  indexed_list_[slot_[k]] = last;
  slot_[last] = slot_[k];
  indexed_list_.pop_back();
}

void ShardInnerProducts::compare(std::uint32_t j, std::uint32_t c, std::vector<SharedProduct>& out) {
  // Each column k has its own sum, taken over j's rows in order: the entries' order within a
  // row does not change a bit of it.
  const auto add = [&](double x, const Entry& other) {
    if (other.column == j) return;
    if (!marked_[other.column]) {
      marked_[other.column] = 1;
      touched_.push_back(other.column);
    }
    dot_[other.column] += x * other.value;
  };
  for (std::uint64_t e = columns_.begin[j]; e < columns_.begin[j + 1]; ++e) {
    const std::uint64_t row = columns_.index[e];
    if (occupants_[row] == 0) continue;
    const double x = columns_.values[e];
    add(x, first_[row]);
    if (occupants_[row] > 1)
      for (const Entry& other : more_[row]) add(x, other);
  }
  for (const std::uint32_t k : touched_) {
    out.push_back({c, k, dot_[k]});
    dot_[k] = 0;
    marked_[k] = 0;
  }
  touched_.clear();
}

std::vector<SharedProduct> ShardInnerProducts::shared(std::span<const std::uint32_t> candidates,
                                                      std::span<const std::uint32_t> in_flight) {
  const auto m = static_cast<std::uint32_t>(columns_.lines());
  for (const auto* list : {&candidates, &in_flight})
    for (const std::uint32_t j : *list)
      if (j >= m) throw std::invalid_argument("inner products: column " + std::to_string(j) + " of " + std::to_string(m));
  // The index holds exactly the columns in flight, then gains each candidate once it is compared.
  for (const std::uint32_t k : in_flight) wanted_[k] = 1;
  std::size_t kept = 0;
  for (const std::uint32_t k : indexed_list_) {
    if (!wanted_[k]) {
      leave(k);
      continue;
    }
    slot_[k] = static_cast<std::uint32_t>(kept);
    indexed_list_[kept++] = k;
  }
  indexed_list_.resize(kept);
  for (const std::uint32_t k : in_flight) {
    wanted_[k] = 0;
    enter(k);
  }
  std::vector<SharedProduct> out;
  for (std::uint32_t c = 0; c < candidates.size(); ++c) {
    compare(candidates[c], c, out);
    enter(candidates[c]);  // the later candidates are compared with it
  }
  return out;
}

namespace {

constexpr double kKeyShift = 4294967296.0;  // 2³²: a pair's key is candidate·2³² + column

// The shards' Gram columns summed in shard order.
std::vector<std::vector<double>> sum_gram(const std::vector<std::vector<std::vector<double>>>& shards,
                                          std::size_t columns, std::uint32_t features) {
  std::vector<std::vector<double>> out(columns, std::vector<double>(features, 0.0));
  for (const auto& shard : shards)
    for (std::size_t c = 0; c < columns; ++c)
      for (std::uint32_t k = 0; k < features; ++k) out[c][k] += shard[c][k];
  return out;
}

}  // namespace

void ProductSums::fold(const std::vector<std::vector<SharedProduct>>& shards, std::size_t candidates,
                       std::vector<SharedProduct>& out) {
  if (sum_.size() != features_) {
    sum_.assign(features_, 0.0);
    seen_.assign(features_, 0);
  }
  at_.assign(shards.size(), 0);
  for (std::uint32_t c = 0; c < candidates; ++c) {
    for (std::size_t w = 0; w < shards.size(); ++w) {
      for (; at_[w] < shards[w].size() && shards[w][at_[w]].candidate == c; ++at_[w]) {
        const SharedProduct& p = shards[w][at_[w]];
        if (!seen_[p.column]) {
          seen_[p.column] = 1;
          touched_.push_back(p.column);
        }
        sum_[p.column] += p.dot;
      }
    }
    for (const std::uint32_t k : touched_) {
      out.push_back({c, k, sum_[k]});
      sum_[k] = 0;
      seen_[k] = 0;
    }
    touched_.clear();
  }
}

namespace {
}  // namespace

SummedInnerProducts::SummedInnerProducts(std::vector<ShardInnerProducts*> shards, std::uint32_t features)
    : shards_(std::move(shards)), features_(features), sums_(features), parts_(shards_.size()) {}

std::vector<std::vector<double>> SummedInnerProducts::sampled_gram(std::span<const std::uint32_t> columns) {
  std::vector<std::vector<std::vector<double>>> parts;
  for (ShardInnerProducts* shard : shards_) parts.push_back(shard->sampled_gram(columns));
  return sum_gram(parts, columns.size(), features_);
}

std::vector<SharedProduct> SummedInnerProducts::shared(std::span<const std::uint32_t> candidates,
                                                       std::span<const std::uint32_t> in_flight) {
  std::vector<std::vector<SharedProduct>> parts;
  for (ShardInnerProducts* shard : shards_) parts.push_back(shard->shared(candidates, in_flight));
  std::vector<SharedProduct> out;
  sums_.fold(parts, candidates.size(), out);
  return out;
}

void SummedInnerProducts::fly(std::uint32_t k) {
  for (ShardInnerProducts* shard : shards_) shard->fly(k);
}

void SummedInnerProducts::land(std::uint32_t k) {
  for (ShardInnerProducts* shard : shards_) shard->land(k);
}

void SummedInnerProducts::products_in_flight(std::uint32_t j, std::vector<SharedProduct>& out) {
  for (std::size_t s = 0; s < shards_.size(); ++s) {
    parts_[s].clear();
    shards_[s]->products_in_flight(j, parts_[s]);
  }
  sums_.fold(parts_, 1, out);
}

WorkersInnerProducts::WorkersInnerProducts(RoundsDriver& driver, InnerProductKinds kinds, std::uint32_t features)
    : driver_(driver), kinds_(kinds), features_(features), sums_(features) {}

void WorkersInnerProducts::bad_answer(std::size_t worker, const std::string& why) {
  const int rank = driver_.workers()[worker];
  driver_.fail(driver_.options().name + " scheduler: rank " + std::to_string(rank) + "'s inner products: " + why, rank,
               runtime::FailureCause::kBadMessage);
}

std::vector<std::vector<double>> WorkersInnerProducts::sampled_gram(std::span<const std::uint32_t> columns) {
  const std::size_t want = columns.size() * features_;
  const auto answers = driver_.ask(Task{kinds_.gram, 0, {columns.begin(), columns.end()}}, want);
  std::vector<std::vector<std::vector<double>>> parts(answers.size());
  for (std::size_t w = 0; w < answers.size(); ++w) {
    if (answers[w].size() != want)
      bad_answer(w, std::to_string(answers[w].size()) + " values for " + std::to_string(want));
    for (std::size_t c = 0; c < columns.size(); ++c)
      parts[w].emplace_back(answers[w].begin() + static_cast<std::ptrdiff_t>(c * features_),
                            answers[w].begin() + static_cast<std::ptrdiff_t>((c + 1) * features_));
  }
  return sum_gram(parts, columns.size(), features_);
}

std::vector<SharedProduct> WorkersInnerProducts::shared(std::span<const std::uint32_t> candidates,
                                                        std::span<const std::uint32_t> in_flight) {
  Task task{kinds_.shared, static_cast<double>(candidates.size()), {candidates.begin(), candidates.end()}};
  task.params.insert(task.params.end(), in_flight.begin(), in_flight.end());
  // At most one product per candidate and column compared with.
  const std::size_t most = 2 * candidates.size() * (in_flight.size() + candidates.size());
  const auto answers = driver_.ask(std::move(task), most);
  std::vector<std::vector<SharedProduct>> parts(answers.size());
  const double end = static_cast<double>(candidates.size()) * kKeyShift;
  for (std::size_t w = 0; w < answers.size(); ++w) {
    const auto& a = answers[w];
    if (a.size() % 2 != 0) bad_answer(w, "not pairs");
    parts[w].reserve(a.size() / 2);
    for (std::size_t t = 0; t < a.size(); t += 2) {
      const double key = a[t];
      if (!(key >= 0 && key < end && key == std::floor(key)) || std::fmod(key, kKeyShift) >= features_)
        bad_answer(w, "a candidate or a column out of range");
      const auto whole = static_cast<std::uint64_t>(key);
      const SharedProduct p{static_cast<std::uint32_t>(whole >> 32), static_cast<std::uint32_t>(whole & 0xFFFFFFFFu),
                            a[t + 1]};
      if (!parts[w].empty() && p.candidate < parts[w].back().candidate) bad_answer(w, "candidates out of order");
      parts[w].push_back(p);
    }
  }
  std::vector<SharedProduct> out;
  sums_.fold(parts, candidates.size(), out);
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
    out.push_back(static_cast<double>(p.candidate) * kKeyShift + static_cast<double>(p.column));
    out.push_back(p.dot);
  }
  return out;
}

}  // namespace gyre::rounds
