// gyre/ps/ps_server.cpp — the server loop: pushes, sets, clock-gated reads, stop.
#include "gyre/ps/ps_server.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "gyre/ps/barrier.hpp"
#include "gyre/ps/ps_messages.hpp"
#include "gyre/rotation/rotation_driver.hpp"
#include "gyre/runtime/receiver.hpp"

namespace gyre::pipeline::ps {

PsServer::PsServer(runtime::Mailbox& inbox, PsLayout layout, int index, PsServerOptions options)
    : inbox_(inbox), layout_(layout), index_(index), options_(std::move(options)),
      worker_clocks_(static_cast<std::size_t>(layout.workers), 0), reports_(static_cast<std::size_t>(layout.workers)) {
  layout_.validate();
  if (!options_.pull)
    options_.pull = [](Key, Value& stored, std::span<const double> update) {
      for (std::size_t i = 0; i < stored.size(); ++i) stored[i] += update[i];
    };
  for (Key k = 0; k < layout_.keys; ++k) {
    if (layout_.server_of(k) != index_) continue;
    Value v = options_.initial ? options_.initial(k) : Value(layout_.value_size, 0.0);
    if (v.size() != layout_.value_size)
      throw std::invalid_argument("parameter server: initial value of key " + std::to_string(k) + " has " +
                                  std::to_string(v.size()) + " doubles, not " + std::to_string(layout_.value_size));
    values_.emplace(k, std::move(v));
  }
}

Value& PsServer::stored(Key key, int sender) {
  const auto it = values_.find(key);
  if (it == values_.end())
    throw std::runtime_error("key " + std::to_string(key) + " from rank " + std::to_string(sender) + " is not held by server " +
                             std::to_string(index_));
  return it->second;
}

void PsServer::answer(const Read& r) {
  KeyValues kv;
  kv.reserve(r.keys.size());
  for (Key k : r.keys) kv.emplace_back(k, stored(k, r.worker));
  net::Message m;
  m.type = kGetReply;
  m.tag = r.request;
  m.body = encode_key_values(kv, clock_);
  inbox_.group().send(r.worker, std::move(m));
}

void PsServer::fold_due() {
  std::stable_sort(pending_.begin(), pending_.end(),
                   [](const Pending& a, const Pending& b) { return a.step != b.step ? a.step < b.step : a.worker < b.worker; });
  const auto due = std::find_if(pending_.begin(), pending_.end(), [&](const Pending& p) { return p.step >= clock_; });
  for (auto it = pending_.begin(); it != due; ++it) {
    auto& s = stored(it->key, it->worker);
    if (it->set)
      s = std::move(it->value);
    else
      options_.pull(it->key, s, it->value);
  }
  pending_.erase(pending_.begin(), due);
}

void PsServer::advance_clock() {
  clock_ = *std::min_element(worker_clocks_.begin(), worker_clocks_.end());
  if (options_.ordered) fold_due();
  std::erase_if(waiting_, [&](const Read& r) {
    if (r.clock > clock_) return false;
    answer(r);
    return true;
  });
}

void PsServer::handle(const net::Message& m) {
  const int w = m.sender;
  if (w < 0 || w >= layout_.workers) throw std::runtime_error("message from rank " + std::to_string(w) + ", not a worker");
  auto& worker_clock = worker_clocks_[static_cast<std::size_t>(w)];
  switch (m.type) {
    case kPush:
    case kSet:
      for (auto& [k, v] : decode_updates(m, layout_, index_)) {
        auto& s = stored(k, w);
        if (options_.ordered)
          pending_.push_back({worker_clock, w, m.type == kSet, k, std::move(v)});
        else if (m.type == kSet)
          s = std::move(v);
        else
          options_.pull(k, s, v);
        ++pushes_;
      }
      break;
    case kGet: {
      Read r{w, m.tag, 0, {}};
      r.keys = decode_read(m, layout_, index_, r.clock);  // a stray key is refused now, not when the read is due
      if (r.clock <= clock_) {
        answer(r);
      } else {
        ++deferred_;
        waiting_.push_back(std::move(r));
      }
      break;
    }
    case kClock:
      if (static_cast<std::int64_t>(m.tag) != worker_clock + 1)
        throw std::runtime_error("rank " + std::to_string(w) + " reported clock " + std::to_string(m.tag) + " after " +
                                 std::to_string(worker_clock));
      ++worker_clock;
      advance_clock();
      break;
    case kStop: {
      if (worker_clock == scheduler::Barrier::kFinished) throw std::runtime_error("rank " + std::to_string(w) + " stopped twice");
      reports_[static_cast<std::size_t>(w)] = decode_report(m);
      worker_clock = scheduler::Barrier::kFinished;
      ++stopped_;
      advance_clock();
      break;
    }
    case kKeys: {
      std::vector<Key> keys;
      for (const auto& [k, v] : values_) keys.push_back(k);
      net::Message reply;
      reply.type = kKeysReply;
      reply.tag = m.tag;
      reply.body = encode_keys(keys, 0);
      inbox_.group().send(w, std::move(reply));
      break;
    }
    default:
      throw std::runtime_error("rank " + std::to_string(w) + " sent message type " + std::to_string(m.type) + " to a server");
  }
}

void PsServer::run() {
  const auto accept = [](const net::Message& m) { return m.type >= kPush && m.type <= kKeysReply; };
  std::vector<int> others;
  for (int r : layout_.all_ranks())
    if (r != inbox_.group().rank()) others.push_back(r);
  const runtime::Receiver receiver(inbox_, "parameter server " + std::to_string(index_), options_.timeout, others);
  // Which worker owes a message is not known here: a server waits for anyone.
  const auto silent = [&] { return runtime::Silence{inbox_.group().rank(), "message"}; };
  while (stopped_ < layout_.workers) {
    const net::Message m = receiver.receive(accept, silent);
    try {
      handle(m);
    } catch (const std::runtime_error& e) {
      receiver.fail(m.sender, runtime::FailureCause::kBadMessage,
                    "message type " + std::to_string(m.type) + " from rank " + std::to_string(m.sender) + ": " + e.what());
    }
  }
}

}  // namespace gyre::pipeline::ps
