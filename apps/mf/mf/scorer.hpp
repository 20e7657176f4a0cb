// apps/mf/mf/scorer.hpp — a trained model laid out for scoring many (user, item) pairs: factor matrices and id lookup.
#pragma once

#include <Eigen/Core>

#include <cstdint>
#include <filesystem>
#include <string_view>
#include <vector>

#include "mf/trainer.hpp"

namespace gyre::mf {

// Scores are those training fits: μ + b_u + b_i + p_u·q_i with biases, p_u·q_i without, in
// float. Users and items are addressed by row (their rank among the model's ids, ascending), so
// comparing rows orders by id.
class Scorer {
 public:
  using Matrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

  // `dir` is where `model` was read from (read_model), for messages.
  Scorer(const MfModel& model, std::filesystem::path dir);

  std::uint32_t users() const noexcept { return static_cast<std::uint32_t>(user_ids_.size()); }
  std::uint32_t items() const noexcept { return static_cast<std::uint32_t>(item_ids_.size()); }
  std::uint32_t user_id(std::uint32_t row) const { return user_ids_[row]; }
  std::uint32_t item_id(std::uint32_t row) const { return item_ids_[row]; }

  // The row of the id written as `token` on line `line` of `file`, which must be a decimal id
  // the model has; gyre::InputError at file:line otherwise, naming the model's factor file.
  std::uint32_t user_row(const std::filesystem::path& file, std::size_t line, std::string_view token) const;
  std::uint32_t item_row(const std::filesystem::path& file, std::size_t line, std::string_view token) const;
  // Rows of ids the model may lack (a ratings file of other users): -1 when it does.
  std::int64_t find_user(std::uint32_t id) const;
  std::int64_t find_item(std::uint32_t id) const;

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
  std::vector<std::uint32_t> user_ids_, item_ids_;
  Matrix user_factors_, item_factors_;
  Eigen::VectorXf user_offset_;  // μ + b_u
  Eigen::RowVectorXf item_bias_;
};

}  // namespace gyre::mf
