// gyre/data/corpus_partition.cpp — token-balanced corpus shards, and the corpus partition directory written and checked.
#include "gyre/data/corpus_partition.hpp"

#include <algorithm>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>

#include "gyre/base/input_error.hpp"
#include "gyre/data/corpus_io.hpp"
#include "gyre/data/manifest.hpp"
#include "gyre/data/number_lines.hpp"
#include "gyre/data/partition_files.hpp"
#include "gyre/data/text_input.hpp"

namespace gyre::data {
namespace {

namespace fs = std::filesystem;

constexpr const char* kVocabName = "vocab.txt";
constexpr const char* kWordCountsName = "word_counts.txt";

std::vector<std::string> read_listed_vocab(const fs::path& dir, const Manifest& m) {
  const fs::path file = dir / kVocabName;
  std::vector<std::string> vocab = read_vocab(file);
  if (vocab.size() != m.vocab)
    throw InputError(file, 0, std::to_string(m.vocab) + " words as listed in " + kManifestName,
                     std::to_string(vocab.size()) + " words");
  return vocab;
}

Corpus read_corpus_shard(const fs::path& dir, const Manifest& m, const ShardEntry& entry) {
  CorpusShardFile shard = read_listed_file<Corpus>(dir, entry);
  if (shard.vocab_size != m.vocab)
    throw InputError(dir / entry.file, 0, "vocabulary size " + std::to_string(m.vocab) + " as listed in " + kManifestName,
                     std::to_string(shard.vocab_size));
  return std::move(shard.corpus);
}

}  // namespace

std::vector<Corpus> shard_corpus(const Corpus& corpus, std::uint32_t parts) {
  if (parts == 0) throw std::invalid_argument("shard_corpus: parts must be at least 1");
  if (corpus.docs() > std::numeric_limits<std::uint32_t>::max())
    throw std::invalid_argument("shard_corpus: more than 2^32 documents");
  // Documents are rows balanced by their tokens: the same LPT dealing as word blocks use.
  std::vector<std::uint64_t> tokens(corpus.docs());
  for (std::uint64_t d = 0; d < corpus.docs(); ++d) tokens[d] = corpus.doc_begin[d + 1] - corpus.doc_begin[d];
  const model::RowBlocks deal = model::RowBlocks::balance(tokens, parts);

  std::vector<Corpus> shards(parts);
  for (std::uint32_t p = 0; p < parts; ++p) {
    Corpus& s = shards[p];
    s.vocab = corpus.vocab;
    std::uint64_t shard_tokens = 0;
    for (const std::uint32_t d : deal.rows[p]) shard_tokens += tokens[d];
    s.words.reserve(shard_tokens);
    s.doc_begin.reserve(deal.rows[p].size() + 1);
    s.doc_ids.reserve(deal.rows[p].size());
    // rows[p] lists the documents by index, which is input order.
    for (const std::uint32_t d : deal.rows[p]) {
      const auto words = corpus.doc(d);
      s.words.insert(s.words.end(), words.begin(), words.end());
      s.doc_begin.push_back(s.words.size());
      s.doc_ids.push_back(corpus.doc_ids[d]);
    }
  }
  return shards;
}

double token_balance(std::span<const Corpus> shards) {
  std::vector<std::uint64_t> sizes;
  for (const Corpus& s : shards) sizes.push_back(s.tokens());
  return max_over_mean(sizes);
}

Corpus merge_corpus_shards(std::span<const Corpus> shards) {
  Corpus merged;
  if (shards.empty()) return merged;
  merged.vocab = shards.front().vocab;
  std::vector<std::span<const std::uint64_t>> ids;
  std::uint64_t tokens = 0;
  for (const Corpus& shard : shards) {
    if (shard.vocab_size() != merged.vocab_size())
      throw std::invalid_argument("merge_corpus_shards: shards disagree on the vocabulary");
    ids.emplace_back(shard.doc_ids);
    tokens += shard.tokens();
  }
  const auto order = merge_by_id(ids);
  merged.words.reserve(tokens);
  merged.doc_begin.reserve(order.size() + 1);
  merged.doc_ids.reserve(order.size());
  for (const MergedRecord& src : order) {
    const auto words = shards[src.shard].doc(src.index);
    merged.words.insert(merged.words.end(), words.begin(), words.end());
    merged.doc_begin.push_back(merged.words.size());
    merged.doc_ids.push_back(src.id);
  }
  return merged;
}

void write_corpus_partition(const fs::path& dir, std::span<const Corpus> shards) {
  if (shards.empty()) throw std::invalid_argument("write_corpus_partition: no shards");
  for (const Corpus& s : shards)
    if (s.vocab != shards.front().vocab)
      throw std::invalid_argument("write_corpus_partition: shards disagree on the vocabulary");
  Manifest m;
  m.vocab = shards.front().vocab_size();
  for (const Corpus& s : shards)
    for (const std::uint64_t id : s.doc_ids) m.doc_id_limit = std::max(m.doc_id_limit, id + 1);
  write_listed_shards(dir, shards, m);
  write_vocab(dir / kVocabName, shards.front().vocab);
  const std::vector<std::uint64_t> counts = count_words(shards);
  write_lines(dir / kWordCountsName, counts.size(),
              [&](std::size_t w, std::string& buffer) { append_number(buffer, counts[w]); });
  write_manifest(dir, m);
}

Corpus read_corpus_shard(const fs::path& dir, std::uint32_t part) {
  const Manifest m = read_manifest(dir, "corpus");
  Corpus shard = read_corpus_shard(dir, m, listed_part(dir, m, part));
  shard.vocab = read_listed_vocab(dir, m);
  return shard;
}

std::optional<CorpusPart> read_corpus_part(const fs::path& dir, std::uint32_t part) {
  const Manifest m = read_manifest(dir, "corpus");
  if (m.doc_id_limit == 0) return std::nullopt;
  CorpusPart p;
  p.parts = static_cast<std::uint32_t>(m.shards.size());
  p.docs = m.records;
  p.tokens = m.tokens;
  p.doc_id_limit = m.doc_id_limit;
  p.word_counts = read_word_counts(dir);
  p.shard = read_corpus_shard(dir, part);
  for (const std::uint64_t id : p.shard.doc_ids)
    if (id >= p.doc_id_limit)
      throw InputError(listed_shard(dir, listed_part(dir, m, part)), 0,
                       "document ids below " + std::to_string(p.doc_id_limit) + " (\"doc_id_limit\" in " + kManifestName + ")",
                       std::to_string(id));
  return p;
}

std::vector<Corpus> read_corpus_partition(const fs::path& dir) {
  const Manifest m = read_manifest(dir, "corpus");
  const std::vector<std::string> vocab = read_listed_vocab(dir, m);
  std::vector<Corpus> shards;
  shards.reserve(m.shards.size());
  std::vector<std::span<const std::uint64_t>> ids;
  for (const ShardEntry& e : m.shards) {
    shards.push_back(read_corpus_shard(dir, m, e));
    shards.back().vocab = vocab;
  }
  for (const Corpus& shard : shards) ids.emplace_back(shard.doc_ids);
  check_ids_unique(dir, m, ids, "document");
  return shards;
}

std::vector<std::uint64_t> read_word_counts(const fs::path& dir) {
  const Manifest m = read_manifest(dir, "corpus");
  const fs::path file = dir / kWordCountsName;
  std::vector<std::uint64_t> counts(m.vocab);
  std::uint64_t total = 0;
  read_number_lines<1>(file, m.vocab, "a token count (a non-negative integer)",
                       std::string(", one per word, as listed in ") + kManifestName,
                       [&](std::size_t w, const auto& values, std::size_t) {
                         counts[w] = values[0];
                         total += values[0];
                       });
  if (total != m.tokens)
    throw InputError(file, 0, "counts summing to " + std::to_string(m.tokens) + " tokens as listed in " + kManifestName,
                     std::to_string(total));
  return counts;
}

void write_word_blocks(const fs::path& file, const model::RowBlocks& blocks) {
  write_lines(file, blocks.block_of.size(), [&](std::size_t w, std::string& buffer) {
    append_number(buffer, blocks.block_of[w]);
    buffer.push_back(' ');
    append_number(buffer, blocks.row_of[w]);
  });
}

}  // namespace gyre::data
