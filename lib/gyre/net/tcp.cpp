// gyre/net/tcp.cpp — Asio connections: hello handshake, framed reads with limits, queued scatter/gather writes.
#include "gyre/net/tcp.hpp"

#include <cereal/types/array.hpp>

#include <algorithm>
#include <array>
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <future>
#include <mutex>
#include <thread>

#include "gyre/net/frame_io.hpp"
#include "gyre/wire/codec.hpp"
#include "gyre/wire/fixed_text.hpp"

namespace gyre::net {
namespace asio = boost::asio;
using asio::ip::tcp;

namespace {

// Transport-private message types; the layers above use types below 0xFF00.
constexpr std::uint16_t kHello = 0xFF01;
constexpr std::uint16_t kGoodbye = 0xFF02;
constexpr std::uint16_t kHeartbeat = 0xFF03;
constexpr std::uint32_t kMaxHelloMeta = 512;

struct Hello {
  std::uint16_t version = wire::kProtocolVersion;
  std::int32_t rank = -1;
  std::array<char, 64> job{};
  std::array<char, 128> token{};
  template <class Archive>
  void serialize(Archive& ar) { ar(version, rank, job, token); }
};

using wire::equal_constant_time;

template <std::size_t N>
std::array<char, N> fixed(const std::string& s, const char* what) {
  return wire::fixed_text<N>(s, what);
}

}  // namespace

struct TcpListener::Impl {
  asio::io_context io;
  tcp::acceptor acceptor{io};
};

TcpListener::TcpListener(const std::string& host, std::uint16_t port) : impl(std::make_unique<Impl>()) {
  const tcp::endpoint ep(asio::ip::make_address(host), port);
  impl->acceptor.open(ep.protocol());
  impl->acceptor.set_option(tcp::acceptor::reuse_address(true));
  impl->acceptor.bind(ep);
  impl->acceptor.listen();
}
TcpListener::~TcpListener() = default;
TcpListener::TcpListener(TcpListener&&) noexcept = default;
TcpListener& TcpListener::operator=(TcpListener&&) noexcept = default;

TcpEndpoint TcpListener::endpoint() const {
  const auto ep = impl->acceptor.local_endpoint();
  return {ep.address().to_string(), ep.port()};
}

namespace {

struct State;

// One socket. Lives on the io thread: every member is touched only from there.
struct Connection : std::enable_shared_from_this<Connection> {
  Connection(std::shared_ptr<State> s, tcp::socket sock) : state(std::move(s)), socket(std::move(sock)) {}

  std::shared_ptr<State> state;
  tcp::socket socket;
  int peer = -1;              // known once the hello checked out
  int dialed = -1;            // the rank we dialed, while its answer is pending
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
};

struct State : std::enable_shared_from_this<State> {
  std::unique_ptr<TcpListener::Impl> listener;  // owns the io_context
  TcpOptions options;
  std::vector<TcpEndpoint> peers;
  std::vector<std::shared_ptr<Connection>> connections;  // by rank; io thread only after setup
  std::vector<std::weak_ptr<Connection>> every_socket;    // incl. refused and half-open ones; io thread
  bool stopping = false;                                  // io thread: no new dials or accepts
  std::unique_ptr<asio::steady_timer> heartbeat_timer;    // io thread

  std::mutex mutex;  // guards everything below
  std::condition_variable changed;
  std::deque<Message> inbox;
  std::string closed;  // reason, once closed
  int connected = 0;
  std::atomic<std::uint64_t> bytes_sent{0};  // written by the io thread, read by anyone

