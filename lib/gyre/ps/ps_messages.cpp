// gyre/ps/ps_messages.cpp — the layout checks of parameter-server message bodies.
#include "gyre/ps/ps_messages.hpp"

#include <stdexcept>
#include <string>

namespace gyre::ps {
namespace {

// A key from the wire, before anything looks it up: in range first, since server_of() of a
// key beyond the layout is meaningless (and may divide by zero).
void check_held(const PsLayout& layout, int server, Key key) {
  if (key >= layout.keys)
    throw std::runtime_error("key " + std::to_string(key) + " is outside 0 … " + std::to_string(layout.keys - 1));
  if (const int holder = layout.server_of(key); holder != server)
    throw std::runtime_error("key " + std::to_string(key) + " is held by server " + std::to_string(holder) +
                             ", not server " + std::to_string(server));
}

std::string rank_text(const net::Message& m) { return "parameter server: rank " + std::to_string(m.sender); }

constexpr std::size_t kReportFields = 5;

// Key-values for server `server`: keys it holds, values of the layout's length.
KeyValues decode_held_values(const net::Message& m, const PsLayout& layout, int server, std::int64_t& prefix) {
  KeyValues kv = decode_key_values(m.body.bytes(), prefix);
  for (const auto& [k, v] : kv) {
    check_held(layout, server, k);
    if (v.size() != layout.value_size)
      throw std::runtime_error(std::to_string(v.size()) + " doubles for key " + std::to_string(k) + ", which holds " +
                               std::to_string(layout.value_size));
  }
  return kv;
}

}  // namespace

KeyValues decode_updates(const net::Message& m, const PsLayout& layout, int server) {
  std::int64_t ignored = 0;
  return decode_held_values(m, layout, server, ignored);
}

KeyValues decode_hand_over(const net::Message& m, const PsLayout& layout, int server, std::int64_t& deferred) {
  KeyValues kv = decode_held_values(m, layout, server, deferred);
  if (deferred < 0) throw std::runtime_error("a negative count of deferred reads");
  return kv;
}

std::vector<Key> decode_read(const net::Message& m, const PsLayout& layout, int server, std::int64_t& clock) {
  std::vector<Key> keys = decode_keys(m.body.bytes(), clock);
  for (Key k : keys) check_held(layout, server, k);
  return keys;
}

Buffer encode_report(const PsWorkerReport& r) {
  const std::vector<Key> fields{static_cast<Key>(r.steps), static_cast<Key>(r.held.count()), r.reads, r.cache_hits,
                                r.barrier_queries};
  return encode_keys(fields, 0);
}

PsWorkerReport decode_report(const net::Message& m) {
  std::int64_t ignored = 0;
  const auto f = decode_keys(m.body.bytes(), ignored);
  if (f.size() != kReportFields) throw std::runtime_error("a stop carries 5 counters, not " + std::to_string(f.size()));
  return {static_cast<std::int64_t>(f[0]), std::chrono::nanoseconds(static_cast<std::int64_t>(f[1])), f[2], f[3], f[4]};
}

KeyValues decode_reply(const net::Message& m, std::span<const Key> asked, const PsLayout& layout,
                       std::int64_t& server_clock) {
  KeyValues kv;
  try {
    kv = decode_key_values(m.body.bytes(), server_clock);
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(rank_text(m) + " sent a malformed reply: " + e.what());
  }
  if (kv.size() != asked.size())
    throw std::runtime_error(rank_text(m) + " answered " + std::to_string(kv.size()) + " keys for " +
                             std::to_string(asked.size()));
  // The server answers in the order asked, so each key is checked against the one asked there.
  for (std::size_t i = 0; i < kv.size(); ++i)
    if (kv[i].first != asked[i] || kv[i].second.size() != layout.value_size)
      throw std::runtime_error(rank_text(m) + " answered a bad value for key " + std::to_string(kv[i].first));
  return kv;
}

std::vector<Key> decode_key_list(const net::Message& m, const PsLayout& layout, int server) {
  std::int64_t ignored = 0;
  std::vector<Key> keys;
  try {
    keys = decode_keys(m.body.bytes(), ignored);
    for (std::size_t i = 0; i < keys.size(); ++i) {
      check_held(layout, server, keys[i]);
      if (i > 0 && keys[i] <= keys[i - 1])
        throw std::runtime_error("key " + std::to_string(keys[i]) + " follows key " + std::to_string(keys[i - 1]));
    }
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(rank_text(m) + " listed its keys wrongly: " + e.what());
  }
  return keys;
}

}  // namespace gyre::ps
