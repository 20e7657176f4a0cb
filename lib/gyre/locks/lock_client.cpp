// gyre/locks/lock_client.cpp — requests to the lock service and the checks on what comes back.
#include "gyre/locks/lock_client.hpp"

#include <algorithm>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <utility>

#include "gyre/rotation/protocol.hpp"
#include "gyre/rotation/rotation_driver.hpp"
#include "gyre/runtime/receiver.hpp"
#include "gyre/wire/codec.hpp"

namespace gyre::locks {

LockClient::LockClient(runtime::Mailbox& inbox, int service_rank, LockClientOptions options)
    : inbox_(inbox), service_(service_rank), options_(options), me_("rank " + std::to_string(inbox.group().rank())) {
  if (service_rank < 0 || service_rank >= inbox.group().size())
    throw std::invalid_argument("lock client: no rank " + std::to_string(service_rank) + " to serve it");
}

void LockClient::ensure_usable() const {
  if (failure_) throw *failure_;
  if (finished_) throw std::logic_error(me_ + ": lock client used after finish()");
}

LockGrant LockClient::acquire(std::span<const LockKey> keys, LockWait wait) {
  return request(LockMode::kAll, static_cast<std::uint32_t>(keys.size()), keys, wait);
}

LockGrant LockClient::acquire_any(std::span<const LockKey> candidates, std::uint32_t count, LockWait wait) {
  if (count == 0 || count > candidates.size())
    throw std::invalid_argument("acquire_any: " + std::to_string(count) + " of " + std::to_string(candidates.size()) +
                                " candidates");
  return request(LockMode::kAny, count, candidates, wait);
}

LockGrant LockClient::request(LockMode mode, std::uint32_t count, std::span<const LockKey> keys, LockWait wait) {
  ensure_usable();
  if (keys.empty()) throw std::invalid_argument("lock request without keys");
  if (stopped_) return {LockStatus::kStopped, {}, {}};
  const std::uint64_t id = next_id_++;
  net::Message m;
  m.type = kLockAcquire;
  m.tag = id;
  m.meta = wire::encode(LockRequest{static_cast<std::uint8_t>(mode), static_cast<std::uint8_t>(wait), count});
  m.body = encode_keys(keys);
  inbox_.group().send(service_, std::move(m));

  // A service that guards values sends each granted key's value just before the grant.
  std::vector<std::pair<LockKey, Buffer>> values;
  auto answer = wait_for(id, "an answer to its request for " + key_list(keys));
  for (; answer->type == kLockValue; answer = wait_for(id, "the grant after its values")) {
    try {
      const auto key = decode_value_key(*answer, std::numeric_limits<LockKey>::max());
      if (values.size() == count) throw wire::DecodeError("more values than the " + std::to_string(count) + " keys asked");
      values.emplace_back(key, std::move(answer->body));
    } catch (const wire::DecodeError& e) {
      give_up(me_ + ": " + e.what());
    }
  }
  switch (answer->type) {
    case kLockStop:
      stopped_ = true;
      return {LockStatus::kStopped, {}, {}};
    case kLockNoneFree:
      if (wait == LockWait::kUntilFree)
        give_up(me_ + ": the lock service answered a waiting request for " + key_list(keys) + " with none free");
      return {LockStatus::kNoneFree, {}, {}};
    default:
      LockGrant grant{LockStatus::kGranted, {}, {}};
      try {
        grant.keys = decode_grant(*answer, mode, count, keys);
      } catch (const wire::DecodeError& e) {
        give_up(me_ + ": " + e.what());
      }
      if (values.empty()) return grant;
      for (std::size_t i = 0; i < values.size(); ++i) {
        if (values.size() != grant.keys.size() || values[i].first != grant.keys[i])
          give_up(me_ + ": the lock service's values do not match its grant of " + key_list(grant.keys));
        grant.values.push_back(std::move(values[i].second));
      }
      return grant;
  }
}

std::optional<net::Message> LockClient::wait_for(std::uint64_t id, const std::string& what) {
  const auto accept = [&](const net::Message& x) {
    if (x.sender != service_) return false;
    return x.type == kLockStop || ((x.type == kLockGrant || x.type == kLockNoneFree || x.type == kLockValue) && x.tag == id);
  };
  std::optional<net::Message> m;
  try {
    m = runtime::Receiver(inbox_, {}, options_.timeout).receive_until(accept, net::Clock::now() + options_.timeout);
  } catch (const runtime::JobFailed& e) {
    // The service's failure notice, or a lost peer: the job is over.
    failure_ = runtime::JobFailed(e.rank(), e.cause(), me_ + ", waiting for " + what + ": " + e.what());
    throw *failure_;
  }
  if (!m)
    give_up(me_ + ": no " + what + " from the lock service on rank " + std::to_string(service_) + " within " +
            std::to_string(options_.timeout.count()) + " ms");
  return m;
}

std::vector<LockKey> decode_grant(const net::Message& m, LockMode mode, std::uint32_t count,
                                  std::span<const LockKey> asked) {
  std::vector<LockKey> keys;
  try {
    keys = decode_keys(m.body, count);
  } catch (const wire::DecodeError& e) {
    throw wire::DecodeError("malformed lock grant from rank " + std::to_string(m.sender) + ": " + e.what());
  }
  bool fits = keys.size() == count;
  if (mode == LockMode::kAll) {
    fits = fits && std::equal(keys.begin(), keys.end(), asked.begin(), asked.end());
  } else {
    const auto candidate = [&](LockKey k) { return std::find(asked.begin(), asked.end(), k) != asked.end(); };
    std::vector<LockKey> sorted = keys;
    std::sort(sorted.begin(), sorted.end());
    fits = fits && std::all_of(keys.begin(), keys.end(), candidate) &&
           std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end();
  }
  if (!fits)
    throw wire::DecodeError("rank " + std::to_string(m.sender) + " granted " + key_list(keys) + " for a request of " +
                            std::to_string(count) + " of " + key_list(asked));
  return keys;
}

void LockClient::release(std::span<const LockKey> keys) {
  if (failure_) return;  // the service has given up on every holder
  if (finished_) throw std::logic_error(me_ + ": lock client used after finish()");
  if (keys.empty()) throw std::invalid_argument("release without keys");
  net::Message m;
  m.type = kLockRelease;
  m.body = encode_keys(keys);
  inbox_.group().send(service_, std::move(m));
}

void LockClient::release(std::span<const LockKey> keys, std::vector<Buffer> values) {
  if (values.size() != keys.size())
    throw std::invalid_argument("release of " + key_list(keys) + " with " + std::to_string(values.size()) + " values");
  if (failure_) return;
  if (finished_) throw std::logic_error(me_ + ": lock client used after finish()");
  for (std::size_t i = 0; i < keys.size(); ++i) inbox_.group().send(service_, encode_value(keys[i], std::move(values[i])));
  release(keys);
}

void LockClient::finish() {
  if (finished_) return;
  ensure_usable();
  net::Message m;
  m.type = kLockFinish;
  inbox_.group().send(service_, std::move(m));
  if (!stopped_) {
    const auto answer = wait_for(0, "acknowledgement of its finish");  // request ids start at 1
    if (answer->type != kLockStop) give_up(me_ + ": the lock service answered its finish with a grant");
    stopped_ = true;
  }
  finished_ = true;
}

void LockClient::give_up(const std::string& why) {
  failure_ = runtime::JobFailed(inbox_.group().rank(), runtime::FailureCause::kError, why);
  try {
    inbox_.group().send(service_, runtime::failure_message(*failure_, kLockAbort));
  } catch (const std::exception&) {
    // The service is unreachable; the job fails all the same.
  }
  throw *failure_;
}

LockGuard::LockGuard(LockClient& client, LockGrant grant) {
  if (!grant) return;
  client_ = &client;
  keys_ = std::move(grant.keys);
  values_ = std::move(grant.values);
}

LockGuard::LockGuard(LockGuard&& other) noexcept
    : client_(other.client_), keys_(std::move(other.keys_)), values_(std::move(other.values_)) {
  other.client_ = nullptr;
  other.keys_.clear();
  other.values_.clear();
}

LockGuard& LockGuard::operator=(LockGuard&& other) noexcept {
  if (this != &other) {
    try {
      release();
    } catch (const std::exception&) {
    }
    client_ = std::exchange(other.client_, nullptr);
    keys_ = std::move(other.keys_);
    values_ = std::move(other.values_);
    other.keys_.clear();
    other.values_.clear();
  }
  return *this;
}

LockGuard::~LockGuard() {
  try {
    release();
  } catch (const std::exception&) {
    // See the class comment: the client's next call reports the failure.
  }
}

void LockGuard::release() {
  if (!client_ || keys_.empty()) return;
  const auto keys = std::move(keys_);
  auto values = std::move(values_);
  keys_.clear();
  values_.clear();
  if (values.empty())
    client_->release(keys);
  else
    client_->release(keys, std::move(values));
}

std::vector<Buffer> copy_all_values(LockClient& client, std::size_t keys, const std::string& what) {
  std::vector<LockKey> all(keys);
  std::iota(all.begin(), all.end(), LockKey{0});
  LockGuard held(client, client.acquire(all));
  if (!held) throw std::runtime_error("the lock service stopped granting " + what + " before they were all copied");
  std::vector<Buffer> copies;
  copies.reserve(keys);
  for (const Buffer& value : held.values()) {
    Buffer copy(value.size());
    std::copy(value.bytes().begin(), value.bytes().end(), copy.data());
    copies.push_back(std::move(copy));
  }
  return copies;
}

}  // namespace gyre::locks
