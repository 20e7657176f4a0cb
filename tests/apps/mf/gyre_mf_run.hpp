// tests/apps/mf/gyre_mf_run.hpp — what the tests that run gyre-mf share: small planted ratings.
#pragma once

#include <doctest/doctest.h>

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

}  // namespace gyre::test
