// apps/lda/lda/split_corpus.hpp — one process of a job reads its byte range of a corpus file, and the ranks send every document to the process whose shard holds it.
#pragma once

#include <vector>

#include "gyre/data/byte_ranges.hpp"
#include "gyre/data/corpus_io.hpp"
#include "gyre/data/corpus_lines.hpp"
#include "gyre/runtime/job.hpp"
#include "lda/corpus_input.hpp"

namespace gyre::lda {

// This process (rank r of the P of `backend`'s job) reads only the lines of `source` (a UCI
// docword, "docid word:count" or raw text file) that start in its byte range [r·N/P, (r+1)·N/P),
// plus the file's header and vocabulary; then, over a map-reduce job of the same processes, the
// ranks agree on the vocabulary (raw text: from every range's word counts), the documents' sizes
// and their placement by data::shard_corpus's rule, and send each document (UCI: each entry) to
// the rank whose shard holds it. The result is the one load_corpus_input gives reading the whole
// file, bit for bit: this rank's shard (shard_only), the vocabulary and the whole corpus's
// statistics. A bad line is the one-process reader's first error at its true line number: the
// rank that holds it throws it, and the others stop with the job. `reads`: what every rank read
// of the file (its lines' bytes and count; rank 0's with the header), in rank order.
CorpusInput load_split_corpus(const data::CorpusSource& source, const data::CorpusOptions& options,
                              const runtime::ProcessesBackend& backend, std::vector<data::SplitStats>* reads = nullptr);

}  // namespace gyre::lda
