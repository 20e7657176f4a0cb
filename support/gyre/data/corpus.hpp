// gyre/data/corpus.hpp — a bag-of-words corpus in memory: documents as runs of word ids, and the vocabulary.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace gyre::data {

// Tokens are stored one per occurrence (a word with count 3 in a document appears 3 times),
// grouped by document: document d is words[doc_begin[d] .. doc_begin[d+1]). Within a document
// the order is the input's (bag-of-words inputs: by word id, repeated count times).
struct Corpus {
  std::vector<std::string> vocab;          // word id → word; its size is the id space V
  std::vector<std::uint64_t> doc_begin{0};  // size docs()+1
  std::vector<std::uint32_t> words;        // every token's word id, < vocab.size()
  std::vector<std::uint64_t> doc_ids;      // per document: its id in the whole input (0-based,
                                           // input order), which shards keep

  std::uint64_t docs() const noexcept { return doc_begin.size() - 1; }
  std::uint64_t tokens() const noexcept { return words.size(); }
  std::uint32_t vocab_size() const noexcept { return static_cast<std::uint32_t>(vocab.size()); }
  std::span<const std::uint32_t> doc(std::uint64_t d) const {
    return {words.data() + doc_begin[d], words.data() + doc_begin[d + 1]};
  }
  // Appends a document (its id: `id`); the words must already be < vocab.size().
  void add_doc(std::uint64_t id, std::span<const std::uint32_t> doc_words);
};

// Tokens per word id over a set of corpora (shards of one corpus share the vocabulary).
std::vector<std::uint64_t> count_words(std::span<const Corpus> shards);

}  // namespace gyre::data
