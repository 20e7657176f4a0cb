// tests/apps/mf/tiny_model.hpp — a 3-user × 4-item rank-2 model with biases, written by hand, whose scores are worked out below.
#pragma once

#include <filesystem>

#include "support/temp_dir.hpp"

namespace gyre::test {

// Users 10, 20, 30 and items 1..4, mean 3; score = 3 + b_u + b_i + p·q (all exact in float):
//            item 1 (0 | 1,1)  item 2 (.5 | 2,0)  item 3 (-1 | 0,.5)  item 4 (.5 | .5,1.5)
//  user 10 (.5 | 1,0)     4.5            6                2.5               4.5
//  user 20 (-.25 | 0,2)   4.75           3.25             2.75              6.25
//  user 30 (0 | 1,1)      5              5.5              2.5               5.5
// Ties (user 10: items 1 and 4; user 30: items 2 and 4) test the order by item id.
inline void write_tiny_model(const std::filesystem::path& dir) {
  std::filesystem::create_directories(dir);
  write_text(dir / "model.json",
             R"({"format":"gyre-mf","version":1,"rank":2,"biases":true,"mean":3,"users":3,"items":4})");
  write_text(dir / "user_factors.tsv", "10\t0.5\t1\t0\n20\t-0.25\t0\t2\n30\t0\t1\t1\n");
  write_text(dir / "item_factors.tsv", "1\t0\t1\t1\n2\t0.5\t2\t0\n3\t-1\t0\t0.5\n4\t0.5\t0.5\t1.5\n");
}

}  // namespace gyre::test
