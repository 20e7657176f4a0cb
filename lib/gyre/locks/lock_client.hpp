// gyre/locks/lock_client.hpp — a worker's side of the lock service: blocking acquire, release, and a guard.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "gyre/locks/lock_protocol.hpp"
#include "gyre/runtime/mailbox.hpp"

namespace gyre::locks {

struct LockClientOptions {
  // Longest wait for the service's answer. Past it the client cannot know whether a grant is
  // still on its way (it would then hold keys nobody uses), so it fails the job.
  std::chrono::milliseconds timeout{std::chrono::minutes(10)};
};

enum class LockStatus : std::uint8_t {
  kGranted,   // the keys are this rank's until released
  kNoneFree,  // a no-wait request could not be granted now
  kStopped,   // the service has stopped granting; nothing was granted
};

struct LockGrant {
  LockStatus status = LockStatus::kStopped;
  std::vector<LockKey> keys;  // when granted: kAll in the order asked, kAny in candidate order
  // From a service that guards values: values[i] is keys[i]'s, to be handed back on release.
  std::vector<Buffer> values;
  explicit operator bool() const noexcept { return status == LockStatus::kGranted; }
};

// The keys of a kLockGrant, checked against the request they answer: `count` distinct keys,
// for kAll exactly those `asked`, for kAny each one of the candidates. Throws wire::DecodeError
// naming the sender otherwise.
std::vector<LockKey> decode_grant(const net::Message& m, LockMode mode, std::uint32_t count,
                                  std::span<const LockKey> asked);

// Talks to the LockService on `service_rank` through the rank's Mailbox, taking only the
// service's answers to it. One client per rank, used by one thread at a time (the service
// allows a rank one waiting request).
//
// The service's failure notice ends a waiting call, which throws runtime::JobFailed with the
// notice's text (naming the rank at fault); every other wait on the mailbox ends with it too.
// A transport failure (a peer's link broke) ends a waiting call with JobFailed as well.
//
// Asking while holding keys can deadlock against another rank doing the same; the service's
// hold timeout then ends the job. Ask for everything at once instead.
class LockClient {
 public:
  LockClient(runtime::Mailbox& inbox, int service_rank, LockClientOptions options = {});

  // All of `keys` at once, or (kNoWait) kNoneFree without holding any of them.
  LockGrant acquire(std::span<const LockKey> keys, LockWait wait = LockWait::kUntilFree);
  // `count` of the candidates that nobody holds, the first ones in list order; waits for enough
  // of them to be free, or (kNoWait) answers kNoneFree at once.
  LockGrant acquire_any(std::span<const LockKey> candidates, std::uint32_t count = 1,
                        LockWait wait = LockWait::kUntilFree);
  // Hands keys back. The service checks the rank holds them; if not, the job fails and this
  // client's next call throws JobFailed. Does nothing once the job is known to have failed.
  void release(std::span<const LockKey> keys);
  // Hands keys back with their guarded values (values[i] is keys[i]'s, of the size granted).
  void release(std::span<const LockKey> keys, std::vector<Buffer> values);
  // Tells the service this rank is done (holding nothing) and waits for its acknowledgement;
  // throws JobFailed if the job failed meanwhile. Idempotent.
  void finish();

  bool stopped() const noexcept { return stopped_; }
  int service_rank() const noexcept { return service_; }

 private:
  LockGrant request(LockMode mode, std::uint32_t count, std::span<const LockKey> keys, LockWait wait);
  std::optional<net::Message> wait_for(std::uint64_t id, const std::string& what);
  [[noreturn]] void give_up(const std::string& why);  // tells the service, then throws JobFailed
  void ensure_usable() const;

  runtime::Mailbox& inbox_;
  int service_;
  LockClientOptions options_;
  std::string me_;
  std::uint64_t next_id_ = 1;
  bool stopped_ = false;
  bool finished_ = false;
  std::optional<runtime::JobFailed> failure_;
};

// Holds granted keys until the end of its scope. Releasing cannot report an error from a
// destructor; if it fails, the job is failing and the client's next call says so.
class LockGuard {
 public:
  LockGuard() = default;
  // Holds what `grant` granted: nothing unless it was granted.
  LockGuard(LockClient& client, LockGrant grant);
  LockGuard(LockGuard&& other) noexcept;
  LockGuard& operator=(LockGuard&& other) noexcept;
  LockGuard(const LockGuard&) = delete;
  LockGuard& operator=(const LockGuard&) = delete;
  ~LockGuard();

  explicit operator bool() const noexcept { return !keys_.empty(); }
  const std::vector<LockKey>& keys() const noexcept { return keys_; }
  // The granted keys' guarded values, if the service guards values: the holder's to read and
  // change in place, handed back (whatever they then hold) on release.
  std::vector<Buffer>& values() noexcept { return values_; }
  // Releases now rather than at the end of the scope.
  void release();

 private:
  LockClient* client_ = nullptr;
  std::vector<LockKey> keys_;
  std::vector<Buffer> values_;
};

// Keys 0 … keys−1 all at once, and a copy of each one's guarded value, in key order; the keys are
// handed back before it returns. For the end of a job, when nobody else holds any (a model
// gathered from the service's one copy). Throws std::runtime_error naming `what` if the service
// has stopped granting.
std::vector<Buffer> copy_all_values(LockClient& client, std::size_t keys, const std::string& what);

}  // namespace gyre::locks
