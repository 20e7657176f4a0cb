// apps/mf/use_commands.hpp — gyre-mf's subcommands that use a trained model (predict, recommend, export), beside the training command line.
#pragma once

#include <optional>

namespace gyre::mf {

// When argv[1] is "predict", "recommend" or "export", runs that subcommand on the rest and returns its
// exit code; otherwise nullopt, and argv is a training command line, unchanged from before
// the subcommands existed (a flag cannot be mistaken for a subcommand: they start with '-').
std::optional<int> run_use_command(int argc, char** argv);

}  // namespace gyre::mf
