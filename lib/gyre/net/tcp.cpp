// gyre/net/tcp.cpp — Asio connections: accept loop and handshake, framed reads with limits, queued scatter/gather writes.
#include "gyre/net/tcp.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <future>
#include <mutex>
#include <utility>
#include <thread>

#include <unistd.h>

#include "gyre/net/accept_loop.hpp"
#include "gyre/net/frame_io.hpp"
#include "gyre/net/handshake.hpp"
#include "gyre/net/listen.hpp"
#include "gyre/wire/channels.hpp"
#include "gyre/wire/fixed_text.hpp"

namespace gyre::net {
namespace asio = boost::asio;
using asio::ip::tcp;

namespace {

// Transport-private message types, of the tcp channel at their old numbers (0xFF00 and 0xFF01
// are unused); the layers above send no type in wire::channels::kTransport.
constexpr std::uint16_t kGoodbye = wire::channels::kTcp.at(2);
constexpr std::uint16_t kHeartbeat = wire::channels::kTcp.at(3);

}  // namespace

struct TcpListener::Impl {
  asio::io_context io;
  tcp::acceptor acceptor{io};
};

TcpListener::TcpListener(const std::string& host, std::uint16_t port) : impl(std::make_unique<Impl>()) {
  listen_on(impl->acceptor, host, port);
}
TcpListener::~TcpListener() = default;
TcpListener::TcpListener(TcpListener&&) noexcept = default;
TcpListener& TcpListener::operator=(TcpListener&&) noexcept = default;

TcpEndpoint TcpListener::endpoint() const {
  const auto ep = impl->acceptor.local_endpoint();
  return {ep.address().to_string(), ep.port()};
}

void listen_on(tcp::acceptor& acceptor, const TcpListener& listener) {
  const tcp::endpoint bound = listener.impl->acceptor.local_endpoint();
  const int copy = ::dup(listener.impl->acceptor.native_handle());
  boost::system::error_code ec;
  if (copy < 0) ec.assign(errno, boost::system::system_category());
  else acceptor.assign(bound.protocol(), copy, ec);
  if (ec) {
    if (copy >= 0) ::close(copy);
    throw std::runtime_error("cannot listen on " + bound.address().to_string() + ":" + std::to_string(bound.port()) +
                             " again: " + ec.message());
  }
}

namespace {

struct State;

// One socket. Lives on the io thread: every member is touched only from there.
struct Connection : std::enable_shared_from_this<Connection> {
  Connection(std::shared_ptr<State> s, tcp::socket sock) : state(std::move(s)), socket(std::move(sock)) {}

  std::shared_ptr<State> state;
  tcp::socket socket;
  int peer = -1;              // known once the handshake checked out
  int dialed = -1;            // the rank we dialed, while its answer is pending
  std::shared_ptr<Admission> admission;  // accepted and not authenticated yet
  std::string address = "?";  // the peer's host:port, noted while the socket is connected
  std::chrono::steady_clock::time_point last_heard = std::chrono::steady_clock::now();
  bool said_goodbye = false;  // the peer announced a clean end
  bool closed = false;
  std::deque<std::shared_ptr<OutFrame>> outbox;
  bool writing = false;

  std::string who() const;
  void note_address();
  void read_frame(std::function<void(Message)> on_frame);
  void send(std::shared_ptr<OutFrame> frame);
  void write_next();
  void fail(const std::string& why);
  void close_socket();
  void refuse(int rank, const std::string& why);
};

struct State : std::enable_shared_from_this<State> {
  std::unique_ptr<TcpListener::Impl> listener;  // owns the io_context
  TcpOptions options;
  std::vector<TcpEndpoint> peers;
  std::vector<std::shared_ptr<Connection>> connections;  // by rank; io thread only after setup
  std::vector<std::weak_ptr<Connection>> every_socket;    // incl. refused and half-open ones; io thread
  std::shared_ptr<AcceptLoop> accept_loop;                // io thread after setup
  bool stopping = false;                                  // io thread: no new dials or accepts
  std::unique_ptr<asio::steady_timer> heartbeat_timer;    // io thread

