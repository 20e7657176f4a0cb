// pipeline/p2p_owner.cpp — the owner's service thread: bounded decoding, exactly-once folding, reads, the end of the job.
#include "gyre/pipeline/p2p_owner.hpp"

#include <stdexcept>
#include <string>

#include "gyre/runtime/failure.hpp"

namespace gyre::pipeline::p2p {
namespace {

constexpr auto kPoll = std::chrono::milliseconds(50);  // how often the service looks at stop_

bool for_owner(const net::Message& m) {
  return m.type == kPush || m.type == kSet || m.type == kGet || m.type == kDone;
}

}  // namespace

P2pOwner::P2pOwner(runtime::Mailbox& inbox, P2pLayout layout, Fold fold, std::function<Value(Key)> initial)
    : inbox_(inbox),
      layout_(layout),
      self_(inbox.group().rank()),
      fold_(std::move(fold)),
      initial_(std::move(initial)),
      done_(static_cast<std::size_t>(layout.peers), 0) {
  layout_.validate();
  done_[static_cast<std::size_t>(self_)] = 1;
  done_count_ = 1;
  if (done_count_ == layout_.peers) ended_ = true;
  else service_ = std::thread([this] { serve(); });
}

P2pOwner::~P2pOwner() {
  stop_ = true;
  if (service_.joinable()) service_.join();
}

Value& P2pOwner::stored(Key key) {
  auto it = values_.find(key);
  if (it == values_.end()) it = values_.emplace(key, initial_ ? initial_(key) : Value(layout_.value_size, 0.0)).first;
  if (it->second.size() != layout_.value_size)
    throw std::logic_error("peer-to-peer: the initial value of key " + std::to_string(key) + " has " +
                           std::to_string(it->second.size()) + " doubles, not " + std::to_string(layout_.value_size));
  return it->second;
}

Value P2pOwner::read(Key key) const {
  std::lock_guard lock(mutex_);
  return const_cast<P2pOwner*>(this)->stored(key);
}

void P2pOwner::apply(Key key, std::span<const double> delta) {
  std::lock_guard lock(mutex_);
  Value& v = stored(key);
  if (fold_) fold_(key, v, delta);
  else
    for (std::size_t i = 0; i < v.size(); ++i) v[i] += delta[i];
  ++applied_[key];
}

void P2pOwner::store(Key key, Value value) {
  std::lock_guard lock(mutex_);
  stored(key) = std::move(value);
}

void P2pOwner::handle(const net::Message& m) {
  const int sender = m.sender;
  if (sender < 0 || sender >= layout_.peers || sender == self_ || done_[static_cast<std::size_t>(sender)])
    throw std::runtime_error("sent a " + std::to_string(m.type) + " but is not a peer that has yet to finish");
  switch (m.type) {
    case kPush:
      for (const auto& [k, delta] : decode_owned_values(m, layout_, self_)) apply(k, delta);
      return;
    case kSet:
      for (auto& [k, v] : decode_owned_values(m, layout_, self_)) store(k, std::move(v));
      return;
    case kGet: {
      const auto keys = decode_owned_keys(m, layout_, self_);
      KeyValues kv;
      kv.reserve(keys.size());
      for (Key k : keys) kv.emplace_back(k, read(k));
      net::Message reply;
      reply.type = kGetReply;
      reply.tag = m.tag;
      reply.body = ps::encode_key_values(kv, 0);
      inbox_.group().send(sender, std::move(reply));
      return;
    }
    default: {  // kDone
      std::lock_guard lock(mutex_);
      done_[static_cast<std::size_t>(sender)] = 1;
      ++done_count_;
    }
  }
}

void P2pOwner::serve() {
  try {
    for (;;) {
      {
        std::lock_guard lock(mutex_);
        if (done_count_ == layout_.peers) break;
      }
      if (stop_) return;
      auto m = inbox_.receive(for_owner, net::Clock::now() + kPoll);
      if (!m) continue;
      try {
        handle(*m);
      } catch (const net::GroupClosed&) {
        throw;  // the job is failing already, not this message
      } catch (const runtime::JobFailed&) {
        throw;
      } catch (const std::runtime_error& e) {
        const std::string text = "peer-to-peer owner " + std::to_string(self_) + ": from rank " +
                                 std::to_string(m->sender) + ": " + e.what();
        std::vector<int> others;
        for (int r : layout_.peer_ranks())
          if (r != self_) others.push_back(r);
        try {
          runtime::fail_job(inbox_.group(), others, runtime::JobFailed(m->sender, runtime::FailureCause::kBadMessage, text));
        } catch (...) {
          {
            std::lock_guard lock(mutex_);
            error_ = std::current_exception();
          }
          inbox_.group().close(text);  // this peer's own waits end too
          return;
        }
      }
    }
  } catch (...) {
    std::lock_guard lock(mutex_);
    error_ = std::current_exception();
  }
  ended_ = true;
}

void P2pOwner::rethrow_if_failed() const {
  std::lock_guard lock(mutex_);
  if (error_) std::rethrow_exception(error_);
}

void P2pOwner::finish(std::chrono::steady_clock::time_point deadline) {
  while (!ended_) {
    rethrow_if_failed();
    if (std::chrono::steady_clock::now() > deadline) {
      std::lock_guard lock(mutex_);
      int missing = 0;
      while (done_[static_cast<std::size_t>(missing)]) ++missing;
      throw runtime::JobFailed(missing, runtime::FailureCause::kTimeout,
                               "peer-to-peer owner " + std::to_string(self_) + ": rank " + std::to_string(missing) +
                                   " did not finish in time");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  if (service_.joinable()) service_.join();
  rethrow_if_failed();
}

std::map<Key, Value> P2pOwner::values() const {
  std::lock_guard lock(mutex_);
  return values_;
}

std::map<Key, std::uint64_t> P2pOwner::pushes_applied() const {
  std::lock_guard lock(mutex_);
  return applied_;
}

}  // namespace gyre::pipeline::p2p
