// apps/mf/mf/model_io.hpp — the factor files gyre-mf writes (format documented in the README).
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "gyre/base/output_directory.hpp"

#include "mf/trainer.hpp"

namespace gyre::mf {

// Version 2 adds the training record (epochs, learning_rate, lr_decay, lambda, lambda_bias,
// seed, phases) that --init-model continues from; version 3 the update rule, the ratings'
// scale and AdaGrad's sums. Versions 1 and 2 (SGD) can still be read. Version 4 is the same
// model in parts (write_model_part), which a job of several processes writes.
inline constexpr int kModelVersion = 3;
inline constexpr int kPartsVersion = 4;

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

// A model in parts (version 4), as every rank of a job writes it with no rank gathering it:
//   model.json    version 3's fields, and "parts": [{"part": r, "users": n, "items": m,
//                 "files": {"user_factors": F, "item_factors": F[, "user_adagrad": F,
//                 "item_adagrad": F]}}, … one per rank], F = {"file", "bytes", "crc32c"}
//   user_factors.part-RRRRR.tsv, item_factors.part-RRRRR.tsv[, user_adagrad…, item_adagrad…]
//                 part r's rows, in version 3's line format, ids ascending within the file
// Every user and every item is in exactly one part. Concatenating a kind's part files and
// sorting them by id gives version 3's file; `gyre-mf export` writes that layout.
//
// One side of a part as it lies in memory, in the order it is written (ids ascending): row r is
// the input's id ids[r], its factors at rows[r], its tail (bias, AdaGrad's sums) `tail` floats on.
struct PartSide {
  std::vector<std::uint32_t> ids;
  std::vector<const float*> rows;
  std::size_t tail = 0;
};
// Rank r writes its part's files (its user rows, the item rows it holds at the end) into `dir`
// straight from where training left them, and returns the manifest's entry for them (as JSON
// text). `header` gives the rank, biases and update rule.
std::string write_model_part(const std::filesystem::path& dir, int part, const MfModel& header, const PartSide& users,
                             const PartSide& items);
// Rank 0 writes model.json last, from `header` (every field but the rows) and each rank's entry.
void write_parts_manifest(const std::filesystem::path& dir, const MfModel& header, const std::vector<std::string>& parts);

// Which user rows a reader keeps (by id as in the files); every row when empty. A process of a
// job that continues a model keeps its own users only.
using KeepUser = std::function<bool(std::uint32_t user)>;

// Reads a directory written by write_model or in parts, ids as in the files (item_ids always
// set). Throws gyre::InputError naming the file (and line) for a missing file, a header that
// is not gyre-mf's, a row of the wrong width, a non-finite value, ids out of order or counts
// that disagree with model.json; of a model in parts, also a part missing, torn (not the
// length model.json records) or foreign (not its checksum), or two parts holding one id.
MfModel read_model(const std::filesystem::path& dir, const KeepUser& keep_user = {});

// A count of phases `file` records under `key` after `epochs` epochs of `per_epoch` training
// phases each: at least the training phases, at most one evaluation an epoch more. A count
// outside that is not one gyre-mf wrote, and would place the rotation's ring anywhere.
void check_phase_count(const std::filesystem::path& file, const char* key, std::uint64_t phases, std::uint64_t epochs,
                       std::uint64_t per_epoch);

// What a gyre-mf model directory holds: an existing --out is replaced only if it holds nothing else.
const DirectoryKind& model_directory();

}  // namespace gyre::mf
