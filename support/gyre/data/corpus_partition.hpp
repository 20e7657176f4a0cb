// gyre/data/corpus_partition.hpp — token-balanced document shards of a corpus and their partition directory.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <vector>

#include "gyre/data/corpus.hpp"
#include "gyre/model/row_blocks.hpp"

namespace gyre::data {

// Documents are dealt greedily, largest first to the least loaded part (ties by document
// index, then by part index), so every run gives the same shards. Each shard keeps its
// documents in input order, the full vocabulary and the original doc_ids.
std::vector<Corpus> shard_corpus(const Corpus& corpus, std::uint32_t parts);

// max shard tokens / mean shard tokens (1.0 is perfect balance; also for no shards or tokens).
double token_balance(std::span<const Corpus> shards);

// The shards back as one corpus, documents ordered by doc id (ties: shard order), which
// restores the input order of every reader's doc ids.
Corpus merge_corpus_shards(std::span<const Corpus> shards);

// A corpus partition directory:
//   part-NNNNN.shard  one binary shard file per part (kind 2, see shard_file.hpp)
//   vocab.txt         the vocabulary, one word per line (line i = word id i-1)
//   word_counts.txt   one line per word id: its tokens in the whole corpus, so a process that
//                     loads only its own shard still knows the global counts words are blocked by
//   manifest.json     kind "corpus" (see manifest.hpp), written last
// The shards must share one vocabulary.
void write_corpus_partition(const std::filesystem::path& dir, std::span<const Corpus> shards);

// Shard `part` with the vocabulary, checked against the manifest (documents, tokens, checksum,
// vocabulary size); throws gyre::InputError naming the file at fault.
Corpus read_corpus_shard(const std::filesystem::path& dir, std::uint32_t part);
std::vector<Corpus> read_corpus_partition(const std::filesystem::path& dir);

// What one process of a job needs of a corpus partition: shard `part` and the whole corpus's
// statistics, from that shard, vocab.txt, word_counts.txt and the manifest only (no other shard
// is opened). nullopt for a partition whose manifest lacks doc_id_limit (written before it was
// recorded): read it whole instead.
struct CorpusPart {
  Corpus shard;                            // with the vocabulary
  std::vector<std::uint64_t> word_counts;  // tokens of each word id in the whole corpus
  std::uint64_t docs = 0, tokens = 0;      // in the whole corpus
  std::uint64_t doc_id_limit = 0;          // one past the largest document id of the whole corpus
  std::uint32_t parts = 0;                 // shards in the partition
};
std::optional<CorpusPart> read_corpus_part(const std::filesystem::path& dir, std::uint32_t part);

// DIR/word_counts.txt, checked against the manifest (one line per word, summing to its tokens).
std::vector<std::uint64_t> read_word_counts(const std::filesystem::path& dir);

// blocks.txt: one line per word id, "block row" as in gyre::model::RowBlocks (written atomically).
void write_word_blocks(const std::filesystem::path& file, const model::RowBlocks& blocks);

}  // namespace gyre::data
