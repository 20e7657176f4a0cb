// apps/lasso/checkpoint.cpp — reading Lasso's checkpoint parts: the sealed file, bounded reads, errors naming the file.
#include "lasso/checkpoint.hpp"

#include <nlohmann/json.hpp>

#include "gyre/base/input_error.hpp"

namespace gyre::lasso {

void save_parts(StateWriter& out, std::size_t parts) { out.put<std::uint64_t>(parts); }

void check_parts(StateReader& in, std::size_t parts) {
  const auto saved = in.get<std::uint64_t>();
  if (saved != parts)
    in.fail("rows dealt into " + std::to_string(parts) + " parts, as this run deals them (the checkpoint has " +
            std::to_string(saved) + "; resume with the --threads the checkpointed run had)");
}

void save_cycles(StateWriter& out, bool cycles, const std::vector<double>& gamma, double scalar,
                 const CycleTolerance& depth) {
  out.put<std::uint8_t>(cycles);
  if (!cycles) return;
  out.put_all(gamma);
  out.put(scalar);
  out.put(depth.lambda());
  out.put(depth.factor());
}

void restore_cycles(StateReader& in, const CycleState& state) {
  if ((in.get<std::uint8_t>() != 0) != state.cycles) in.fail(state.cycles ? "a worker's cycle state" : "no cycle state");
  if (!state.cycles) return;
  state.gamma = in.get_all<double>(state.gamma.size(), "the coefficients");
  state.scalar = in.get<double>();
  const double lambda = in.get<double>();
  state.depth.restore(lambda, in.get<double>());
}

std::string manifest_state(std::uint64_t checks) {
  return nlohmann::json{{"app", "gyre-lasso"}, {"checks", checks}}.dump();
}

}  // namespace gyre::lasso
