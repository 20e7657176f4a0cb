// gyre/averaging/model_averager.cpp — the averaging thread: sends on a timer, blends snapshots as they come.
#include "gyre/averaging/model_averager.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "gyre/base/rank_text.hpp"
#include "gyre/wire/body.hpp"

namespace gyre::averaging {
namespace {

// Longest the thread waits in the inbox before looking at stop(): keeps stop() prompt with a
// long interval, costs a wake-up every few milliseconds.
constexpr std::chrono::milliseconds kControlPoll{5};

// A snapshot's meta: what it is, and which exchange it belongs to (numbered by the offerer).
enum Kind : std::uint8_t { kOffer = 1, kAnswer = 2 };
constexpr std::size_t kMetaBytes = 1 + sizeof(std::uint64_t);

// Value i of a snapshot body (little-endian doubles, checked for size by check_snapshot()).
double value_at(const Buffer& body, std::size_t i) {
  double v;
  wire::load_little<double>(body.bytes().subspan(i * sizeof(double), sizeof(double)), std::span<double>(&v, 1));
  return v;
}

}  // namespace

ModelAverager::ModelAverager(runtime::Mailbox& inbox, std::vector<int> members, std::span<double> model,
                             std::mutex& mutex, AveragerOptions options)
    : inbox_(inbox), members_(std::move(members)), model_(model), model_mutex_(mutex), options_(options) {
  if (options_.interval <= std::chrono::milliseconds::zero())
    throw std::invalid_argument("model averager: the interval must be positive");
  if (options_.fanout == 0) throw std::invalid_argument("model averager: the fanout must be at least 1");
  if (options_.timeout <= std::chrono::milliseconds::zero())
    throw std::invalid_argument("model averager: the timeout must be positive");
  const int me = inbox_.group().rank();
  std::vector<int> sorted = members_;
  std::sort(sorted.begin(), sorted.end());
  if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end())
    throw std::invalid_argument("model averager: a rank is listed twice among the members");
  for (std::size_t i = 0; i < members_.size(); ++i) {
    const int r = members_[i];
    if (r < 0 || r >= inbox_.group().size())
      throw std::invalid_argument("model averager: member " + rank_text(r) + " is not in the group");
    if (r == me)
      index_ = i;
    else
      peers_.push_back(r);
  }
  if (peers_.size() == members_.size()) throw std::invalid_argument("model averager: this rank is not a member");
  offers_.resize(peers_.size());
  thread_ = std::thread([this] { run(); });
}

ModelAverager::~ModelAverager() { join(); }

void ModelAverager::abort() {
  std::lock_guard lock(mutex_);
  aborted_ = true;
  for (auto& o : offers_) o.reset();  // their answers, if any come, are dropped
}

void ModelAverager::round_soon() { round_due_.store(true, std::memory_order_relaxed); }

bool ModelAverager::wait_blended(std::uint64_t count, net::Clock::time_point deadline) {
  std::unique_lock lock(mutex_);
  progress_.wait_until(lock, deadline, [&] { return counters_.blended >= count || ended_; });
  return counters_.blended >= count;
}

void ModelAverager::resume() {
  std::lock_guard lock(mutex_);
  aborted_ = false;
}

bool ModelAverager::aborted() const {
  std::lock_guard lock(mutex_);
  return aborted_;
}

void ModelAverager::join() noexcept {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  if (thread_.joinable()) thread_.join();
}

void ModelAverager::stop() {
  join();
  std::lock_guard lock(mutex_);
  if (failure_) std::rethrow_exception(failure_);
}

AveragerCounters ModelAverager::counters() const {
  std::lock_guard lock(mutex_);
  return counters_;
}

std::optional<std::string> ModelAverager::error() const {
  std::lock_guard lock(mutex_);
  return error_;
}

std::optional<std::string> ModelAverager::last_refusal() const {
  std::lock_guard lock(mutex_);
  return last_refusal_;
}

void ModelAverager::run() {
  const auto accept = [stream = options_.stream](const net::Message& m) {
    return m.type == kAveragerMessage && m.tag == stream;
  };
  try {
    auto next_round = net::Clock::now() + options_.interval;
    for (;;) {
      bool asked = false;
      {
        std::lock_guard lock(mutex_);
        if (stopping_) {
          ended_ = true;
          progress_.notify_all();
          return;
        }
        asked = round_due_.exchange(false, std::memory_order_relaxed);
      }
      // Rounds are checked before every receive, so a steady stream of snapshots cannot
      // starve them.
      const auto now = net::Clock::now();
      if (asked || now >= next_round) {
        round();
        next_round += options_.interval;
        // After a stall (a slow blend, a descheduled thread) start afresh rather than catch
        // up with a burst of rounds.
        if (next_round <= now) next_round = now + options_.interval;
      }
      if (auto m = inbox_.receive(accept, std::min(next_round, net::Clock::now() + kControlPoll)))
        take(std::move(*m));
    }
  } catch (...) {
    std::string what = "unknown error";
    try {
      throw;
    } catch (const std::exception& e) {
      what = e.what();
    } catch (...) {
    }
    std::lock_guard lock(mutex_);
    failure_ = std::current_exception();
    error_ = "model averager on " + rank_text(inbox_.group().rank()) + ": " + what;
    ended_ = true;
    progress_.notify_all();
  }
}

