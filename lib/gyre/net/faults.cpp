// gyre/net/faults.cpp — delayed sends on a timer thread, and a send counter that cuts the link.
#include "gyre/net/group.hpp"

#include <atomic>
#include <charconv>
#include <condition_variable>
#include <map>
#include <mutex>
#include <cmath>
#include <stdexcept>
#include <thread>
#include <vector>

namespace gyre::net {
namespace {

std::vector<double> numbers_after(const std::string& text, std::size_t colon) {
  std::vector<double> out;
  while (colon != std::string::npos) {
    const std::size_t next = text.find(':', colon + 1);
    const std::string part = text.substr(colon + 1, next == std::string::npos ? std::string::npos : next - colon - 1);
    double v = 0;
    const auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), v);
    if (ec != std::errc() || end != part.data() + part.size() || !(v >= 0) || !(v <= FaultSpec::kMaxMilliseconds))
      throw std::invalid_argument("delay '" + text + "': '" + part + "' is not a number in 0 … " +
                                  std::to_string(static_cast<long>(FaultSpec::kMaxMilliseconds)) + " (ms)");
    out.push_back(v);
    colon = next;
  }
  return out;
}

class FaultyGroup;

class FaultyLink final : public Link {
 public:
  FaultyLink(FaultyGroup& g, int peer) : group_(g), peer_(peer) {}
  int peer() const noexcept override { return peer_; }
  void send(Message message) override;

 private:
  FaultyGroup& group_;
  int peer_;
};

class FaultyGroup final : public Group {
 public:
  FaultyGroup(std::unique_ptr<Group> inner, const FaultSpec& spec)
      : inner_(std::move(inner)), spec_(spec), rng_(spec.seed, 0), last_release_(static_cast<std::size_t>(inner_->size())) {
    for (int p = 0; p < inner_->size(); ++p) links_.emplace_back(*this, p);
    sender_ = std::thread([this] { deliver_loop(); });
  }
  ~FaultyGroup() override {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    changed_.notify_all();
    sender_.join();  // delivers what is still queued first
  }

  int rank() const noexcept override { return inner_->rank(); }
  int size() const noexcept override { return inner_->size(); }
  Link& link(int peer) override {
    if (peer < 0 || peer >= size()) throw std::out_of_range("no rank " + std::to_string(peer));
    return links_[static_cast<std::size_t>(peer)];
  }
  std::optional<Message> receive(Clock::time_point deadline) override { return inner_->receive(deadline); }
  void close(const std::string& reason) override { inner_->close(reason); }
  void close_receivers(const std::string& reason) override { inner_->close_receivers(reason); }
  std::uint64_t bytes_sent() const noexcept override { return inner_->bytes_sent(); }

  void send_from_link(int peer, Message m) {
    if (spec_.close_after > 0 && ++sent_ > spec_.close_after) {
      inner_->close("fault injection: rank " + std::to_string(rank()) + " cut its links after " +
                    std::to_string(spec_.close_after) + " messages");
      return;
    }
    if (peer == rank() || spec_.delay == FaultSpec::Delay::kNone) return inner_->send(peer, std::move(m));
    std::unique_lock lock(mutex_);
    auto& last = last_release_[static_cast<std::size_t>(peer)];
    last = std::max(Clock::now() + draw(), last);  // never overtake the previous message
    queue_.emplace(std::make_pair(last, order_++), Pending{peer, std::move(m)});
    lock.unlock();
    changed_.notify_all();
  }

 private:
  struct Pending {
    int peer;
    Message message;
  };

  Clock::duration draw() {
    const double ms = spec_.draw_ms(rng_);
    return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double, std::milli>(ms));
  }

  void deliver_loop() {
    std::unique_lock lock(mutex_);
    for (;;) {
      if (queue_.empty()) {
        if (stopping_) return;
        changed_.wait(lock);
        continue;
      }
      const auto due = queue_.begin()->first.first;
      if (Clock::now() < due && !stopping_) {
        changed_.wait_until(lock, due);
        continue;
      }
      auto node = queue_.extract(queue_.begin());
      lock.unlock();
      try {
        inner_->send(node.mapped().peer, std::move(node.mapped().message));
      } catch (const std::exception&) {
        // The inner group failed; its receivers learn why.
      }
      lock.lock();
    }
  }

  std::unique_ptr<Group> inner_;
  FaultSpec spec_;
  Random rng_;  // under mutex_
  std::vector<FaultyLink> links_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::map<std::pair<Clock::time_point, std::uint64_t>, Pending> queue_;
  std::vector<Clock::time_point> last_release_;
  std::uint64_t order_ = 0;
  std::atomic<std::uint64_t> sent_{0};
  bool stopping_ = false;
  std::thread sender_;
};

void FaultyLink::send(Message message) { group_.send_from_link(peer_, std::move(message)); }

}  // namespace

double FaultSpec::draw_ms(Random& random) const {
  switch (delay) {
    case Delay::kNone: return 0;
    case Delay::kFixed: return a;
    case Delay::kUniform: return a + (b - a) * random.uniform();
    case Delay::kGamma: return std::exp(random.log_gamma_variate(a)) * b;  // shape a, scale b
  }
  return 0;
}

FaultSpec FaultSpec::parse_delay(const std::string& text) {
  FaultSpec s;
  const std::size_t colon = text.find(':');
  const std::string kind = text.substr(0, colon);
  const auto args = colon == std::string::npos ? std::vector<double>{} : numbers_after(text, colon);
  auto need = [&](std::size_t n) {
    if (args.size() != n)
      throw std::invalid_argument("delay '" + text + "': expected none, fixed:MS, uniform:LO:HI or gamma:SHAPE:SCALE");
  };
  if (kind == "none") {
    need(0);
  } else if (kind == "fixed") {
    need(1);
    s.delay = Delay::kFixed;
    s.a = args[0];
  } else if (kind == "uniform") {
    need(2);
    if (args[1] < args[0]) throw std::invalid_argument("delay '" + text + "': HI below LO");
    s.delay = Delay::kUniform;
    s.a = args[0];
    s.b = args[1];
  } else if (kind == "gamma") {
    need(2);
    if (args[0] <= 0 || args[1] <= 0) throw std::invalid_argument("delay '" + text + "': shape and scale must be > 0");
    s.delay = Delay::kGamma;
    s.a = args[0];
    s.b = args[1];
  } else {
    need(99);
  }
  return s;
}

std::unique_ptr<Group> with_faults(std::unique_ptr<Group> inner, const FaultSpec& spec) {
  if (!spec.active()) return inner;
  return std::make_unique<FaultyGroup>(std::move(inner), spec);
}

}  // namespace gyre::net
