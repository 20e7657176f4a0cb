// gyre/ps/ps_worker.cpp — the worker side: cache, read-my-writes, batched reads, step end.
#include "gyre/ps/ps_worker.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "gyre/ps/ps_messages.hpp"
#include "gyre/runtime/receiver.hpp"

namespace gyre::ps {

PsWorker::PsWorker(runtime::Mailbox& inbox, PsLayout layout, Barrier barrier, PsWorkerOptions options)
    : inbox_(inbox),
      layout_(layout),
      index_(inbox.group().rank()),
      options_(options),
      rules_(barrier, options_.tables, layout_.keys) {
  layout_.validate();
  if (index_ < 0 || index_ >= layout_.workers) throw std::invalid_argument("parameter server: this rank is not a worker");
  barrier_ = std::make_unique<PeerBarrier>(inbox_, layout_.worker_ranks(), barrier,
                                                      PeerBarrierOptions{options_.timeout, options_.seed});
}

Worker::~Worker() = default;

PsWorker::~PsWorker() = default;

void PsWorker::check_key(Key key) const {
  if (key >= layout_.keys)
    throw std::out_of_range("parameter server: key " + std::to_string(key) + " is outside 0 … " + std::to_string(layout_.keys - 1));
}

std::vector<Versioned> PsWorker::get(std::span<const Key> keys) {
  // A cached value is good while it is recent enough for its key's rule (or, without a bound,
  // for cache_clocks steps since it was read). One read per server and freshness: the server
  // holds each until its clock gets there (the keys of a tight table wait, a loose one's not).
  std::map<std::pair<int, std::int64_t>, std::vector<Key>> to_read;  // (server, clock needed) → keys
  for (Key k : keys) {
    check_key(k);
    const auto it = cache_.find(k);
    if (it != cache_.end() && it->second.clock >= clock_ - rules_.cache_bound(k, clock_, options_.cache_clocks)) {
      ++cache_hits_;
      continue;
    }
    to_read[{layout_.server_of(k), rules_.needed(k, clock_)}].push_back(k);
  }
  // Each key once per read, sorted, so a reply's keys are checked by binary search.
  for (auto& [read, list] : to_read) {
    std::sort(list.begin(), list.end());
    list.erase(std::unique(list.begin(), list.end()), list.end());
  }
  std::map<std::uint64_t, std::pair<int, std::int64_t>> pending;  // request → its read
  for (const auto& [read, list] : to_read) {
    net::Message m;
    m.type = kGet;
    m.tag = next_request_++;
    m.body = encode_keys(list, read.second);
    pending.emplace(m.tag, read);
    inbox_.group().send(layout_.server_rank(read.first), std::move(m));
  }
  const auto deadline = net::Clock::now() + options_.timeout;
  const runtime::Receiver receiver(inbox_, "parameter server", options_.timeout);
  const auto silent = [&] {
    const int server = layout_.server_rank(pending.begin()->second.first);
    return runtime::Silence{server, "reply from rank " + std::to_string(server)};
  };
  while (!pending.empty()) {
    const net::Message m = receiver.receive(
        [&](const net::Message& x) {
          const auto it = pending.find(x.tag);
          return x.type == kGetReply && it != pending.end() && layout_.server_rank(it->second.first) == x.sender;
        },
        silent, deadline);
    std::int64_t server_clock = 0;
    auto kv = decode_reply(m, to_read.at(pending.at(m.tag)), layout_, server_clock);
    for (auto& [k, v] : kv) {
      auto& c = cache_[k];
      c.value = std::move(v);
      // Without a bound the value is tagged with this worker's clock, so cache_clocks counts our steps.
      c.clock = rules_.of(k).global() ? server_clock : clock_;
      ++reads_;
    }
    pending.erase(m.tag);
  }
  std::vector<Versioned> out;
  out.reserve(keys.size());
  for (Key k : keys) {
    const auto& c = cache_.at(k);
    Versioned v{c.value, c.clock};
    if (const auto mine = unsent_.find(k); mine != unsent_.end())
      for (std::size_t i = 0; i < v.value.size(); ++i) v.value[i] += mine->second[i];
    out.push_back(std::move(v));
  }
  return out;
}

Versioned PsWorker::get(Key key) { return std::move(get(std::span<const Key>(&key, 1)).front()); }

void PsWorker::set(Key key, Value value) {
  check_key(key);
  if (value.size() != layout_.value_size)
    throw std::invalid_argument("parameter server: set of key " + std::to_string(key) + " with " +
                                std::to_string(value.size()) + " doubles, not " + std::to_string(layout_.value_size));
  unsent_.erase(key);
  cache_[key] = Cached{value, clock_};
  net::Message m;
  m.type = kSet;
  m.body = encode_key_values({{key, std::move(value)}}, 0);
  inbox_.group().send(layout_.server_rank(layout_.server_of(key)), std::move(m));
}

void PsWorker::push(Key key, std::span<const double> delta) {
  check_key(key);
  if (delta.size() != layout_.value_size)
    throw std::invalid_argument("parameter server: push to key " + std::to_string(key) + " with " +
                                std::to_string(delta.size()) + " doubles, not " + std::to_string(layout_.value_size));
  auto [it, fresh] = unsent_.try_emplace(key, Value(layout_.value_size, 0.0));
  for (std::size_t i = 0; i < delta.size(); ++i) it->second[i] += delta[i];
}

std::vector<Key> PsWorker::keys() {
  std::vector<Key> all;
  const auto request = next_request_++;
  for (int s = 0; s < layout_.servers; ++s) {
    net::Message m;
    m.type = kKeys;
    m.tag = request;
    inbox_.group().send(layout_.server_rank(s), std::move(m));
  }
  std::vector<char> listed(static_cast<std::size_t>(layout_.servers), 0);
  const runtime::Receiver receiver(inbox_, "parameter server", options_.timeout);
  const auto silent = [&] {
    std::vector<int> servers;
    for (int s = 0; s < layout_.servers; ++s) servers.push_back(layout_.server_rank(s));
    return runtime::silence_of("key list", servers, [&](std::size_t s) { return listed[s] == 0; });
  };
  for (int s = 0; s < layout_.servers; ++s) {
    const net::Message m = receiver.receive([&](const net::Message& x) { return x.type == kKeysReply && x.tag == request; }, silent);
    const int server = m.sender - layout_.workers;
    if (server < 0 || server >= layout_.servers || listed[static_cast<std::size_t>(server)])
      throw std::runtime_error("parameter server: rank " + std::to_string(m.sender) +
                               " listed keys, but is not a server yet to answer");
    listed[static_cast<std::size_t>(server)] = 1;
    for (Key k : decode_key_list(m, layout_, server)) all.push_back(k);
  }
  std::sort(all.begin(), all.end());
  return all;
}

void PsWorker::flush() {
  std::map<int, KeyValues> by_server;
  for (auto& [k, delta] : unsent_) {
    // Our own push goes into the cached copy too: the server will hold it once it has the push.
    if (auto it = cache_.find(k); it != cache_.end())
      for (std::size_t i = 0; i < delta.size(); ++i) it->second.value[i] += delta[i];
    by_server[layout_.server_of(k)].emplace_back(k, std::move(delta));
  }
  unsent_.clear();
  for (auto& [server, kv] : by_server) {
    net::Message m;
    m.type = kPush;
    m.tag = static_cast<std::uint64_t>(clock_ + 1);
    m.body = encode_key_values(kv, 0);
    inbox_.group().send(layout_.server_rank(server), std::move(m));
  }
}

std::chrono::nanoseconds PsWorker::barrier() {
  if (stopped_) throw std::logic_error("parameter server: barrier() after stop()");
  flush();
  ++clock_;
  for (int s = 0; s < layout_.servers; ++s) {
    net::Message m;
    m.type = kClock;
    m.tag = static_cast<std::uint64_t>(clock_);
    inbox_.group().send(layout_.server_rank(s), std::move(m));
  }
  barrier_->tick();
  const auto held = barrier_->wait();
  held_ += held;
  return held;
}

PsWorkerReport PsWorker::report() const {
  return {clock_, held_, reads_, cache_hits_, barrier_->queries_sent()};
}

void PsWorker::stop() {
  if (stopped_) return;
  stopped_ = true;
  flush();
  barrier_->finish();
  const auto r = report();
  for (int s = 0; s < layout_.servers; ++s) {
    net::Message m;
    m.type = kStop;
    m.body = encode_report(r);
    inbox_.group().send(layout_.server_rank(s), std::move(m));
  }
}

}  // namespace gyre::ps
