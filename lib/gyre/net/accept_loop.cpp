// gyre/net/accept_loop.cpp — accept with back-off on errors, a cap and a deadline for unauthenticated connections.
#include "gyre/net/accept_loop.hpp"

#include <algorithm>

namespace gyre::net {
namespace asio = boost::asio;
using asio::ip::tcp;

Admission::Admission(std::shared_ptr<AcceptLoop> loop, asio::any_io_executor executor)
    : loop_(std::move(loop)), deadline_(std::move(executor)) {}

Admission::~Admission() {
  try {
    release();
  } catch (...) {  // cancelling a timer does not fail in practice; a destructor must not throw
  }
}

void Admission::on_expiry(std::function<void(const std::string&)> close) {
  if (!released_) close_ = std::move(close);
}

void Admission::release() {
  if (released_) return;
  released_ = true;
  close_ = nullptr;  // it may refer to the owner's connection
  deadline_.cancel();
  if (auto loop = loop_.lock()) loop->released();
}

void Admission::expire(std::chrono::milliseconds after) {
  auto close = std::move(close_);
  release();
  if (close) close("not authenticated within " + std::to_string(after.count()) + " ms (hello timeout)");
}

AcceptLoop::AcceptLoop(tcp::acceptor& acceptor, AcceptOptions options, OnAccept on_accept)
    : acceptor_(acceptor),
      options_(std::move(options)),
      on_accept_(std::move(on_accept)),
      backoff_timer_(acceptor.get_executor()),
      backoff_(options_.first_backoff) {}

std::shared_ptr<AcceptLoop> AcceptLoop::start(tcp::acceptor& acceptor, AcceptOptions options, OnAccept on_accept) {
  std::shared_ptr<AcceptLoop> loop(new AcceptLoop(acceptor, std::move(options), std::move(on_accept)));
  loop->next();
  return loop;
}

void AcceptLoop::stop() {
  stopped_ = true;
  boost::system::error_code ignored;
  acceptor_.close(ignored);
  backoff_timer_.cancel();
  for (auto& weak : admissions_)
    if (auto a = weak.lock()) a->deadline_.cancel();
  admissions_.clear();
  on_accept_ = nullptr;  // it may hold the owner
}

void AcceptLoop::next() {
  if (stopped_) return;
  acceptor_.async_accept([self = shared_from_this()](boost::system::error_code ec, tcp::socket socket) {
    if (self->stopped_) return;
    if (ec) return self->failed(ec);
    if (self->failures_ > 0)
      self->options_.log("accepting again after " + std::to_string(self->failures_) + " failed accept(s)");
    self->failures_ = 0;
    self->failing_.clear();
    self->backoff_ = self->options_.first_backoff;
    self->admit(std::move(socket));
    self->next();
  });
}

void AcceptLoop::failed(const boost::system::error_code& ec) {
  // Closed under us (not by stop): nothing will ever be accepted again.
  if (!acceptor_.is_open()) return stop();
  // Running out of file descriptors (EMFILE, ENFILE) or buffers is what a flood of held
  // connections does: pause, then accept again, so that formation resumes once it is over.
  if (ec.message() != failing_) {
    failing_ = ec.message();
    options_.log("accept failed: " + failing_ + "; retrying in " + std::to_string(backoff_.count()) +
                 " ms, backing off up to " + std::to_string(options_.max_backoff.count()) + " ms");
  }
  ++failures_;
  backoff_timer_.expires_after(backoff_);
  backoff_ = std::min(backoff_ * 2, options_.max_backoff);
  backoff_timer_.async_wait([self = shared_from_this()](boost::system::error_code wait_ec) {
    if (!wait_ec) self->next();
  });
}

void AcceptLoop::admit(tcp::socket socket) {
  if (unauthenticated_ >= options_.max_unauthenticated) {
    if (!at_cap_) {
      at_cap_ = true;
      boost::system::error_code ec;
      const auto from = socket.remote_endpoint(ec);
      options_.log(std::to_string(unauthenticated_) +
                   " connections are waiting to authenticate (the limit): closing new ones at once until some finish "
                   "or time out (the first from " +
                   (ec ? std::string("?") : from.address().to_string() + ":" + std::to_string(from.port())) + ")");
    }
    boost::system::error_code ignored;
    socket.close(ignored);
    return;
  }
  ++unauthenticated_;
  auto admission = std::make_shared<Admission>(shared_from_this(), acceptor_.get_executor());
  std::erase_if(admissions_, [](const std::weak_ptr<Admission>& a) { return a.expired(); });
  admissions_.push_back(admission);
  admission->deadline_.expires_after(options_.hello_timeout);
  admission->deadline_.async_wait(
      [weak = std::weak_ptr<Admission>(admission), after = options_.hello_timeout](boost::system::error_code ec) {
        if (ec) return;  // released or stopped
        if (auto a = weak.lock()) a->expire(after);
      });
  on_accept_(std::move(socket), std::move(admission));
}

void AcceptLoop::released() {
  --unauthenticated_;
  // The burst is over once half the places are free again: a flood that keeps the count near
  // the limit is one burst, not one per connection.
  if (at_cap_ && unauthenticated_ <= options_.max_unauthenticated / 2) at_cap_ = false;
}

}  // namespace gyre::net
