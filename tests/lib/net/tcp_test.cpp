// tests/lib/net/tcp_test.cpp — what only the tcp backend has: the handshake and hostile input on its sockets.
#include <doctest/doctest.h>

#include <utility>  // before Asio: Boost 1.74 uses std::exchange without including it

#include <boost/asio.hpp>

#include <unistd.h>

#include <cstdio>
#include <future>
#include <mutex>
#include <random>
#include <thread>

#include "lib/net/backends.hpp"
#include "support/raw_socket.hpp"

using namespace gyre::net;
using namespace std::chrono_literals;
namespace asio = boost::asio;

namespace {

// Two real ranks; `attack` runs against rank 0's listener before the real rank 1 dials in.
// Returns what rank 0 logged, after checking that the job still formed and carries messages.
std::vector<std::string> form_job_despite(const std::function<void(const TcpEndpoint&, const TcpEndpoint&)>& attack) {
  std::mutex mutex;
  std::vector<std::string> logged;
  TcpListener l0("127.0.0.1", 0), l1("127.0.0.1", 0);
  const std::vector<TcpEndpoint> endpoints{l0.endpoint(), l1.endpoint()};
  auto o0 = gyre_test::TcpBackend::options(0);
  o0.log = [&](const std::string& line) {
    std::lock_guard lock(mutex);
    logged.push_back(line);
  };
  auto rank0 = std::async(std::launch::async, [&] { return connect_tcp_group(std::move(l0), endpoints, o0); });
  attack(endpoints[0], endpoints[1]);
  auto g1 = connect_tcp_group(std::move(l1), endpoints, gyre_test::TcpBackend::options(1));
  auto g0 = rank0.get();
  Message m;
  m.type = 3;
  m.body = gyre::Buffer(1000);
  g1->send(0, std::move(m));
  auto got = g0->receive(Clock::now() + 10s);
  REQUIRE(got);
  CHECK(got->sender == 1);
  CHECK(got->body.size() == 1000);
  std::lock_guard lock(mutex);
  return logged;
}

bool mentions(const std::vector<std::string>& lines, const std::string& part) {
  for (const auto& l : lines)
    if (l.find(part) != std::string::npos) return true;
  return false;
}

void raw_send(const TcpEndpoint& to, const std::vector<std::byte>& bytes) {
  asio::io_context io;
  asio::ip::tcp::socket s(io);
  s.connect({asio::ip::make_address(to.host), to.port});
  asio::write(s, asio::buffer(bytes));
  std::this_thread::sleep_for(50ms);  // let the peer read before the close
}

std::vector<std::byte> header_bytes(const gyre::wire::FrameHeader& h) {
  const auto a = gyre::wire::encode_header(h);
  return {a.begin(), a.end()};
}

}  // namespace

TEST_CASE("a peer with the wrong token is refused and the job goes on") {
  const auto log = form_job_despite([](const TcpEndpoint& rank0, const TcpEndpoint&) {
    TcpListener rogue_listener("127.0.0.1", 0);
    auto o = gyre_test::TcpBackend::options(1);
    o.token = "guessed";
    o.connect_timeout = 2s;
    // The rogue checks rank 0's proof first, fails it and gives up at once, sending no proof.
    const std::string expected = "rank 0 at " + rank0.str() + " could not prove it holds the job token";
    CHECK_THROWS_WITH_AS(connect_tcp_group(std::move(rogue_listener), {rank0, {"127.0.0.1", 1}}, o),
                         doctest::Contains(expected.c_str()), GroupClosed);
  });
  CHECK(mentions(log, "instead of proving it holds the job token"));
}

TEST_CASE("a peer of another job is refused, told why, and the job goes on") {
  const auto log = form_job_despite([](const TcpEndpoint& rank0, const TcpEndpoint&) {
    TcpListener rogue_listener("127.0.0.1", 0);
    auto o = gyre_test::TcpBackend::options(1);
    o.job_id = "other-job";
    o.connect_timeout = 2s;
    CHECK_THROWS_WITH_AS(connect_tcp_group(std::move(rogue_listener), {rank0, {"127.0.0.1", 1}}, o),
                         doctest::Contains("rank 0 refused rank 1: another job id 'other-job'"), GroupClosed);
  });
  CHECK(mentions(log, "another job id"));
}

TEST_CASE("a peer of another configuration (settings digest) is refused, told why, and the job goes on") {
  const auto log = form_job_despite([](const TcpEndpoint& rank0, const TcpEndpoint&) {
    TcpListener rogue_listener("127.0.0.1", 0);
    auto o = gyre_test::TcpBackend::options(1);
    o.job_digest = "0123456789abcdef0123456789abcdef";
    o.connect_timeout = 2s;
    CHECK_THROWS_WITH_AS(connect_tcp_group(std::move(rogue_listener), {rank0, {"127.0.0.1", 1}}, o),
                         doctest::Contains("another job configuration"), GroupClosed);
  });
  CHECK(mentions(log, "settings digest '0123456789abcdef0123456789abcdef'"));
}

TEST_CASE("a connection that stays silent is closed after the hello timeout, and the job goes on") {
  std::mutex mutex;
  std::vector<std::string> logged;
  TcpListener l0("127.0.0.1", 0), l1("127.0.0.1", 0);
  const std::vector<TcpEndpoint> endpoints{l0.endpoint(), l1.endpoint()};
  auto o0 = gyre_test::TcpBackend::options(0);
  o0.hello_timeout = 300ms;
  o0.log = [&](const std::string& line) {
    std::lock_guard lock(mutex);
    logged.push_back(line);
  };
  auto rank0 = std::async(std::launch::async, [&] { return connect_tcp_group(std::move(l0), endpoints, o0); });
  asio::io_context io;
  const auto start = std::chrono::steady_clock::now();
  auto silent = gyre::test::connect_loopback(io, endpoints[0].port);
  CHECK(gyre::test::closed_within(io, *silent, 5000ms));  // closed by rank 0 at 300 ms, not by the bound
  CHECK(std::chrono::steady_clock::now() - start >= 250ms);
  auto g1 = connect_tcp_group(std::move(l1), endpoints, gyre_test::TcpBackend::options(1));
  auto g0 = rank0.get();
  std::lock_guard lock(mutex);
  CHECK(mentions(logged, "hello timeout"));
}

