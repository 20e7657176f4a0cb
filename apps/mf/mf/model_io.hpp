// apps/mf/mf/model_io.hpp — the factor files gyre-mf writes (format documented in the README).
#pragma once

#include <filesystem>

#include "gyre/base/output_directory.hpp"

#include "mf/trainer.hpp"

namespace gyre::mf {

// Version 2 adds the training record (epochs, learning_rate, lr_decay, lambda, lambda_bias,
// seed, phases) that --init-model continues from; version 3 the update rule, the ratings'
// scale and AdaGrad's sums. Versions 1 and 2 (SGD) can still be read.
inline constexpr int kModelVersion = 3;

// Writes the model directory `dir` as a whole (gyre::OutputDirectory): a new one, or one that
// replaces an older model there in one step, so readers never see a mix:
//   model.json        {"format":"gyre-mf","version":3,"rank":k,"biases":b,"mean":μ,"users":U,"items":I,
//                      "epochs":E,"learning_rate":r,"lr_decay":g,"lambda":λ,"lambda_bias":λb,"seed":s,
//                      "phases":n,"update":"adagrad"|"sgd","rating_scale":σ}
//                     (n: rotation phases run, training and evaluation)
//   user_factors.tsv  one line per user with a factor row: id, [bias,] k factors — tab separated
//   item_factors.tsv  one line per item of the training or test data, same layout
//   user_adagrad.tsv, item_adagrad.tsv   (AdaGrad only) id, the factors' sum, the bias's sum
// Ids are those of the input (MfModel::restore_ids); floats use the shortest text that reads back
// to the same bits, and nothing depends on time, host or worker count, so two runs that agree
// bitwise write identical files.
void write_model(const std::filesystem::path& dir, const MfModel& model);

// Reads a directory written by write_model, ids as in the files (item_ids always set). Throws
// gyre::InputError naming the file (and line) for a missing file, a header that is not
// gyre-mf's, a row of the wrong width, a non-finite value, ids out of order or counts that
// disagree with model.json.
MfModel read_model(const std::filesystem::path& dir);

// What a gyre-mf model directory holds: an existing --out is replaced only if it holds nothing else.
const DirectoryKind& model_directory();

}  // namespace gyre::mf
