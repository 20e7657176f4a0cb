// apps/mf/mf/scorer.hpp — a trained model laid out for scoring many (user, item) pairs: factor matrices and id lookup.
#pragma once

#include <Eigen/Core>

#include <cstdint>
#include <filesystem>
#include <string_view>
#include <vector>

#include "mf/trainer.hpp"

namespace gyre::mf {

// The model's ids (ascending) and the row of each. Looking rows up is most of what predict
// spends reading a pairs file, so ids that are not much sparser than their count (the usual
// case) get a direct table; others are bisected.
class IdIndex {
 public:
  explicit IdIndex(std::vector<std::uint32_t> ids);
  std::uint32_t size() const noexcept { return static_cast<std::uint32_t>(ids_.size()); }
  std::uint32_t id(std::uint32_t row) const { return ids_[row]; }
  std::int64_t find(std::uint32_t id) const;  // -1 when the model lacks it

 private:
  std::vector<std::uint32_t> ids_;
  std::vector<std::int32_t> table_;  // by id, -1 for none; empty when the ids are sparse
};

// Scores are those training fits: μ + b_u + b_i + p_u·q_i with biases, p_u·q_i without, in
// float. Users and items are addressed by row (their rank among the model's ids, ascending), so
// comparing rows orders by id.
class Scorer {
 public:
  using Matrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

  // `dir` is where `model` was read from (read_model), for messages.
  Scorer(const MfModel& model, std::filesystem::path dir);

  std::uint32_t users() const noexcept { return users_.size(); }
  std::uint32_t items() const noexcept { return items_.size(); }
  std::uint32_t user_id(std::uint32_t row) const { return users_.id(row); }
  std::uint32_t item_id(std::uint32_t row) const { return items_.id(row); }

  // The row of the id written as `token` on line `line` of `file`, which must be a decimal id
  // the model has; gyre::InputError at file:line otherwise, naming the model's factor file.
  std::uint32_t user_row(const std::filesystem::path& file, std::size_t line, std::string_view token) const;
  std::uint32_t item_row(const std::filesystem::path& file, std::size_t line, std::string_view token) const;
  // The same for ids the model may lack: kUnknown for those (a bad token is still an error).
  static constexpr std::uint32_t kUnknown = 0xFFFFFFFF;
  std::uint32_t user_row_if_known(const std::filesystem::path& file, std::size_t line, std::string_view token) const;
  std::uint32_t item_row_if_known(const std::filesystem::path& file, std::size_t line, std::string_view token) const;
  // score() where either side may be kUnknown: from what the model has of the pair, μ and the
  // known side's bias with biases (a cold start's usual answer), 0 without.
  float score_partly(std::uint32_t user, std::uint32_t item) const;
  // Rows of ids the model may lack (a ratings file of other users): -1 when it does.
  std::int64_t find_user(std::uint32_t id) const { return users_.find(id); }
  std::int64_t find_item(std::uint32_t id) const { return items_.find(id); }

  float score(std::uint32_t user, std::uint32_t item) const {
    return user_factors_.row(user).dot(item_factors_.row(item)) + offset(user, item);
  }
  // The bias part of a score: (μ + b_u) + b_i, 0 without biases.
  float offset(std::uint32_t user, std::uint32_t item) const {
    return biases_ ? user_offset_[user] + item_bias_[item] : 0.0f;
  }
  // Scores of `users` (rows) against every item, one row per user: one matrix product.
  void score_all_items(const std::vector<std::uint32_t>& users, Matrix& out) const;

 private:
  std::filesystem::path user_file_, item_file_;  // for messages
  bool biases_;
  float mean_;  // μ, 0 without biases
  IdIndex users_, items_;
  Matrix user_factors_, item_factors_;
  Eigen::VectorXf user_offset_;  // μ + b_u
  Eigen::RowVectorXf item_bias_;
};

}  // namespace gyre::mf
