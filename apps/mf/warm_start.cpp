// apps/mf/warm_start.cpp — continuing training from a saved model (--init-model): its settings, its rows, where a row starts.
#include "mf/warm_start.hpp"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace gyre::mf {
namespace {

// Adopts the model's value of one setting, or refuses the command line's when it differs.
template <typename T>
void adopt(T& setting, const T& saved, const char* flag, const char* field, const std::filesystem::path& dir,
           const std::function<bool(const char*)>& given) {
  if (given(flag) && setting != saved) {
    std::ostringstream message;
    message << std::boolalpha << std::setprecision(9);
    message << "--init-model " << dir.string() << ": " << (dir / "model.json").string() << " has " << field << " "
            << saved << " but the command line gives ";
    // A switch is given as --name or --no-name, not with a value.
    if constexpr (std::is_same_v<T, bool>)
      message << (setting ? std::string(flag) : "--no-" + std::string(flag).substr(2));
    else
      message << flag << " " << setting;
    message << " (leave the flag out to continue with the model's value)";
    throw std::invalid_argument(message.str());
  }
  setting = saved;
}

// The saved rows of the ids in `dense` (original ids, ascending), in that order.
void gather_rows(const std::vector<std::uint32_t>& dense, const std::vector<std::uint32_t>& saved_ids,
                 const std::vector<float>& saved_factors, const std::vector<float>& saved_bias, std::uint32_t rank,
                 bool biases, const std::filesystem::path& file, const char* what, std::vector<float>& factors,
                 std::vector<float>& bias) {
  factors.reserve(dense.size() * rank);
  for (const std::uint32_t id : dense) {
    const auto at = std::lower_bound(saved_ids.begin(), saved_ids.end(), id);
    if (at == saved_ids.end() || *at != id)
      throw std::invalid_argument(std::string(what) + " " + std::to_string(id) +
                                  " of the training or test data is not in " + file.string() +
                                  ": --init-model continues a model over the ids it was trained on");
    const auto row = static_cast<std::size_t>(at - saved_ids.begin());
    factors.insert(factors.end(), saved_factors.begin() + std::ptrdiff_t(row * rank),
                   saved_factors.begin() + std::ptrdiff_t((row + 1) * rank));
    if (biases) bias.push_back(saved_bias[row]);
  }
}

}  // namespace

void continue_settings(MfConfig& config, const MfModel& saved, const std::filesystem::path& dir,
                       const std::function<bool(const char*)>& given) {
  adopt(config.rank, saved.rank, "--rank", "rank", dir, given);
  bool biases = config.biases.value_or(saved.biases);
  adopt(biases, saved.biases, "--biases", "biases", dir, given);
  config.biases = biases;
  if (!saved.trained)
    throw std::invalid_argument("--init-model " + dir.string() + ": " + (dir / "model.json").string() +
                                " has no training record (epochs, learning rate, seed): written by a gyre-mf "
                                "before version 2, it can be used to predict but not continued");
  const TrainingRecord& t = *saved.trained;
  std::string update = name_of(config.update);
  adopt(update, std::string(name_of(t.update)), "--update", "update", dir, given);
  config.update = t.update;
  if (t.update == UpdateRule::kCcd) adopt(config.ccd_inner, t.ccd_inner, "--ccd-inner", "ccd_inner", dir, given);
  adopt(config.seed, t.seed, "--seed", "seed", dir, given);
  adopt(config.learning_rate, t.learning_rate, "--lr", "learning_rate", dir, given);
  adopt(config.lr_decay, t.lr_decay, "--lr-decay", "lr_decay", dir, given);
  adopt(config.lr_cut, t.lr_cut, "--lr-cut", "lr_cut", dir, given);
  adopt(config.lr_grow, t.lr_grow, "--lr-grow", "lr_grow", dir, given);
  adopt(config.held_out, t.held_out, "--held-out", "held_out", dir, given);
  // The cap decides which ratings are held out as much as the share does.
  if (t.held_out_max) adopt(config.held_out_max, *t.held_out_max, "--held-out-max", "held_out_max", dir, given);
  adopt(config.lambda, t.lambda, "--lambda", "lambda", dir, given);
  adopt(config.lambda_bias, t.lambda_bias, "--lambda-bias", "lambda_bias", dir, given);
  config.first_epoch = t.epochs;
  config.first_phase = t.phases;
}

