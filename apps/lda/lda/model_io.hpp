// apps/lda/lda/model_io.hpp — the files gyre-lda writes: counts as sparse TSV, top words, and a JSON header.
#pragma once

#include <cstdint>
#include <filesystem>
#include <utility>

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

// Version 2: the same model in parts, as every rank of a job writes it with no rank gathering it:
// DIR/word_topic.part-RRRRR.tsv, DIR/doc_topic.part-RRRRR.tsv   part r's lines, in version 1's
//                     format: the words of the blocks rank r holds at the end, its documents
// DIR/topics.txt      as version 1's, from every part's candidates
// DIR/model.json      version 1's fields, and "parts": [{"part": r, "docs": n, "files":
//                     {"word_topic": F, "doc_topic": F}}, … one per rank], F = {"file", "bytes", "crc32c"}
// Every word and document is in one part; concatenating a kind's files and sorting by id gives
// version 1's file.
inline constexpr int kPartsVersion = 2;

// Rank r writes its part's files into `dir` (`rows`: a model whose word_topic holds only the
// words of its blocks, doc_topic its documents) and returns the manifest's entry for them, with
// its candidates for each topic's `top_words` top words (as JSON text).
std::string write_model_part(const std::filesystem::path& dir, int part, const LdaModel& rows, std::size_t top_words);
// Rank 0 writes topics.txt and model.json last, from `header` (topics, priors, vocabulary,
// tokens, totals, log-likelihood) and each rank's entry.
// Returns the top words it wrote.
std::vector<std::vector<std::string>> write_parts_manifest(const std::filesystem::path& dir, const LdaModel& header,
                                                           const std::vector<std::string>& parts, std::size_t top_words);

// What inference needs of a model directory written by write_model: topics, vocabulary size,
// α, β (model.json) and the word-topic counts (word_topic.tsv), with the topic totals their
// column sums. A word without counts has no line, so its name is unknown: vocab holds "" there.
// doc_ids and doc_topic stay empty. Throws gyre::InputError naming the file and line of
// anything that is not what write_model writes.
LdaModel read_model(const std::filesystem::path& dir);

// Writes the model in `dir` (either version) as version 1's single files at `out`: what
// `gyre-lda export` does. Throws gyre::InputError as read_model does.
void export_model(const std::filesystem::path& dir, const std::filesystem::path& out);

// What a gyre-lda model directory holds: an existing --out is replaced only if it holds nothing else.
const DirectoryKind& model_directory();

// The top words of every topic, as "word:p" strings.
std::vector<std::vector<std::string>> top_words(const LdaModel& model, std::size_t n);
// Per topic, the `n` words of `model` with the highest counts (count, word id), ties by id: what
// one part offers for the whole model's top words.
using TopCandidates = std::vector<std::vector<std::pair<std::int32_t, std::uint32_t>>>;
TopCandidates top_candidates(const LdaModel& model, std::size_t n);
// The top words from every part's candidates (each top_candidates of a part, with the same n);
// `model` gives the vocabulary, β and the topic totals.
std::vector<std::vector<std::string>> top_words(const LdaModel& model, const std::vector<TopCandidates>& parts, std::size_t n);

}  // namespace gyre::lda
