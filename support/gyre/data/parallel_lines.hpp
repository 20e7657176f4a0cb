// gyre/data/parallel_lines.hpp — a reader's line loop run on T line-aligned chunks at once, with the serial loop's records, order and first error (internal to lib/, not installed).
#pragma once

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/partitioner.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string_view>
#include <vector>

#include "gyre/base/input_error.hpp"
#include "gyre/data/text_input.hpp"

namespace gyre::data {

// parts + 1 offsets tiling `text` into `parts` chunks [splits[c], splits[c+1]), each beginning at
// a line start: chunk c begins at the first line start at or after c·size/parts. A chunk is empty
// when one line covers its whole share.
std::vector<std::size_t> line_aligned_splits(std::string_view text, std::size_t parts);

// Runs a reader's line loop `parse(lines, records_before, out)` over `text`, whose first line is
// line lines_before + 1 of its file, as `threads` chunks in parallel (TBB tasks in the calling
// arena, which caps how many run at once). The loop appends each line's record to `out` and throws
// gyre::InputError at a bad line, naming it by lines.number(); the only state it may carry from
// line to line is the record count records_before + out.size(), which it may check against
// `max_records` (a declared count; SIZE_MAX for none).
//
// The records come back in file order, the same for every thread count. A chunk's loop first runs
// without knowing its line numbers or the records before it; the first chunk in file order that
// failed or that takes the count past max_records is then run again alone with both known, so the
// error thrown is the one the serial loop throws, with the file's true line number.
// The same for a line loop whose output is not one record per line but a chunk of any type
// (a CSR block of rows): `parse(lines, records_before, out)` appends to an Out; count(out) is its
// record count (checked against max_records as above), and join(chunks, total) makes one Out of
// the chunks' (in file order, `total` records in all), freeing each as it goes. Errors are the
// serial loop's, as above.
template <class Out, class Parse, class Count, class Join>
Out parse_chunks(std::string_view text, std::size_t lines_before, std::size_t threads, std::size_t max_records,
                 const Parse& parse, const Count& count, const Join& join) {
  if (threads <= 1) {
    Out out;
    LineCursor lines(text, lines_before);
    parse(lines, 0, out);
    return out;
  }
  const std::vector<std::size_t> splits = line_aligned_splits(text, threads);
  const auto part = [&](std::size_t c) { return text.substr(splits[c], splits[c + 1] - splits[c]); };
  struct Chunk {
    Out out;
    std::size_t lines = 0;
    bool failed = false;
  };
  std::vector<Chunk> chunks(threads);
  oneapi::tbb::parallel_for(
      oneapi::tbb::blocked_range<std::size_t>(0, threads, 1),
      [&](const oneapi::tbb::blocked_range<std::size_t>& range) {
        for (std::size_t c = range.begin(); c != range.end(); ++c) {
          Chunk& chunk = chunks[c];
          LineCursor lines(part(c));
          try {
            parse(lines, 0, chunk.out);
            chunk.lines = lines.number();
          } catch (const InputError&) {
            chunk.failed = true;  // its message has the wrong line number; see the rerun below
            chunk.out = {};
          }
        }
      },
      oneapi::tbb::simple_partitioner());

  std::size_t total = 0, before = lines_before;
  for (std::size_t c = 0; c < threads; ++c) {
    const std::size_t n = count(chunks[c].out);
    if (chunks[c].failed || n > max_records - total) {
      Out scratch;
      LineCursor lines(part(c), before);
      parse(lines, total, scratch);
      throw std::logic_error("parse_chunks: a chunk's line loop failed once but not when run again");
    }
    total += n;
    before += chunks[c].lines;
  }
  std::vector<Out> outs;
  outs.reserve(threads);
  for (Chunk& chunk : chunks) outs.push_back(std::move(chunk.out));
  return join(outs, total);
}

template <class Record, class Parse>
std::vector<Record> parse_lines(std::string_view text, std::size_t lines_before, std::size_t threads,
                                std::size_t max_records, const Parse& parse) {
  // One record per line at most, so the newline count bounds what a chunk needs.
  const auto reserving = [&](LineCursor& lines, std::size_t records_before, std::vector<Record>& out) {
    const std::string_view rest = lines.rest();
    const auto newlines = static_cast<std::size_t>(std::count(rest.begin(), rest.end(), '\n'));
    out.reserve(std::min(newlines + 1, max_records));
    parse(lines, records_before, out);
  };
  return parse_chunks<std::vector<Record>>(
      text, lines_before, threads, max_records, reserving, [](const std::vector<Record>& out) { return out.size(); },
      [](std::vector<std::vector<Record>>& chunks, std::size_t total) {
        std::vector<Record> out;
        out.reserve(total);
        for (auto& chunk : chunks) {
          out.insert(out.end(), chunk.begin(), chunk.end());
          chunk = {};  // freed as it goes, so that resident memory stays near one copy
        }
        return out;
      });
}

}  // namespace gyre::data
