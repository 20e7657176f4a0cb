// apps/lda/lda/corpus_input.hpp — what a gyre-lda process reads of its corpus: the whole of it, or across processes from a partition of one shard each, its own shard and the global statistics.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <vector>

#include "gyre/data/corpus.hpp"
#include "gyre/data/corpus_io.hpp"

namespace gyre::lda {

struct CorpusInput {
  // The whole corpus; or, with `shard_only`, this process's documents: data::shard_corpus's part
  // `rank`, which a corpus partition of one shard per process holds as its shard `rank`.
  data::Corpus corpus;
  bool shard_only = false;
  std::vector<std::uint64_t> word_counts;  // tokens of each word id in the whole corpus
  std::uint64_t docs = 0, tokens = 0;      // in the whole corpus
  std::uint64_t doc_id_limit = 0;          // one past the largest document id of the whole corpus
};

// Process `rank` of `processes` (nullopt: one process) reads `path`. A corpus partition
// directory with exactly one shard per process, whose manifest records the document-id bound,
// is read shard by shard: this process opens only its shard, the vocabulary, the word counts
// and the manifest. Anything else is read whole (data::load_corpus) and the statistics counted.
CorpusInput load_corpus_input(const std::filesystem::path& path, const data::CorpusOptions& options,
                              std::optional<int> rank, int processes);

}  // namespace gyre::lda
