// apps/lda/lda/warm_start.hpp — the initial topics of a run that continues from a trained model (gyre-lda --init-model).
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <vector>

#include "gyre/data/corpus.hpp"
#include "lda/fold_in.hpp"
#include "lda/random.hpp"

namespace gyre::lda {

// A fresh run starts every token at a uniform topic; a warm start folds each document in
// against the trained model's fixed φ̂ instead (fold_in, kWarmStartSweeps sweeps) and starts
// its tokens where that leaves them. A token of a word the model does not know then starts at
// a draw from its document's folded-in counts, p(k) ∝ n_dk + α. Word-topic counts are rebuilt
// from those topics as in a fresh start, so training goes on from the model's topics on
// whatever corpus it is given, with the corpus's own vocabulary.
//
// Each document draws from its own stream, as fresh initial topics do, so the start is the same
// however the corpus is sharded.
inline constexpr int kWarmStartSweeps = 2;

class WarmStart {
 public:
  // `model_word`: of every word id of the corpus to train on, the model's id of the same word
  // or kNotInModel (model_word_ids). Throws std::invalid_argument on an id outside the model.
  WarmStart(FixedTopics model, std::vector<std::uint32_t> model_word);

  // The model's K and priors.
  std::uint32_t topics() const noexcept { return model_.topics(); }
  double alpha() const noexcept { return model_.alpha(); }
  double beta() const noexcept { return model_.beta(); }
  // Words of the corpus to train on.
  std::uint32_t vocab() const noexcept { return static_cast<std::uint32_t>(model_word_.size()); }
  // Sets the starting topic of each of a document's `words` (corpus word ids) in `topics`.
  // Reentrant: documents may be drawn in parallel, each with its own `rng`.
  void draw(std::span<const std::uint32_t> words, Rng& rng, std::span<std::uint32_t> topics) const;

 private:
  FixedTopics model_;
  std::vector<std::uint32_t> model_word_;
};

// The warm start from the model in `model_dir` (read_model) for training on `corpus`: word ids
// are matched as map_onto_vocabulary matches them (`by_id` for uci, docword and partitions; by
// spelling for text; `source` names the corpus in errors). Throws gyre::InputError on a model
// that is not gyre-lda's or a vocabulary that does not fit.
std::shared_ptr<const WarmStart> load_warm_start(const std::filesystem::path& model_dir, const data::Corpus& corpus,
                                                 bool by_id, const std::filesystem::path& source);

}  // namespace gyre::lda
