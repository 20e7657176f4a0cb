// gyre/data/corpus.cpp — building a corpus document by document, and word counts over shards.
#include "gyre/data/corpus.hpp"

#include <algorithm>
#include <functional>
#include <stdexcept>
#include <string>

namespace gyre::data {

void Corpus::add_doc(std::uint64_t id, std::span<const std::uint32_t> doc_words) {
  // One pass over the words is cheap next to whatever produced them, and a bad id here would
  // otherwise surface far away as an out-of-bounds model row.
  const std::uint32_t space = vocab_size();
  for (const std::uint32_t w : doc_words)
    if (w >= space)
      throw std::invalid_argument("Corpus::add_doc: word id " + std::to_string(w) + " outside the vocabulary of " +
                                  std::to_string(space) + " words");
  const std::less<const std::uint32_t*> before;  // a total order even for unrelated pointers
  if (!doc_words.empty() && !before(doc_words.data(), words.data()) &&
      before(doc_words.data(), words.data() + words.size())) {
    // A span into our own tokens would dangle once insert() reallocates.
    const std::vector<std::uint32_t> copy(doc_words.begin(), doc_words.end());
    words.insert(words.end(), copy.begin(), copy.end());
  } else {
    words.insert(words.end(), doc_words.begin(), doc_words.end());
  }
  doc_begin.push_back(words.size());
  doc_ids.push_back(id);
}

std::vector<std::uint64_t> count_words(std::span<const Corpus> shards) {
  std::uint32_t space = 0;
  for (const Corpus& s : shards) space = std::max(space, s.vocab_size());
  std::vector<std::uint64_t> counts(space, 0);
  for (const Corpus& s : shards)
    for (const std::uint32_t w : s.words) {
      if (w >= space) throw std::invalid_argument("count_words: word id outside the vocabulary");
      ++counts[w];
    }
  return counts;
}

}  // namespace gyre::data
