// gyre/ps/ps_server.cpp — the server loop: pushes, sets, clock-gated reads, stop.
#include "gyre/ps/ps_server.hpp"

#include <stdexcept>
#include <string>

#include "gyre/ps/barrier.hpp"
#include "gyre/ps/ps_messages.hpp"
#include "gyre/rotation/rotation_driver.hpp"
#include "gyre/runtime/receiver.hpp"

namespace gyre::ps {

PsServer::PsServer(runtime::Mailbox& inbox, PsLayout layout, int index, PsServerOptions options)
    : inbox_(inbox),
      layout_(layout),
      index_(index),
      options_(std::move(options)),
      store_(layout.workers, options_.ordered, options_.pull, options_.initial, layout.value_size),
      reports_(static_cast<std::size_t>(layout.workers)) {
  layout_.validate();
  for (Key k = 0; k < layout_.keys; ++k) {
    if (layout_.server_of(k) != index_) continue;
    try {
      store_.at(k);
    } catch (const std::logic_error& e) {
      throw std::invalid_argument(std::string("parameter server: ") + e.what());
    }
  }
}

void PsServer::check_held(Key key, int sender) const {
  if (!store_.holds(key))
    throw std::runtime_error("key " + std::to_string(key) + " from rank " + std::to_string(sender) + " is not held by server " +
                             std::to_string(index_));
}

Value& PsServer::stored(Key key, int sender) {
  check_held(key, sender);
  return store_.at(key);
}

void PsServer::answer(const HeldRead& r) {
  KeyValues kv;
  kv.reserve(r.keys.size());
  for (Key k : r.keys) kv.emplace_back(k, stored(k, r.member));
  net::Message m;
  m.type = kGetReply;
  m.tag = r.request;
  m.body = encode_key_values(kv, store_.slowest());
  inbox_.group().send(r.member, std::move(m));
}

void PsServer::advance(int w, std::int64_t clock) {
  store_.advance(w, clock);
  for (const HeldRead& r : store_.take_due_reads()) answer(r);
}

void PsServer::handle(const net::Message& m) {
  const int w = m.sender;
  if (w < 0 || w >= layout_.workers) throw std::runtime_error("message from rank " + std::to_string(w) + ", not a worker");
  const std::int64_t worker_clock = store_.clock_of(w);
  switch (m.type) {
    case kPush:
    case kSet:
      for (auto& [k, v] : decode_updates(m, layout_, index_)) {
        check_held(k, w);  // a key this server does not hold is refused now, not when it is due
        store_.take({worker_clock + 1, w, m.type == kSet, k, std::move(v)});
        ++pushes_;
      }
      break;
    case kGet: {
      HeldRead r{w, m.tag, 0, {}};
      r.keys = decode_read(m, layout_, index_, r.clock);  // a stray key is refused now, not when the read is due
      if (r.clock <= store_.slowest())
        answer(r);
      else
        store_.hold(std::move(r));
      break;
    }
    case kClock:
      if (static_cast<std::int64_t>(m.tag) != worker_clock + 1)
        throw std::runtime_error("rank " + std::to_string(w) + " reported clock " + std::to_string(m.tag) + " after " +
                                 std::to_string(worker_clock));
      advance(w, worker_clock + 1);
      break;
    case kStop: {
      if (worker_clock == Barrier::kFinished) throw std::runtime_error("rank " + std::to_string(w) + " stopped twice");
      reports_[static_cast<std::size_t>(w)] = decode_report(m);
      ++stopped_;
      advance(w, Barrier::kFinished);
      break;
    }
    case kKeys: {
      std::vector<Key> keys;
      for (const auto& [k, v] : store_.values()) keys.push_back(k);
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

}  // namespace gyre::ps
