// apps/mf/mf/model_io.hpp — the factor files gyre-mf writes (format documented in the README).
#pragma once

#include <filesystem>

#include "mf/trainer.hpp"

namespace gyre::mf {

// Writes into `dir` (created if missing):
//   model.json        {"format":"gyre-mf","version":1,"rank":k,"biases":b,"mean":μ,"users":U,"items":I}
//   user_factors.tsv  one line per user with a factor row: id, [bias,] k factors — tab separated
//   item_factors.tsv  one line per item of the id space, same layout
// Ids are the 0-based ids of the training data; floats use the shortest text that reads back
// to the same bits, and nothing depends on time, host or worker count, so two runs that agree
// bitwise write identical files. Each file is written under a temporary name and renamed.
void write_model(const std::filesystem::path& dir, const MfModel& model);

}  // namespace gyre::mf