std::shared_ptr<const MfModel> dense_start(const MfModel& saved, const data::IdTables& ids,
                                           const std::filesystem::path& dir, const KeepUser& keep_user) {
  auto start = std::make_shared<MfModel>();
  start->rank = saved.rank;
  start->biases = saved.biases;
  start->mean = saved.mean;
  start->users = ids.users.size();
  start->items = ids.items.size();
  start->trained = saved.trained;
  // The users this process starts: all of them, or those keep_user names (then user_ids lists
  // their dense ids, and their original ids are looked up in the model).
  std::vector<std::uint32_t> kept_original;
  if (keep_user) {
    for (std::uint32_t u = 0; u < ids.users.size(); ++u)
      if (keep_user(u)) {
        start->user_ids.push_back(u);
        kept_original.push_back(ids.users.original[u]);
      }
  }
  const std::vector<std::uint32_t>& users = keep_user ? kept_original : ids.users.original;
  gather_rows(users, saved.user_ids, saved.user_factors, saved.user_bias, saved.rank, saved.biases,
              dir / "user_factors.tsv", "user", start->user_factors, start->user_bias);
  gather_rows(ids.items.original, saved.item_ids, saved.item_factors, saved.item_bias, saved.rank, saved.biases,
              dir / "item_factors.tsv", "item", start->item_factors, start->item_bias);
  if (!saved.user_sums.empty()) {  // AdaGrad's sums: rows like the factors', gathered alike
    std::vector<float> none;
    gather_rows(users, saved.user_ids, saved.user_sums, none, MfModel::kSumsPerRow, false,
                dir / "user_adagrad.tsv", "user", start->user_sums, none);
    gather_rows(ids.items.original, saved.item_ids, saved.item_sums, none, MfModel::kSumsPerRow, false,
                dir / "item_adagrad.tsv", "item", start->item_sums, none);
  }
  return start;
}

void start_row(const MfConfig& config, Side side, std::uint32_t id, float* row, std::size_t tail) {
  if (config.update == UpdateRule::kAdaGrad) row[tail + kFactorSumAt] = row[tail + kBiasSumAt] = 1.0f;
  if (!config.start) {
    // CCD++ starts as LIBPMF does: items at zero, so that the first residuals are the ratings
    // themselves, and users' entries not negative, so that the first column, fitted from them,
    // starts near the ratings' own direction (uncentred ratings are mostly one sign). From signed
    // users, one inner pass fits each column far from its best: on Netflix-shaped ratings at
    // k = 40 the test RMSE after one epoch was 1.68, against 0.335 (LIBPMF's: 0.335).
    if (config.update == UpdateRule::kCcd && side == Side::kItem) {
      std::fill_n(row, config.rank, 0.0f);
      return;
    }
    init_row(row, config.rank, config.seed, side, id, config.init_scale.value_or(0.0f));
    if (config.update == UpdateRule::kCcd)
      for (std::uint32_t t = 0; t < config.rank; ++t) row[t] = std::abs(row[t]);
    return;
  }
  const MfModel& m = *config.start;
  const bool user = side == Side::kUser;
  if (user && !m.user_ids.empty()) {  // a start of some users only: row of dense user `id`
    const auto at = std::lower_bound(m.user_ids.begin(), m.user_ids.end(), id);
    if (at == m.user_ids.end() || *at != id)
      throw std::logic_error("start_row: user " + std::to_string(id) + " is not among this process's users");
    id = static_cast<std::uint32_t>(at - m.user_ids.begin());
  }
  const std::vector<float>& factors = user ? m.user_factors : m.item_factors;
  std::copy_n(factors.begin() + std::ptrdiff_t{id} * m.rank, m.rank, row);
  if (m.biases) row[tail + kBiasAt] = (user ? m.user_bias : m.item_bias)[id];
  const std::vector<float>& sums = user ? m.user_sums : m.item_sums;
  if (!sums.empty()) std::copy_n(sums.begin() + std::ptrdiff_t{id} * MfModel::kSumsPerRow, MfModel::kSumsPerRow, row + tail + kFactorSumAt);
}

}  // namespace gyre::mf
