// apps/lasso/round_protocol.cpp — fixed headers in the meta, flat little-endian arrays in the body.
#include "lasso/round_protocol.hpp"

#include <cmath>

#include "gyre/wire/body.hpp"

namespace gyre::lasso {

namespace {
struct RequestHeader {
  std::uint64_t round = 0;
  std::uint8_t kind = 0;
  double residual_mean = 0;
  std::uint32_t steps = 0;
  std::uint32_t features = 0;
  template <class Archive>
  void serialize(Archive& ar) { ar(round, kind, residual_mean, steps, features); }
};

struct SumsHeader {
  std::uint64_t round = 0;
  std::uint64_t values = 0;
  template <class Archive>
  void serialize(Archive& ar) { ar(round, values); }
};

// Body layout (wire/body.hpp): step features (u32 each), step deltas (f64), requested
// features (u32), little-endian arrays whose lengths the header gives.
}  // namespace

net::Message encode_request(const RoundRequest& request) {
  const std::size_t s = request.steps.size(), f = request.features.size();
  net::Message m;
  m.type = kRoundRequest;
  m.tag = request.round;
  m.meta = wire::encode(RequestHeader{request.round, static_cast<std::uint8_t>(request.kind), request.residual_mean,
                                      static_cast<std::uint32_t>(s), static_cast<std::uint32_t>(f)});
  std::vector<std::uint32_t> ids(s);
  std::vector<double> deltas(s);
  for (std::size_t i = 0; i < s; ++i) {
    ids[i] = request.steps[i].feature;
    deltas[i] = request.steps[i].delta;
  }
  m.body = wire::Writer(s * (sizeof(std::uint32_t) + sizeof(double)) + f * sizeof(std::uint32_t))
               .put_array<std::uint32_t>(ids)
               .put_array<double>(deltas)
               .put_array<std::uint32_t>(request.features)
               .finish();
  return m;
}

RoundRequest decode_request(const net::Message& message, std::uint32_t features) {
  const auto h = wire::decode<RequestHeader>(message.meta);
  if (h.kind > static_cast<std::uint8_t>(RoundKind::kCheck))
    throw wire::DecodeError("round request of unknown kind " + std::to_string(h.kind));
  if (!std::isfinite(h.residual_mean)) throw wire::DecodeError("round request with a non-finite residual mean");
  const std::size_t want = std::size_t{h.steps} * (sizeof(std::uint32_t) + sizeof(double)) +
                           std::size_t{h.features} * sizeof(std::uint32_t);
  if (message.body.size() != want)
    throw wire::DecodeError("round request body of " + std::to_string(message.body.size()) + " bytes, header says " +
                            std::to_string(want));
  RoundRequest r;
  r.round = h.round;
  r.kind = static_cast<RoundKind>(h.kind);
  r.residual_mean = h.residual_mean;
  wire::Reader in(message.body.bytes(), "round request: ");
  const auto ids = in.get_array<std::uint32_t>(h.steps, "the step features");
  const auto deltas = in.get_array<double>(h.steps, "the step deltas");
  r.features = in.get_array<std::uint32_t>(h.features, "the features asked for");
  in.finish();
  r.steps.resize(h.steps);
  for (std::size_t i = 0; i < ids.size(); ++i) {
    if (ids[i] >= features) throw wire::DecodeError("step for feature " + std::to_string(ids[i]) + " of " + std::to_string(features));
    if (!std::isfinite(deltas[i])) throw wire::DecodeError("non-finite step for feature " + std::to_string(ids[i]));
    r.steps[i] = {ids[i], deltas[i]};
  }
  for (std::uint32_t j : r.features)
    if (j >= features) throw wire::DecodeError("sum asked for feature " + std::to_string(j) + " of " + std::to_string(features));
  return r;
}

net::Message encode_sums(const RoundSums& sums) {
  net::Message m;
  m.type = kRoundSums;
  m.tag = sums.round;
  m.meta = wire::encode(SumsHeader{sums.round, sums.values.size()});
  m.body = wire::Writer(sums.values.size() * sizeof(double)).put_array<double>(sums.values).finish();
  return m;
}

RoundSums decode_sums(const net::Message& message, std::size_t expected) {
  const auto h = wire::decode<SumsHeader>(message.meta);
  if (h.values != expected || message.body.size() != expected * sizeof(double))
    throw wire::DecodeError("round sums of " + std::to_string(message.body.size()) + " bytes, expected " +
                            std::to_string(expected) + " values");
  RoundSums s;
  s.round = h.round;
  s.values = wire::Reader(message.body.bytes(), "round sums: ").get_array<double>(expected, "the sums");
  for (std::size_t i = 0; i < s.values.size(); ++i)
    if (!std::isfinite(s.values[i])) throw wire::DecodeError("non-finite sum at index " + std::to_string(i));
  return s;
}

}  // namespace gyre::lasso
