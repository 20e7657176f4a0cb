// apps/common/app/command_line.hpp — how every gyre binary parses its flags: usage errors exit 2, numbers must be finite.
#pragma once

#include <CLI/CLI.hpp>

#include <optional>

namespace gyre::app {

// The exit code of a usage error (a bad flag, a value out of range), as for bad input files.
inline constexpr int kExitUsage = 2;

// Parses argv into `app` (subcommands included). Returns nullopt when the program should go
// on, else its exit code: 0 after --help, kExitUsage after a usage error, which CLI11 has
// printed. Besides CLI11's own checks, every floating-point flag must be a finite number:
// "--lr inf", "--alpha nan" or "--init-scale 1e400" are usage errors, not a model of NaNs.
std::optional<int> parse_command_line(CLI::App& app, int argc, char** argv);

// Validators for floating flags: a finite number above 0, or at least 0. CLI11's PositiveNumber
// lets NaN through and answers "inf" with a bound of 1.8e308 written out in full.
CLI::Validator positive_number();
CLI::Validator non_negative_number();

}  // namespace gyre::app
