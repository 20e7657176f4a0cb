// gyre/collective/delta_exchange.hpp — asynchronous sums of the members' changes: push yours to every peer, add theirs as they arrive, wait only to flush.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "gyre/base/export.hpp"
#include "gyre/runtime/mailbox.hpp"
#include "gyre/wire/channels.hpp"

namespace gyre::collective {

// Message type of pushed changes: the delta channel's one type (0x0110).
inline constexpr std::uint16_t kDeltaMessage = wire::channels::kDelta.at(0);

struct DeltaExchangeOptions {
  // Longest wait of take_until() for one peer's change; past it the job fails, naming the peer.
  std::chrono::milliseconds timeout{std::chrono::minutes(10)};
  // Changes travel with this stream number: two exchanges (two models) can share one inbox.
  std::uint32_t stream = 0;
};

// Why a pushed change must be refused, or nullopt when it is sound: push number
// `expected_number` from its sender, exactly `elements` values of `element_bytes` each and,
// with `doubles`, every one finite. Looked at in place, before anything is copied or added.
GYRE_API std::optional<std::string> check_change(const net::Message& m, std::uint64_t expected_number, std::size_t elements,
                                                 std::size_t element_bytes, bool doubles);

// Harp's no-sync model for a state that is a sum of the members' parts (topic counts, a
// residual): each member works on its own replica, pushes what it changed to every peer without
// waiting, and adds the peers' changes whenever it looks (take_arrived), so a replica is
// stale by whatever is still on the wire, never blocked on the slowest member. Nothing is
// averaged or overwritten: once every push is taken, every replica is the same sum (exactly so
// for integers; up to the order of additions for doubles). take_until() is the one wait, for a
// flush before a state must be whole (a report, the model written).
//
// Every push goes to every peer (not a ring): a change's delay is one message, whatever the
// member count; the traffic is (members − 1) × size per push, as a ring allreduce's 2× size
// when members are few.
//
// T is std::uint32_t (sums wrap: counts whose true sums are in range come out exact), std::int64_t
// or double. A change is refused before it is added — the job fails with std::runtime_error
// naming its sender — unless it is from a member, numbered next from that member, exactly
// `size` elements and (doubles) finite.
template <class T>
class GYRE_API DeltaExchange {
 public:
  using Add = std::function<void(std::span<const T> change)>;

  // `members`: group ranks taking part, this rank among them; `size`: elements of every change.
  DeltaExchange(runtime::Mailbox& inbox, std::vector<int> members, std::size_t size, DeltaExchangeOptions options = {});

  // Sends `change` (`size` elements) to every peer, numbered with this member's next push.
  void push(std::span<const T> change);
  // Pushes sent so far.
  std::uint64_t pushed() const noexcept { return pushed_; }

  // Hands every peer change that has already arrived to `add`, each once, in each peer's push
  // order, without waiting. Returns how many it handed.
  std::size_t take_arrived(const Add& add);
  // Hands on changes (arrived or arriving) until every peer's first `count` pushes have been
  // handed; throws runtime::JobFailed naming the peers that owe a push once the timeout passes.
  void take_until(std::uint64_t count, const Add& add);
  // Changes handed to `add` so far from member index i (this member's own: 0).
  std::uint64_t taken_from(int index) const { return taken_.at(static_cast<std::size_t>(index)); }

 private:
  bool accepts(const net::Message& m) const;
  void hand(const net::Message& m, const Add& add);  // checks, then add()

  runtime::Mailbox& inbox_;
  std::vector<int> members_;
  int index_ = -1;
  std::size_t size_;
  DeltaExchangeOptions options_;
  std::uint64_t pushed_ = 0;
  std::vector<std::uint64_t> taken_;  // per member index
  std::vector<T> scratch_;            // an arrived change, aligned
};

extern template class DeltaExchange<std::uint32_t>;
extern template class DeltaExchange<std::int64_t>;
extern template class DeltaExchange<double>;

}  // namespace gyre::collective
