// tests/lib/net/accept_loop_test.cpp — the accept loop survives running out of descriptors and bounds unauthenticated connections.
#include <doctest/doctest.h>

#include <sys/resource.h>

#include <filesystem>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "gyre/net/accept_loop.hpp"
#include "gyre/net/listen.hpp"
#include "support/raw_socket.hpp"

using namespace gyre::net;
using namespace std::chrono_literals;
namespace asio = boost::asio;
using asio::ip::tcp;

namespace {

// A loop on a loopback acceptor whose owner keeps every accepted socket (authenticating none
// unless told to) and records the log.
struct Fixture {
  asio::io_context io;
  tcp::acceptor acceptor{io};
  std::vector<std::string> log;
  struct Held {
    std::unique_ptr<tcp::socket> socket;
    std::shared_ptr<Admission> admission;
  };
  std::vector<Held> held;
  std::vector<std::string> expired;  // the reasons the loop gave for closing
  bool keep = true;                  // false: close each new connection at once (as if it failed)
  int accepted = 0;
  std::shared_ptr<AcceptLoop> loop;

  explicit Fixture(AcceptOptions o) {
    listen_on(acceptor, "127.0.0.1", 0);
    o.log = [this](const std::string& line) { log.push_back(line); };
    loop = AcceptLoop::start(acceptor, std::move(o), [this](tcp::socket s, std::shared_ptr<Admission> a) {
      ++accepted;
      auto socket = std::make_unique<tcp::socket>(std::move(s));
      if (!keep) {
        a->release();
        return;  // the socket closes here
      }
      a->on_expiry([this, raw = socket.get()](const std::string& why) {
        expired.push_back(why);
        boost::system::error_code ignored;
        raw->close(ignored);
      });
      held.push_back({std::move(socket), std::move(a)});
    });
  }
  ~Fixture() { loop->stop(); }
  std::uint16_t port() const { return acceptor.local_endpoint().port(); }
  // Runs the loop until `done` or the bound passes.
  template <class Done>
  void run_until(Done done, std::chrono::milliseconds bound = 5000ms) {
    const auto end = std::chrono::steady_clock::now() + bound;
    while (!done() && std::chrono::steady_clock::now() < end) {
      io.restart();
      io.run_for(10ms);
    }
    io.restart();
  }
  int lines_with(const std::string& part) const {
    int n = 0;
    for (const auto& l : log) n += l.find(part) != std::string::npos;
    return n;
  }
};

// Lowers this process's descriptor limit for the scope of a test; restores it after.
class DescriptorLimit {
 public:
  explicit DescriptorLimit(rlim_t soft) {
    getrlimit(RLIMIT_NOFILE, &saved_);
    rlimit lowered = saved_;
    lowered.rlim_cur = soft;
    REQUIRE(setrlimit(RLIMIT_NOFILE, &lowered) == 0);
  }
  ~DescriptorLimit() { setrlimit(RLIMIT_NOFILE, &saved_); }
  DescriptorLimit(const DescriptorLimit&) = delete;
  DescriptorLimit& operator=(const DescriptorLimit&) = delete;

 private:
  rlimit saved_{};
};

// The descriptor limit below which exactly `free` numbers are unused now (descriptors already
// open above it stay usable; only new ones must fall below the limit).
rlim_t limit_leaving_free(int free) {
  std::set<int> open;
  for (const auto& e : std::filesystem::directory_iterator("/proc/self/fd"))
    open.insert(std::stoi(e.path().filename().string()));
  int n = 0;
  for (int left = free;; ++n)
    if (!open.count(n) && --left == 0) break;
  return static_cast<rlim_t>(n + 1);
}

}  // namespace

