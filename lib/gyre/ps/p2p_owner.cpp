// gyre/ps/p2p_owner.cpp — the owner's service thread: bounded decoding, exactly-once folding, reads, the end of the job.
#include "gyre/ps/p2p_owner.hpp"

#include <stdexcept>
#include <tuple>
#include <string>

#include "gyre/ps/barrier.hpp"
#include "gyre/runtime/failure.hpp"
#include "gyre/runtime/receiver.hpp"

namespace gyre::ps::p2p {
namespace {

constexpr auto kPoll = std::chrono::milliseconds(50);  // how often the service looks at stop_
constexpr std::int64_t kFinished = Barrier::kFinished;  // a peer past its last push

bool for_owner(const net::Message& m) {
  return m.type == kPush || m.type == kSet || m.type == kGet || m.type == kDone;
}

}  // namespace

P2pOwner::P2pOwner(runtime::Mailbox& inbox, P2pLayout layout, Fold fold, std::function<Value(Key)> initial, bool clocked)
    : inbox_(inbox),
      layout_(layout),
      self_(inbox.group().rank()),
      clocked_(clocked),
      store_(layout.peers, clocked, std::move(fold), std::move(initial), layout.value_size, /*count_pushes=*/true),
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

Value P2pOwner::read_at(Key key, std::int64_t clock, std::chrono::steady_clock::time_point deadline) {
  std::unique_lock lock(mutex_);
  if (clocked_ && !advanced_.wait_until(lock, deadline, [&] { return store_.slowest() >= clock || error_ || ended_; })) {
    const int behind = store_.slowest_member();
    throw runtime::JobFailed(behind, runtime::FailureCause::kTimeout,
                             "peer-to-peer owner " + std::to_string(self_) + ": the pushes of rank " +
                                 std::to_string(behind) + " did not reach clock " + std::to_string(clock) + " in time");
  }
  if (error_) std::rethrow_exception(error_);
  return store_.at(key);
}

void P2pOwner::apply(Key key, std::span<const double> delta, std::int64_t step_end) {
  std::lock_guard lock(mutex_);
  store_.take({step_end, self_, false, key, Value(delta.begin(), delta.end())});
}

void P2pOwner::store(Key key, Value value, std::int64_t step_end) {
  std::lock_guard lock(mutex_);
  store_.take({step_end, self_, true, key, std::move(value)});
}

void P2pOwner::reached(std::int64_t clock) {
  if (!clocked_) return;
  {
    std::lock_guard lock(mutex_);
    store_.advance(self_, clock);
  }
  answer_due();
}

void P2pOwner::answer(int peer, std::uint64_t request, const KeyValues& kv) {
  net::Message reply;
  reply.type = kGetReply;
  reply.tag = request;
  reply.body = encode_key_values(kv, 0);
  inbox_.group().send(peer, std::move(reply));
}

void P2pOwner::answer_due() {
  std::vector<std::tuple<int, std::uint64_t, KeyValues>> due;
  {
    std::lock_guard lock(mutex_);
    for (const HeldRead& r : store_.take_due_reads()) {
      KeyValues kv;
      for (Key k : r.keys) kv.emplace_back(k, store_.at(k));
      due.emplace_back(r.member, r.request, std::move(kv));
    }
  }
  advanced_.notify_all();
  for (const auto& [peer, request, kv] : due) answer(peer, request, kv);
}

void P2pOwner::handle(const net::Message& m) {
  const int sender = m.sender;
  if (sender < 0 || sender >= layout_.peers || sender == self_ || done_[static_cast<std::size_t>(sender)])
    throw std::runtime_error("sent a " + std::to_string(m.type) + " but is not a peer that has yet to finish");
  const auto step_end = static_cast<std::int64_t>(m.tag);
  switch (m.type) {
    case kPush:
    case kSet: {
      auto updates = decode_owned_values(m, layout_, self_);
      std::lock_guard lock(mutex_);
      const std::int64_t clock = store_.clock_of(sender);
      if (clocked_ && step_end != clock + 1)
        throw std::runtime_error(std::string(m.type == kPush ? "pushed" : "set") + " for clock " + std::to_string(m.tag) +
                                 " after clock " + std::to_string(clock));
      for (auto& [k, v] : updates) store_.take({step_end, sender, m.type == kSet, k, std::move(v)});
      if (!clocked_ || m.type == kSet) return;
      store_.advance(sender, step_end);
      break;
    }
    case kGet: {
      HeldRead r{sender, m.tag, 0, {}};
      r.keys = decode_owned_keys(m, layout_, self_, r.clock);
      KeyValues kv;
      {
        std::lock_guard lock(mutex_);
        if (clocked_ && r.clock > store_.slowest()) {
          store_.hold(std::move(r));
          return;
        }
        for (Key k : r.keys) kv.emplace_back(k, store_.at(k));
      }
      return answer(r.member, r.request, kv);
    }
    default: {  // kDone
      std::lock_guard lock(mutex_);
      done_[static_cast<std::size_t>(sender)] = 1;
      ++done_count_;
      store_.advance(sender, kFinished);
    }
  }
  answer_due();
}

void P2pOwner::serve() {
  // Polled, so that stop() is seen; silence is the peers' concern (their reads time out).
  const runtime::Receiver receiver(inbox_, "peer-to-peer owner " + std::to_string(self_), kPoll);
  try {
    for (;;) {
      {
        std::lock_guard lock(mutex_);
        if (done_count_ == layout_.peers) break;
      }
      if (stop_) break;
      auto m = receiver.receive_until(for_owner, net::Clock::now() + kPoll);
      if (!m) continue;
      try {
        handle(*m);
      } catch (const std::runtime_error& e) {
        if (runtime::is_job_failure(e)) throw;  // the job is failing already, not this message
        const std::string text = receiver.who() + ": from rank " + std::to_string(m->sender) + ": " + e.what();
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
          throw;
        }
      }
    }
  } catch (...) {
    std::lock_guard lock(mutex_);
    error_ = std::current_exception();
  }
  {
    std::lock_guard lock(mutex_);
    ended_ = true;
  }
  advanced_.notify_all();
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
  std::lock_guard lock(mutex_);
  store_.advance(self_, kFinished);  // every peer is done: what is still kept is folded in
}

std::map<Key, Value> P2pOwner::values() const {
  std::lock_guard lock(mutex_);
  return store_.values();
}

std::map<Key, std::uint64_t> P2pOwner::pushes_applied() const {
  std::lock_guard lock(mutex_);
  return store_.pushes_folded();
}

std::uint64_t P2pOwner::held_reads() const {
  std::lock_guard lock(mutex_);
  return store_.held_reads();
}

}  // namespace gyre::ps::p2p
