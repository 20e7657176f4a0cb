// gyre/locks/lock_service.cpp — the lock service's loop: requests in, grants out, failures to everyone.
#include "gyre/locks/lock_service.hpp"

#include <algorithm>
#include <stdexcept>

#include "gyre/base/rank_text.hpp"
#include "gyre/rotation/protocol.hpp"
#include "gyre/rotation/rotation_driver.hpp"
#include "gyre/runtime/receiver.hpp"
#include "gyre/wire/codec.hpp"

namespace gyre::locks {
namespace {

template <class Duration>
std::string ms_text(Duration d) {
  return std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(d).count()) + " ms";
}

}  // namespace

LockService::LockService(runtime::Mailbox& inbox, std::vector<int> workers, std::uint32_t keys, LockServiceOptions options)
    : inbox_(inbox),
      workers_(std::move(workers)),
      options_(options),
      table_(keys),
      finished_(workers_.size(), 0),
      told_(workers_.size(), 0),
      unfinished_(workers_.size()) {
  if (workers_.empty()) throw std::invalid_argument("a lock service needs at least one worker");
  for (int w : workers_)
    if (w < 0 || w >= inbox_.group().size() || std::count(workers_.begin(), workers_.end(), w) != 1)
      throw std::invalid_argument("lock service: worker " + rank_text(w) + " is not a distinct rank of the group");
}

LockService::LockService(runtime::Mailbox& inbox, std::vector<int> workers, std::vector<Buffer> values,
                         LockServiceOptions options)
    : LockService(inbox, std::move(workers), static_cast<std::uint32_t>(values.size()), options) {
  for (const auto& v : values) value_size_.push_back(v.size());
  value_here_.assign(values.size(), 1);
  values_ = std::move(values);
}

std::vector<Buffer> LockService::take_values() { return std::move(values_); }

std::size_t LockService::index_of(int rank) const {
  return static_cast<std::size_t>(std::find(workers_.begin(), workers_.end(), rank) - workers_.begin());
}

bool LockService::accepts(const net::Message& m) const {
  if (m.type == kLockWake) return m.sender == inbox_.group().rank();
  // Grants, stops and granted values (tagged with their request, from 1) are what the service
  // sends; on a rank that is also a worker they are its client's to take.
  const bool to_service = m.type == kLockAcquire || m.type == kLockRelease || m.type == kLockFinish ||
                          m.type == kLockAbort || (m.type == kLockValue && m.tag == 0);
  return to_service && index_of(m.sender) < workers_.size();
}

LockStats LockService::run() {
  last_heard_ = net::Clock::now();
  // Silence is this service's own business (idle and hold time-outs, check_timeouts).
  const runtime::Receiver receiver(inbox_, {}, options_.idle_timeout);
  while (unfinished_ > 0) {
    auto deadline = last_heard_ + options_.idle_timeout;
    if (const auto hold = table_.oldest_hold()) deadline = std::min(deadline, hold->since + options_.hold_timeout);
    std::optional<net::Message> m;
    try {
      m = receiver.receive_until([this](const net::Message& x) { return accepts(x); }, deadline);
    } catch (const runtime::JobFailed& e) {
      fail(e.rank(), e.cause(), std::string("interrupted: ") + e.what());  // the job failed elsewhere, or a peer was lost
    }
    if (!m) {
      check_timeouts(net::Clock::now());
      continue;
    }
    handle(std::move(*m));
    publish();
  }
  drain_wake();
  publish();
  return table_.stats();
}

void LockService::handle(net::Message m) {
  if (m.type == kLockWake) {
    wake_seen_ = true;
    return stop_granting();
  }
  const int worker = m.sender;
  last_heard_ = net::Clock::now();
  try {
    if (finished_[index_of(worker)])
      throw std::invalid_argument(rank_text(worker) + " sent lock message type " + std::to_string(m.type) +
                                  " after it had finished");
    switch (m.type) {
      case kLockAcquire: return acquire(m);
      case kLockRelease: return release(worker, m);
      case kLockFinish: return finish(worker);
      case kLockValue: return take_value(worker, std::move(m));
      case kLockAbort: {
        const auto given_up = runtime::read_failure(m);
        fail(given_up.rank(), given_up.cause(), given_up.what());
      }
      default: return;
    }
  } catch (const wire::DecodeError& e) {
    fail(worker, runtime::FailureCause::kBadMessage, rank_text(worker) + " sent a malformed lock message: " + e.what());
  } catch (const std::invalid_argument& e) {
    fail(worker, runtime::FailureCause::kBadMessage, e.what());
  }
}

LockTable::Request decode_lock_request(const net::Message& m, std::uint32_t keys) {
  const auto header = wire::decode<LockRequest>(m.meta);
  if (header.mode > static_cast<std::uint8_t>(LockMode::kAny) ||
      header.wait > static_cast<std::uint8_t>(LockWait::kNoWait))
    throw wire::DecodeError("unknown mode or wait in request " + std::to_string(m.tag));
  LockTable::Request r;
  r.rank = m.sender;
  r.id = m.tag;
  r.count = header.count;
  r.keys = decode_keys(m.body, keys);
  r.mode = static_cast<LockMode>(header.mode);
  r.wait = static_cast<LockWait>(header.wait);
  return r;
}

