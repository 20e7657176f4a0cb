// apps/lda/lda/model_io.hpp — the files gyre-lda writes: counts as sparse TSV, top words, and a JSON header.
#pragma once

#include <filesystem>

#include "gyre/base/output_directory.hpp"
#include <string>
#include <vector>

#include "lda/trainer.hpp"

namespace gyre::lda {

// The directory is written as a whole (gyre::OutputDirectory): new, or replacing an older model
// in one step, so readers never see a mix of two runs' files.
// DIR/word_topic.tsv  one line per word with any count: "word_id<TAB>word<TAB>k:n k:n ..."
//                     (topics ascending, only non-zero counts n_wk)
// DIR/doc_topic.tsv   one line per document: "doc_id<TAB>k:n k:n ..." (doc_id: 0-based index of the
//                     document in the input, as kept by shards; only non-zero n_dk)
// DIR/topics.txt      per topic: "topic k<TAB>n_k tokens<TAB>word:p word:p ..." with the top words by
//                     φ_k(w) = (n_wk + β)/(n_k + Vβ)
// DIR/model.json      {"format":"gyre-lda","version":1,"topics","vocab","alpha","beta","tokens","docs",
//                     "loglik_per_token"}
void write_model(const std::filesystem::path& dir, const LdaModel& model, std::size_t top_words);

// What inference needs of a model directory written by write_model: topics, vocabulary size,
// α, β (model.json) and the word-topic counts (word_topic.tsv), with the topic totals their
// column sums. A word without counts has no line, so its name is unknown: vocab holds "" there.
// doc_ids and doc_topic stay empty. Throws gyre::InputError naming the file and line of
// anything that is not what write_model writes.
LdaModel read_model(const std::filesystem::path& dir);

// What a gyre-lda model directory holds: an existing --out is replaced only if it holds nothing else.
const DirectoryKind& model_directory();

// The top words of every topic, as "word:p" strings.
std::vector<std::vector<std::string>> top_words(const LdaModel& model, std::size_t n);

}  // namespace gyre::lda