std::optional<std::string> check_snapshot(const net::Message& m, std::span<const int> peers, std::size_t model_size) {
  const std::string from = rank_text(m.sender);
  if (std::find(peers.begin(), peers.end(), m.sender) == peers.end())
    return "snapshot from " + from + ", which is not a peer of this averager";
  const int kind = m.meta.empty() ? 0 : std::to_integer<int>(m.meta[0]);
  if (m.meta.size() != kMetaBytes || (kind != kOffer && kind != kAnswer))
    return from + " sent a snapshot with a malformed header (" + std::to_string(m.meta.size()) + " bytes, kind " +
           std::to_string(kind) + ")";
  const std::size_t want = model_size * sizeof(double);
  if (m.body.size() != want)
    return from + " sent a snapshot of " + std::to_string(m.body.size()) + " bytes where " + std::to_string(want) +
           " (" + std::to_string(model_size) + " doubles) were expected";
  for (std::size_t i = 0; i < model_size; ++i)
    if (!std::isfinite(value_at(m.body, i)))
      return from + " sent a snapshot with a non-finite value at index " + std::to_string(i);
  return std::nullopt;
}

void ModelAverager::take(net::Message m) {
  std::lock_guard lock(mutex_);
  ++counters_.received;
  if (aborted_) {
    ++counters_.dropped;
    return;
  }
  if (auto why = check_snapshot(m, peers_, model_.size())) {
    ++counters_.refused;
    last_refusal_ = std::move(why);
    return;
  }
  wire::Reader meta(m.meta);  // kind, then id: the sizes were checked above
  const auto kind = meta.get<std::uint8_t>("the kind");
  const auto id = meta.get<std::uint64_t>("the exchange id");
  const auto slot = static_cast<std::size_t>(std::find(peers_.begin(), peers_.end(), m.sender) - peers_.begin());
  if (kind == kOffer) {
    if (offers_[slot]) {
      // Two offers crossing between one pair would swap the models, not average them (each
      // side moves halfway twice). The lower rank's offer stands: it drops the other, which the
      // higher rank withdraws when the lower's arrives (links keep order, so both see both).
      if (inbox_.group().rank() < m.sender) {
        ++counters_.dropped;
        return;
      }
      offers_[slot].reset();
    }
    answer(m.sender, id, m.body);
    return;
  }
  if (!offers_[slot] || offers_[slot]->id != id) {  // given up on, or offered before an abort()
    ++counters_.dropped;
    return;
  }
  apply(slot, m.body);
}

// Under mutex_. The peer's half of the exchange: answer with the model as it is, then move
// halfway towards the offer.
void ModelAverager::answer(int peer, std::uint64_t id, const Buffer& offered) {
  std::vector<double> mine(model_.size());
  {
    std::lock_guard model_lock(model_mutex_);
    for (std::size_t i = 0; i < model_.size(); ++i) {
      mine[i] = model_[i];
      model_[i] = 0.5 * (model_[i] + value_at(offered, i));
    }
  }
  ++counters_.blended;
  progress_.notify_all();
  send(peer, kAnswer, id, mine);
}

// Under mutex_. The offerer's half: the change that cancels the peer's, (answer − offer)/2.
void ModelAverager::apply(std::size_t slot, const Buffer& answered) {
  const std::vector<double>& offered = *offers_[slot]->snapshot;
  {
    std::lock_guard model_lock(model_mutex_);
    for (std::size_t i = 0; i < model_.size(); ++i) model_[i] += 0.5 * (value_at(answered, i) - offered[i]);
  }
  offers_[slot].reset();
  ++counters_.blended;
  progress_.notify_all();
}

void ModelAverager::send(int peer, std::uint8_t kind, std::uint64_t id, std::span<const double> values) {
  net::Message m;
  m.type = kAveragerMessage;
  m.tag = options_.stream;
  m.meta.resize(kMetaBytes);
  wire::Writer(m.meta).put(kind).put(id).finish();
  m.body = wire::Writer(values.size_bytes()).put_array(values).finish();
  inbox_.group().send(peer, std::move(m));
  ++counters_.sent;
}

void ModelAverager::round() {
  std::lock_guard lock(mutex_);
  if (aborted_) return;
  const auto now = net::Clock::now();
  for (auto& o : offers_)
    if (o && now - o->sent_at >= options_.timeout) {
      o.reset();
      ++counters_.expired;
    }
  const std::size_t p = peers_.size();
  const std::size_t fanout = std::min(options_.fanout, p);
  // The rank at position i offers to the member s places after it, s = 1 + (rounds·fanout + k)
  // mod (members − 1): while ranks are in step a round's offers are shifts of the ring, so each
  // rank answers as many as it makes and none is flooded.
  const std::size_t first = p == 0 ? 0 : (index_ + counters_.rounds * fanout) % p;
  ++counters_.rounds;
  std::vector<std::size_t> slots;
  for (std::size_t k = 0; k < fanout; ++k)
    if (const std::size_t slot = (first + k) % p; !offers_[slot]) slots.push_back(slot);
  if (slots.empty()) return;
  auto snapshot = std::make_shared<std::vector<double>>(model_.size());
  {
    std::lock_guard model_lock(model_mutex_);
    std::copy(model_.begin(), model_.end(), snapshot->begin());
  }
  for (const std::size_t slot : slots) {
    const std::uint64_t id = next_offer_++;
    offers_[slot] = Offer{id, snapshot, now};
    send(peers_[slot], kOffer, id, *snapshot);
  }
}

}  // namespace gyre::averaging
