// apps/mf/scorer.cpp — a trained model laid out for scoring many (user, item) pairs: factor matrices and id lookup.
#include "mf/scorer.hpp"

#include <algorithm>
#include <string>

#include "gyre/base/input_error.hpp"
#include "gyre/data/ratings.hpp"
#include "gyre/data/text_input.hpp"

namespace gyre::mf {
namespace {

Scorer::Matrix matrix_of(const std::vector<float>& rows, std::size_t count, std::uint32_t rank) {
  return Eigen::Map<const Scorer::Matrix>(rows.data(), static_cast<Eigen::Index>(count), rank);
}

// Called per line of large files: nothing here allocates unless the line is bad.
std::uint32_t row_of(const IdIndex& ids, const std::filesystem::path& file, std::size_t line, std::string_view token,
                     const std::string& what, const std::filesystem::path& factors, bool strict = true) {
  const auto id = data::parse_bounded(file, line, token, what + " id", 0, data::kMaxId);
  const std::int64_t row = ids.find(static_cast<std::uint32_t>(id));
  if (row < 0 && !strict) return Scorer::kUnknown;
  if (row < 0)
    throw InputError(file, line, std::string("a ") + what + " id of the model (in " + factors.string() + ")",
                     std::string(what) + " " + std::to_string(id) + ", unknown to the model");
  return static_cast<std::uint32_t>(row);
}

const std::string kUser = "user", kItem = "item";

}  // namespace

IdIndex::IdIndex(std::vector<std::uint32_t> ids) : ids_(std::move(ids)) {
  // A table of 4 bytes per id up to the largest: at most 4× the ids themselves plus a little.
  if (ids_.empty() || ids_.back() > 4 * std::uint64_t{ids_.size()} + 1024) return;
  table_.assign(std::size_t{ids_.back()} + 1, -1);
  for (std::size_t row = 0; row < ids_.size(); ++row) table_[ids_[row]] = static_cast<std::int32_t>(row);
}

std::int64_t IdIndex::find(std::uint32_t id) const {
  if (!table_.empty()) return id < table_.size() ? table_[id] : -1;
  const auto at = std::lower_bound(ids_.begin(), ids_.end(), id);
  return at != ids_.end() && *at == id ? at - ids_.begin() : -1;
}

Scorer::Scorer(const MfModel& model, std::filesystem::path dir)
    : user_file_(dir / "user_factors.tsv"),
      item_file_(dir / "item_factors.tsv"),
      biases_(model.biases),
      mean_(model.biases ? model.mean : 0.0f),
      users_(model.user_ids),
      items_(model.item_ids),
      user_factors_(matrix_of(model.user_factors, model.user_ids.size(), model.rank)),
      item_factors_(matrix_of(model.item_factors, model.item_ids.size(), model.rank)),
      user_offset_(Eigen::VectorXf::Zero(users_.size())),
      item_bias_(Eigen::RowVectorXf::Zero(items_.size())) {
  if (!biases_) return;
  for (std::uint32_t u = 0; u < users_.size(); ++u)
    user_offset_[static_cast<Eigen::Index>(u)] = model.mean + model.user_bias[u];
  for (std::uint32_t i = 0; i < items_.size(); ++i) item_bias_[static_cast<Eigen::Index>(i)] = model.item_bias[i];
}

std::uint32_t Scorer::user_row(const std::filesystem::path& file, std::size_t line, std::string_view token) const {
  return row_of(users_, file, line, token, kUser, user_file_);
}

std::uint32_t Scorer::item_row(const std::filesystem::path& file, std::size_t line, std::string_view token) const {
  return row_of(items_, file, line, token, kItem, item_file_);
}

std::uint32_t Scorer::user_row_if_known(const std::filesystem::path& file, std::size_t line,
                                        std::string_view token) const {
  return row_of(users_, file, line, token, kUser, user_file_, false);
}

std::uint32_t Scorer::item_row_if_known(const std::filesystem::path& file, std::size_t line,
                                        std::string_view token) const {
  return row_of(items_, file, line, token, kItem, item_file_, false);
}

float Scorer::score_partly(std::uint32_t user, std::uint32_t item) const {
  if (user != kUnknown && item != kUnknown) return score(user, item);
  if (!biases_) return 0.0f;  // the model has nothing of this pair
  return (user != kUnknown ? user_offset_[user] : mean_) + (item != kUnknown ? item_bias_[item] : 0.0f);
}


void Scorer::score_all_items(const std::vector<std::uint32_t>& users, Matrix& out) const {
  Matrix block(static_cast<Eigen::Index>(users.size()), user_factors_.cols());
  for (std::size_t r = 0; r < users.size(); ++r) block.row(static_cast<Eigen::Index>(r)) = user_factors_.row(users[r]);
  out.noalias() = block * item_factors_.transpose();
  if (!biases_) return;
  for (std::size_t r = 0; r < users.size(); ++r)
    out.row(static_cast<Eigen::Index>(r)).array() += user_offset_[users[r]] + item_bias_.array();
}

}  // namespace gyre::mf
