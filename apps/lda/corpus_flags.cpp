// apps/lda/corpus_flags.cpp — reader options from gyre-lda's corpus flags.
#include "corpus_flags.hpp"

namespace gyre::lda {

data::CorpusOptions corpus_options(const std::string& format, const std::string& vocab, const std::string& stop_words,
                                   std::uint64_t min_count) {
  data::CorpusOptions opts;
  using data::CorpusFormat;
  opts.format = format == "uci"       ? CorpusFormat::uci
                : format == "text"    ? CorpusFormat::text
                : format == "docword" ? CorpusFormat::docword
                                      : CorpusFormat::automatic;
  opts.vocab = vocab;
  opts.tokenizer.min_count = min_count;
  if (stop_words == "default") {
    for (auto& w : data::default_stop_words()) opts.tokenizer.stop_words.insert(w);
  } else if (stop_words != "none") {
    for (auto& w : data::read_stop_words(stop_words)) opts.tokenizer.stop_words.insert(w);
  }
  return opts;
}

}  // namespace gyre::lda