  std::mutex mutex;  // guards everything below
  std::condition_variable changed;
  std::deque<Message> inbox;
  std::string closed;  // reason, once closed
  int closed_by = -1;  // the peer whose failure closed it, if one did
  int connected = 0;
  std::atomic<std::uint64_t> bytes_sent{0};  // written by the io thread, read by anyone

  asio::io_context& io() { return listener->io; }
  int size() const { return static_cast<int>(peers.size()); }
  void log(const std::string& line) const {
    if (options.log)
      options.log(line);
    else
      std::fprintf(stderr, "gyre tcp, %s: %s\n", name(options.rank).c_str(), line.c_str());
  }
  void deliver(Message m) {
    {
      std::lock_guard lock(mutex);
      if (!closed.empty()) return;  // nothing new after a close
      inbox.push_back(std::move(m));
    }
    changed.notify_all();
  }
  void close(const std::string& reason, int peer = -1) {
    {
      std::lock_guard lock(mutex);
      if (!closed.empty()) return;
      closed = reason.empty() ? "closed" : reason;
      closed_by = peer;
    }
    changed.notify_all();
  }
  std::shared_ptr<OutFrame> frame(Message m) const { return OutFrame::of(std::move(m), options.rank); }
  HandshakeKey key() const { return {"data plane", options.job_id, options.job_digest, options.token}; }
  // Why an authenticated peer may not join here, or empty.
  std::string admissible(const DialerHello& hello) const {
    if (hello.job_id != options.job_id)
      return "another job id '" + hello.job_id + "' (this job's is '" + options.job_id + "')";
    if (hello.job_digest != options.job_digest)
      return "another job configuration: settings digest '" + hello.job_digest + "' (this job's is '" +
             options.job_digest + "')";
    if (hello.id <= options.rank || hello.id >= size() || connections[static_cast<std::size_t>(hello.id)])
      return "rank " + std::to_string(hello.id) + " must not dial here or is already connected";
    return {};
  }

