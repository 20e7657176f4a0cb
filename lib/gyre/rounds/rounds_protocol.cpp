// gyre/rounds/rounds_protocol.cpp — fixed headers in the meta, flat little-endian arrays in the body.
#include "gyre/rounds/rounds_protocol.hpp"

#include <cmath>
#include <string>

#include "gyre/wire/body.hpp"
#include "gyre/wire/codec.hpp"

namespace gyre::rounds {

namespace {
struct RequestHeader {
  std::uint64_t round = 0;
  std::uint8_t kind = 0;
  double scalar = 0;
  std::uint32_t updates = 0;
  std::uint32_t params = 0;
  template <class Archive>
  void serialize(Archive& ar) { ar(round, kind, scalar, updates, params); }
};

struct PartialHeader {
  std::uint64_t round = 0;
  std::uint64_t values = 0;
  template <class Archive>
  void serialize(Archive& ar) { ar(round, values); }
};

// Body of a request: the updates' ids (u32 each), their deltas (f64), then the task's ids (u32).
constexpr std::size_t kUpdateBytes = sizeof(std::uint32_t) + sizeof(double);
}  // namespace

net::Message encode_request(const RoundRequest& request) {
  const std::size_t u = request.updates.size(), f = request.task.params.size();
  net::Message m;
  m.type = kRoundTask;
  m.tag = request.round;
  m.meta = wire::encode(RequestHeader{request.round, request.task.kind, request.task.scalar,
                                      static_cast<std::uint32_t>(u), static_cast<std::uint32_t>(f)});
  std::vector<std::uint32_t> ids(u);
  std::vector<double> deltas(u);
  for (std::size_t i = 0; i < u; ++i) {
    ids[i] = request.updates[i].param;
    deltas[i] = request.updates[i].delta;
  }
  m.body = wire::Writer(u * kUpdateBytes + f * sizeof(std::uint32_t))
               .put_array<std::uint32_t>(ids)
               .put_array<double>(deltas)
               .put_array<std::uint32_t>(request.task.params)
               .finish();
  return m;
}

RoundRequest decode_request(const net::Message& message, const RoundsLimits& limits) {
  const auto h = wire::decode<RequestHeader>(message.meta);
  if (h.kind >= limits.kinds)
    throw wire::DecodeError("round task of kind " + std::to_string(h.kind) + ", the app has " +
                            std::to_string(limits.kinds));
  if (!std::isfinite(h.scalar)) throw wire::DecodeError("round task with a non-finite scalar");
  const std::size_t want = std::size_t{h.updates} * kUpdateBytes + std::size_t{h.params} * sizeof(std::uint32_t);
  if (message.body.size() != want)
    throw wire::DecodeError("round task body of " + std::to_string(message.body.size()) + " bytes, header says " +
                            std::to_string(want));
  RoundRequest r;
  r.round = h.round;
  r.task.kind = h.kind;
  r.task.scalar = h.scalar;
  wire::Reader in(message.body.bytes(), "round task: ");
  const auto ids = in.get_array<std::uint32_t>(h.updates, "the updates' ids");
  const auto deltas = in.get_array<double>(h.updates, "the updates' deltas");
  r.task.params = in.get_array<std::uint32_t>(h.params, "the task's ids");
  in.finish();
  r.updates.resize(h.updates);
  for (std::size_t i = 0; i < ids.size(); ++i) {
    if (ids[i] >= limits.params)
      throw wire::DecodeError("update of parameter " + std::to_string(ids[i]) + " of " + std::to_string(limits.params));
    if (!std::isfinite(deltas[i])) throw wire::DecodeError("non-finite update of parameter " + std::to_string(ids[i]));
    r.updates[i] = {ids[i], deltas[i]};
  }
  for (std::uint32_t j : r.task.params)
    if (j >= limits.params)
      throw wire::DecodeError("task names parameter " + std::to_string(j) + " of " + std::to_string(limits.params));
  return r;
}

net::Message encode_partial(const RoundPartial& partial) {
  net::Message m;
  m.type = kRoundPartial;
  m.tag = partial.round;
  m.meta = wire::encode(PartialHeader{partial.round, partial.values.size()});
  m.body = wire::Writer(partial.values.size() * sizeof(double)).put_array<double>(partial.values).finish();
  return m;
}

net::Message encode_query(std::uint64_t number, const Task& task) {
  net::Message m = encode_request(RoundRequest{number, task, {}});
  m.type = kRoundQuery;
  return m;
}

net::Message encode_answer(const RoundPartial& answer) {
  net::Message m = encode_partial(answer);
  m.type = kQueryAnswer;
  return m;
}

namespace {
RoundPartial decode_values(const net::Message& message, std::size_t expected, bool finite, const char* what) {
  RoundPartial p;
  p.values = wire::Reader(message.body.bytes(), what).get_array<double>(expected, "the values");
  if (finite)
    for (std::size_t i = 0; i < p.values.size(); ++i)
      if (!std::isfinite(p.values[i])) throw wire::DecodeError("non-finite value at index " + std::to_string(i));
  return p;
}
}  // namespace

RoundPartial decode_partial(const net::Message& message, std::size_t expected, bool finite) {
  const auto h = wire::decode<PartialHeader>(message.meta);
  if (h.values != expected || message.body.size() != expected * sizeof(double))
    throw wire::DecodeError("round partial of " + std::to_string(message.body.size()) + " bytes, expected " +
                            std::to_string(expected) + " values");
  RoundPartial p = decode_values(message, expected, finite, "round partial: ");
  p.round = h.round;
  return p;
}

RoundPartial decode_answer(const net::Message& message, std::size_t most, bool finite) {
  const auto h = wire::decode<PartialHeader>(message.meta);
  if (h.values > most || message.body.size() != h.values * sizeof(double))
    throw wire::DecodeError("query answer of " + std::to_string(message.body.size()) + " bytes for " +
                            std::to_string(h.values) + " values, at most " + std::to_string(most) + " allowed");
  RoundPartial p = decode_values(message, static_cast<std::size_t>(h.values), finite, "query answer: ");
  p.round = h.round;
  return p;
}

}  // namespace gyre::rounds
