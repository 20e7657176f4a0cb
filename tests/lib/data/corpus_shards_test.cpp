// tests/lib/data/corpus_shards_test.cpp — token-balanced corpus shards, corpus shard files and partition directories.
#include <doctest/doctest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <numeric>

#include "gyre/data/corpus_io.hpp"
#include "gyre/data/corpus_partition.hpp"
#include "gyre/data/manifest.hpp"
#include "gyre/data/planted_corpus.hpp"
#include "gyre/data/ratings_partition.hpp"
#include "gyre/data/shard_file.hpp"
#include "support/input_errors.hpp"
#include "support/partition_manifest.hpp"
#include "support/temp_dir.hpp"

using namespace gyre::data;
using gyre::test::catch_input_error;
using gyre::test::contains;
using gyre::test::edit_manifest;
using gyre::test::read_text;
using gyre::test::overwrite_bytes;
using gyre::test::TempDir;
using gyre::test::write_text;

namespace {

Corpus sample_corpus(std::uint64_t docs = 300, std::uint64_t seed = 4) {
  PlantedCorpusOptions o;
  o.docs = docs;
  o.vocab = 200;
  o.topics = 5;
  o.doc_length = 40;
  o.seed = seed;
  return generate_planted_corpus(o).corpus;
}

bool same_docs(const Corpus& a, const Corpus& b) {
  return a.doc_begin == b.doc_begin && a.words == b.words && a.doc_ids == b.doc_ids;
}

}  // namespace

TEST_CASE("shard_corpus: every document once, input order, full vocabulary, balanced tokens, deterministic") {
  const Corpus c = sample_corpus();
  const auto shards = shard_corpus(c, 4);
  REQUIRE(shards.size() == 4);
  std::vector<std::uint64_t> seen;
  std::uint64_t tokens = 0;
  for (const Corpus& s : shards) {
    CHECK(s.vocab == c.vocab);
    CHECK(std::is_sorted(s.doc_ids.begin(), s.doc_ids.end()));
    seen.insert(seen.end(), s.doc_ids.begin(), s.doc_ids.end());
    tokens += s.tokens();
    for (std::uint64_t d = 0; d < s.docs(); ++d) {
      const auto orig = c.doc(s.doc_ids[d]);  // sample_corpus(): doc id = index
      const auto here = s.doc(d);
      CHECK(std::equal(orig.begin(), orig.end(), here.begin(), here.end()));
    }
  }
  std::sort(seen.begin(), seen.end());
  std::vector<std::uint64_t> all(c.docs());
  std::iota(all.begin(), all.end(), 0);
  CHECK(seen == all);
  CHECK(tokens == c.tokens());
  // LPT: the largest part exceeds the mean by at most one document.
  CHECK(token_balance(shards) < 1.02);
  CHECK(token_balance(shards) >= 1.0);

  const auto again = shard_corpus(c, 4);
  for (std::size_t p = 0; p < 4; ++p) CHECK(same_docs(again[p], shards[p]));
  CHECK(same_docs(merge_corpus_shards(shards), c));
}

TEST_CASE("shard_corpus: largest first to the least loaded part, ties by document index") {
  Corpus c;
  c.vocab = {"a"};
  for (const std::uint32_t len : {1u, 5u, 3u, 3u, 2u}) c.add_doc(c.docs(), std::vector<std::uint32_t>(len, 0));
  const auto shards = shard_corpus(c, 2);
  // Order 1(5), 2(3), 3(3), 4(2), 0(1): 1→p0, 2→p1, 3→p1 (3<5), 4→p0 (5<6), 0→p0 (7 vs 6 → p1)
  CHECK(shards[0].doc_ids == std::vector<std::uint64_t>{1, 4});
  CHECK(shards[1].doc_ids == std::vector<std::uint64_t>{0, 2, 3});
  CHECK(token_balance(shards) == doctest::Approx(7.0 / 7.0));
  const std::vector<Corpus> lopsided{shards[0], Corpus{}};
  CHECK(token_balance(lopsided) == doctest::Approx(2.0));
  CHECK(token_balance({}) == 1.0);
}

TEST_CASE("corpus shard file: round trip, and corruption is detected") {
  TempDir dir;
  const Corpus c = sample_corpus(50);
  const auto file = dir / "c.shard";
  write_corpus_shard_file(file, c);
  CHECK(std::filesystem::file_size(file) == 40 + 12 * c.docs() + 4 * c.tokens());
  const CorpusShardFile back = read_corpus_shard_file(file);
  CHECK(back.vocab_size == 200);
  CHECK(back.corpus.vocab.empty());
  CHECK(same_docs(back.corpus, c));
  CHECK(back.checksum == records_checksum(c));

  const auto error = [&] { return catch_input_error([&] { read_corpus_shard_file(file); }); };
  const unsigned char junk = 0x5A;
  overwrite_bytes(file, 40 + 12 * c.docs() + 4 * 7 + 1, &junk, 1);
  auto e = error();
  INFO(e.message);
  REQUIRE(e.thrown);
  CHECK(e.file == file);
  CHECK(contains(e.message, "expected records checksum 0x"));

  write_corpus_shard_file(file, c);
  overwrite_bytes(file, 40 + 8, &junk, 1);  // first document's token count
  e = error();
  CHECK(contains(e.message, "tokens, found '"));

  write_corpus_shard_file(file, c);
  std::filesystem::resize_file(file, 40 + 12 * c.docs() + 4 * c.tokens() - 4);
  CHECK(contains(error().message, "bytes for 50 documents and " + std::to_string(c.tokens()) + " tokens"));

  write_corpus_shard_file(file, c);
  const std::uint64_t huge = std::uint64_t{1} << 60;  // must not be allocated
  overwrite_bytes(file, 16, &huge, 8);
  CHECK(contains(error().message, "bytes for 1152921504606846976 documents"));

  write_ratings_shard(file, RatingsSet{});
  CHECK(contains(error().message, "expected shard kind 2 (corpus), found '1'"));
  write_corpus_shard_file(file, c);
  CHECK(contains(catch_input_error([&] { read_ratings_shard(file); }).message, "expected shard kind 1 (ratings), found '2'"));
}