  void heartbeat();
  void accept(tcp::socket socket, std::shared_ptr<Admission> admission);
  void dial(int rank, std::chrono::steady_clock::time_point deadline);
  void dial_later(int rank, std::chrono::steady_clock::time_point deadline);
  void await_verdict(const std::shared_ptr<Connection>& c, int rank);
  void established(const std::shared_ptr<Connection>& c);
  void read_loop(const std::shared_ptr<Connection>& c);
  std::string name(int member) const { return member_name(options.member_names, member); }
};

void Connection::note_address() {
  boost::system::error_code ec;
  const auto ep = socket.remote_endpoint(ec);
  if (!ec) address = ep.address().to_string() + ":" + std::to_string(ep.port());
}

std::string Connection::who() const {
  return peer >= 0 ? state->name(peer) + " (" + address + ")" : "unauthenticated peer " + address;
}

void Connection::close_socket() {
  if (closed) return;
  closed = true;
  boost::system::error_code ignored;
  socket.shutdown(tcp::socket::shutdown_both, ignored);
  socket.close(ignored);
  if (admission) admission->release();
  admission.reset();
}

// To an authenticated peer: the reason, then the close (it sends nothing more, so the close
// does not reset the connection under the reason).
void Connection::refuse(int rank, const std::string& why) {
  state->log("refused rank " + std::to_string(rank) + " (" + address + "): " + why);
  auto frame = OutFrame::of(refusal(why), state->options.rank);
  auto self = shared_from_this();
  asio::async_write(socket, frame->buffers(),
                    [self, frame](boost::system::error_code, std::size_t) { self->close_socket(); });
}

void Connection::fail(const std::string& why) {
  if (closed) return;
  const bool was_peer = peer >= 0 && !said_goodbye;
  const std::string who_text = who();
  // Logged before the close, which the peer (or a test playing it) may act on at once.
  if (peer < 0 && dialed < 0) state->log("refused " + who_text + ": " + why);
  close_socket();
  if (was_peer) {
    state->log("dropping " + who_text + ": " + why);
    state->close(who_text + " failed: " + why, peer);
  } else if (dialed >= 0) {
    // The rank we must reach broke off the handshake: waiting is pointless.
    state->close(state->name(dialed) + " ended the handshake: " + why, dialed);
  }
}

void Connection::read_frame(std::function<void(Message)> on_frame) {
  auto self = shared_from_this();
  async_read_frame(socket, self, state->options.limits, peer,
                   [self, on_frame = std::move(on_frame)](const std::string& error, Message m) {
                     if (!error.empty()) return self->fail(error);
                     on_frame(std::move(m));
                   });
}

void Connection::send(std::shared_ptr<OutFrame> frame) {
  if (closed) return;
  outbox.push_back(std::move(frame));
  if (!writing) write_next();
}

void Connection::write_next() {
  writing = true;
  auto self = shared_from_this();
  asio::async_write(socket, outbox.front()->buffers(), [self](boost::system::error_code ec, std::size_t n) {
    self->state->bytes_sent.fetch_add(n, std::memory_order_relaxed);
    self->outbox.pop_front();
    if (ec) return self->fail(ec.message());
    if (self->outbox.empty()) {
      self->writing = false;
    } else {
      self->write_next();
    }
  });
}

void State::accept(tcp::socket socket, std::shared_ptr<Admission> admission) {
  auto self = shared_from_this();
  auto c = std::make_shared<Connection>(self, std::move(socket));
  c->note_address();
  c->admission = std::move(admission);
  c->admission->on_expiry([weak = std::weak_ptr<Connection>(c)](const std::string& why) {
    if (auto conn = weak.lock()) conn->fail(why);
  });
  every_socket.push_back(c);
  async_accept_handshake(c->socket, c, key(), options.rank,
                         [self, c](const std::string& error, const DialerHello& hello) {
                           if (c->closed) return;  // timed out or shut down meanwhile
                           if (!error.empty()) return c->fail(error);
                           c->admission->release();
                           c->admission.reset();
                           if (const std::string why = self->admissible(hello); !why.empty())
                             return c->refuse(hello.id, why);
                           c->peer = hello.id;
                           c->send(self->frame(welcome()));
                           self->established(c);
                         });
}

void State::dial_later(int rank, std::chrono::steady_clock::time_point deadline) {
  if (std::chrono::steady_clock::now() > deadline) return;  // the setup wait reports it
  auto timer = std::make_shared<asio::steady_timer>(io(), std::chrono::milliseconds(100));
  timer->async_wait(
      [self = shared_from_this(), rank, deadline, timer](boost::system::error_code) { self->dial(rank, deadline); });
}

void State::dial(int rank, std::chrono::steady_clock::time_point deadline) {
  if (stopping) return;
  auto self = shared_from_this();
  auto c = std::make_shared<Connection>(self, tcp::socket(io()));
  every_socket.push_back(c);
  const auto& ep = peers[static_cast<std::size_t>(rank)];
  asio::ip::address address;
  try {
    address = ip_address(ep.host, name(rank) + "'s address " + ep.str());
  } catch (const std::invalid_argument& e) {
    close(e.what());
    return;
  }
  c->socket.async_connect(tcp::endpoint(address, ep.port), [self, c, rank, deadline](boost::system::error_code ec) {
    if (c->closed) return;
    if (ec) return self->dial_later(rank, deadline);
    c->dialed = rank;
    c->note_address();
    async_dial_handshake(c->socket, c, self->key(), self->options.rank, rank, [self, c, rank, deadline](DialOutcome r) {
      if (c->closed) return;
      using Kind = DialOutcome::Kind;
      switch (r.kind) {
        case Kind::kNoChallenge:  // busy or not ready yet: like a refused connect
          c->dialed = -1;
          c->close_socket();
          return self->dial_later(rank, deadline);
        case Kind::kImpostor:
          c->close_socket();
          return self->close(self->name(rank) + " at " + c->address + " could not prove it holds the job token", rank);
        case Kind::kFailed: return c->fail(r.error);
        case Kind::kProven: return self->await_verdict(c, rank);
      }
    });
  });
}

void State::await_verdict(const std::shared_ptr<Connection>& c, int rank) {
  auto self = shared_from_this();
  async_read_frame(c->socket, c, kVerdictLimits, rank, [self, c, rank](const std::string& error, Message m) {
    if (c->closed) return;
    if (!error.empty()) return c->fail(error);
    if (const auto reason = refusal_reason(m)) {
      c->close_socket();
      return self->close(self->name(rank) + " refused " + self->name(self->options.rank) + ": " + *reason, rank);
    }
    if (!is_welcome(m)) return c->fail("expected a welcome, got message type " + std::to_string(m.type));
    c->dialed = -1;
    c->peer = rank;
    self->established(c);
  });
}

void State::established(const std::shared_ptr<Connection>& c) {
  boost::system::error_code ignored;
  c->socket.set_option(tcp::no_delay(true), ignored);  // control messages are small: no Nagle delay
  c->last_heard = std::chrono::steady_clock::now();
  connections[static_cast<std::size_t>(c->peer)] = c;
  {
    std::lock_guard lock(mutex);
    ++connected;
  }
  changed.notify_all();
  read_loop(c);
}

void State::heartbeat() {
  if (stopping) return;
  const auto now = std::chrono::steady_clock::now();
  for (auto& c : connections) {
    if (!c || c->closed || c->said_goodbye) continue;
    const auto silent = std::chrono::duration_cast<std::chrono::milliseconds>(now - c->last_heard);
    if (silent > options.heartbeat_timeout) {
      c->fail("silent for " + std::to_string(silent.count()) + " ms (heartbeat timeout)");
      continue;
    }
    if (c->outbox.empty()) {  // real traffic doubles as a heartbeat
      Message beat;
      beat.type = kHeartbeat;
      c->send(frame(std::move(beat)));
    }
  }
  heartbeat_timer->expires_after(options.heartbeat_interval);
  heartbeat_timer->async_wait([self = shared_from_this()](boost::system::error_code ec) {
    if (!ec) self->heartbeat();
  });
}

void State::read_loop(const std::shared_ptr<Connection>& c) {
  auto self = shared_from_this();
  c->read_frame([self, c](Message m) {
    c->last_heard = std::chrono::steady_clock::now();
    if (m.type == kHeartbeat) {
      // nothing else to do: hearing it was the point
    } else if (m.type == kGoodbye) {
      c->said_goodbye = true;
    } else if (wire::channels::kTransport.contains(m.type)) {
      return c->fail("unexpected transport message " + std::to_string(m.type));
    } else {
      self->deliver(std::move(m));
    }
    self->read_loop(c);
  });
}

class TcpLink final : public Link {
 public:
  TcpLink(std::shared_ptr<State> s, int peer) : state_(std::move(s)), peer_(peer) {}
  int peer() const noexcept override { return peer_; }
  void send(Message message) override {
    if (peer_ == state_->options.rank) {  // to ourselves: no socket
      message.sender = peer_;
      state_->deliver(std::move(message));
      return;
    }
    if (wire::channels::kTransport.contains(message.type))
      throw std::invalid_argument("message types from 0xFF00 are the transport's");
    auto frame = state_->frame(std::move(message));  // CRC on the caller's thread, not the io thread
    auto state = state_;
    const int peer = peer_;
    asio::post(state->io(), [state, peer, frame] {
      if (auto& c = state->connections[static_cast<std::size_t>(peer)]) c->send(frame);
    });
  }

