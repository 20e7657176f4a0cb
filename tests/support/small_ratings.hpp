// tests/support/small_ratings.hpp — a small planted ratings problem made with gyre-gen, for tests that run the apps on it.
#pragma once

#include <doctest/doctest.h>

#include "support/run_command.hpp"
#include "support/temp_dir.hpp"

namespace gyre::test {

// dir/r.tsv and dir/t.tsv (train and test): 6000 ratings of rank 3 by 300 users of 200 items.
inline void generate_small_ratings(const TempDir& dir) {
  const auto r = run_command({built("tools/gyre-gen"), "ratings", "--users", "300", "--items", "200", "--ratings",
                              "6000", "--rank", "3", "--noise", "0.1", "--seed", "4", "--train",
                              (dir / "r.tsv").string(), "--test", (dir / "t.tsv").string()});
  REQUIRE_MESSAGE(r.exit_code == 0, r.output);
}

}  // namespace gyre::test
