// gyre/collective/delta_exchange.cpp — pushed changes: numbered per sender, checked before they are added.
#include "gyre/collective/delta_exchange.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

#include "gyre/runtime/receiver.hpp"

namespace gyre::collective {
namespace {

// A push's tag: the stream in the high half, the sender's push number in the low.
std::uint64_t tag_of(std::uint32_t stream, std::uint64_t number) { return (std::uint64_t{stream} << 32) | number; }

}  // namespace

std::optional<std::string> check_change(const net::Message& m, std::uint64_t expected_number, std::size_t elements,
                                        std::size_t element_bytes, bool doubles) {
  const std::string from = "rank " + std::to_string(m.sender) + " pushed ";
  if ((m.tag & 0xFFFF'FFFFull) != expected_number)
    return from + "change number " + std::to_string(m.tag & 0xFFFF'FFFFull) + " where " +
           std::to_string(expected_number) + " was next";
  if (m.body.size() != elements * element_bytes)
    return from + std::to_string(m.body.size()) + " bytes where a change is " + std::to_string(elements * element_bytes);
  if (doubles)
    for (std::size_t i = 0; i < elements; ++i) {
      double x;
      std::memcpy(&x, m.body.data() + i * sizeof x, sizeof x);
      if (!std::isfinite(x)) return from + "a value that is not finite (element " + std::to_string(i) + ")";
    }
  return std::nullopt;
}

template <class T>
DeltaExchange<T>::DeltaExchange(runtime::Mailbox& inbox, std::vector<int> members, std::size_t size,
                                DeltaExchangeOptions options)
    : inbox_(inbox), members_(std::move(members)), size_(size), options_(options), scratch_(size) {
  const auto it = std::find(members_.begin(), members_.end(), inbox_.group().rank());
  if (it == members_.end()) throw std::invalid_argument("rank is not a member of its delta exchange");
  index_ = static_cast<int>(it - members_.begin());
  taken_.assign(members_.size(), 0);
}

template <class T>
void DeltaExchange<T>::push(std::span<const T> change) {
  if (change.size() != size_) throw std::invalid_argument("a pushed change must have the exchange's size");
  if (pushed_ >= 0xFFFF'FFFFull) throw std::length_error("a delta exchange numbers at most 2^32 - 1 pushes");
  for (std::size_t i = 0; i < members_.size(); ++i) {
    if (static_cast<int>(i) == index_) continue;
    net::Message m;
    m.type = kDeltaMessage;
    m.tag = tag_of(options_.stream, pushed_);
    m.body = Buffer(change.size_bytes());
    if (!change.empty()) std::memcpy(m.body.data(), change.data(), change.size_bytes());
    inbox_.group().send(members_[i], std::move(m));
  }
  ++pushed_;
}

template <class T>
bool DeltaExchange<T>::accepts(const net::Message& m) const {
  return m.type == kDeltaMessage && (m.tag >> 32) == options_.stream && m.sender != inbox_.group().rank() &&
         std::find(members_.begin(), members_.end(), m.sender) != members_.end();
}

template <class T>
void DeltaExchange<T>::hand(const net::Message& m, const Add& add) {
  const auto from = static_cast<std::size_t>(std::find(members_.begin(), members_.end(), m.sender) - members_.begin());
  if (const auto why = check_change(m, taken_[from], size_, sizeof(T), std::is_floating_point_v<T>))
    throw runtime::JobFailed(m.sender, runtime::FailureCause::kBadMessage, "delta exchange: " + *why);
  if (size_ > 0) std::memcpy(scratch_.data(), m.body.data(), m.body.size());
  ++taken_[from];
  add(std::span<const T>(scratch_));
}

template <class T>
std::size_t DeltaExchange<T>::take_arrived(const Add& add) {
  const auto accept = [this](const net::Message& m) { return accepts(m); };
  std::size_t handed = 0;
  while (auto m = inbox_.receive_arrived(accept)) {
    hand(*m, add);
    ++handed;
  }
  return handed;
}

template <class T>
void DeltaExchange<T>::take_until(std::uint64_t count, const Add& add) {
  const auto owes = [&](std::size_t i) { return static_cast<int>(i) != index_ && taken_[i] < count; };
  const runtime::Receiver receiver(inbox_, "delta exchange", options_.timeout);
  for (;;) {
    std::size_t owing = 0;
    for (std::size_t i = 0; i < members_.size(); ++i) owing += owes(i) ? 1 : 0;
    if (owing == 0) return;
    const net::Message m = receiver.receive([this](const net::Message& x) { return accepts(x); },
                                            [&] { return runtime::silence_of("pushed change", members_, owes); });
    hand(m, add);
  }
}

template class DeltaExchange<std::uint32_t>;
template class DeltaExchange<std::int64_t>;
template class DeltaExchange<double>;

}  // namespace gyre::collective
