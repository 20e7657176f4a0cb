// tests/lib/cluster/rendezvous_test.cpp — members learn each other's endpoints through the coordinator, and hostile peers learn nothing.
#include <doctest/doctest.h>

#include <utility>  // before Asio: Boost 1.74 uses std::exchange without including it

#include <boost/asio.hpp>

#include <cstring>
#include <future>
#include <mutex>
#include <random>
#include <stdexcept>
#include <thread>

#include "gyre/cluster/rendezvous.hpp"
#include "gyre/net/frame_io.hpp"
#include "gyre/net/handshake.hpp"
#include "gyre/wire/codec.hpp"
#include "support/raw_socket.hpp"

using namespace gyre::cluster;
using namespace std::chrono_literals;

namespace {
RendezvousOptions rendezvous_options() {
  RendezvousOptions o;
  o.job_id = "job";
  o.token = "secret";
  o.timeout = 10s;
  return o;
}
}  // namespace

TEST_CASE("every member gets the same table, with the address its registration came from") {
  constexpr int kMembers = 4;
  Coordinator coordinator({"127.0.0.1", 0}, kMembers, rendezvous_options());
  const auto at = coordinator.endpoint();
  auto served = std::async(std::launch::async, [&] { coordinator.serve(); });
  std::vector<std::future<std::vector<gyre::net::TcpEndpoint>>> members;
  for (int m = kMembers - 1; m >= 0; --m)  // any order
    members.push_back(std::async(std::launch::async, [&, m] {
      return rendezvous(at, m, static_cast<std::uint16_t>(5000 + m), kMembers, rendezvous_options());
    }));
  for (auto& f : members) {
    const auto table = f.get();
    REQUIRE(table.size() == kMembers);
    for (int m = 0; m < kMembers; ++m) {
      CHECK(table[static_cast<std::size_t>(m)].host == "127.0.0.1");
      CHECK(table[static_cast<std::size_t>(m)].port == 5000 + m);
    }
  }
  served.get();
}

TEST_CASE("a registration with the wrong token is refused; the real member still gets in") {
  Coordinator coordinator({"127.0.0.1", 0}, 1, rendezvous_options());
  const auto at = coordinator.endpoint();
  auto served = std::async(std::launch::async, [&] { coordinator.serve(); });
  auto bad = rendezvous_options();
  bad.token = "guess";
  bad.timeout = 3s;
  CHECK_THROWS_AS(rendezvous(at, 0, 1, 1, bad), std::runtime_error);
  CHECK(rendezvous(at, 0, 7, 1, rendezvous_options()).at(0).port == 7);
  served.get();
}

TEST_CASE("a member that never registers is named by the coordinator") {
  auto o = rendezvous_options();
  o.timeout = 300ms;
  Coordinator coordinator({"127.0.0.1", 0}, 2, o);
  const auto at = coordinator.endpoint();
  auto member0 = std::async(std::launch::async, [&] {
    try {
      rendezvous(at, 0, 1, 2, o);
    } catch (const std::runtime_error&) {
    }
  });
  try {
    coordinator.serve();
    FAIL("the coordinator must give up");
  } catch (const gyre::net::SetupFailed& e) {
    CHECK(std::string(e.what()).find("from rank 1 within") != std::string::npos);
    CHECK(e.peer() == 1);  // typed: the member that never registered
  }
  member0.get();
}

// ---- hostile coordinators and members ----

namespace {

using gyre::net::TcpEndpoint;
namespace asio = boost::asio;
using asio::ip::tcp;

// Plays a coordinator that does not hold the token: reads the member's hello, answers with a
// well-formed challenge whose proof is made up, and records every byte the member sends until
// the member closes (or 15 s pass).
class FakeCoordinator {
 public:
  FakeCoordinator() : acceptor_(io_, {asio::ip::make_address("127.0.0.1"), 0}) {
    acceptor_.async_accept([this](boost::system::error_code ec, tcp::socket s) {
      if (ec) return;
      socket_ = std::make_unique<tcp::socket>(std::move(s));
      asio::async_read(*socket_, asio::buffer(header_), [this](boost::system::error_code ec2, std::size_t) {
        if (ec2) return;
        record(header_.data(), header_.size());
        std::uint32_t meta_length = 0;
        std::memcpy(&meta_length, header_.data() + 12, 4);
        meta_.resize(std::min<std::uint32_t>(meta_length, 4096));
        asio::async_read(*socket_, asio::buffer(meta_), [this](boost::system::error_code ec3, std::size_t) {
          if (ec3) return;
          record(meta_.data(), meta_.size());
          answer();
        });
      });
    });
    thread_ = std::thread([this] { io_.run_for(15s); });
  }
  ~FakeCoordinator() {
    io_.stop();
    if (thread_.joinable()) thread_.join();
  }
  TcpEndpoint endpoint() const { return {"127.0.0.1", acceptor_.local_endpoint().port()}; }
  // Everything the member sent; waits for the member to close first.
  std::string received() {
    if (thread_.joinable()) thread_.join();
    return received_;
  }

