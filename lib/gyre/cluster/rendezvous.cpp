// gyre/cluster/rendezvous.cpp — members authenticate to rank 0, register their port and settings, and get the endpoint table back.
#include "gyre/cluster/rendezvous.hpp"

#include <cereal/types/array.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <optional>
#include <stdexcept>

#include "gyre/net/accept_loop.hpp"
#include "gyre/net/descriptors.hpp"
#include "gyre/net/frame_io.hpp"
#include "gyre/net/group.hpp"
#include "gyre/net/handshake.hpp"
#include "gyre/net/listen.hpp"
#include "gyre/wire/body.hpp"
#include "gyre/wire/channels.hpp"
#include "gyre/wire/codec.hpp"
#include "gyre/wire/fixed_text.hpp"

namespace gyre::cluster {
namespace asio = boost::asio;
using asio::ip::tcp;

namespace {

// After the handshake: meta = Registration, body = the member's encoded settings.
constexpr std::uint16_t kRegister = wire::channels::kRendezvous.at(0);
constexpr std::uint16_t kTable = wire::channels::kRendezvous.at(1);
constexpr std::size_t kHostBytes = 46;  // longest IPv6 text form + NUL
constexpr std::size_t kEntryBytes = kHostBytes + 2;
constexpr std::size_t kMaxRefusalsKept = 8;

struct Registration {
  std::uint16_t port = 0;
  template <class Archive>
  void serialize(Archive& ar) { ar(port); }
};

net::HandshakeKey key_of(const RendezvousOptions& o) { return {"rendezvous", o.job_id, "", o.token}; }

// One connection to the coordinator, from accept to the table (or a refusal).
struct Visitor {
  explicit Visitor(tcp::socket s) : socket(std::move(s)) {
    boost::system::error_code ec;
    const auto ep = socket.remote_endpoint(ec);
    if (!ec) {
      host = ep.address().to_string();
      address = host + ":" + std::to_string(ep.port());
    }
  }
  void close() {
    if (closed) return;
    closed = true;
    boost::system::error_code ignored;
    socket.close(ignored);
    if (admission) admission->release();
    admission.reset();
  }

  tcp::socket socket;
  std::string host = "?";
  std::string address = "?";
  std::shared_ptr<net::Admission> admission;  // until authenticated
  bool closed = false;
};

}  // namespace

struct Coordinator::Impl {
  asio::io_context io;
  tcp::acceptor acceptor{io};
  net::TcpEndpoint bound;  // kept: the acceptor closes once everyone is in
  std::shared_ptr<net::AcceptLoop> accept_loop;
  int members = 0;
  RendezvousOptions options;
  std::vector<std::optional<net::TcpEndpoint>> table;
  std::vector<std::shared_ptr<Visitor>> registered;  // by member id
  std::vector<std::string> refusals;                 // for the timeout error
  int count = 0;
  int answered = 0;

  ~Impl() {
    if (accept_loop) accept_loop->stop();
  }

  void log(const std::string& line) const {
    if (options.log)
      options.log(line);
    else
      std::fprintf(stderr, "gyre rendezvous: %s\n", line.c_str());
  }

  // Not authenticated: closed without a word.
  void drop(const std::shared_ptr<Visitor>& v, const std::string& why) {
    if (v->closed) return;
    log("refused unauthenticated peer " + v->address + ": " + why);
    v->close();
  }

  // Authenticated: told why, then closed. The member has sent everything it will send, so the
  // close does not reset the connection under the reason.
  void refuse(const std::shared_ptr<Visitor>& v, int member, const std::string& why) {
    const std::string who = net::member_name(options.member_names, member) + " (" + v->address + ")";
    log("refused " + who + ": " + why);
    const std::string entry = who + ": " + why;
    if (refusals.size() < kMaxRefusalsKept && std::find(refusals.begin(), refusals.end(), entry) == refusals.end())
      refusals.push_back(entry);
    auto frame = net::OutFrame::of(net::refusal(why), net::kCoordinatorId);
    asio::async_write(v->socket, frame->buffers(), [v, frame](boost::system::error_code, std::size_t) { v->close(); });
  }

