// apps/common/command_line.cpp — CLI11 parsing with gyre's exit codes and the finite-number rule.
#include "app/command_line.hpp"

#include <cmath>
#include <cstdlib>
#include <string>

namespace gyre::app {
namespace {

bool finite_number(const std::string& text) {
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  return end != text.c_str() && std::isfinite(value);
}

// CLI11's Range and PositiveNumber let NaN through (every comparison with it is false) and
// accept "inf", so the rule is applied here to every option CLI11 reads as a floating number.
void check_finite(const CLI::App& app) {
  for (const CLI::Option* option : app.get_options()) {
    if (option->count() == 0 || option->get_type_name().find("FLOAT") == std::string::npos) continue;
    for (const std::string& value : option->results())
      if (!finite_number(value)) throw CLI::ValidationError(option->get_name(), "'" + value + "' is not a finite number");
  }
  for (const CLI::App* sub : app.get_subcommands()) check_finite(*sub);
}

CLI::Validator number_above(double lowest, bool inclusive, const char* description) {
  return CLI::Validator(
      [lowest, inclusive, description](std::string& text) -> std::string {
        char* end = nullptr;
        const double v = std::strtod(text.c_str(), &end);
        const bool whole = end != text.c_str() && *end == '\0';
        if (whole && std::isfinite(v) && (inclusive ? v >= lowest : v > lowest)) return {};
        return "'" + text + "' is not " + description;
      },
      inclusive ? "NUMBER >= 0" : "NUMBER > 0");
}

}  // namespace

CLI::Validator positive_number() { return number_above(0, false, "a finite number greater than 0"); }
CLI::Validator non_negative_number() { return number_above(0, true, "a finite number of at least 0"); }

std::optional<int> parse_command_line(CLI::App& app, int argc, char** argv) {
  try {
    app.parse(argc, argv);
    check_finite(app);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : kExitUsage;
  }
  return std::nullopt;
}

}  // namespace gyre::app