TEST_CASE("a random byte stream is dropped") {
  const auto log = form_job_despite([](const TcpEndpoint& rank0, const TcpEndpoint&) {
    std::mt19937 rng(7);
    std::vector<std::byte> noise(4096);
    for (auto& b : noise) b = static_cast<std::byte>(rng());
    raw_send(rank0, noise);
  });
  CHECK(mentions(log, "bad frame magic"));
}

TEST_CASE("a frame announcing a huge length is dropped before anything is allocated") {
  const auto log = form_job_despite([](const TcpEndpoint& rank0, const TcpEndpoint&) {
    gyre::wire::FrameHeader h;
    h.type = 0xFF01;
    h.body_length = std::uint64_t{1} << 60;
    raw_send(rank0, header_bytes(h));
  });
  CHECK(mentions(log, "over the limit"));
}

TEST_CASE("a truncated frame is dropped") {
  const auto log = form_job_despite([](const TcpEndpoint& rank0, const TcpEndpoint&) {
    gyre::wire::FrameHeader h;
    h.type = 0xFF01;
    h.meta_length = 200;
    auto bytes = header_bytes(h);
    bytes.resize(bytes.size() + 20);  // 20 of the 200 promised bytes, then the connection ends
    raw_send(rank0, bytes);
  });
  CHECK(mentions(log, "connection closed mid-frame"));
}

TEST_CASE("a frame over the receiver's limit from an established peer drops it, and the error names it") {
  TcpListener l0("127.0.0.1", 0), l1("127.0.0.1", 0);
  const std::vector<TcpEndpoint> endpoints{l0.endpoint(), l1.endpoint()};
  auto o0 = gyre_test::TcpBackend::options(0);
  o0.limits.max_body = 1024;
  auto f0 = std::async(std::launch::async, [&] { return connect_tcp_group(std::move(l0), endpoints, o0); });
  auto g1 = connect_tcp_group(std::move(l1), endpoints, gyre_test::TcpBackend::options(1));
  auto g0 = f0.get();
  Message big;
  big.type = 1;
  big.body = gyre::Buffer(4096);
  g1->send(0, std::move(big));
  try {
    g0->receive(Clock::now() + 10s);
    FAIL("an over-limit frame must not be delivered");
  } catch (const GroupClosed& e) {
    const std::string what = e.what();
    CHECK(what.find("rank 1") != std::string::npos);
    CHECK(what.find("over the limit") != std::string::npos);
    CHECK(e.peer() == 1);  // the peer whose loss closed the group, for the job's failure
  }
}

TEST_CASE("a missing peer is named when the connect timeout passes") {
  TcpListener l1("127.0.0.1", 0);
  TcpListener never("127.0.0.1", 0);  // rank 0 listens but never joins
  auto o = gyre_test::TcpBackend::options(1);
  o.connect_timeout = 500ms;
  const std::vector<TcpEndpoint> endpoints{never.endpoint(), l1.endpoint()};
  // Rank 0's socket accepts the connection but nobody answers the hello.
  try {
    connect_tcp_group(std::move(l1), endpoints, o);
    FAIL("joining must fail");
  } catch (const gyre::net::SetupFailed& e) {
    CHECK(std::string(e.what()).find("to rank 0 (") != std::string::npos);
    CHECK(e.peer() == 0);
  }
}

TEST_CASE("listening errors say which address") {
  TcpListener first("127.0.0.1", 0);
  const auto port = first.endpoint().port;
  const std::string in_use = "cannot listen on 127.0.0.1:" + std::to_string(port) + ": Address already in use";
  CHECK_THROWS_WITH_AS(TcpListener("127.0.0.1", port), in_use.c_str(), std::runtime_error);
  CHECK_THROWS_WITH_AS(TcpListener("x", 0), "cannot listen on x:0: 'x' is not an IP address", std::invalid_argument);
}

TEST_CASE("without a log callback, a transport's line on stderr names the member, not a rank it may not be") {
  // The scheduler is member 2 of a 2-worker job: "rank 2" would name a process that does not exist.
  TcpListener listener("127.0.0.1", 0);
  const TcpEndpoint me = listener.endpoint();
  auto o = gyre_test::TcpBackend::options(0);
  o.log = nullptr;
  o.member_names = {"the scheduler (member 2, in rank 0's process)"};
  std::FILE* captured = std::tmpfile();
  REQUIRE(captured != nullptr);
  std::fflush(stderr);
  const int saved = ::dup(2);
  ::dup2(::fileno(captured), 2);
  {
    auto group = connect_tcp_group(std::move(listener), {me}, o);
    raw_send(me, std::vector<std::byte>(64, std::byte{0x5a}));
    std::this_thread::sleep_for(300ms);  // the refusal is logged on the group's io thread
  }
  std::fflush(stderr);
  ::dup2(saved, 2);
  ::close(saved);
  std::rewind(captured);
  std::string text(4096, '\0');
  text.resize(std::fread(text.data(), 1, text.size(), captured));
  std::fclose(captured);
  CHECK_MESSAGE(text.find("gyre tcp, the scheduler (member 2, in rank 0's process): refused") != std::string::npos, text);
}
