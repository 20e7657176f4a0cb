// apps/lda/corpus_input.cpp — the whole corpus, or one process's shard of a partition with the global statistics.
#include "lda/corpus_input.hpp"

#include <algorithm>
#include <span>
#include <system_error>

#include "gyre/data/corpus_partition.hpp"
#include "gyre/data/manifest.hpp"

namespace gyre::lda {

CorpusInput load_corpus_input(const std::filesystem::path& path, const data::CorpusOptions& options,
                              std::optional<int> rank, int processes) {
  // Only where load_corpus would take the directory for a partition.
  if (rank && options.format == data::CorpusFormat::automatic && data::is_partition_directory(path) &&
      data::read_manifest(path, "corpus").shards.size() == static_cast<std::size_t>(processes)) {
    if (auto part = data::read_corpus_part(path, static_cast<std::uint32_t>(*rank))) {
      CorpusInput in;
      in.corpus = std::move(part->shard);
      in.shard_only = true;
      in.word_counts = std::move(part->word_counts);
      in.docs = part->docs;
      in.tokens = part->tokens;
      in.doc_id_limit = part->doc_id_limit;
      return in;
    }
  }
  CorpusInput in;
  in.corpus = data::load_corpus(path, options);
  in.word_counts = data::count_words(std::span(&in.corpus, 1));
  in.docs = in.corpus.docs();
  in.tokens = in.corpus.tokens();
  for (const std::uint64_t id : in.corpus.doc_ids) in.doc_id_limit = std::max(in.doc_id_limit, id + 1);
  return in;
}

}  // namespace gyre::lda