  asio::io_context& io() { return listener->io; }
  int size() const { return static_cast<int>(peers.size()); }
  void log(const std::string& line) const {
    if (options.log)
      options.log(line);
    else
      std::fprintf(stderr, "gyre tcp rank %d: %s\n", options.rank, line.c_str());
  }
  void deliver(Message m) {
    {
      std::lock_guard lock(mutex);
      if (!closed.empty()) return;  // nothing new after a close
      inbox.push_back(std::move(m));
    }
    changed.notify_all();
  }
  void close(const std::string& reason) {
    {
      std::lock_guard lock(mutex);
      if (!closed.empty()) return;
      closed = reason.empty() ? "closed" : reason;
    }
    changed.notify_all();
  }
  std::shared_ptr<OutFrame> frame(Message m) const { return OutFrame::of(std::move(m), options.rank); }
  Message hello() const {
    Hello h;
    h.rank = options.rank;
    h.job = fixed<64>(options.job_id, "job id");
    h.token = fixed<128>(options.token, "token");
    Message m;
    m.type = kHello;
    m.meta = wire::encode(h);
    return m;
  }
  // Checks a peer's hello; returns the reason to refuse it, or empty.
  std::string check(const Message& m, int expected_rank, int& rank) const {
    if (m.type != kHello) return "expected a hello, got message type " + std::to_string(m.type);
    Hello h;
    try {
      h = wire::decode<Hello>(m.meta);
    } catch (const std::exception& e) {
      return std::string("malformed hello: ") + e.what();
    }
    if (h.version != wire::kProtocolVersion) return "protocol version " + std::to_string(h.version);
    if (!equal_constant_time(h.token, fixed<128>(options.token, "token"))) return "wrong or missing job token";
    if (!equal_constant_time(h.job, fixed<64>(options.job_id, "job id"))) return "another job id";
    if (h.rank < 0 || h.rank >= size() || (expected_rank >= 0 && h.rank != expected_rank))
      return "unexpected rank " + std::to_string(h.rank);
    rank = h.rank;
    return {};
  }