 private:
  void record(const char* p, std::size_t n) { received_.append(p, n); }
  void answer() {
    gyre::net::ChallengeRecord challenge;
    std::mt19937 rng(11);
    for (auto& b : challenge.nonce) b = static_cast<unsigned char>(rng());
    for (auto& b : challenge.mac) b = static_cast<unsigned char>(rng());
    gyre::net::Message m;
    m.type = gyre::net::kChallengeType;
    m.meta = gyre::wire::encode(challenge);
    frame_ = gyre::net::OutFrame::of(std::move(m), gyre::net::kCoordinatorId);
    asio::async_write(*socket_, frame_->buffers(), [this](boost::system::error_code ec, std::size_t) {
      if (!ec) record_rest();
    });
  }
  void record_rest() {
    socket_->async_read_some(asio::buffer(chunk_), [this](boost::system::error_code ec, std::size_t n) {
      record(chunk_.data(), n);
      if (ec) return io_.stop();
      record_rest();
    });
  }

  asio::io_context io_;
  tcp::acceptor acceptor_;
  std::unique_ptr<tcp::socket> socket_;
  std::array<char, gyre::wire::kFrameHeaderSize> header_{};
  std::vector<char> meta_;
  std::array<char, 4096> chunk_{};
  std::shared_ptr<gyre::net::OutFrame> frame_;
  std::string received_;
  std::thread thread_;
};

// Relays connections to `target` and records what the clients send, for replaying it.
class RecordingProxy {
 public:
  explicit RecordingProxy(const TcpEndpoint& target)
      : acceptor_(io_, {asio::ip::make_address("127.0.0.1"), 0}),
        target_(asio::ip::make_address(target.host), target.port) {
    accept();
    thread_ = std::thread([this] { io_.run_for(60s); });
  }
  ~RecordingProxy() {
    io_.stop();
    thread_.join();
  }
  TcpEndpoint endpoint() const { return {"127.0.0.1", acceptor_.local_endpoint().port()}; }
  std::string recorded() {
    std::lock_guard lock(mutex_);
    return recorded_;
  }

 private:
  struct Pair {
    explicit Pair(asio::io_context& io) : client(io), server(io) {}
    tcp::socket client, server;
    std::array<char, 4096> up{}, down{};
  };
  void accept() {
    acceptor_.async_accept([this](boost::system::error_code ec, tcp::socket s) {
      if (ec) return;
      auto pair = std::make_shared<Pair>(io_);
      pair->client = std::move(s);
      pair->server.async_connect(target_, [this, pair](boost::system::error_code ec2) {
        if (ec2) return;
        pump(pair, pair->client, pair->server, pair->up, true);
        pump(pair, pair->server, pair->client, pair->down, false);
      });
    });
  }
  void pump(const std::shared_ptr<Pair>& pair, tcp::socket& from, tcp::socket& to, std::array<char, 4096>& buffer,
            bool record) {
    from.async_read_some(
        asio::buffer(buffer), [this, pair, &from, &to, &buffer, record](boost::system::error_code ec, std::size_t n) {
          if (ec) {
            boost::system::error_code ignored;
            to.shutdown(tcp::socket::shutdown_send, ignored);
            return;
          }
          if (record) {
            std::lock_guard lock(mutex_);
            recorded_.append(buffer.data(), n);
          }
          asio::async_write(to, asio::buffer(buffer.data(), n),
                            [this, pair, &from, &to, &buffer, record](boost::system::error_code ec2, std::size_t) {
                              if (!ec2) pump(pair, from, to, buffer, record);
                            });
        });
  }

