// apps/lda/corpus_flags.hpp — how gyre-lda's corpus flags (--format, --vocab, --stop-words, --min-count) become reader options, for every corpus it reads.
#pragma once

#include <cstdint>
#include <string>

#include "gyre/data/corpus_io.hpp"

namespace gyre::lda {

// `format`: auto|uci|text|docword; `stop_words`: "default" (the English list), "none", or a file
// of them (read here: a bad one throws gyre::InputError).
data::CorpusOptions corpus_options(const std::string& format, const std::string& vocab, const std::string& stop_words,
                                   std::uint64_t min_count = 1);

}  // namespace gyre::lda
