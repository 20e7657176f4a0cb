// tools/subcommand_main.hpp — main() of a tool whose work is one CLI11 subcommand out of several.
#pragma once

#include <CLI/CLI.hpp>

#include <memory>
#include <tuple>

#include "app/command_line.hpp"
#include "gyre/base/entry_point.hpp"

namespace gyre::tools {

// Each Command registers its subcommand and flags in its constructor (on the heap, so the
// addresses CLI11 binds stay valid) and offers selected() and run(). Flag errors exit 2 (see
// app::parse_command_line); errors while running map as in run_entry_point.
template <class... Commands>
int subcommand_main(const char* program, const char* description, int argc, char** argv) {
  CLI::App app{description};
  app.require_subcommand(1);
  const std::tuple<std::unique_ptr<Commands>...> commands{std::make_unique<Commands>(app)...};
  if (const auto exit_code = app::parse_command_line(app, argc, argv)) return *exit_code;
  return run_entry_point(program, [&] {
    std::apply([](const auto&... c) { ((c->selected() ? c->run() : void()), ...); }, commands);
    return 0;
  });
}

}  // namespace gyre::tools
