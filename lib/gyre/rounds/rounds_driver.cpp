// gyre/rounds/rounds_driver.cpp — rounds in flight, replies parked until their turn, folded in worker order.
#include "gyre/rounds/rounds.hpp"

#include <algorithm>
#include <deque>
#include <optional>

#include "gyre/rounds/rounds_protocol.hpp"
#include "gyre/runtime/receiver.hpp"

#include "gyre/wire/codec.hpp"

namespace gyre::rounds {

struct RoundsDriver::State {
  using Folded = RoundsDriver::Folded;
  struct InFlight {
    Folded folded;
    std::size_t replies = 0;
  };

  State(runtime::Mailbox& mailbox, std::vector<int> workers, RoundsOptions options);
  void queue(std::span<const Step> steps);
  std::uint64_t send(Task task, std::size_t partial_size);
  Folded receive_oldest();
  std::vector<std::vector<double>> ask(Task task, std::size_t most);
  void stop();
  [[noreturn]] void fail(const std::string& why, std::exception_ptr original);
  [[noreturn]] void fail(const std::string& why, int rank, runtime::FailureCause cause);
  // The next partial or answer, failing the job on a notice, a closed transport or silence
  // until `deadline` (`silent()` names who was expected).
  net::Message receive(net::Clock::time_point deadline, const std::function<runtime::Silence()>& silent);
  void park(net::Message m);
  bool fold_parked(InFlight& round);
  runtime::Silence missing_workers(const InFlight& round) const;
  std::string me() const { return options_.name + " scheduler"; }

