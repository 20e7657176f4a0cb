// apps/common/app/command_line.hpp — how every gyre binary parses its flags: usage errors exit 2, numbers must be finite.
#pragma once

#include <CLI/CLI.hpp>

#include <optional>
#include <stdexcept>
#include <string>

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

// A transform that puts a name into its one spelling, name_of(parse(text)) — so that ranks
// given "C" and "allreduce" form one job — or refuses it with parse's std::invalid_argument.
// `spellings` is what the help shows ("A|locking|B|rotation").
template <class Parse, class NameOf>
CLI::Validator one_spelling(Parse parse, NameOf name_of, std::string spellings) {
  return CLI::Validator(
      [parse, name_of](std::string& name) -> std::string {
        try {
          name = name_of(parse(name));
          return {};
        } catch (const std::invalid_argument& e) {
          return e.what();
        }
      },
      std::move(spellings));
}

}  // namespace gyre::app
