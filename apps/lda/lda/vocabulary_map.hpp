// apps/lda/lda/vocabulary_map.hpp — a corpus read on its own, put onto a trained model's word ids (held-out documents, documents to infer).
#pragma once

#include <cstdint>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include "gyre/data/corpus.hpp"
#include "gyre/data/corpus_io.hpp"

namespace gyre::lda {

struct MappedCorpus {
  data::Corpus corpus;                // the model's vocabulary and word ids; every input document, in order
  std::uint64_t unknown_tokens = 0;   // tokens of words the model does not know, left out
};

// `model_vocab` is the model's word id → word ("" for a word whose name the model does not
// record: it is never matched by name). A corpus whose words are ids into a vocabulary file
// (`by_id`: uci, docword, a partition; data::reads_as_text says which) must come with the model's
// vocabulary: as many words, and the same word at every id the model names, else ids would mean
// other words without any sign. Raw text is matched word by word; tokens of other words are left
// out and counted, and their documents kept (possibly empty, so that outputs keep one line per
// input document). Throws gyre::InputError naming `source` when the vocabularies differ or the
// text shares no word with the model.
MappedCorpus map_onto_vocabulary(const data::Corpus& corpus, const std::vector<std::string>& model_vocab, bool by_id,
                                 const std::filesystem::path& source);

// Of every word id of `corpus`, the model's id of the same word, or kNotInModel, by the rules
// and with the throws of map_onto_vocabulary (which applies this to every token).
inline constexpr std::uint32_t kNotInModel = std::numeric_limits<std::uint32_t>::max();
std::vector<std::uint32_t> model_word_ids(const data::Corpus& corpus, const std::vector<std::string>& model_vocab,
                                          bool by_id, const std::filesystem::path& source);

// The corpus at `path` (data::load_corpus), mapped as above: by word when it reads as text.
MappedCorpus load_onto_vocabulary(const std::filesystem::path& path, const data::CorpusOptions& options,
                                  const std::vector<std::string>& model_vocab);

}  // namespace gyre::lda
