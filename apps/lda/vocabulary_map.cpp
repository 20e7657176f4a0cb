// apps/lda/vocabulary_map.cpp — word ids of a separately read corpus translated to a model's, checked or matched by word.
#include "lda/vocabulary_map.hpp"

#include <unordered_map>

#include "gyre/base/input_error.hpp"

namespace gyre::lda {

std::vector<std::uint32_t> model_word_ids(const data::Corpus& corpus, const std::vector<std::string>& model_vocab,
                                          bool by_id, const std::filesystem::path& source) {
  std::vector<std::uint32_t> to_model(corpus.vocab_size(), kNotInModel);
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

MappedCorpus map_onto_vocabulary(const data::Corpus& corpus, const std::vector<std::string>& model_vocab, bool by_id,
                                 const std::filesystem::path& source) {
  const auto to_model = model_word_ids(corpus, model_vocab, by_id, source);
  MappedCorpus out;
  out.corpus.vocab = model_vocab;
  out.corpus.words.reserve(corpus.tokens());
  std::vector<std::uint32_t> doc;
  for (std::uint64_t d = 0; d < corpus.docs(); ++d) {
    doc.clear();
    for (const std::uint32_t w : corpus.doc(d)) {
      if (to_model[w] == kNotInModel)
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
