// apps/common/export_command.cpp — the export subcommand's command line, shared by the apps that write models in parts.
#include "app/export_command.hpp"

#include <CLI/CLI.hpp>

#include <string>

#include "app/command_line.hpp"
#include "app/entry_point.hpp"
#include "gyre/base/output_check.hpp"

namespace gyre::app {

int run_export_command(int argc, char** argv, const char* program, const char* layout, const DirectoryKind& kind,
                       const std::function<void(const std::filesystem::path&, const std::filesystem::path&)>& copy) {
  const std::string name = std::string(program) + " export";
  CLI::App app{name + ": a model as one process writes it (" + layout + ").\n" +
                   "Reads a model written by one process or in parts by several, and writes it whole.",
               name};
  std::string model_dir, out_dir;
  app.add_option("--model,-m", model_dir, std::string("model directory written by ") + program + " --out")->required();
  app.add_option("--out,-o", out_dir, "directory for the single-file model")->required();
  if (const auto exit_code = parse_command_line(app, argc, argv)) return *exit_code;
  return run_entry_point(name.c_str(), [&] {
    const OutputSpec outputs[] = {{"--out", out_dir, &kind}};
    const std::filesystem::path inputs[] = {model_dir};
    check_outputs(outputs, inputs);
    copy(model_dir, out_dir);
    return 0;
  });
}

}  // namespace gyre::app