  net::Group& group_;
  std::vector<int> workers_;
  RoundsOptions options_;
  runtime::Receiver receiver_;  // tells the workers of any failure
  std::deque<InFlight> in_flight_;
  std::vector<net::Message> parked_;
  std::vector<Step> queued_;
  std::uint64_t next_round_ = 0;
  std::uint64_t next_query_ = 0;
};

RoundsDriver::State::State(runtime::Mailbox& mailbox, std::vector<int> workers, RoundsOptions options)
    : group_(mailbox.group()),
      workers_(std::move(workers)),
      options_(std::move(options)),
      receiver_(mailbox, me(), options_.timeout, workers_, runtime::Receiver::Role::kHub) {
  if (workers_.empty()) throw std::invalid_argument("a rounds job needs at least one worker");
}

void RoundsDriver::State::fail(const std::string& why, std::exception_ptr original) {
  receiver_.fail(runtime::JobFailed(group_.rank(), runtime::FailureCause::kError, why, std::move(original)));
}

void RoundsDriver::State::fail(const std::string& why, int rank, runtime::FailureCause cause) {
  receiver_.fail(runtime::JobFailed(rank, cause, why));
}

void RoundsDriver::State::queue(std::span<const Step> steps) { queued_.insert(queued_.end(), steps.begin(), steps.end()); }

std::uint64_t RoundsDriver::State::send(Task task, std::size_t partial_size) {
  RoundRequest request;
  request.round = next_round_++;
  request.task = std::move(task);
  request.updates = std::move(queued_);
  queued_.clear();
  for (int w : workers_) group_.send(w, encode_request(request));
  InFlight round;
  round.folded.round = request.round;
  round.folded.task = std::move(request.task);
  round.folded.values.assign(partial_size, 0.0);
  in_flight_.push_back(std::move(round));
  return request.round;
}

net::Message RoundsDriver::State::receive(net::Clock::time_point deadline, const std::function<runtime::Silence()>& silent) {
  // The rounds' messages, whatever their type: the callers refuse those a worker may not send.
  return receiver_.receive([](const net::Message& m) { return wire::channels::kRounds.contains(m.type); }, silent, deadline);
}

RoundsDriver::Folded RoundsDriver::State::receive_oldest() {
  if (in_flight_.empty()) throw std::logic_error(me() + ": no round in flight to receive");
  InFlight& oldest = in_flight_.front();
  const auto deadline = net::Clock::now() + options_.timeout;
  while (oldest.replies < workers_.size()) {
    if (fold_parked(oldest)) continue;
    net::Message m = receive(deadline, [&] { return missing_workers(oldest); });
    if (m.type != kRoundPartial)
      fail(me() + ": unexpected message type " + std::to_string(m.type) + " from rank " + std::to_string(m.sender),
           m.sender, runtime::FailureCause::kBadMessage);
    park(std::move(m));
  }
  Folded done = std::move(oldest.folded);
  in_flight_.pop_front();
  return done;
}

std::vector<std::vector<double>> RoundsDriver::State::ask(Task task, std::size_t most) {
  const std::uint64_t number = next_query_++;
  for (int w : workers_) group_.send(w, encode_query(number, task));
  std::vector<std::optional<std::vector<double>>> answers(workers_.size());
  std::size_t answered = 0;
  const auto deadline = net::Clock::now() + options_.timeout;
  const auto silent = [&] {
    return runtime::silence_of("answer to query " + std::to_string(number), workers_,
                               [&](std::size_t w) { return !answers[w]; });
  };
  while (answered < workers_.size()) {
    net::Message m = receive(deadline, silent);
    if (m.type == kRoundPartial) {
      park(std::move(m));
      continue;
    }
    const auto bad = [&](const std::string& why) {
      fail(me() + ": rank " + std::to_string(m.sender) + why, m.sender, runtime::FailureCause::kBadMessage);
    };
    if (m.type != kQueryAnswer) bad(" sent unexpected message type " + std::to_string(m.type));
    const auto worker = std::find(workers_.begin(), workers_.end(), m.sender);
    if (worker == workers_.end()) bad(", not a worker, sent an answer");
    auto& slot = answers[static_cast<std::size_t>(worker - workers_.begin())];
    if (m.tag != number) bad(" answered query " + std::to_string(m.tag) + ", which is not open");
    if (slot) bad(" answered query " + std::to_string(number) + " twice");
    try {
      slot = decode_answer(m, most, options_.finite_partials).values;
    } catch (const std::exception& e) {
      bad("'s answer to query " + std::to_string(number) + ": " + e.what());
    }
    ++answered;
  }
  std::vector<std::vector<double>> out;
  out.reserve(answers.size());
  for (auto& a : answers) out.push_back(std::move(*a));
  return out;
}

// Each worker answers each round in flight once, so what is parked stays bounded by the rounds
// in flight; anything else fails the job.
void RoundsDriver::State::park(net::Message m) {
  const auto bad = [&](const std::string& why) {
    fail(me() + ": rank " + std::to_string(m.sender) + why, m.sender, runtime::FailureCause::kBadMessage);
  };
  const auto worker = std::find(workers_.begin(), workers_.end(), m.sender);
  if (worker == workers_.end()) bad(", not a worker, sent a partial");
  if (in_flight_.empty() || m.tag > in_flight_.back().folded.round)
    bad(" sent a partial for round " + std::to_string(m.tag) + ", which has not been asked for");
  // Rounds before the oldest in flight have every worker's partial folded in already.
  const InFlight& oldest = in_flight_.front();
  const bool folded = m.tag < oldest.folded.round ||
                      (m.tag == oldest.folded.round &&
                       static_cast<std::size_t>(worker - workers_.begin()) < oldest.replies);
  const bool parked = std::any_of(parked_.begin(), parked_.end(),
                                  [&](const net::Message& p) { return p.sender == m.sender && p.tag == m.tag; });
  if (folded || parked) bad(" sent a partial for round " + std::to_string(m.tag) + " twice");
  parked_.push_back(std::move(m));
}

bool RoundsDriver::State::fold_parked(InFlight& round) {
  bool folded = false;
  for (;;) {
    const int want = workers_[round.replies];
    auto it = std::find_if(parked_.begin(), parked_.end(),
                           [&](const net::Message& m) { return m.sender == want && m.tag == round.folded.round; });
    if (it == parked_.end()) return folded;
    RoundPartial partial;
    try {
      partial = decode_partial(*it, round.folded.values.size(), options_.finite_partials);
    } catch (const std::exception& e) {
      fail(me() + ": bad partial from rank " + std::to_string(want) + ": " + e.what(), want,
           runtime::FailureCause::kBadMessage);
    }
    parked_.erase(it);
    if (partial.round != round.folded.round)
      fail(me() + ": rank " + std::to_string(want) + " mislabelled its partial", want,
           runtime::FailureCause::kBadMessage);
    auto& acc = round.folded.values;
    if (options_.fold) options_.fold(acc, partial.values);
    else
      for (std::size_t i = 0; i < acc.size(); ++i) acc[i] += partial.values[i];
    folded = true;
    if (++round.replies == workers_.size()) return true;
  }
}

runtime::Silence RoundsDriver::State::missing_workers(const InFlight& round) const {
  return runtime::silence_of("partial for round " + std::to_string(round.folded.round), workers_, [&](std::size_t w) {
    return w >= round.replies && std::none_of(parked_.begin(), parked_.end(), [&](const net::Message& m) {
             return m.sender == workers_[w] && m.tag == round.folded.round;
           });
  });
}

void RoundsDriver::State::stop() {
  for (int w : workers_) {
    net::Message m;
    m.type = kRoundsStop;
    group_.send(w, std::move(m));
  }
}

RoundsDriver::RoundsDriver(runtime::Mailbox& mailbox, std::vector<int> workers, RoundsOptions options)
    : state_(std::make_unique<State>(mailbox, std::move(workers), std::move(options))) {}
RoundsDriver::~RoundsDriver() = default;
void RoundsDriver::queue(std::span<const Step> steps) { state_->queue(steps); }
std::uint64_t RoundsDriver::send(Task task, std::size_t partial_size) { return state_->send(std::move(task), partial_size); }
RoundsDriver::Folded RoundsDriver::receive_oldest() { return state_->receive_oldest(); }
std::vector<std::vector<double>> RoundsDriver::ask(Task task, std::size_t most) { return state_->ask(std::move(task), most); }
std::size_t RoundsDriver::in_flight() const noexcept { return state_->in_flight_.size(); }
std::uint64_t RoundsDriver::rounds_sent() const noexcept { return state_->next_round_; }
void RoundsDriver::stop() { state_->stop(); }
void RoundsDriver::fail(const std::string& why, std::exception_ptr original) { state_->fail(why, std::move(original)); }
void RoundsDriver::fail(const std::string& why, int rank, runtime::FailureCause cause) { state_->fail(why, rank, cause); }
const RoundsOptions& RoundsDriver::options() const noexcept { return state_->options_; }
const std::vector<int>& RoundsDriver::workers() const noexcept { return state_->workers_; }

}  // namespace gyre::rounds