  asio::io_context io_;
  tcp::acceptor acceptor_;
  tcp::endpoint target_;
  std::mutex mutex_;
  std::string recorded_;
  std::thread thread_;
};

// How many whole frames `bytes` holds, back to back.
int whole_frames(const std::string& bytes) {
  std::size_t at = 0;
  int n = 0;
  while (bytes.size() - at >= gyre::wire::kFrameHeaderSize) {
    std::uint32_t meta = 0;
    std::uint64_t body = 0;
    std::memcpy(&meta, bytes.data() + at + 12, 4);
    std::memcpy(&body, bytes.data() + at + 24, 8);
    const std::size_t size = gyre::wire::kFrameHeaderSize + meta + body;
    if (bytes.size() - at < size) break;
    at += size;
    ++n;
  }
  return n;
}

struct Log {
  std::mutex mutex;
  std::vector<std::string> lines;
  std::function<void(const std::string&)> sink() {
    return [this](const std::string& line) {
      std::lock_guard lock(mutex);
      lines.push_back(line);
    };
  }
  bool mentions(const std::string& part) {
    std::lock_guard lock(mutex);
    for (const auto& l : lines)
      if (l.find(part) != std::string::npos) return true;
    return false;
  }
};

}  // namespace

TEST_CASE("a coordinator that cannot prove it holds the token never sees it, and the member gives up at once") {
  FakeCoordinator fake;
  auto o = rendezvous_options();
  o.token = "s3cret-Token-4b7e1";
  o.timeout = 20s;
  const std::string expected =
      "the coordinator at " + fake.endpoint().str() + " could not prove it holds the job token";
  const auto start = std::chrono::steady_clock::now();
  CHECK_THROWS_WITH_AS(rendezvous(fake.endpoint(), 1, 5000, 2, o), doctest::Contains(expected.c_str()),
                       std::runtime_error);
  CHECK(std::chrono::steady_clock::now() - start < 5s);
  const std::string sent = fake.received();
  CHECK(sent.size() >= gyre::wire::kFrameHeaderSize);  // the hello, and nothing after it
  CHECK(whole_frames(sent) == 1);
  CHECK(sent.find(o.token) == std::string::npos);
  for (std::size_t i = 0; i + 6 <= o.token.size(); ++i) CHECK(sent.find(o.token.substr(i, 6)) == std::string::npos);
}