  void start() {
    net::AcceptOptions ao;
    ao.hello_timeout = options.hello_timeout;
    ao.log = [this](const std::string& line) { log(line); };
    accept_loop =
        net::AcceptLoop::start(acceptor, std::move(ao), [this](tcp::socket s, std::shared_ptr<net::Admission> a) {
          auto v = std::make_shared<Visitor>(std::move(s));
          v->admission = std::move(a);
          v->admission->on_expiry([this, weak = std::weak_ptr<Visitor>(v)](const std::string& why) {
            if (auto visitor = weak.lock()) drop(visitor, why);
          });
          net::async_accept_handshake(v->socket, v, key_of(options), net::kCoordinatorId,
                                      [this, v](const std::string& error, const net::DialerHello& hello) {
                                        if (v->closed) return;
                                        if (!error.empty()) return drop(v, error);
                                        v->admission->release();
                                        v->admission.reset();
                                        read_registration(v, hello);
                                      });
        });
  }

  void read_registration(const std::shared_ptr<Visitor>& v, const net::DialerHello& hello) {
    const wire::FrameLimits limits{64, kMaxSettingsBytes};
    net::async_read_frame(v->socket, v, limits, hello.id, [this, v, hello](const std::string& error, net::Message m) {
      if (v->closed) return;
      if (!error.empty()) {  // nothing can be told over a broken stream
        log("dropped " + net::member_name(options.member_names, hello.id) + " (" + v->address + ") before it registered: " + error);
        return v->close();
      }
      Registration r;
      JobSettings settings;
      std::string why;
      try {
        if (m.type != kRegister)
          throw wire::DecodeError("expected a registration, got message type " + std::to_string(m.type));
        r = wire::decode<Registration>(m.meta);
        settings = decode_settings(m.body.bytes());
      } catch (const wire::DecodeError& e) {
        why = std::string("malformed registration: ") + e.what();
      }
      if (why.empty()) why = check(hello, settings);
      if (!why.empty()) return refuse(v, hello.id, why);
      table[static_cast<std::size_t>(hello.id)] = net::TcpEndpoint{v->host, r.port};
      registered[static_cast<std::size_t>(hello.id)] = v;
      if (++count == members) send_tables();
    });
  }

  // Why an authenticated member cannot join this job, or empty.
  std::string check(const net::DialerHello& hello, const JobSettings& settings) const {
    if (hello.job_id != options.job_id)
      return "another job id '" + hello.job_id + "' (this job's is '" + options.job_id + "')";
    if (hello.id < 0 || hello.id >= members)
      return "member id " + std::to_string(hello.id) + " outside 0.." + std::to_string(members - 1);
    if (const auto& taken = registered[static_cast<std::size_t>(hello.id)])
      return net::member_name(options.member_names, hello.id) + " is already registered from " + taken->address;
    return settings_difference(settings, net::member_name(options.member_names, hello.id), options.settings, net::member_name(options.member_names, 0));
  }

