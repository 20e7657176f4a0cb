// gyre/cluster/rendezvous.cpp — registration frames to rank 0 and the endpoint table back.
#include "gyre/cluster/rendezvous.hpp"

#include <cereal/types/array.hpp>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include "gyre/net/frame_io.hpp"
#include "gyre/wire/codec.hpp"
#include "gyre/wire/fixed_text.hpp"

namespace gyre::cluster {
namespace asio = boost::asio;
using asio::ip::tcp;

namespace {

constexpr std::uint16_t kRegister = 0xFF10;
constexpr std::uint16_t kTable = 0xFF11;
constexpr std::size_t kHostBytes = 46;  // longest IPv6 text form + NUL
constexpr std::size_t kEntryBytes = kHostBytes + 2;

struct Registration {
  std::uint16_t version = wire::kProtocolVersion;
  std::int32_t member = -1;
  std::uint16_t port = 0;
  std::array<char, 64> job{};
  std::array<char, 128> token{};
  template <class Archive>
  void serialize(Archive& ar) { ar(version, member, port, job, token); }
};

template <std::size_t N>
std::array<char, N> fixed(const std::string& s) {
  return wire::fixed_text<N>(s, "job id or token");
}

}  // namespace

struct Coordinator::Impl {
  asio::io_context io;
  tcp::acceptor acceptor{io};
  int members;
  RendezvousOptions options;
  std::vector<std::optional<net::TcpEndpoint>> table;
  std::vector<std::shared_ptr<tcp::socket>> sockets;  // by member
  int registered = 0;
  int answered = 0;

  void log(const std::string& line) { std::fprintf(stderr, "gyre rendezvous: %s\n", line.c_str()); }

  void accept_next() {
    acceptor.async_accept([this](boost::system::error_code ec, tcp::socket s) {
      if (ec) return;
      auto socket = std::make_shared<tcp::socket>(std::move(s));
      net::async_read_frame(*socket, socket, wire::FrameLimits{512, 0}, -1,
                            [this, socket](const std::string& error, net::Message m) { on_register(socket, error, m); });
      accept_next();
    });
  }

  void on_register(const std::shared_ptr<tcp::socket>& socket, const std::string& error, const net::Message& m) {
    boost::system::error_code ec;
    const auto from = socket->remote_endpoint(ec);
    const std::string who = ec ? "?" : from.address().to_string() + ":" + std::to_string(from.port());
    std::string why = error;
    Registration r;
    if (why.empty() && m.type != kRegister) why = "expected a registration";
    if (why.empty()) {
      try {
        r = wire::decode<Registration>(m.meta);
      } catch (const std::exception& e) {
        why = std::string("malformed registration: ") + e.what();
      }
    }
    if (why.empty() && r.version != wire::kProtocolVersion) why = "protocol version " + std::to_string(r.version);
    if (why.empty() && !wire::equal_constant_time(r.token, fixed<128>(options.token))) why = "wrong or missing job token";
    if (why.empty() && !wire::equal_constant_time(r.job, fixed<64>(options.job_id))) why = "another job id";
    if (why.empty() && (r.member < 0 || r.member >= members || table[static_cast<std::size_t>(r.member)]))
      why = "member id " + std::to_string(r.member) + " out of range or taken";
    if (!why.empty()) {
      log("refused " + who + ": " + why);
      socket->close(ec);
      return;
    }
    table[static_cast<std::size_t>(r.member)] = net::TcpEndpoint{from.address().to_string(), r.port};
    sockets[static_cast<std::size_t>(r.member)] = socket;
    if (++registered == members) send_tables();
  }

