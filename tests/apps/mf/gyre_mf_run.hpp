// tests/apps/mf/gyre_mf_run.hpp — what the tests that run gyre-mf share: small planted ratings.
#pragma once

#include <doctest/doctest.h>

#include <sstream>
#include <string>

#include "support/run_command.hpp"
#include "support/temp_dir.hpp"

namespace gyre::test {

// 300 users × 200 items, rank 4, in dir/train.tsv and dir/test.tsv; `seed` picks the data.
inline void generate_mf_ratings(const TempDir& dir, int seed, const std::string& noise = "0.1") {
  const auto r = run_command({build_path("tools/gyre-gen").string(), "ratings", "--users", "300", "--items", "200",
                              "--ratings", "12000", "--rank", "4", "--noise", noise, "--seed", std::to_string(seed),
                              "--train", (dir / "train.tsv").string(), "--test", (dir / "test.tsv").string()});
  REQUIRE_MESSAGE(r.exit_code == 0, r.output);
}

// Rewrites dir/NAME with item i's ratings shifted by 0.5·(i mod 5 − 2): offsets such as real
// ratings have, which planted factors lack (gyre-mf then fits biases by default).
inline void shift_by_item(const TempDir& dir, const std::string& name) {
  std::istringstream in(read_text(dir / name));
  std::ostringstream out;
  long user = 0, item = 0;
  double value = 0;
  while (in >> user >> item >> value) out << user << '\t' << item << '\t' << value + 0.5 * static_cast<double>(item % 5 - 2) << '\n';
  write_text(dir / name, out.str());
}

}  // namespace gyre::test
