// apps/lda/split_corpus.cpp — a rank's byte range of a corpus file parsed, its vocabulary and documents agreed with the others, its documents sent to their shards.
#include "lda/split_corpus.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "gyre/base/input_error.hpp"
#include "gyre/base/limits.hpp"
#include "gyre/mapreduce/mapreduce.hpp"
#include "gyre/model/row_blocks.hpp"

namespace gyre::mapreduce {

template <>
struct Codec<data::UciEntry> {
  static constexpr std::size_t min_size = 16;
  static std::size_t size(const data::UciEntry&) noexcept { return min_size; }
  static void put(wire::Writer& w, const data::UciEntry& e) {
    w.put(e.doc);
    w.put(e.word);
    w.put(e.count);
  }
  static data::UciEntry get(wire::Reader& r) {
    const auto doc = r.get<std::uint64_t>("a document id");
    const auto word = r.get<std::uint32_t>("a word id");
    return {doc, word, r.get<std::uint32_t>("a count")};
  }
};

}  // namespace gyre::mapreduce

namespace gyre::lda {
namespace {

namespace fs = std::filesystem;
using Kind = data::CorpusSource::Kind;
using mapreduce::Context;
using mapreduce::RangeTally;

// What a range held before the ranks compared notes: UCI entries, docword documents, or text
// lines tokenised on provisional word ids.
struct RangeParse {
  std::vector<data::UciEntry> entries;
  data::Corpus docs;
  data::TextTokens text;
  RangeTally tally;
};

// The file's first lines and its vocabulary file, as the one-process readers take them.
struct FileHead {
  data::UciHeader uci;  // uci only
  std::uint64_t body_begin = 0, lines = 0;
  std::vector<std::string> vocab;  // uci, docword
};

FileHead read_head(const data::CorpusSource& source) {
  FileHead head;
  if (source.kind == Kind::uci) {
    head.uci = data::read_uci_header(source.file);
    head.body_begin = head.uci.body_begin;
    head.lines = data::kUciHeaderLines;
  }
  if (source.kind != Kind::text) head.vocab = data::read_vocab_of(source.vocab, source.file);
  if (source.kind == Kind::uci) data::check_uci_vocab(source.file, head.uci, head.vocab.size(), source.vocab);
  return head;
}

// Parses one piece of a counts file's range (`at`: its position), appending to `out`.
void parse_piece(const data::CorpusSource& source, const FileHead& head, const data::CorpusOptions& options,
                 std::string_view text, data::CorpusPosition at, RangeParse& out) {
  switch (source.kind) {
    case Kind::uci: {
      const auto held = data::parse_uci_entries(source.file, head.uci, text, at, options.max_tokens, out.entries,
                                                 options.threads);
      out.tally.records += held.entries;
      out.tally.tokens += held.tokens;
      return;
    }
    case Kind::docword: {
      const std::uint64_t docs = out.docs.docs();
      const auto held = data::parse_doc_word_lines(source.file, source.vocab, head.vocab.size(), text, at,
                                                   options.max_tokens, out.docs, options.threads);
      out.tally.records += out.docs.docs() - docs;
      out.tally.tokens += held.tokens;
      return;
    }
    case Kind::text:       // read_text_range: tokenising never fails, so never parsed again
    case Kind::partition:  // read by shards
      break;
  }
  throw std::logic_error("parse_piece: not a counts file");
}

// Raw text (a file, or a directory's files laid end to end) by byte ranges, tokenised a block of
// lines at a time; tokenising never fails, so no position is needed until the documents are numbered.
data::SplitStats read_text_range(const data::CorpusSource& source, const data::CorpusOptions& options, int rank,
                                 int parts, data::TextTokens& into) {
  return data::read_split_blocks(data::list_input_files(source.file), rank, parts,
                                 data::kRangeBlockBytes * options.threads, [&](std::string_view block) {
                                   data::tokenize_text_lines(block, options.tokenizer, into, options.threads);
                                 });
}

// The vocabulary of raw text from every range's word counts, and this range's documents on it.
std::vector<std::string> agree_on_text(Context& ctx, const data::CorpusSource& source,
                                       const data::CorpusOptions& options, const mapreduce::RangeStarts& starts,
                                       RangeParse& mine) {
  std::vector<std::pair<std::string, std::uint64_t>> counted;
  counted.reserve(mine.text.spelled.size());
  for (std::size_t p = 0; p < mine.text.spelled.size(); ++p) counted.emplace_back(mine.text.spelled[p], mine.text.counts[p]);
  std::unordered_map<std::string, std::uint64_t> total;
  for (auto& from : ctx.allgather_values(counted, "word counts"))
    for (auto& [word, count] : from) total[std::move(word)] += count;
  counted = {};
  std::vector<std::string> spelled;
  std::vector<std::uint64_t> counts;
  spelled.reserve(total.size());
  counts.reserve(total.size());
  for (auto& [word, count] : total) {
    spelled.push_back(word);
    counts.push_back(count);
  }
  total = {};
  std::vector<std::string> vocab =
      data::text_vocabulary(source.file, spelled, counts, options.tokenizer, starts.total.lines == 0);
  mine.docs.words.reserve(mine.text.tokens.size());
  data::append_text_documents(mine.text, data::final_word_ids(mine.text.spelled, vocab), starts.before.lines, mine.docs);
  mine.text = {};
  return vocab;
}

// The whole corpus's documents, by index in input order, each with the part shard_corpus deals
// it to; and its totals.
struct Placement {
  std::vector<std::uint32_t> part;        // by document index (input order)
  std::uint64_t first = 0;                // this rank's first document's index (docword, text)
  std::vector<std::uint64_t> uci_ids;     // uci: the documents' ids, ascending (index → id)
  std::uint64_t tokens = 0, doc_id_limit = 0;
  std::uint64_t own_tokens = 0;           // uci: of this rank's shard
  std::uint64_t docs() const { return part.size(); }
};

Placement place(const std::vector<std::uint64_t>& sizes, int parts) {
  if (sizes.size() > std::numeric_limits<std::uint32_t>::max())
    throw std::invalid_argument("shard_corpus: more than 2^32 documents");
  Placement placed;
  placed.part.assign(sizes.size(), 0);
  const model::RowBlocks deal = model::RowBlocks::balance(sizes, static_cast<std::uint32_t>(parts));
  for (std::uint32_t p = 0; p < deal.rows.size(); ++p)
    for (const std::uint32_t d : deal.rows[p]) placed.part[d] = p;
  for (const std::uint64_t s : sizes) placed.tokens += s;
  return placed;
}

// docword and text: documents are whole lines, so every range's documents follow the lower
// ranks' in input order.
Placement place_lines(Context& ctx, const data::Corpus& mine) {
  std::vector<std::uint64_t> sizes(mine.docs());
  std::uint64_t limit = 0;
  for (std::uint64_t d = 0; d < mine.docs(); ++d) {
    sizes[d] = mine.doc_begin[d + 1] - mine.doc_begin[d];
    limit = std::max(limit, mine.doc_ids[d] + 1);
  }
  std::vector<std::uint64_t> all;
  std::uint64_t first = 0;
  const auto every = ctx.allgather_values(sizes, "document sizes");
  for (int r = 0; r < ctx.size(); ++r) {
    if (r == ctx.rank()) first = all.size();
    all.insert(all.end(), every[static_cast<std::size_t>(r)].begin(), every[static_cast<std::size_t>(r)].end());
  }
  Placement placed = place(all, ctx.size());
  placed.first = first;
  const auto limits = ctx.allgather_values<std::uint64_t>({limit}, "document id bound");
  for (int r = 0; r < ctx.size(); ++r) {
    const auto& l = limits[static_cast<std::size_t>(r)];
    if (l.size() != 1) ctx.bad_message(r, "document id bound", "not 1 number");
    placed.doc_id_limit = std::max(placed.doc_id_limit, l[0]);
  }
  return placed;
}

using DocTokens = std::vector<std::pair<std::uint64_t, std::uint64_t>>;  // (document id, tokens)

// One pair per document, its tokens summed, by id.
DocTokens summed_by_doc(DocTokens pairs) {
  std::sort(pairs.begin(), pairs.end());
  DocTokens out;
  for (const auto& [doc, tokens] : pairs) {
    if (out.empty() || out.back().first != doc) out.emplace_back(doc, 0);
    out.back().second += tokens;
  }
  return out;
}

// UCI: a document's entries may lie in several ranges; documents go by id.
Placement place_entries(Context& ctx, const std::vector<data::UciEntry>& entries) {
  // A document's entries are on consecutive lines in a UCI file, so they are summed as they
  // come (a pair a document, not a pair an entry: 16 bytes a line of the range, 76 MB of 20M
  // tokens' a quarter, for nothing); summed_by_doc merges whatever is out of order.
  DocTokens mine;
  for (const data::UciEntry& e : entries) {
    if (mine.empty() || mine.back().first != e.doc) mine.emplace_back(e.doc, 0);
    mine.back().second += e.count;
  }
  DocTokens all;
  for (auto& from : ctx.allgather_values(summed_by_doc(std::move(mine)), "document sizes"))
    all.insert(all.end(), from.begin(), from.end());
  all = summed_by_doc(std::move(all));
  std::vector<std::uint64_t> sizes;
  std::vector<std::uint64_t> ids;
  sizes.reserve(all.size());
  ids.reserve(all.size());
  for (const auto& [doc, tokens] : all) {
    ids.push_back(doc);
    sizes.push_back(tokens);
  }
  all = {};
  Placement placed = place(sizes, ctx.size());
  for (std::size_t d = 0; d < sizes.size(); ++d)
    if (placed.part[d] == static_cast<std::uint32_t>(ctx.rank())) placed.own_tokens += sizes[d];
  placed.uci_ids = std::move(ids);
  placed.doc_id_limit = placed.uci_ids.empty() ? 0 : placed.uci_ids.back() + 1;
  return placed;
}

std::uint32_t part_of_entry(const Placement& placed, const data::UciEntry& e) {
  const auto at = std::lower_bound(placed.uci_ids.begin(), placed.uci_ids.end(), e.doc);
  return placed.part[static_cast<std::size_t>(at - placed.uci_ids.begin())];
}

// UCI: every entry to its document's shard; the shard's entries in file order make its documents.
data::Corpus send_entries(Context& ctx, std::vector<data::UciEntry> entries, const Placement& placed,
                          std::vector<std::string> vocab) {
  const int P = ctx.size(), rank = ctx.rank();
  // Each peer's entries are encoded straight from the range's, and this shard's are copied out:
  // the range's entries are never copied per shard (a second copy of them all, the peak of a
  // rank's load before 2026-11-28). Ranks are below 2^16 (kMaxWorkers).
  static_assert(kMaxWorkers <= 0x10000);
  std::vector<std::uint16_t> part(entries.size());
  std::vector<std::size_t> count(static_cast<std::size_t>(P), 0);
  for (std::size_t i = 0; i < entries.size(); ++i) ++count[part[i] = static_cast<std::uint16_t>(part_of_entry(placed, entries[i]))];
  std::vector<Buffer> outgoing(static_cast<std::size_t>(P));
  std::vector<data::UciEntry> own;
  own.reserve(count[static_cast<std::size_t>(rank)]);
  for (int r = 0; r < P; ++r) {
    const auto mine = static_cast<std::uint16_t>(r);
    if (r == rank) {
      for (std::size_t i = 0; i < entries.size(); ++i)
        if (part[i] == mine) own.push_back(entries[i]);
      continue;
    }
    // encode_values' body: the count, then each entry.
    const std::size_t n = count[static_cast<std::size_t>(r)];
    wire::Writer w(sizeof(std::uint64_t) + n * mapreduce::Codec<data::UciEntry>::min_size);
    w.put(static_cast<std::uint64_t>(n));
    for (std::size_t i = 0; i < entries.size(); ++i)
      if (part[i] == mine) mapreduce::Codec<data::UciEntry>::put(w, entries[i]);
    outgoing[static_cast<std::size_t>(r)] = w.finish();
  }
  part = {};
  entries = {};
  auto incoming = ctx.exchange(std::move(outgoing), "entries to their shards");
  // The shard is its entries from every rank in rank order, each rank's in file order, then
  // grouped by document (corpus_from_entries). A UCI file lists its documents in order, and then
  // so does that concatenation: the corpus is built as the entries come, a rank's at a time,
  // each body freed once read, and the shard's entries are never held all at once (16 bytes a
  // line beside the corpus's 4 a token). Out of order, the corpus built so far is turned back
  // into entries (a token each) and the rest grouped as the one-process reader does.
  data::Corpus corpus;
  corpus.vocab = std::move(vocab);
  corpus.words.reserve(placed.own_tokens);
  std::vector<data::UciEntry> unordered;  // used once the documents come out of order
  bool ordered = true;
  const auto take = [&](std::span<const data::UciEntry> from) {
    for (const data::UciEntry& e : from) {
      if (ordered && !corpus.doc_ids.empty() && e.doc < corpus.doc_ids.back()) {
        ordered = false;
        for (std::uint64_t d = 0; d < corpus.docs(); ++d)
          for (const std::uint32_t w : corpus.doc(d)) unordered.push_back({corpus.doc_ids[d], w, 1});
        corpus.words = {};
        corpus.doc_ids = {};
        corpus.doc_begin = {0};
      }
      if (!ordered) {
        unordered.push_back(e);
        continue;
      }
      corpus.words.insert(corpus.words.end(), e.count, e.word);
      if (!corpus.doc_ids.empty() && corpus.doc_ids.back() == e.doc) {
        corpus.doc_begin.back() = corpus.words.size();
      } else {
        corpus.doc_ids.push_back(e.doc);
        corpus.doc_begin.push_back(corpus.words.size());
      }
    }
  };
  std::vector<data::UciEntry> arrived;
  for (int r = 0; r < P; ++r) {
    if (r == rank) {
      take(own);
      own = {};
      continue;
    }
    arrived.clear();
    ctx.decode_from(r, incoming[static_cast<std::size_t>(r)], arrived, "entries to their shards");
    incoming[static_cast<std::size_t>(r)] = Buffer();
    for (const data::UciEntry& e : arrived)
      if (e.word >= corpus.vocab.size() || e.count == 0 ||
          !std::binary_search(placed.uci_ids.begin(), placed.uci_ids.end(), e.doc) ||
          part_of_entry(placed, e) != static_cast<std::uint32_t>(rank))
        ctx.bad_message(r, "entries to their shards", "an entry of another shard or outside the corpus");
    take(arrived);
  }
  if (ordered) return corpus;
  return data::corpus_from_entries(unordered, std::move(corpus.vocab));
}

// docword and text: every document to its shard, in input order.
data::Corpus send_documents(Context& ctx, data::Corpus mine, const Placement& placed, std::vector<std::string> vocab) {
  const int P = ctx.size(), rank = ctx.rank();
  const auto part = [&](std::uint64_t d) { return static_cast<int>(placed.part[placed.first + d]); };
  std::vector<std::uint64_t> bytes(static_cast<std::size_t>(P), sizeof(std::uint64_t)), count(static_cast<std::size_t>(P), 0);
  for (std::uint64_t d = 0; d < mine.docs(); ++d) {
    bytes[static_cast<std::size_t>(part(d))] += 12 + 4 * mine.doc(d).size();
    ++count[static_cast<std::size_t>(part(d))];
  }
  std::vector<Buffer> outgoing(static_cast<std::size_t>(P));
  for (int r = 0; r < P; ++r) {
    if (r == rank) continue;
    wire::Writer w(bytes[static_cast<std::size_t>(r)]);
    w.put(count[static_cast<std::size_t>(r)]);
    for (std::uint64_t d = 0; d < mine.docs(); ++d) {
      if (part(d) != r) continue;
      w.put(mine.doc_ids[d]);
      w.put(static_cast<std::uint32_t>(mine.doc(d).size()));
      w.put_array(mine.doc(d));
    }
    outgoing[static_cast<std::size_t>(r)] = w.finish();
  }
  auto incoming = ctx.exchange(std::move(outgoing), "documents to their shards");
  data::Corpus shard;
  shard.vocab = std::move(vocab);
  for (int r = 0; r < P; ++r) {
    if (r == rank) {
      for (std::uint64_t d = 0; d < mine.docs(); ++d)
        if (part(d) == rank) shard.add_doc(mine.doc_ids[d], mine.doc(d));
      mine = {};
      continue;
    }
    try {
      wire::Reader in(incoming[static_cast<std::size_t>(r)].bytes());
      const std::size_t docs = in.count<std::uint64_t>(12, "the document count");
      for (std::size_t d = 0; d < docs; ++d) {
        const auto id = in.get<std::uint64_t>("a document id");
        const auto words = in.get_array<std::uint32_t>(in.count<std::uint32_t>(4, "a document's length"), "words");
        if (words.empty() || std::any_of(words.begin(), words.end(), [&](std::uint32_t w) { return w >= shard.vocab.size(); }))
          in.fail("a document without words, or with a word outside the vocabulary");
        shard.add_doc(id, words);
      }
      in.finish();
    } catch (const wire::DecodeError& e) {
      ctx.bad_message(r, "documents to their shards", e.what());
    }
    incoming[static_cast<std::size_t>(r)] = Buffer();
  }
  return shard;
}

}  // namespace

CorpusInput load_split_corpus(const data::CorpusSource& source, const data::CorpusOptions& options,
                              const runtime::ProcessesBackend& backend, std::vector<data::SplitStats>* reads) {
  const int P = backend.launch.size, rank = backend.launch.rank;
  FileHead head = read_head(source);
  RangeParse parsed;
  data::ByteRange range;  // uci, docword: this rank's bytes of the file
  data::SplitStats stats;
  if (source.kind == Kind::text) {
    stats = read_text_range(source, options, rank, P, parsed.text);
  } else {
    std::error_code ec;
    const std::uint64_t size = fs::file_size(source.file, ec);
    if (ec) throw InputError(source.file, 0, "a readable file", ec.message());
    // The documents begin after the header: every rank reads the header itself, and the ranges
    // of the body are cut as the whole file's are, so that the bytes read tile the file.
    range = data::split_range(size, rank, P);
    range.begin = std::max(range.begin, head.body_begin);
    range.end = std::max(range.end, head.body_begin);
    // A UCI line is one entry: counted first (a read of the range that costs a few percent of
    // parsing it), the entries are held in one allocation of their size, not grown by doubling
    // to up to twice that (134 MB for 76 MB of entries on a quarter of 20M tokens).
    if (source.kind == Kind::uci)
      parsed.entries.reserve(data::read_split_blocks(source.file, range, data::kRangeBlockBytes, [](std::string_view) {}).lines);
    stats = data::read_split_blocks(source.file, range, data::kRangeBlockBytes * options.threads, [&](std::string_view block) {
      if (parsed.tally.failed) return;
      try {
        // Positioned from the range's start: its own totals past a limit are the file's too.
        parse_piece(source, head, options, block, data::CorpusPosition{0, parsed.tally.records, parsed.tally.tokens},
                    parsed);
      } catch (const InputError&) {
        parsed.tally.failed = true;  // its line number is relative to the range: see the rerun
        parsed.entries = {};
        parsed.docs = {};
      }
    });
  }
  parsed.tally.bytes = stats.bytes + (rank == 0 ? head.body_begin : 0);
  parsed.tally.lines = stats.lines;

  CorpusInput in;
  mapreduce::run_loading(backend, [&](Context& ctx) {
    // 1. Where each range starts, and the file's first error.
    const std::uint64_t declared = source.kind == Kind::uci ? head.uci.entries : UINT64_MAX;
    const mapreduce::RangeStarts starts = mapreduce::settle_ranges(
        ctx, parsed.tally,
        [&](const RangeTally&, const RangeTally& through) {
          return through.tokens > options.max_tokens || (source.kind == Kind::uci && through.records > declared);
        },
        [&](const RangeTally& before) {  // again with the true numbers: the one-process reader's error
          data::SplitStats again;
          const std::string text = data::read_split_text(source.file, range, again);
          RangeParse rerun;
          parse_piece(source, head, options, text, data::CorpusPosition{head.lines + before.lines, before.records, before.tokens},
                      rerun);
        });
    if (reads)
      for (const auto& t : starts.ranges) reads->push_back({t.bytes, t.lines + (reads->empty() ? head.lines : 0)});
    if (source.kind == Kind::uci) data::check_uci_entries(source.file, head.uci, starts.total.records);
    if (source.kind == Kind::docword) data::check_doc_word_documents(source.file, starts.total.records);

    // 2. The vocabulary (raw text: agreed from every range's counts), the documents placed.
    if (source.kind == Kind::text) head.vocab = agree_on_text(ctx, source, options, starts, parsed);
    const Placement placed = source.kind == Kind::uci ? place_entries(ctx, parsed.entries) : place_lines(ctx, parsed.docs);
    if (static_cast<std::uint64_t>(P) > placed.docs())  // as train_distributed's caller refuses it, before the exchange
      throw std::invalid_argument(std::to_string(P) + " workers but " + source.file.string() + " has only " +
                                  std::to_string(placed.docs()) + " documents: at most one worker per document");

    // 3. Each document to its shard, and the word counts of the whole corpus.
    in.corpus = source.kind == Kind::uci ? send_entries(ctx, std::move(parsed.entries), placed, std::move(head.vocab))
                                         : send_documents(ctx, std::move(parsed.docs), placed, std::move(head.vocab));
    in.word_counts.assign(in.corpus.vocab_size(), 0);
    for (const std::uint32_t w : in.corpus.words) ++in.word_counts[w];
    ctx.sum_each(in.word_counts);
    in.shard_only = true;
    in.docs = placed.docs();
    in.tokens = placed.tokens;
    in.doc_id_limit = placed.doc_id_limit;
  });
  return in;
}

}  // namespace gyre::lda
