// gyre/wire/decode_error.hpp — what every decoder of a peer's bytes throws when they do not hold what the plan says.
#pragma once

#include <stdexcept>

#include "gyre/base/export.hpp"

namespace gyre::wire {

class GYRE_API DecodeError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace gyre::wire
