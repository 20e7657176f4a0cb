// apps/lda/vocabulary_map.cpp — word ids of a separately read corpus translated to a model's, checked or matched by word.
#include "lda/vocabulary_map.hpp"

#include <limits>
#include <unordered_map>

#include "gyre/base/input_error.hpp"

namespace gyre::lda {
namespace {

constexpr std::uint32_t kUnknown = std::numeric_limits<std::uint32_t>::max();

// Corpus word id → model word id (kUnknown where the model lacks the word).
std::vector<std::uint32_t> id_translation(const data::Corpus& corpus, const std::vector<std::string>& model_vocab,
                                          bool by_id, const std::filesystem::path& source) {
  std::vector<std::uint32_t> to_model(corpus.vocab_size(), kUnknown);
  if (by_id) {
    if (corpus.vocab.size() != model_vocab.size())
      throw InputError(source, 0,
                       "the model's vocabulary of " + std::to_string(model_vocab.size()) +
                           " words (word ids are positions in it)",
                       "a vocabulary of " + std::to_string(corpus.vocab.size()) + " words");
    for (std::uint32_t w = 0; w < corpus.vocab_size(); ++w) {
      if (!model_vocab[w].empty() && model_vocab[w] != corpus.vocab[w])
        throw InputError(source, 0, "the model's vocabulary: word id " + std::to_string(w) + " is \"" + model_vocab[w] + "\"",
                         "\"" + corpus.vocab[w] + "\"");
      to_model[w] = w;
    }
    return to_model;
  }
  std::unordered_map<std::string, std::uint32_t> model_ids;
  for (std::uint32_t w = 0; w < model_vocab.size(); ++w)
    if (!model_vocab[w].empty()) model_ids.emplace(model_vocab[w], w);
  bool shared = false;
  for (std::uint32_t w = 0; w < corpus.vocab_size(); ++w)
    if (const auto it = model_ids.find(corpus.vocab[w]); it != model_ids.end()) to_model[w] = it->second, shared = true;
  if (!shared)
    throw InputError(source, 0, "text sharing words with the model's vocabulary of " +
                                    std::to_string(model_vocab.size()) + " words",
                     "none of its " + std::to_string(corpus.vocab.size()) + " words");
  return to_model;
}

}  // namespace

MappedCorpus map_onto_vocabulary(const data::Corpus& corpus, const std::vector<std::string>& model_vocab, bool by_id,
                                 const std::filesystem::path& source) {
  const auto to_model = id_translation(corpus, model_vocab, by_id, source);
  MappedCorpus out;
  out.corpus.vocab = model_vocab;
  out.corpus.words.reserve(corpus.tokens());
  std::vector<std::uint32_t> doc;
  for (std::uint64_t d = 0; d < corpus.docs(); ++d) {
    doc.clear();
    for (const std::uint32_t w : corpus.doc(d)) {
      if (to_model[w] == kUnknown)
        ++out.unknown_tokens;
      else
        doc.push_back(to_model[w]);
    }
    out.corpus.add_doc(corpus.doc_ids[d], doc);
  }
  return out;
}

MappedCorpus load_onto_vocabulary(const std::filesystem::path& path, const data::CorpusOptions& options,
                                  const std::vector<std::string>& model_vocab) {
  return map_onto_vocabulary(data::load_corpus(path, options), model_vocab, !data::reads_as_text(path, options), path);
}

}  // namespace gyre::lda