  void heartbeat();
  void accept_next();
  void dial(int rank, std::chrono::steady_clock::time_point deadline);
  void established(const std::shared_ptr<Connection>& c);
  void read_loop(const std::shared_ptr<Connection>& c);
};

void Connection::note_address() {
  boost::system::error_code ec;
  const auto ep = socket.remote_endpoint(ec);
  if (!ec) address = ep.address().to_string() + ":" + std::to_string(ep.port());
}

std::string Connection::who() const {
  return peer >= 0 ? "rank " + std::to_string(peer) + " (" + address + ")" : "unauthenticated peer " + address;
}

void Connection::close_socket() {
  if (closed) return;
  closed = true;
  boost::system::error_code ignored;
  socket.shutdown(tcp::socket::shutdown_both, ignored);
  socket.close(ignored);
}

void Connection::fail(const std::string& why) {
  if (closed) return;
  const bool was_peer = peer >= 0 && !said_goodbye;
  const std::string who_text = who();
  close_socket();
  if (was_peer) {
    state->log("dropping " + who_text + ": " + why);
    state->close(who_text + " failed: " + why);
  } else if (dialed >= 0) {
    // The rank we must reach turned us away (wrong token, other job): waiting is pointless.
    state->close("rank " + std::to_string(dialed) + " ended the handshake: " + why);
  } else if (peer < 0) {
    state->log("refused " + who_text + ": " + why);
  }
}

void Connection::read_frame(std::function<void(Message)> on_frame) {
  auto self = shared_from_this();
  // Before the hello checks out, only a hello-sized frame is read.
  const wire::FrameLimits limits = peer >= 0 ? state->options.limits : wire::FrameLimits{kMaxHelloMeta, 0};
  async_read_frame(socket, self, limits, peer, [self, on_frame = std::move(on_frame)](const std::string& error, Message m) {
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

void State::accept_next() {
  auto self = shared_from_this();
  listener->acceptor.async_accept([self](boost::system::error_code ec, tcp::socket socket) {
    if (ec || self->stopping) return;  // acceptor closed
    auto c = std::make_shared<Connection>(self, std::move(socket));
    c->note_address();
    self->every_socket.push_back(c);
    c->read_frame([self, c](Message m) {
      int rank = -1;
      std::string why = self->check(m, -1, rank);
      if (why.empty() && (rank <= self->options.rank || self->connections[static_cast<std::size_t>(rank)]))
        why = "rank " + std::to_string(rank) + " must not dial here or is already connected";
      if (!why.empty()) return c->fail(why);
      c->peer = rank;
      c->send(self->frame(self->hello()));  // the answer proves we hold the token too
      self->established(c);
    });
    self->accept_next();
  });
}

void State::dial(int rank, std::chrono::steady_clock::time_point deadline) {
  if (stopping) return;
  auto self = shared_from_this();
  auto c = std::make_shared<Connection>(self, tcp::socket(io()));
  every_socket.push_back(c);
  const auto& ep = peers[static_cast<std::size_t>(rank)];
  boost::system::error_code ec;
  const auto address = asio::ip::make_address(ep.host, ec);
  if (ec) {
    close("rank " + std::to_string(rank) + " has an unusable address " + ep.str());
    return;
  }
  c->socket.async_connect(tcp::endpoint(address, ep.port), [self, c, rank, deadline](boost::system::error_code ec2) {
    if (ec2) {
      if (std::chrono::steady_clock::now() > deadline) return;  // the setup wait reports it
      auto timer = std::make_shared<asio::steady_timer>(self->io(), std::chrono::milliseconds(100));
      timer->async_wait([self, rank, deadline, timer](boost::system::error_code) { self->dial(rank, deadline); });
      return;
    }
    c->dialed = rank;
    c->note_address();
    c->send(self->frame(self->hello()));
    c->read_frame([self, c, rank](Message m) {
      int got = -1;
      const std::string why = self->check(m, rank, got);
      if (!why.empty()) {
        c->fail(why);
        self->close("rank " + std::to_string(rank) + " refused or failed the handshake: " + why);
        return;
      }
      c->dialed = -1;
      c->peer = rank;
      self->established(c);
    });
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
    } else if (m.type >= 0xFF00) {
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
    if (message.type >= 0xFF00) throw std::invalid_argument("message types from 0xFF00 are the transport's");
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
    io_thread_ = std::thread([s = state_] { s->io().run(); });
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
      boost::system::error_code ignored;
      state->heartbeat_timer->cancel();
      state->listener->acceptor.close(ignored);
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
    if (state_->inbox.empty()) throw GroupClosed(state_->closed);
    Message m = std::move(state_->inbox.front());
    state_->inbox.pop_front();
    return m;
  }
  std::uint64_t bytes_sent() const noexcept override { return state_->bytes_sent.load(std::memory_order_relaxed); }
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

std::unique_ptr<Group> connect_tcp_group(TcpListener listener, const std::vector<TcpEndpoint>& peers,
                                         const TcpOptions& options) {
  if (options.rank < 0 || options.rank >= static_cast<int>(peers.size()))
    throw std::invalid_argument("rank " + std::to_string(options.rank) + " outside a job of " +
                                std::to_string(peers.size()));
  (void)fixed<64>(options.job_id, "job id");  // refuse unusable settings before any traffic
  (void)fixed<128>(options.token, "token");
  auto state = std::make_shared<State>();
  state->listener = std::move(listener.impl);
  state->options = options;
  state->peers = peers;
  state->connections.resize(peers.size());

  const auto deadline = std::chrono::steady_clock::now() + options.connect_timeout;
  state->accept_next();
  for (int r = 0; r < options.rank; ++r) state->dial(r, deadline);
  auto group = std::make_unique<TcpGroup>(state);  // starts the io thread

  const int needed = static_cast<int>(peers.size()) - 1;
  std::unique_lock lock(state->mutex);
  state->changed.wait_until(lock, deadline, [&] { return state->connected == needed || !state->closed.empty(); });
  if (!state->closed.empty()) throw GroupClosed("rank " + std::to_string(options.rank) + ": " + state->closed);
  if (state->connected < needed) {
    lock.unlock();
    std::promise<std::string> missing;
    auto f = missing.get_future();
    asio::post(state->io(), [&] {
      std::string m;
      for (int r = 0; r < state->size(); ++r)
        if (r != options.rank && !state->connections[static_cast<std::size_t>(r)])
          m += (m.empty() ? "" : ", ") + std::to_string(r) + " (" + peers[static_cast<std::size_t>(r)].str() + ")";
      missing.set_value(m);
    });
    throw GroupClosed("rank " + std::to_string(options.rank) + ": no connection within " +
                      std::to_string(options.connect_timeout.count()) + " ms to rank(s) " + f.get());
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
