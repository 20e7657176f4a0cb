// gyre/cluster/launch.cpp — launcher environment variables to rank and size.
#include "gyre/cluster/launch.hpp"

#include <charconv>
#include <stdexcept>
#include <string_view>

namespace gyre::cluster {
namespace {

constexpr const char* kKnown[] = {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK",
                                  "PMI_SIZE", "SLURM_PROCID", "SLURM_NTASKS", "GYRE_TOKEN",
                                  "GYRE_COORDINATOR"};

std::optional<int> number(const Environment& env, const char* name) {
  const auto it = env.find(name);
  if (it == env.end()) return std::nullopt;
  int value = -1;
  const auto& s = it->second;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc() || end != s.data() + s.size() || value < 0)
    throw std::invalid_argument(std::string(name) + "='" + s + "' is not a non-negative integer");
  return value;
}

std::optional<Launch> pair(const Environment& env, const char* rank_var, const char* size_var, const char* source) {
  const auto rank = number(env, rank_var);
  if (!rank) return std::nullopt;
  const auto size = number(env, size_var);
  if (!size) throw std::invalid_argument(std::string(rank_var) + " is set but " + size_var + " is not");
  if (*size < 1 || *rank >= *size)
    throw std::invalid_argument(std::string(rank_var) + "=" + std::to_string(*rank) + " outside " + size_var + "=" +
                                std::to_string(*size));
  return Launch{*rank, *size, source};
}

}  // namespace

std::optional<Launch> from_launcher(const Environment& env) {
  if (auto l = pair(env, "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "Open MPI")) return l;
  if (env.count("PMIX_RANK") != 0) {
    const char* size_var = env.count("OMPI_COMM_WORLD_SIZE") != 0 ? "OMPI_COMM_WORLD_SIZE" : "PMI_SIZE";
    return pair(env, "PMIX_RANK", size_var, "PMIx");
  }
  if (auto l = pair(env, "PMI_RANK", "PMI_SIZE", "PMI")) return l;
  if (auto l = pair(env, "SLURM_PROCID", "SLURM_NTASKS", "Slurm")) return l;
  return std::nullopt;
}

Launch resolve_launch(std::optional<int> flag_rank, std::optional<int> flag_size, const Environment& env) {
  if (flag_rank || flag_size) {
    // The messages name the values, not flags of ours (an embedder may have none); only the
    // pairing rule adds the gyre apps' spelling, as a hint.
    if (!flag_rank || !flag_size)
      throw std::invalid_argument("process rank and process count go together (--process-rank/--processes)");
    if (*flag_size < 1)
      throw std::invalid_argument("process count " + std::to_string(*flag_size) + " is not at least 1");
    if (*flag_rank < 0 || *flag_rank >= *flag_size)
      throw std::invalid_argument("process rank " + std::to_string(*flag_rank) + " outside 0.." +
                                  std::to_string(*flag_size - 1));
    return {*flag_rank, *flag_size, "flags"};
  }
  if (auto l = from_launcher(env)) return *l;
  return {0, 1, "default"};
}

Environment environment_of(char** envp) {
  Environment env;
  for (char** e = envp; e != nullptr && *e != nullptr; ++e) {
    const std::string_view entry(*e);
    const auto eq = entry.find('=');
    if (eq == std::string_view::npos) continue;
    const std::string name(entry.substr(0, eq));
    for (const char* known : kKnown)
      if (name == known) env[name] = std::string(entry.substr(eq + 1));
  }
  return env;
}

}  // namespace gyre::cluster