 private:
  std::shared_ptr<State> state_;
  int peer_;
};

class TcpGroup final : public Group {
 public:
  explicit TcpGroup(std::shared_ptr<State> state) : state_(std::move(state)) {
    for (int p = 0; p < state_->size(); ++p) links_.emplace_back(state_, p);
    work_.emplace(asio::make_work_guard(state_->io()));
    state_->heartbeat_timer = std::make_unique<asio::steady_timer>(state_->io());
    asio::post(state_->io(), [s = state_] { s->heartbeat(); });
    io_thread_ = std::thread([s = state_] {
      // A handler that throws (out of memory, above all) would end the process unexplained:
      // the group is closed with the reason instead, so that every receive reports it and the
      // peers see this rank go, and the loop goes on for the shutdown's own handlers.
      for (;;) {
        try {
          s->io().run();
          return;
        } catch (const std::exception& e) {
          s->close(std::string("the transport's thread failed: ") + e.what());
          for (auto& c : s->connections)
            if (c) c->close_socket();
        }
      }
    });
  }

  ~TcpGroup() override {
    // A clean end: say goodbye on every connection so peers do not take the EOF for a crash,
    // let the outboxes drain, then stop.
    auto state = state_;
    asio::post(state->io(), [state] {
      for (auto& c : state->connections) {
        if (!c) continue;
        Message bye;
        bye.type = kGoodbye;
        c->send(state->frame(std::move(bye)));
      }
    });
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
    for (;;) {
      std::promise<bool> drained;
      auto done = drained.get_future();
      asio::post(state->io(), [state, &drained] {
        bool empty = true;
        for (auto& c : state->connections) empty = empty && (!c || c->closed || c->outbox.empty());
        drained.set_value(empty);
      });
      if (done.get() || std::chrono::steady_clock::now() > deadline) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    asio::post(state->io(), [state] {
      // Closing every socket completes every pending operation, so run() can return and the
      // handlers let go of the state.
      state->stopping = true;
      state->heartbeat_timer->cancel();
      if (state->accept_loop) state->accept_loop->stop();
      for (auto& weak : state->every_socket)
        if (auto c = weak.lock()) c->close_socket();
      state->connections.clear();  // breaks the State ↔ Connection cycle
    });
    work_.reset();
    io_thread_.join();
  }

  int rank() const noexcept override { return state_->options.rank; }
  int size() const noexcept override { return state_->size(); }
  Link& link(int peer) override {
    if (peer < 0 || peer >= size()) throw std::out_of_range("no rank " + std::to_string(peer));
    return links_[static_cast<std::size_t>(peer)];
  }
  std::optional<Message> receive(Clock::time_point deadline) override {
    std::unique_lock lock(state_->mutex);
    if (!state_->changed.wait_until(lock, deadline,
                                    [&] { return !state_->inbox.empty() || !state_->closed.empty(); }))
      return std::nullopt;
    // What arrived before the close is still handed out: a peer's last word (often the
    // scheduler's failure message, which names the root cause) must not be lost to the close.
    if (state_->inbox.empty()) throw GroupClosed(state_->closed, state_->closed_by);
    Message m = std::move(state_->inbox.front());
    state_->inbox.pop_front();
    return m;
  }
  std::uint64_t bytes_sent() const noexcept override { return state_->bytes_sent.load(std::memory_order_relaxed); }
  void close_receivers(const std::string& reason) override { state_->close(reason); }
  void close(const std::string& reason) override {
    state_->close(reason);
    // Without a goodbye, so that the peers see this rank fail.
    auto state = state_;
    asio::post(state->io(), [state] {
      for (auto& c : state->connections)
        if (c) c->close_socket();
    });
  }

 private:
  std::shared_ptr<State> state_;
  std::vector<TcpLink> links_;
  std::optional<asio::executor_work_guard<asio::io_context::executor_type>> work_;
  std::thread io_thread_;
};

}  // namespace

std::string member_name(const std::vector<std::string>& names, int member) {
  if (member >= 0 && static_cast<std::size_t>(member) < names.size() && !names[static_cast<std::size_t>(member)].empty())
    return names[static_cast<std::size_t>(member)];
  return "rank " + std::to_string(member);
}

std::unique_ptr<Group> connect_tcp_group(TcpListener listener, const std::vector<TcpEndpoint>& peers,
                                         const TcpOptions& options) {
  if (options.token.empty()) throw std::invalid_argument("an empty token: the ranks must prove a shared secret");
  if (options.rank < 0 || options.rank >= static_cast<int>(peers.size()))
    throw std::invalid_argument("rank " + std::to_string(options.rank) + " outside a job of " +
                                std::to_string(peers.size()));
  (void)wire::fixed_text<64>(options.job_id, "job id");  // refuse unusable settings before any traffic
  (void)wire::fixed_text<64>(options.job_digest, "job digest");
  auto state = std::make_shared<State>();
  state->listener = std::move(listener.impl);
  state->options = options;
  state->peers = peers;
  state->connections.resize(peers.size());

  const auto deadline = std::chrono::steady_clock::now() + options.connect_timeout;
  AcceptOptions accepting;
  accepting.hello_timeout = options.hello_timeout;
  accepting.log = [weak = std::weak_ptr<State>(state)](const std::string& line) {
    if (auto s = weak.lock()) s->log(line);
  };
  state->accept_loop =
      AcceptLoop::start(state->listener->acceptor, std::move(accepting),
                        [weak = std::weak_ptr<State>(state)](tcp::socket socket, std::shared_ptr<Admission> a) {
                          if (auto s = weak.lock()) s->accept(std::move(socket), std::move(a));
                        });
  for (int r = 0; r < options.rank; ++r) state->dial(r, deadline);
  auto group = std::make_unique<TcpGroup>(state);  // starts the io thread

  const int needed = static_cast<int>(peers.size()) - 1;
  std::unique_lock lock(state->mutex);
  state->changed.wait_until(lock, deadline, [&] { return state->connected == needed || !state->closed.empty(); });
  if (!state->closed.empty()) throw SetupFailed(state->name(options.rank) + ": " + state->closed, state->closed_by);
  if (state->connected < needed) {
    lock.unlock();
    std::promise<std::pair<std::string, int>> missing;  // the ranks' text, and the first of them
    auto f = missing.get_future();
    asio::post(state->io(), [&] {
      std::string m;
      int first = -1;
      for (int r = 0; r < state->size(); ++r)
        if (r != options.rank && !state->connections[static_cast<std::size_t>(r)]) {
          m += (m.empty() ? "" : ", ") + state->name(r) + " (" + peers[static_cast<std::size_t>(r)].str() + ")";
          if (first < 0) first = r;
        }
      missing.set_value({m, first});
    });
    const auto [text, first] = f.get();
    throw SetupFailed(state->name(options.rank) + ": no connection within " +
                      std::to_string(options.connect_timeout.count()) + " ms to " + text, first);
  }
  return group;
}

std::vector<std::unique_ptr<Group>> make_loopback_tcp_groups(int size, const TcpOptions& options) {
  std::vector<TcpListener> listeners;
  std::vector<TcpEndpoint> endpoints;
  for (int r = 0; r < size; ++r) {
    listeners.emplace_back("127.0.0.1", 0);
    endpoints.push_back(listeners.back().endpoint());
  }
  // Every rank dials and accepts at once, so each joins on its own thread.
  std::vector<std::future<std::unique_ptr<Group>>> joining;
  for (int r = 0; r < size; ++r)
    joining.push_back(std::async(std::launch::async, [&, r, l = std::move(listeners[static_cast<std::size_t>(r)])]() mutable {
      TcpOptions o = options;
      o.rank = r;
      return connect_tcp_group(std::move(l), endpoints, o);
    }));
  std::vector<std::unique_ptr<Group>> groups;
  for (auto& j : joining) groups.push_back(j.get());
  return groups;
}

}  // namespace gyre::net
