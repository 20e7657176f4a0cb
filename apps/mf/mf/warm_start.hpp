// apps/mf/mf/warm_start.hpp — continuing training from a saved model (--init-model): its settings, its rows, where a row starts.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>

#include "gyre/data/id_space.hpp"
#include "mf/config.hpp"
#include "mf/model_io.hpp"
#include "mf/factor_init.hpp"
#include "mf/sgd_update.hpp"
#include "mf/trainer.hpp"

namespace gyre::mf {

// Makes `config` continue `saved` (read from `dir` by read_model): the rank, biases, seed,
// learning rate, decay and regularisation come from the model; a flag the user gave (`given`
// says which, by long name such as "--rank") that disagrees with the model is an error naming
// model.json, the flag and both values, rather than a silently different continuation.
// --epochs stays the number of epochs to add. Throws std::invalid_argument (exit 2).
void continue_settings(MfConfig& config, const MfModel& saved, const std::filesystem::path& dir,
                       const std::function<bool(const char* flag)>& given);

// The saved model's rows in the dense id space of this run's input (`ids`), so that row d is
// dense user (item) d: what the kernels and the item blocks start from. Every user and item
// of the training and test data must be in the model, since a continued model has no
// meaningful start for a newcomer; the first one missing is an error naming the id and the
// model's factor file. Rows of the model that this run's data lacks are left out (the new
// model covers this run's ids, as any gyre-mf model does). With `keep_user` (by dense id), only
// those users' rows are kept: a process of a job keeps the users it trains (user_ids then
// lists their dense ids), and `saved` need hold no others.
std::shared_ptr<const MfModel> dense_start(const MfModel& saved, const data::IdTables& ids,
                                           const std::filesystem::path& dir, const KeepUser& keep_user = {});

// Fills the factor row of dense user or item `id`, and its tail from column `tail` (the bias,
// AdaGrad's sums), as training starts it: from config.start when warm-starting, else from the
// seed (factor_init).
void start_row(const MfConfig& config, Side side, std::uint32_t id, float* row, std::size_t tail);

}  // namespace gyre::mf