void LockService::acquire(const net::Message& m) {
  auto r = decode_lock_request(m, table_.keys());
  // After a stop the worker's answer is the kLockStop it has been sent (or is about to find).
  if (stopping_) return;
  answer(table_.submit(std::move(r), net::Clock::now()));
}

void LockService::take_value(int worker, net::Message m) {
  const auto key = decode_value_key(m, table_.keys());
  const std::string what = rank_text(worker) + " handed back the value of key " + std::to_string(key);
  if (values_.empty()) throw std::invalid_argument(what + ", but the keys guard no values");
  if (table_.holder(key) != worker) throw std::invalid_argument(what + " without holding it");
  if (value_here_[key]) throw std::invalid_argument(what + " twice");
  if (m.body.size() != value_size_[key])
    throw std::invalid_argument(what + " as " + std::to_string(m.body.size()) + " bytes; it holds " +
                                std::to_string(value_size_[key]));
  values_[key] = std::move(m.body);
  value_here_[key] = 1;
}

void LockService::release(int worker, const net::Message& m) {
  const auto keys = decode_keys(m.body, table_.keys());
  if (!values_.empty())
    for (const auto k : keys)
      if (k < value_here_.size() && !value_here_[k] && table_.holder(k) == worker)
        throw std::invalid_argument(rank_text(worker) + " released key " + std::to_string(k) +
                                    " without handing back its value");
  answer(table_.release(worker, keys, net::Clock::now()));
}

void LockService::finish(int worker) {
  const auto held = table_.held_by(worker);
  if (!held.empty()) throw std::invalid_argument(rank_text(worker) + " finished while holding " + key_list(held));
  finished_[index_of(worker)] = 1;
  --unfinished_;
  tell_stopped(worker);  // its client waits for this, so that no stop notice is left behind
}

void LockService::stop_granting() {
  if (stopping_) return;
  stopping_ = true;
  table_.drop_waiting();  // their answer is the stop notice
  for (std::size_t i = 0; i < workers_.size(); ++i)
    if (!finished_[i]) tell_stopped(workers_[i]);
}

void LockService::tell_stopped(int worker) {
  auto& told = told_[index_of(worker)];
  if (told) return;
  told = 1;
  net::Message m;
  m.type = kLockStop;
  inbox_.group().send(worker, std::move(m));
}

void LockService::answer(const std::vector<LockTable::Answer>& answers) {
  for (const auto& a : answers) {
    net::Message m;
    m.type = a.keys.empty() ? kLockNoneFree : kLockGrant;
    m.tag = a.id;
    if (!values_.empty())
      for (const auto k : a.keys) {  // the grant follows its values on the same link
        value_here_[k] = 0;
        inbox_.group().send(a.rank, encode_value(k, std::move(values_[k]), a.id));
      }
    m.body = encode_keys(a.keys);
    inbox_.group().send(a.rank, std::move(m));
  }
}

void LockService::check_timeouts(net::Clock::time_point now) {
  if (const auto hold = table_.oldest_hold(); hold && now - hold->since >= options_.hold_timeout)
    fail(hold->rank, runtime::FailureCause::kTimeout, rank_text(hold->rank) + " has held key " + std::to_string(hold->key) + " for over " +
         ms_text(options_.hold_timeout) + " and is taken for dead");
  if (now - last_heard_ >= options_.idle_timeout) {
    std::string silent;
    int first_silent = -1;
    for (std::size_t i = 0; i < workers_.size(); ++i)
      if (!finished_[i]) {
        silent += (silent.empty() ? "" : ",") + std::to_string(workers_[i]);
        if (first_silent < 0) first_silent = workers_[i];
      }
    fail(first_silent, runtime::FailureCause::kTimeout, "no lock message from any worker for " + ms_text(options_.idle_timeout) + "; rank(s) " + silent +
         " have not finished");
  }
}

void LockService::fail(int rank, runtime::FailureCause category, const std::string& cause) {
  // The holdings come with the cause: they are what the dead rank's work was lost on.
  const std::string why = "lock service: " + cause + "; " + table_.describe_holders();
  {
    std::lock_guard lock(mutex_);
    published_ = table_.stats();
    ended_ = true;
  }
  runtime::fail_job(inbox_.group(), workers_, runtime::JobFailed(rank, category, why));
}

void LockService::publish() {
  std::lock_guard lock(mutex_);
  published_ = table_.stats();
}

void LockService::stop() {
  std::lock_guard lock(mutex_);
  if (wake_sent_ || ended_) return;
  wake_sent_ = true;
  net::Message m;
  m.type = kLockWake;
  inbox_.group().send(inbox_.group().rank(), std::move(m));  // delivered at once: no socket to oneself
}

void LockService::drain_wake() {
  {
    std::lock_guard lock(mutex_);
    ended_ = true;
    if (!wake_sent_ || wake_seen_) return;
  }
  // stop() raced with the last finish: take its wake-up so that no later reader finds it.
  try {
    inbox_.receive([this](const net::Message& x) { return x.type == kLockWake && accepts(x); },
                   net::Clock::now() + std::chrono::seconds(1));
  } catch (const net::GroupClosed&) {
  }
}

LockStats LockService::stats() const {
  std::lock_guard lock(mutex_);
  return published_;
}

}  // namespace gyre::locks
