// apps/mf/use_commands.cpp — gyre-mf predict, recommend and export: the command lines that use a trained model.
#include "use_commands.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>
#include <thread>

#include "app/command_line.hpp"
#include "app/entry_point.hpp"
#include "app/export_command.hpp"
#include "gyre/base/limits.hpp"
#include "gyre/base/output_check.hpp"
#include "gyre/base/output_file.hpp"
#include "gyre/base/thread_arena.hpp"
#include "mf/model_io.hpp"
#include "mf/model_use.hpp"

namespace gyre::mf {
namespace {

// What both commands share: the model, the output and the threads.
struct UseFlags {
  std::string model_dir, out = "-";
  int threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));

  void add_to(CLI::App& app) {
    app.add_option("--model,-m", model_dir, "model directory written by gyre-mf --out")->required();
    app.add_option("--out,-o", out, "output file ('-': stdout)")->capture_default_str();
    app.add_option("--threads,-t", threads, "threads (default: all cores)")->check(CLI::Range(1, kMaxThreads));
  }

  // Checks the output against the inputs before any work, then reads the model, runs `body`
  // on `threads` threads into the output, and publishes it only if all went well.
  template <typename Body>
  int run(const char* program, std::initializer_list<std::filesystem::path> inputs, Body&& body) {
    return app::run_entry_point(program, [&] {
      std::vector<std::filesystem::path> all(inputs);
      all.push_back(model_dir);
      const OutputSpec outputs[] = {{"--out", out}};
      check_outputs(outputs, all);
      const Scorer scorer(read_model(model_dir), model_dir);
      OutputFile file(out);
      ThreadArena arena(threads);
      arena.execute([&] { body(scorer, file.stream()); });
      file.commit();
      return 0;
    });
  }
};

int predict_command(int argc, char** argv) {
  CLI::App app{"gyre-mf predict: the model's score of each (user, item) pair of a file.\n"
               "Writes 'user<TAB>item<TAB>score' lines in file order; with a rating as third field, reports the RMSE.",
               "gyre-mf predict"};
  UseFlags flags;
  std::string pairs_path;
  flags.add_to(app);
  bool strict = false;
  app.add_option("--pairs,-p", pairs_path, "'user item [rating]' lines (ids as in the model)")->required();
  app.add_flag("--strict", strict,
               "refuse a pair whose user or item the model does not know (else it is scored from the global "
               "mean and the known side's bias, and counted)");
  if (const auto exit_code = app::parse_command_line(app, argc, argv)) return *exit_code;
  return flags.run("gyre-mf predict", {pairs_path}, [&](const Scorer& scorer, std::ostream& out) {
    const Pairs pairs = read_pairs(pairs_path, scorer, strict);
    if (pairs.unknown > 0)
      std::fprintf(stderr,
                   "gyre-mf predict: %llu of %zu pairs name a user or item the model does not know (first: %s); "
                   "they are scored from the global mean and the known side's bias (--strict refuses them)\n",
                   static_cast<unsigned long long>(pairs.unknown), pairs.users.size(), pairs.first_unknown.c_str());
    const PredictSummary s = predict(scorer, pairs, out);
    if (s.rated > 0)
      std::fprintf(stderr, "gyre-mf predict: %llu pairs, RMSE %.6f over the %llu with a rating\n",
                   static_cast<unsigned long long>(s.pairs), s.rmse, static_cast<unsigned long long>(s.rated));
  });
}

int recommend_command(int argc, char** argv) {
  CLI::App app{"gyre-mf recommend: each user's N highest-scoring items.\n"
               "Writes 'user<TAB>item<TAB>score<TAB>rank' lines, rank 1 first; equal scores by ascending item id.",
               "gyre-mf recommend"};
  UseFlags flags;
  std::string users_path, rated_path;
  std::uint32_t top = 10;
  flags.add_to(app);
  app.add_option("--users,-u", users_path, "one user id per line (ids as in the model)")->required();
  app.add_option("--top,-n", top, "items per user")->capture_default_str()->check(CLI::Range(1u, 1'000'000u));
  app.add_option("--exclude-rated", rated_path, "ratings file: leave out the items each user rated there");
  if (const auto exit_code = app::parse_command_line(app, argc, argv)) return *exit_code;
  return flags.run("gyre-mf recommend", {users_path, rated_path}, [&](const Scorer& scorer, std::ostream& out) {
    const auto users = read_users(users_path, scorer);
    std::optional<RatedItems> rated;
    if (!rated_path.empty()) rated = read_rated_items(rated_path, scorer);
    recommend(scorer, users, top, rated ? &*rated : nullptr, out);
  });
}

}  // namespace

std::optional<int> run_use_command(int argc, char** argv) {
  if (argc < 2) return std::nullopt;
  const std::string command = argv[1];
  // The subcommand's own parser sees "gyre-mf predict" as its program name.
  if (command == "predict") return predict_command(argc - 1, argv + 1);
  if (command == "recommend") return recommend_command(argc - 1, argv + 1);
  if (command == "export")
    return app::run_export_command(argc - 1, argv + 1, "gyre-mf", "user_factors.tsv, item_factors.tsv, …", model_directory(),
                                   [](const std::filesystem::path& model, const std::filesystem::path& out) {
                                     write_model(out, read_model(model));
                                   });
  return std::nullopt;
}

}  // namespace gyre::mf
