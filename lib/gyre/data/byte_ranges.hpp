// gyre/data/byte_ranges.hpp — input splits as Hadoop makes them: rank r of P reads the lines that start in its byte range (internal to lib/, not installed).
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace gyre::data {

// One input file and its size when it was listed.
struct InputFile {
  std::filesystem::path path;
  std::uint64_t size = 0;
};

// A file is itself; a directory is its regular files (not its subdirectories, nor hidden
// files), sorted by name, so that every rank lists the same files in the same order. Throws
// gyre::InputError naming the path for a missing or unreadable input, a directory that cannot
// be listed, or something that is neither a file nor a directory.
std::vector<InputFile> list_input_files(const std::filesystem::path& input);
// The same, and an InputError naming a directory that holds none: it should hold `what` ("ratings files").
std::vector<InputFile> nonempty_input_files(const std::filesystem::path& input, const std::string& what);

// Bytes [begin, end) of an input: of one file, or of its files laid end to end.
struct ByteRange {
  std::uint64_t begin = 0;
  std::uint64_t end = 0;
};
// A range's end for "to the end of the file, whatever its size".
inline constexpr std::uint64_t kToTheEnd = UINT64_MAX;

// Part `part` of `parts` of `total` bytes: [⌊part·total/parts⌋, ⌊(part+1)·total/parts⌋),
// computed without overflow. The parts tile [0, total). std::invalid_argument unless
// 0 <= part < parts.
ByteRange split_range(std::uint64_t total, int part, int parts);

// What a split read: the bytes of the lines it owns (their terminators included), and how many.
// Over the parts of one input, the bytes sum to its size and the lines to its line count.
struct SplitStats {
  std::uint64_t bytes = 0;
  std::uint64_t lines = 0;
  SplitStats& operator+=(const SplitStats& o) {
    bytes += o.bytes;
    lines += o.lines;
    return *this;
  }
};

using LineSink = std::function<void(std::string_view line)>;

// Hands `on_line` every line of `file` that starts in `range` (a line starts at byte 0 or after a
// '\n'), each without its "\n" or "\r\n", reading past the range's end to finish the last one.
// So a line belongs to exactly one of the parts that tile a file, however long it is: a part
// whose whole range lies inside one line reads nothing. A last line without a '\n' is a line; an
// empty file has none. A UTF-8 byte-order mark starting the file is dropped, as slurp drops it. Throws gyre::InputError naming the file when it cannot be read.
SplitStats read_split_lines(const std::filesystem::path& file, ByteRange range, const LineSink& on_line);

// The same lines handed over in blocks of whole lines, each about `block_bytes` (more when one line
// is longer), their terminators included (a last line without '\n' stays without): a parser of
// whole text then needs one block in memory at a time, not the range.
using BlockSink = std::function<void(std::string_view block)>;
// The block size for a parser on one thread: the text held is a block's, not the range's. From
// 512 KiB to 4 MiB the readers' speed is the same (tools/bench/load); at 16 MiB a block and its
// records no longer fit the cache and the ratings reader took a third longer.
inline constexpr std::uint64_t kRangeBlockBytes = std::uint64_t{1} << 20;
SplitStats read_split_blocks(const std::filesystem::path& file, ByteRange range, std::uint64_t block_bytes,
                             const BlockSink& on_block);

// The same lines as one text, their terminators included (a last line without '\n' stays
// without), read in one piece for a parser that takes whole text; `stats` counts them.
std::string read_split_text(const std::filesystem::path& file, ByteRange range, SplitStats& stats);

// Part `part` of `parts` of `files` laid end to end: each file's share of the part's byte range,
// read as above. A line never spans two files (a file without a final '\n' ends its last line),
// nor does a block.
SplitStats read_split(std::span<const InputFile> files, int part, int parts, const LineSink& on_line);
// The bytes of `files` laid end to end, and each file's share of `range` of them, in the file's
// own offsets ({0, 0} for a file the range misses).
std::uint64_t total_size(std::span<const InputFile> files);
std::vector<ByteRange> file_pieces(std::span<const InputFile> files, ByteRange range);
SplitStats read_split_blocks(std::span<const InputFile> files, int part, int parts, std::uint64_t block_bytes,
                             const BlockSink& on_block);

}  // namespace gyre::data
