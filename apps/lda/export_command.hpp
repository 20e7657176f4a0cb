// apps/lda/export_command.hpp — gyre-lda export: a model written in parts as version 1's single files, beside the training command line.
#pragma once

#include <optional>

namespace gyre::lda {

// When argv[1] is "export", runs that subcommand on the rest and returns its exit code;
// otherwise nullopt.
std::optional<int> run_export_command(int argc, char** argv);

}  // namespace gyre::lda
