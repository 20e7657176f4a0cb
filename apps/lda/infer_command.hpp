// apps/lda/infer_command.hpp — gyre-lda infer: topic proportions of new documents under a trained model, beside the training command line.
#pragma once

#include <optional>

namespace gyre::lda {

// When argv[1] is "infer", runs that subcommand on the rest and returns its exit code;
// otherwise nullopt, and argv is a training command line (flags start with '-', so none is
// mistaken for the subcommand).
std::optional<int> run_infer_command(int argc, char** argv);

}  // namespace gyre::lda
