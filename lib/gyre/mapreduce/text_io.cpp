// gyre/mapreduce/text_io.cpp — load by byte ranges (data/byte_ranges) and rank 0's atomic write.
#include "gyre/mapreduce/mapreduce.hpp"

#include "gyre/base/output_file.hpp"
#include "gyre/data/byte_ranges.hpp"

namespace gyre::mapreduce {

LoadStats load_lines(Context& context, const std::filesystem::path& input,
                     const std::function<void(std::string_view line)>& on_line) {
  const auto files = data::list_input_files(input);
  const auto read = data::read_split(files, context.rank(), context.size(), on_line);
  return {read.bytes, read.lines};
}

Collection<std::string> load(Context& context, const std::filesystem::path& input, LoadStats* stats) {
  std::vector<std::string> lines;
  const LoadStats read = load_lines(context, input, [&](std::string_view line) { lines.emplace_back(line); });
  if (stats) *stats = read;
  return {context, std::move(lines)};
}

void write_lines(const std::filesystem::path& path, const std::vector<std::string>& lines) {
  OutputFile out(path);
  auto& s = out.stream();
  for (const std::string& line : lines) s.write(line.data(), static_cast<std::streamsize>(line.size())).put('\n');
  out.commit();
}

}  // namespace gyre::mapreduce
