// apps/common/memory_budget.cpp — physical memory and cgroup limits, --max-memory, and byte counts for people.
#include "app/memory_budget.hpp"

#include <unistd.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <fstream>
#include <stdexcept>

namespace gyre::app {
namespace {

// A number of bytes as the kernel writes it ("max" or a count), else 0.
std::uint64_t limit_in(const char* file) {
  std::ifstream in(file);
  std::string text;
  if (!(in >> text)) return 0;
  std::uint64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  return ec == std::errc() && end == text.data() + text.size() ? value : 0;
}

std::uint64_t parse_size(const std::string& text) {
  double value = 0;
  const char* begin = text.data();
  const char* end = text.data() + text.size();
  const auto [stop, ec] = std::from_chars(begin, end, value);
  if (ec != std::errc() || !(value >= 0)) throw CLI::ValidationError("--max-memory", "'" + text + "' is not a size");
  double unit = 1;
  const std::string suffix(stop, end);
  if (suffix == "K" || suffix == "k") unit = 1024.0;
  else if (suffix == "M") unit = 1024.0 * 1024;
  else if (suffix == "G") unit = 1024.0 * 1024 * 1024;
  else if (suffix == "T") unit = 1024.0 * 1024 * 1024 * 1024;
  else if (!suffix.empty()) throw CLI::ValidationError("--max-memory", "'" + text + "': expected a K, M, G or T suffix");
  const double bytes = value * unit;
  if (!(bytes < 1.8e19)) throw CLI::ValidationError("--max-memory", "'" + text + "' is too large");
  // 0 would mean "unknown" (no check at all): a budget that cannot be met is a typo.
  if (!(bytes >= 1)) throw CLI::ValidationError("--max-memory", "'" + text + "': expected a size of at least 1 byte");
  return static_cast<std::uint64_t>(bytes);
}

}  // namespace

std::uint64_t machine_memory_bytes() {
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
  std::uint64_t bytes = pages > 0 && page > 0 ? static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page) : 0;
  for (const char* file : {"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"})
    if (const std::uint64_t limit = limit_in(file); limit > 0 && (bytes == 0 || limit < bytes)) bytes = limit;
  return bytes;
}

void add_max_memory_flag(CLI::App& app, std::uint64_t& bytes) {
  bytes = machine_memory_bytes();
  app.add_option_function<std::string>(
         "--max-memory", [&bytes](const std::string& text) { bytes = parse_size(text); },
         "memory the run may plan for (e.g. 8G); a model that needs more is refused before training "
         "(default: this machine's memory, " + format_bytes(static_cast<double>(bytes)) + ")");
}

void require_memory(std::uint64_t needed, std::uint64_t budget, const std::string& what) {
  if (budget == 0 || needed <= budget) return;
  throw std::invalid_argument(what + " needs about " + format_bytes(static_cast<double>(needed)) +
                              ", more than the memory budget of " + format_bytes(static_cast<double>(budget)) +
                              " (--max-memory)");
}

std::string format_bytes(double bytes) {
  static constexpr const char* kUnits[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  std::size_t u = 0;
  while (bytes >= 1024 && u + 1 < std::size(kUnits)) {
    bytes /= 1024;
    ++u;
  }
  char text[32];
  std::snprintf(text, sizeof text, u == 0 ? "%.0f %s" : "%.1f %s", bytes, kUnits[u]);
  return text;
}

void use_one_malloc_arena() {
#if defined(__GLIBC__)
  mallopt(M_ARENA_MAX, 1);
#endif
}

}  // namespace gyre::app
