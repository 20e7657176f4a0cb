// apps/lasso/lasso/round_protocol.hpp — the Lasso rounds on the wire: scheduler → worker requests, worker → scheduler sums.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "gyre/net/message.hpp"
#include "gyre/wire/channels.hpp"
#include "lasso/residual_shard.hpp"

namespace gyre::lasso {

// Message types: the channel the registry reserves for this app (0x20–).
enum RoundMessage : std::uint16_t {
  kRoundRequest = channels::kLasso.at(0),  // scheduler → worker: apply these steps, then sum these columns (or all)
  kRoundSums = channels::kLasso.at(1),     // worker → scheduler: the sums, in the order asked
};

enum class RoundKind : std::uint8_t {
  kPartials = 0,  // x_jᵀr for the listed features
  kCheck = 1,     // every feature's x_jᵀr, then Σ(r−m)² and Σ(r−m)(y−ȳ)
};

struct RoundRequest {
  std::uint64_t round = 0;
  RoundKind kind = RoundKind::kPartials;
  double residual_mean = 0;                // m, for kCheck
  std::vector<CoefficientStep> steps;
  std::vector<std::uint32_t> features;     // for kPartials
};

struct RoundSums {
  std::uint64_t round = 0;
  std::vector<double> values;  // partials; or for kCheck: the features' sums, then rss, dot_y
};

net::Message encode_request(const RoundRequest& request);
net::Message encode_sums(const RoundSums& sums);

// Both throw wire::DecodeError for a malformed message: counts that disagree with the body's
// size, a feature id ≥ `features`, an unknown kind, a non-finite step, mean or sum (which
// would turn every later residual or coefficient into NaN). Nothing is allocated before the
// size checks, so a peer cannot choose an allocation.
RoundRequest decode_request(const net::Message& message, std::uint32_t features);
// `expected` values, which the scheduler knows from the request it sent.
RoundSums decode_sums(const net::Message& message, std::size_t expected);

}  // namespace gyre::lasso
