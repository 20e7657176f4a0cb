// gyre/mapreduce/text_io.hpp — a collection's input and output as text: load by byte ranges, save through rank 0.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "gyre/base/export.hpp"
#include "gyre/mapreduce/aggregate.hpp"
#include "gyre/mapreduce/collection.hpp"
#include "gyre/mapreduce/context.hpp"

namespace gyre::mapreduce {

// What one rank's load read: the bytes of the lines it owns (terminators included) and how many.
struct LoadStats {
  std::uint64_t bytes = 0;
  std::uint64_t lines = 0;
};

// The lines of a text file, or of a directory's regular files (sorted by name, not hidden ones,
// not subdirectories), split by byte ranges as Hadoop splits its input: with the files laid end
// to end, N bytes in all, rank r reads only the lines that start in [r·N/P, (r+1)·N/P), reading
// on past the end to finish its last one. Every line is read by exactly one rank, whatever the
// lengths; each comes without its "\n" or "\r\n". Each rank opens the files itself (across
// hosts, every host must see the same files). Throws gyre::InputError naming the path for a
// missing or unreadable input. Not collective: no rank waits for another.
GYRE_API Collection<std::string> load(Context& context, const std::filesystem::path& input, LoadStats* stats = nullptr);

// The same, handing each line to on_line(line) instead of keeping it: for a first map that
// would copy every line only to drop it.
GYRE_API LoadStats load_lines(Context& context, const std::filesystem::path& input,
                              const std::function<void(std::string_view line)>& on_line);

// Writes `lines`, given on root, to `path` (gyre::OutputFile: a file is replaced atomically,
// "-" is stdout), one per line. Only root touches the file.
GYRE_API void write_lines(const std::filesystem::path& path, const std::vector<std::string>& lines);

// Collective: every rank's values as text, format(value) a line each, in rank order, into one
// file written by rank 0 (atomically; see write_lines).
template <class T, class Format>
void save(const Collection<T>& c, const std::filesystem::path& path, Format format) {
  const auto lines = collect(c.map([&](const T& v) { return std::string(format(v)); }), 0);
  if (c.context().rank() == 0) write_lines(path, lines);
}

}  // namespace gyre::mapreduce