TEST_CASE(
    "a recorded registration replayed on a new connection is refused; the coordinator keeps serving the real member") {
  Log log;
  auto o = rendezvous_options();
  o.settings = {{"--lambda", "0.05"}};
  o.log = log.sink();
  Coordinator coordinator({"127.0.0.1", 0}, 2, o);
  auto served = std::async(std::launch::async, [&] { coordinator.serve(); });
  RecordingProxy proxy(coordinator.endpoint());
  auto member0 = std::async(std::launch::async, [&] { return rendezvous(proxy.endpoint(), 0, 5000, 2, o); });
  // Hello, proof and registration went through; the member now waits for the table.
  const auto until = std::chrono::steady_clock::now() + 10s;
  while (whole_frames(proxy.recorded()) < 3 && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(10ms);
  const std::string captured = proxy.recorded();
  REQUIRE(whole_frames(captured) == 3);

  asio::io_context io;
  auto replay = gyre::test::connect_loopback(io, coordinator.endpoint().port);
  asio::write(*replay, asio::buffer(captured));
  CHECK(gyre::test::closed_within(io, *replay, 5000ms));
  CHECK(log.mentions("proof does not verify"));

  const auto table1 = rendezvous(coordinator.endpoint(), 1, 5001, 2, o);
  const auto table0 = member0.get();
  CHECK(table0.at(0).port == 5000);
  CHECK(table0.at(1).port == 5001);
  CHECK(table1.at(0).port == 5000);
  served.get();
}

TEST_CASE(
    "a member with other settings is refused at once with the first difference; the coordinator's timeout names it") {
  auto o = rendezvous_options();
  o.settings = {{"--lambda", "0.02"}, {"--epochs", "10"}};
  o.timeout = 1500ms;
  Coordinator coordinator({"127.0.0.1", 0}, 2, o);
  auto served = std::async(std::launch::async, [&] { coordinator.serve(); });
  auto member0 = std::async(std::launch::async, [&] {
    try {
      rendezvous(coordinator.endpoint(), 0, 5000, 2, o);
    } catch (const std::runtime_error&) {  // the job never forms
    }
  });
  auto other = o;
  other.timeout = 10s;
  const auto start = std::chrono::steady_clock::now();
  other.settings = {{"--lambda", "0.05"}, {"--epochs", "10"}};
  CHECK_THROWS_WITH_AS(
      rendezvous(coordinator.endpoint(), 1, 5001, 2, other),
      doctest::Contains("rank 1's settings differ from rank 0's: --lambda is 0.05 on rank 1, 0.02 on rank 0"),
      std::runtime_error);
  other.settings = {{"--lambda", "0.02"}};
  CHECK_THROWS_WITH_AS(rendezvous(coordinator.endpoint(), 1, 5001, 2, other),
                       doctest::Contains("--epochs is not set on rank 1, 10 on rank 0"), std::runtime_error);
  other.settings = {{"--lambda", "0.02"}, {"--epochs", "10"}, {"--seed", "3"}};
  CHECK_THROWS_WITH_AS(rendezvous(coordinator.endpoint(), 1, 5001, 2, other),
                       doctest::Contains("--seed is 3 on rank 1, not set on rank 0"), std::runtime_error);
  CHECK(std::chrono::steady_clock::now() - start < 1s);  // three refusals, none waited for a timeout
  try {
    served.get();
    FAIL("the job must not form");
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    CHECK(what.find("from rank 1 within") != std::string::npos);
    CHECK(what.find("--lambda is 0.05 on rank 1, 0.02 on rank 0") != std::string::npos);
  }
  member0.get();
}

TEST_CASE("two jobs with one token on one port: the other job's member is refused, and this job forms with its own") {
  auto job1 = rendezvous_options();
  job1.settings = {{"input --train", "a.tsv, 100 bytes"}};
  auto job2 = rendezvous_options();
  job2.settings = {{"input --train", "b.tsv, 200 bytes"}};
  Coordinator coordinator({"127.0.0.1", 0}, 2, job1);
  auto served = std::async(std::launch::async, [&] { coordinator.serve(); });
  auto member0 = std::async(std::launch::async, [&] { return rendezvous(coordinator.endpoint(), 0, 5000, 2, job1); });
  CHECK_THROWS_WITH_AS(rendezvous(coordinator.endpoint(), 1, 6001, 2, job2),
                       doctest::Contains("input --train is b.tsv, 200 bytes on rank 1, a.tsv, 100 bytes on rank 0"),
                       std::runtime_error);
  CHECK(rendezvous(coordinator.endpoint(), 1, 5001, 2, job1).at(1).port == 5001);
  CHECK(member0.get().at(1).port == 5001);
  served.get();
}

TEST_CASE("a silent connection to the coordinator is closed after the hello timeout, and logged") {
  Log log;
  auto o = rendezvous_options();
  o.hello_timeout = 200ms;
  o.log = log.sink();
  Coordinator coordinator({"127.0.0.1", 0}, 1, o);
  auto served = std::async(std::launch::async, [&] { coordinator.serve(); });
  asio::io_context io;
  auto silent = gyre::test::connect_loopback(io, coordinator.endpoint().port);
  CHECK(gyre::test::closed_within(io, *silent, 5000ms));
  CHECK(log.mentions("hello timeout"));
  CHECK(rendezvous(coordinator.endpoint(), 0, 7, 1, o).at(0).port == 7);
  served.get();
}

TEST_CASE("listening and address errors say which address") {
  Coordinator first({"127.0.0.1", 0}, 1, rendezvous_options());
  const auto port = first.endpoint().port;
  const std::string in_use = "cannot listen on 127.0.0.1:" + std::to_string(port) + ": Address already in use";
  CHECK_THROWS_WITH_AS(Coordinator({"127.0.0.1", port}, 1, rendezvous_options()), in_use.c_str(), std::runtime_error);
  CHECK_THROWS_WITH_AS(Coordinator({"x", 7700}, 1, rendezvous_options()), "cannot listen on x:7700: 'x' is not an IP address",
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(rendezvous({"x", 7700}, 0, 1, 1, rendezvous_options()), doctest::Contains("'x' is not an IP address"),
                       std::invalid_argument);
}