TEST_CASE("beyond the limit of unauthenticated connections new ones are closed at once, with one log line per burst") {
  AcceptOptions o;
  o.max_unauthenticated = 4;
  Fixture f(o);
  std::vector<std::unique_ptr<tcp::socket>> clients;
  for (int i = 0; i < 7; ++i) clients.push_back(gyre::test::connect_loopback(f.io, f.port()));
  f.run_until([&] { return f.held.size() == 4 && f.lines_with("the limit") == 1; });
  CHECK(f.held.size() == 4);
  CHECK(f.loop->unauthenticated() == 4);
  for (int i = 4; i < 7; ++i) CHECK(gyre::test::closed_within(f.io, *clients[static_cast<std::size_t>(i)], 2000ms));
  for (int i = 0; i < 4; ++i) CHECK_FALSE(gyre::test::closed_within(f.io, *clients[static_cast<std::size_t>(i)], 20ms));
  CHECK(f.lines_with("the limit") == 1);  // three closed, one line

  // Three authenticate: the burst is over, and the next one is a burst of its own.
  for (int i = 0; i < 3; ++i) f.held[static_cast<std::size_t>(i)].admission->release();
  CHECK(f.loop->unauthenticated() == 1);
  for (int i = 0; i < 5; ++i) clients.push_back(gyre::test::connect_loopback(f.io, f.port()));
  f.run_until([&] { return f.held.size() == 7 && f.lines_with("the limit") == 2; });
  CHECK(f.held.size() == 7);
  CHECK(f.loop->unauthenticated() == 4);
  CHECK(f.lines_with("the limit") == 2);
  for (int i = 10; i < 12; ++i) CHECK(gyre::test::closed_within(f.io, *clients[static_cast<std::size_t>(i)], 2000ms));
}

TEST_CASE(
    "a connection that does not authenticate in time is closed by its owner, with the reason; one that did is left "
    "alone") {
  AcceptOptions o;
  o.hello_timeout = 200ms;
  Fixture f(o);
  auto silent = gyre::test::connect_loopback(f.io, f.port());
  auto authenticated = gyre::test::connect_loopback(f.io, f.port());
  f.run_until([&] { return f.held.size() == 2; });
  REQUIRE(f.held.size() == 2);
  f.held[1].admission->release();  // the second one proved itself
  const auto start = std::chrono::steady_clock::now();
  CHECK(gyre::test::closed_within(f.io, *silent, 3000ms));
  CHECK(std::chrono::steady_clock::now() - start >= 100ms);
  REQUIRE(f.expired.size() == 1);
  CHECK(f.expired[0].find("hello timeout") != std::string::npos);
  CHECK_FALSE(gyre::test::closed_within(f.io, *authenticated, 400ms));
  CHECK(f.expired.size() == 1);
  CHECK(f.loop->unauthenticated() == 0);
}

TEST_CASE("out of file descriptors, accepting pauses with back-off and resumes; every waiting connection is accepted") {
  AcceptOptions o;
  o.max_backoff = 100ms;
  Fixture f(o);
  constexpr int kClients = 40;
  std::vector<std::unique_ptr<tcp::socket>> clients;
  // Connected before the limit drops; they wait in the kernel's backlog until accepted.
  for (int i = 0; i < kClients; ++i) clients.push_back(gyre::test::connect_loopback(f.io, f.port()));
  {
    // Room for a few more descriptors only (the directory listing's own is among them).
    DescriptorLimit limit(limit_leaving_free(4));
    f.run_until([&] { return f.lines_with("Too many open files") > 0; }, 3000ms);
    CHECK(f.lines_with("accept failed: Too many open files") == 1);  // one line, however many retries
    CHECK(static_cast<int>(f.held.size()) < kClients);
    f.run_until([] { return false; }, 300ms);  // several back-off rounds: still one line
    CHECK(f.lines_with("accept failed") == 1);

    // The flood ends: the held connections go, and every one still waiting is accepted.
    f.held.clear();
    f.keep = false;
    f.run_until([&] { return f.accepted == kClients; });
    CHECK(f.accepted == kClients);
    CHECK(f.lines_with("accepting again after") == 1);
  }
}