TEST_CASE("corpus partition: files, manifest, shards and word counts load back") {
  TempDir dir;
  const Corpus c = sample_corpus();
  const auto shards = shard_corpus(c, 3);
  write_corpus_partition(dir.path(), shards);
  CHECK(dir.entries() == std::vector<std::string>{"manifest.json", "part-00000.shard", "part-00001.shard",
                                                  "part-00002.shard", "vocab.txt", "word_counts.txt"});
  const Manifest m = read_manifest(dir.path(), "corpus");
  CHECK(m.vocab == 200);
  CHECK(m.records == c.docs());
  CHECK(m.tokens == c.tokens());
  CHECK(m.balance == doctest::Approx(token_balance(shards)));
  REQUIRE(m.shards.size() == 3);
  CHECK(m.shards[2].tokens == shards[2].tokens());
  const auto json = nlohmann::json::parse(read_text(dir / kManifestName));
  CHECK(json["kind"] == "corpus");
  CHECK(json["docs"] == c.docs());
  CHECK(json["shards"][1]["docs"] == shards[1].docs());

  const Corpus one = read_corpus_shard(dir.path(), 1);
  CHECK(one.vocab == c.vocab);
  CHECK(same_docs(one, shards[1]));
  const auto all = read_corpus_partition(dir.path());
  REQUIRE(all.size() == 3);
  for (std::size_t p = 0; p < 3; ++p) CHECK(same_docs(all[p], shards[p]));
  CHECK(read_word_counts(dir.path()) == count_words(std::span<const Corpus>(&c, 1)));

  const Corpus loaded = load_corpus(dir.path());
  CHECK(same_docs(loaded, c));
  CHECK(loaded.vocab == c.vocab);
  CHECK_THROWS_AS(read_ratings_partition(dir.path()), gyre::InputError);
}

TEST_CASE("corpus partition: mismatches name the file at fault") {
  TempDir dir;
  const auto shards = shard_corpus(sample_corpus(), 2);
  const auto load = [&] { return catch_input_error([&] { read_corpus_partition(dir.path()); }); };

  write_corpus_partition(dir.path(), shards);
  edit_manifest(dir.path(), [](nlohmann::json& d) { d["shards"][1]["checksum"] = 7; });
  auto e = load();
  INFO(e.message);
  REQUIRE(e.thrown);
  CHECK(e.file == dir / "part-00001.shard");
  CHECK(contains(e.message, "expected checksum 7 as listed in manifest.json"));

  write_corpus_partition(dir.path(), shards);
  edit_manifest(dir.path(), [](nlohmann::json& d) {
    d["shards"][0]["tokens"] = d["shards"][0]["tokens"].get<std::uint64_t>() + 1;
    d["tokens"] = d["tokens"].get<std::uint64_t>() + 1;
  });
  e = load();
  CHECK(e.file == dir / "part-00000.shard");
  CHECK(contains(e.message, "tokens as listed in manifest.json"));

  write_corpus_partition(dir.path(), shards);
  edit_manifest(dir.path(), [](nlohmann::json& d) { d["docs"] = 1; });
  e = load();
  CHECK(e.file == dir / "manifest.json");
  CHECK(contains(e.message, "\"docs\" equal to the sum over shards"));

  write_corpus_partition(dir.path(), shards);
  write_text(dir / "vocab.txt", "just\nthree\nwords\n");
  e = load();
  CHECK(e.file == dir / "vocab.txt");
  CHECK(contains(e.message, "expected 200 words as listed in manifest.json, found '3 words'"));

  write_corpus_partition(dir.path(), shards);
  std::filesystem::remove(dir / "part-00001.shard");
  e = load();
  CHECK(e.message == (dir / "part-00001.shard").string() +
                         ": expected the shard file as listed in manifest.json, found 'no such file'");

  write_corpus_partition(dir.path(), shards);
  write_text(dir / "word_counts.txt", "1\n2\nx\n");
  e = catch_input_error([&] { read_word_counts(dir.path()); });
  CHECK(e.file == dir / "word_counts.txt");
  CHECK(e.line == 3);
  CHECK(contains(e.message, "a token count"));
  write_text(dir / "word_counts.txt", "1\n2\n");
  e = catch_input_error([&] { read_word_counts(dir.path()); });
  CHECK(contains(e.message, "expected 200 lines, one per word, as listed in manifest.json, found '2 lines'"));

  e = catch_input_error([&] { read_corpus_shard(dir.path(), 2); });
  CHECK(contains(e.message, "expected a part in [0, 2), found '2'"));
}

TEST_CASE("word blocks file: one 'block row' line per word") {
  TempDir dir;
  const auto blocks = gyre::model::RowBlocks::balance({5, 1, 4, 0}, 2);
  write_word_blocks(dir / "blocks.txt", blocks);
  std::string expected;
  for (std::size_t w = 0; w < 4; ++w)
    expected += std::to_string(blocks.block_of[w]) + " " + std::to_string(blocks.row_of[w]) + "\n";
  CHECK(read_text(dir / "blocks.txt") == expected);
}