  void send_tables() {
    accept_loop->stop();  // everyone is in: a late connection gets refused by the OS
    net::Message t;
    t.type = kTable;
    wire::Writer body(static_cast<std::size_t>(members) * kEntryBytes);
    for (int i = 0; i < members; ++i) {
      const auto& e = *table[static_cast<std::size_t>(i)];
      std::array<char, kHostBytes> host{};  // NUL-padded, and NUL-terminated however long
      std::copy_n(e.host.begin(), std::min(e.host.size(), kHostBytes - 1), host.begin());
      body.put_bytes(std::as_bytes(std::span<const char>(host))).put(e.port);
    }
    t.body = body.finish();
    auto frame = net::OutFrame::of(std::move(t), net::kCoordinatorId);
    for (auto& v : registered)
      asio::async_write(v->socket, frame->buffers(), [this, frame, v](boost::system::error_code, std::size_t) {
        if (++answered == members) io.stop();
      });
  }
};

Coordinator::Coordinator(int members, RendezvousOptions&& options) : impl_(std::make_unique<Impl>()) {
  if (members < 1) throw std::invalid_argument("a rendezvous needs at least one member");
  if (options.token.empty()) throw std::invalid_argument("an empty token: the members must prove a shared secret");
  (void)wire::fixed_text<64>(options.job_id, "job id");
  (void)encode_settings(options.settings);  // too large: refused before anyone connects
  impl_->members = members;
  impl_->options = std::move(options);
  impl_->table.resize(static_cast<std::size_t>(members));
  impl_->registered.resize(static_cast<std::size_t>(members));
}

Coordinator::Coordinator(const net::TcpEndpoint& bind, int members, RendezvousOptions options)
    : Coordinator(members, std::move(options)) {
  net::listen_on(impl_->acceptor, bind.host, bind.port);
  const auto ep = impl_->acceptor.local_endpoint();
  impl_->bound = {ep.address().to_string(), ep.port()};
}

Coordinator::Coordinator(int members, RendezvousOptions options, const net::TcpListener& listening)
    : Coordinator(members, std::move(options)) {
  net::listen_on(impl_->acceptor, listening);
  impl_->bound = listening.endpoint();
}

Coordinator::~Coordinator() = default;

net::TcpEndpoint Coordinator::endpoint() const { return impl_->bound; }

void Coordinator::serve() {
  impl_->start();
  impl_->io.run_for(impl_->options.timeout);
  if (impl_->answered == impl_->members) return;
  std::string missing;
  int first_missing = -1;
  for (int i = 0; i < impl_->members; ++i)
    if (!impl_->table[static_cast<std::size_t>(i)]) {
      missing += (missing.empty() ? "" : ", ") + net::member_name(impl_->options.member_names, i);
      if (first_missing < 0) first_missing = i;
    }
  std::string refused;
  for (const auto& r : impl_->refusals) refused += (refused.empty() ? "" : "; ") + r;
  const std::string why = "no registration from " + (missing.empty() ? "?" : missing) + " within " +
                          std::to_string(impl_->options.timeout.count()) + " ms";
  // The members that did register wait for a table that will not come: they are told who
  // is missing (only the coordinator knows), and given a moment to hear it.
  auto frame = net::OutFrame::of(net::refusal(why), net::kCoordinatorId);
  impl_->accept_loop->stop();
  impl_->io.restart();
  for (auto& v : impl_->registered)
    if (v && !v->closed)
      asio::async_write(v->socket, frame->buffers(), [v, frame](boost::system::error_code, std::size_t) { v->close(); });
  impl_->io.run_for(std::chrono::seconds(1));
  throw net::SetupFailed("rendezvous: " + why + (refused.empty() ? "" : "; refused meanwhile: " + refused), first_missing);
}

std::vector<net::TcpEndpoint> rendezvous(const net::TcpEndpoint& coordinator, int member, std::uint16_t port,
                                         int members, const RendezvousOptions& options) {
  const tcp::endpoint target(net::ip_address(coordinator.host, "the coordinator " + coordinator.str()),
                             coordinator.port);
  if (options.token.empty()) throw std::invalid_argument("an empty token: the members must prove a shared secret");
  (void)wire::fixed_text<64>(options.job_id, "job id");
  net::Message reg;
  reg.type = kRegister;
  reg.meta = wire::encode(Registration{port});
  const auto settings = encode_settings(options.settings);
  reg.body = wire::Writer(settings.size()).put_bytes(settings).finish();
  const auto frame = net::OutFrame::of(std::move(reg), member);
  const auto key = key_of(options);
  const std::string coordinator_text = "the coordinator at " + coordinator.str();

  // Its reactor (epoll, eventfd, timerfd) is opened by the first timer: out of descriptors, wait.
  const auto io_holder = net::when_descriptors_free(
      [] {
        auto made = std::make_unique<asio::io_context>();
        asio::steady_timer opens_the_reactor(*made);
        return made;
      },
      std::chrono::steady_clock::now() + options.timeout);
  asio::io_context& io = *io_holder;
  std::vector<net::TcpEndpoint> table;
  std::string failure;  // final: the attempt loop stops
  std::string note;     // the last reason to retry, for the timeout message
  bool registered = false;  // the coordinator has our registration
  asio::steady_timer retry(io);
  auto fail = [&](const std::string& why) {
    failure = why;
    io.stop();
  };
  std::function<void()> attempt;
  auto again = [&](const std::string& why) {
    note = why;
    retry.expires_after(std::chrono::milliseconds(100));
    retry.async_wait([&](boost::system::error_code) { attempt(); });
  };
  auto read_table = [&](const std::shared_ptr<tcp::socket>& socket) {
    const wire::FrameLimits limits{
        0, std::max<std::uint64_t>(static_cast<std::uint64_t>(members) * kEntryBytes, net::kVerdictLimits.max_body)};
    net::async_read_frame(*socket, socket, limits, net::kCoordinatorId, [&](const std::string& error, net::Message m) {
      if (!error.empty()) return fail(error);
      if (const auto reason = net::refusal_reason(m))
        return fail(coordinator_text + " refused " + net::member_name(options.member_names, member) + ": " + *reason);
      if (m.type != kTable || m.body.size() != static_cast<std::size_t>(members) * kEntryBytes)
        return fail("malformed endpoint table");
      wire::Reader in(m.body.bytes());
      for (int i = 0; i < members; ++i) {
        const auto host = in.take(kHostBytes, "a host");
        const auto* text = reinterpret_cast<const char*>(host.data());
        // A peer's field need not hold a NUL: read at most the field's text part.
        const std::string name(text, std::find(text, text + kHostBytes - 1, '\0'));
        table.push_back({name, in.get<std::uint16_t>("a port")});
      }
      io.stop();
    });
  };
  attempt = [&] {
    auto socket = std::make_shared<tcp::socket>(io);  // a fresh one per attempt
    socket->async_connect(target, [&, socket](boost::system::error_code ec) {
      if (ec) return again(ec.message());  // rank 0 may not listen yet
      using Kind = net::DialOutcome::Kind;
      net::async_dial_handshake(*socket, socket, key, member, net::kCoordinatorId, [&, socket](net::DialOutcome r) {
        switch (r.kind) {
          case Kind::kNoChallenge: {  // busy (e.g. at its limit of unauthenticated connections)
            boost::system::error_code ignored;
            socket->close(ignored);
            return again(coordinator_text + " closed the connection before the handshake (" + r.error + ")");
          }
          case Kind::kImpostor: return fail(coordinator_text + " could not prove it holds the job token");
          case Kind::kFailed: return fail(coordinator_text + ": " + r.error);
          case Kind::kProven: break;
        }
        asio::async_write(*socket, frame->buffers(), [&, socket](boost::system::error_code wec, std::size_t) {
          if (wec) return fail(wec.message());
          registered = true;
          read_table(socket);
        });
      });
    });
  };
  const std::string connection_refused =
      boost::system::error_code(asio::error::connection_refused).message();
  attempt();
  io.run_for(options.timeout);
  // Registered and still waiting: the coordinator, whose wait began after ours maybe, is about
  // to say who never came; that beats a time-out that names nobody.
  if (registered && failure.empty() && static_cast<int>(table.size()) != members) {
    io.restart();
    io.run_for(std::min<std::chrono::milliseconds>(options.timeout, std::chrono::seconds(5)));
  }
  if (static_cast<int>(table.size()) == members) return table;
  if (failure.empty() && !registered && note == connection_refused) {
    // Nothing ever listened: rank 0 is not running there, or it was, and its job formed (and
    // stopped listening) without this process, which happens to a rank number given twice.
    const std::string me = net::member_name(options.member_names, member);
    throw net::SetupFailed("rendezvous with " + coordinator.str() + " failed: nothing listened there for " +
                             std::to_string(options.timeout.count()) + " ms; either " +
                             net::member_name(options.member_names, 0) +
                             " is not running there, or its job formed without this process (is " + me +
                             " given to two processes?)",
                           0);
  }
  throw net::SetupFailed("rendezvous with " + coordinator.str() + " failed" +
                           (!failure.empty() ? ": " + failure
                                             : " (no table within " + std::to_string(options.timeout.count()) + " ms" +
                                                   (note.empty() ? "" : "; last: " + note) + ")"));
}

}  // namespace gyre::cluster
