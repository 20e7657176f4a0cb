// apps/wordcount/main.cpp — gyre-wordcount: Owl Actor's word count on the map-reduce engine, in one process or several (thin wrapper over gyre::wordcount).
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "app/cluster_flags.hpp"
#include "app/command_line.hpp"
#include "app/entry_point.hpp"
#include "app/job_settings.hpp"
#include "gyre/base/limits.hpp"
#include "gyre/base/output_check.hpp"
#include "gyre/cluster/launch.hpp"
#include "gyre/data/byte_ranges.hpp"
#include "gyre/mapreduce/mapreduce.hpp"
#include "wordcount/word_count.hpp"

extern char** environ;

namespace {

// "N bytes in F files": what every rank must see of the input. The ranks read their own byte
// ranges, so the input is compared by its size rather than by a checksum that would read it all.
std::string input_shape(const std::filesystem::path& input) {
  const auto files = gyre::data::list_input_files(input);
  std::uint64_t bytes = 0;
  for (const auto& f : files) bytes += f.size;
  return std::to_string(bytes) + " bytes in " + std::to_string(files.size()) + " files";
}

}  // namespace

int main(int argc, char** argv) {
  using namespace gyre;
  CLI::App app{"gyre-wordcount: counts the words of a text file or a directory of them on the map-reduce engine, "
               "and prints \"count word\" lines, most frequent first (ties by word). Words are as "
               "`tr -cs A-Za-z '\\n' | tr A-Z a-z` makes them. Defaults run one process on all cores: "
               "gyre-wordcount --input book.txt --top 20"};
  std::string input, stop_words_path, out_path = "-";
  std::uint64_t top = 0;
  std::optional<int> workers;
  std::uint64_t max_shuffle_mb = 256;
  app.add_option("--input,-i", input, "a text file, or a directory whose files are all read")->required();
  app.add_option("--stop-words", stop_words_path, "a file of words to leave out (split into words as the input is)");
  app.add_option("--top,-n", top, "print only the N most frequent words (default: all)");
  app.add_option("--out,-o", out_path, "where to write the counts (default: - for stdout)")->capture_default_str();
  app.add_option("--workers,-p", workers, "ranks in this process, one thread each (default: all cores, or one per process)")
      ->check(CLI::Range(1, kMaxWorkers));
  app.add_option("--max-shuffle-mb", max_shuffle_mb,
                 "most MiB one rank may send or receive in one shuffle or collect; more is an error, not an OOM kill")
      ->capture_default_str()->check(CLI::Range(1, 1024));
  app::ClusterFlags multi("gyre-wordcount");
  multi.add_to(app);
  if (const auto exit_code = app::parse_command_line(app, argc, argv)) return *exit_code;
  const auto env = cluster::environment_of(environ);  // the only look at the environment

  return app::run_entry_point("gyre-wordcount", [&] {
    auto job = multi.job(env, workers, 0);  // before the data: a bad job is refused at once
    const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    const int ranks = job.cluster || workers ? job.workers : cores;
    wordcount::CountOptions options;
    options.input = input;
    const std::string shape = input_shape(input);  // InputError (exit 2) for a missing or unreadable input
    if (job.cluster) {
      job.cluster->settings = app::job_settings(app, {"--out", "--top", "--workers", "--input"}, {"--stop-words"});
      job.cluster->settings.emplace_back("input --input", shape);
    }
    if (job.reports()) {
      const OutputSpec outputs[] = {{"--out", out_path == "-" ? std::string() : out_path}};
      const std::filesystem::path inputs[] = {input, stop_words_path, multi.token_file()};
      check_outputs(outputs, inputs);
    }
    if (!stop_words_path.empty()) options.stop_words = wordcount::read_stop_words(stop_words_path);
    mapreduce::Options limits;
    limits.max_shuffle_bytes = max_shuffle_mb << 20;
    if (job.cluster) options.on_traffic = multi.traffic_reporter(job.launch);
    runtime::Job rt;
    rt.workers = ranks;
    if (job.cluster) rt.backend = rotation::processes_backend(*job.cluster);
    auto counts = wordcount::count_words(rt, options, limits);
    if (!job.reports()) return 0;
    if (top > 0 && counts.size() > top) counts.resize(top);
    std::vector<std::string> lines;
    lines.reserve(counts.size());
    for (const auto& [word, n] : counts) lines.push_back(std::to_string(n) + " " + word);
    mapreduce::write_lines(out_path, lines);
    return 0;
  });
}
