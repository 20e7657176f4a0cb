// gyre/base/rank_text.hpp — how messages name a rank: "rank 3".
#pragma once

#include <string>

namespace gyre {

inline std::string rank_text(int rank) { return "rank " + std::to_string(rank); }

}  // namespace gyre
