// gyre/rounds/rounds_protocol.hpp — the rounds engine on the wire: a task and the updates before it out, a partial back.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "gyre/net/group.hpp"
#include "gyre/rounds/rounds.hpp"
#include "gyre/wire/channels.hpp"

namespace gyre::rounds {

// The rounds channel (STRADS's schedule / push / pull). Its types are those Lasso's rounds had
// before the engine existed.
enum RoundsMessage : std::uint16_t {
  kRoundTask = wire::channels::kRounds.at(0),     // driver → worker: apply these updates, then push this task
  kRoundPartial = wire::channels::kRounds.at(1),  // worker → driver: the task's partial over the worker's shard
  kRoundsStop = wire::channels::kRounds.at(2),    // driver → worker: the job is over
  kRoundQuery = wire::channels::kRounds.at(3),    // driver → worker: answer this task between rounds
  kQueryAnswer = wire::channels::kRounds.at(4),   // worker → driver: the query's answer over the shard
};

struct RoundRequest {
  std::uint64_t round = 0;
  Task task;
  std::vector<Step> updates;  // every step pulled since the previous request, in pull order
};

struct RoundPartial {
  std::uint64_t round = 0;
  std::vector<double> values;
};

net::Message encode_request(const RoundRequest& request);
net::Message encode_partial(const RoundPartial& partial);
// A query is a request without updates (decode_request reads it), numbered on its own; its
// answer is a partial of any length up to what the driver allows.
net::Message encode_query(std::uint64_t number, const Task& task);
net::Message encode_answer(const RoundPartial& answer);

// Both throw wire::DecodeError for a malformed message: counts that disagree with the body, an
// id or kind out of `limits`, a non-finite scalar or step (it would turn every later residual
// into NaN). Sizes are checked before anything is allocated.
RoundRequest decode_request(const net::Message& message, const RoundsLimits& limits);
// `expected` values, which the driver knows from the task it sent; with `finite`, a NaN or an
// infinity is refused too.
RoundPartial decode_partial(const net::Message& message, std::size_t expected, bool finite);
// At most `most` values.
RoundPartial decode_answer(const net::Message& message, std::size_t most, bool finite);

}  // namespace gyre::rounds