  void send_tables() {
    net::Message t;
    t.type = kTable;
    t.body = Buffer(static_cast<std::size_t>(members) * kEntryBytes);
    for (int i = 0; i < members; ++i) {
      auto* entry = t.body.data() + static_cast<std::size_t>(i) * kEntryBytes;
      const auto& e = *table[static_cast<std::size_t>(i)];
      std::memcpy(entry, e.host.data(), std::min(e.host.size(), kHostBytes - 1));
      std::memcpy(entry + kHostBytes, &e.port, 2);
    }
    auto frame = net::OutFrame::of(std::move(t), 0);
    for (auto& socket : sockets)
      asio::async_write(*socket, frame->buffers(), [this, frame, socket](boost::system::error_code, std::size_t) {
        if (++answered == members) io.stop();
      });
  }
};

Coordinator::Coordinator(const net::TcpEndpoint& bind, int members, RendezvousOptions options)
    : impl_(std::make_unique<Impl>()) {
  (void)fixed<128>(options.token);
  (void)fixed<64>(options.job_id);
  impl_->members = members;
  impl_->options = std::move(options);
  impl_->table.resize(static_cast<std::size_t>(members));
  impl_->sockets.resize(static_cast<std::size_t>(members));
  const tcp::endpoint ep(asio::ip::make_address(bind.host), bind.port);
  impl_->acceptor.open(ep.protocol());
  impl_->acceptor.set_option(tcp::acceptor::reuse_address(true));
  impl_->acceptor.bind(ep);
  impl_->acceptor.listen();
}

Coordinator::~Coordinator() = default;

net::TcpEndpoint Coordinator::endpoint() const {
  const auto ep = impl_->acceptor.local_endpoint();
  return {ep.address().to_string(), ep.port()};
}

void Coordinator::serve() {
  impl_->accept_next();
  impl_->io.run_for(impl_->options.timeout);
  if (impl_->answered == impl_->members) return;
  std::string missing;
  for (int i = 0; i < impl_->members; ++i)
    if (!impl_->table[static_cast<std::size_t>(i)]) missing += (missing.empty() ? "" : ", ") + std::to_string(i);
  throw std::runtime_error("rendezvous: no registration from member(s) " + (missing.empty() ? "?" : missing) +
                           " within " + std::to_string(impl_->options.timeout.count()) + " ms");
}

std::vector<net::TcpEndpoint> rendezvous(const net::TcpEndpoint& coordinator, int member, std::uint16_t port,
                                         int members, const RendezvousOptions& options) {
  asio::io_context io;
  auto socket = std::make_shared<tcp::socket>(io);
  const tcp::endpoint target(asio::ip::make_address(coordinator.host), coordinator.port);
  Registration r;
  r.member = member;
  r.port = port;
  r.job = fixed<64>(options.job_id);
  r.token = fixed<128>(options.token);
  net::Message reg;
  reg.type = kRegister;
  reg.meta = wire::encode(r);
  const auto frame = net::OutFrame::of(std::move(reg), member);

  std::vector<net::TcpEndpoint> table;
  std::string failure;
  asio::steady_timer retry(io);
  auto fail = [&](const std::string& why) {
    failure = why;
    io.stop();
  };
  std::function<void()> attempt = [&] {
    socket->async_connect(target, [&](boost::system::error_code ec) {
      if (ec) {  // rank 0 may not listen yet
        socket->close(ec);
        retry.expires_after(std::chrono::milliseconds(100));
        retry.async_wait([&](boost::system::error_code) { attempt(); });
        return;
      }
      asio::async_write(*socket, frame->buffers(), [&](boost::system::error_code wec, std::size_t) {
        if (wec) return fail(wec.message());
        const wire::FrameLimits limits{0, static_cast<std::uint64_t>(members) * kEntryBytes};
        net::async_read_frame(*socket, socket, limits, 0, [&](const std::string& error, net::Message m) {
          if (!error.empty()) return fail(error);
          if (m.type != kTable || m.body.size() != static_cast<std::size_t>(members) * kEntryBytes)
            return fail("malformed endpoint table");
          for (int i = 0; i < members; ++i) {
            const auto* entry = m.body.data() + static_cast<std::size_t>(i) * kEntryBytes;
            std::array<char, kHostBytes> host{};
            std::memcpy(host.data(), entry, kHostBytes - 1);
            std::uint16_t p = 0;
            std::memcpy(&p, entry + kHostBytes, 2);
            table.push_back({std::string(host.data()), p});
          }
          io.stop();
        });
      });
    });
  };
  attempt();
  io.run_for(options.timeout);
  if (static_cast<int>(table.size()) == members) return table;
  throw std::runtime_error("rendezvous with " + coordinator.str() + " failed" +
                           (failure.empty() ? " (no answer within " + std::to_string(options.timeout.count()) + " ms)"
                                            : ": " + failure));
}

}  // namespace gyre::cluster
