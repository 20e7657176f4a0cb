// gyre/net/accept_loop.hpp — accepting connections so that accept errors and unauthenticated peers cannot stop a job forming (internal to lib/, not installed).
#pragma once

#include <utility>  // before Asio: Boost 1.74's awaitable.hpp uses std::exchange unincluded

#include <boost/asio.hpp>

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace gyre::net {

struct AcceptOptions {
  // At most this many accepted connections may be unauthenticated at once; beyond, a new one is
  // closed at once (logged once per burst), so a flood cannot take every file descriptor.
  int max_unauthenticated = 64;
  // An accepted connection that has not authenticated within this is closed.
  std::chrono::milliseconds hello_timeout{std::chrono::seconds(10)};
  // After an accept error (out of file descriptors, say) accepting resumes after this pause,
  // doubled on each further error up to max_backoff, and reset by a success.
  std::chrono::milliseconds first_backoff{10};
  std::chrono::milliseconds max_backoff{1000};
  std::function<void(const std::string&)> log;  // required
};

class AcceptLoop;

// An accepted connection that has not authenticated yet: it holds one of the loop's places
// until released, and its owner closes it (on_expiry) if the hello timeout passes first.
class Admission {
 public:
  Admission(std::shared_ptr<AcceptLoop> loop, boost::asio::any_io_executor executor);
  ~Admission();
  Admission(const Admission&) = delete;
  Admission& operator=(const Admission&) = delete;

  // How the owner closes this connection, given the reason; set it before the first read.
  void on_expiry(std::function<void(const std::string& why)> close);
  // The peer authenticated or the connection is gone: frees the place, stops the clock. Idempotent.
  void release();

 private:
  friend class AcceptLoop;
  void expire(std::chrono::milliseconds after);

  std::weak_ptr<AcceptLoop> loop_;
  boost::asio::steady_timer deadline_;
  std::function<void(const std::string&)> close_;
  bool released_ = false;
};

// Accepts on an acceptor until stopped. Every operation runs on the acceptor's io_context
// thread; the acceptor must outlive the loop's pending operations (its owner keeps both, with
// the io_context, and calls stop()).
class AcceptLoop : public std::enable_shared_from_this<AcceptLoop> {
 public:
  // The owner's part: start the handshake on `socket`, and release `admission` once the peer
  // authenticated or the connection is closed.
  using OnAccept = std::function<void(boost::asio::ip::tcp::socket socket, std::shared_ptr<Admission> admission)>;

  static std::shared_ptr<AcceptLoop> start(boost::asio::ip::tcp::acceptor& acceptor, AcceptOptions options,
                                           OnAccept on_accept);
  // The only way the loop ends: closes the acceptor and cancels the back-off and every
  // deadline (the owner closes the connections it holds). Call on the io thread.
  void stop();
  int unauthenticated() const { return unauthenticated_; }

 private:
  AcceptLoop(boost::asio::ip::tcp::acceptor& acceptor, AcceptOptions options, OnAccept on_accept);
  void next();
  void failed(const boost::system::error_code& ec);
  void admit(boost::asio::ip::tcp::socket socket);
  void released();
  friend class Admission;

  boost::asio::ip::tcp::acceptor& acceptor_;
  AcceptOptions options_;
  OnAccept on_accept_;
  boost::asio::steady_timer backoff_timer_;
  std::chrono::milliseconds backoff_;
  bool stopped_ = false;
  int unauthenticated_ = 0;
  bool at_cap_ = false;                               // a burst over the cap is under way (and was logged)
  std::string failing_;                               // the error of the current run of failed accepts
  long failures_ = 0;                                 // how many accepts failed in that run
  std::vector<std::weak_ptr<Admission>> admissions_;  // to cancel their clocks on stop
};

}  // namespace gyre::net
