// apps/lasso/checkpoint.cpp — reading Lasso's checkpoint parts: the sealed file, bounded reads, errors naming the file.
#include "lasso/checkpoint.hpp"

#include <nlohmann/json.hpp>

#include <bit>

#include "gyre/base/input_error.hpp"

namespace gyre::lasso {

static_assert(std::endian::native == std::endian::little, "checkpoint parts hold little-endian values");

void StateReader::fail(const std::string& expected) const { throw InputError(file_, 0, expected); }

OpenedPart open_part(const checkpoint::Found& found, int rank) {
  OpenedPart out;
  out.file = found.directory / ("rank-" + std::to_string(rank) + ".part");
  out.bytes = checkpoint::read_sealed(out.file);
  return out;
}

std::string manifest_state(std::uint64_t checks) {
  return nlohmann::json{{"app", "gyre-lasso"}, {"checks", checks}}.dump();
}

}  // namespace gyre::lasso
