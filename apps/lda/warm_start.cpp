// apps/lda/warm_start.cpp — starting topics folded in against a trained model.
#include "lda/warm_start.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "lda/model_io.hpp"
#include "lda/vocabulary_map.hpp"

namespace gyre::lda {

WarmStart::WarmStart(FixedTopics model, std::vector<std::uint32_t> model_word)
    : model_(std::move(model)), model_word_(std::move(model_word)) {
  for (const std::uint32_t w : model_word_)
    if (w != kNotInModel && w >= model_.vocab())
      throw std::invalid_argument("word id " + std::to_string(w) + " outside the model's vocabulary");
}

void WarmStart::draw(std::span<const std::uint32_t> words, Rng& rng, std::span<std::uint32_t> topics) const {
  if (topics.size() != words.size()) throw std::invalid_argument("a topic per word is needed");
  const std::uint32_t K = model_.topics();
  std::vector<std::uint32_t> known;  // the model's ids of the words it knows, in order
  for (const std::uint32_t w : words) {
    if (w >= model_word_.size()) throw std::invalid_argument("word id " + std::to_string(w) + " outside the corpus");
    if (model_word_[w] != kNotInModel) known.push_back(model_word_[w]);
  }
  std::vector<std::int32_t> counts(K);
  std::vector<std::uint32_t> folded(known.size());
  fold_in(model_, known, kWarmStartSweeps, rng, counts, folded);
  // The document's law p(k) ∝ n_dk + α, for the words the model cannot place.
  std::vector<double> running(K);
  double total = 0;
  for (std::uint32_t k = 0; k < K; ++k) running[k] = total += counts[k] + model_.alpha();
  std::size_t next = 0;
  for (std::size_t i = 0; i < words.size(); ++i) {
    if (model_word_[words[i]] != kNotInModel) {
      topics[i] = folded[next++];
      continue;
    }
    topics[i] = draw_from_running(running, rng);
  }
}

std::shared_ptr<const WarmStart> load_warm_start(const std::filesystem::path& model_dir, const data::Corpus& corpus,
                                                 bool by_id, const std::filesystem::path& source) {
  LdaModel model = read_model(model_dir);
  auto model_word = model_word_ids(corpus, model.vocab, by_id, source);
  FixedTopics topics(model.topics, model.alpha, model.beta, model.word_topic);
  return std::make_shared<const WarmStart>(std::move(topics), std::move(model_word));
}

}  // namespace gyre::lda
