// tests/support/multiprocess.hpp — runs an app's command line as the ranks of one job on loopback, and disturbs one.
#pragma once

#include <doctest/doctest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <future>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "support/run_command.hpp"
#include "support/temp_dir.hpp"

namespace gyre::test {

// A port that was free a moment ago: the coordinator's address must be known to every process
// before any of them starts, so it cannot be port 0. It is drawn at random below Linux's default
// ephemeral range (32768-60999), which port 0 would draw from: there no connection the machine
// opens meanwhile (a parallel test floods hundreds) is given it between this check and rank 0's
// listen, nor between the two listens of a job whose ranks read their input by byte ranges
// (the loading job's rendezvous, then the training job's; CI, 2026-11-25: "Address already in
// use"). Port 0's pick is the fallback should that band be full.
// Plain sockets, not Asio: this header is in ~15 test units, and Asio would cost each a second of compiling.
inline std::uint16_t free_port() {
  // Binds 127.0.0.1:port (0: the kernel's pick) and says which port it got, 0 if it could not.
  const auto bound_port = [](std::uint16_t port) -> std::uint16_t {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    REQUIRE(fd >= 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = htons(port);
    socklen_t length = sizeof address;
    std::uint16_t got = 0;
    if (::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0 &&
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0) {
      got = ntohs(address.sin_port);
    }
    ::close(fd);
    return got;
  };
  std::random_device seed;
  std::mt19937 rng(seed());
  std::uniform_int_distribution<int> band(20000, 32000);
  for (int attempt = 0; attempt < 100; ++attempt) {
    if (const auto port = bound_port(static_cast<std::uint16_t>(band(rng)))) return port;
  }
  const auto port = bound_port(0);
  REQUIRE(port != 0);
  return port;
}

// "APP: rank R read B bytes in L lines of FILE" for rank R in rank 0's output: {B, L}.
inline std::pair<std::uint64_t, std::uint64_t> bytes_and_lines_read(const std::string& output, std::size_t rank) {
  const auto at = output.find(": rank " + std::to_string(rank) + " read ");
  REQUIRE_MESSAGE(at != std::string::npos, output);
  unsigned long long bytes = 0, lines = 0;
  REQUIRE(std::sscanf(output.c_str() + output.find(" read ", at), " read %llu bytes in %llu lines", &bytes, &lines) == 2);
  return {bytes, lines};
}

// The text's lines, each with its '\n'.
inline std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t end = std::min(text.find('\n', at), text.size() - 1);
    lines.push_back(text.substr(at, end + 1 - at));
    at = end + 1;
  }
  return lines;
}

// Rank 0 said that each rank read its share of `text` (to within a line at each boundary), and
// that together they read every byte and every line of it once.
inline void check_ranges_tile(const std::vector<CommandResult>& ranks, const std::string& text) {
  const auto lines = lines_of(text);
  std::size_t longest = 0;
  for (const auto& l : lines) longest = std::max(longest, l.size());
  std::uint64_t bytes = 0, line_count = 0;
  for (std::size_t r = 0; r < ranks.size(); ++r) {
    CAPTURE(r);
    const auto [b, l] = bytes_and_lines_read(ranks[0].output, r);
    CHECK(b + longest >= text.size() / ranks.size());
    CHECK(b <= text.size() / ranks.size() + longest + 1);
    bytes += b;
    line_count += l;
  }
  CHECK(bytes == text.size());
  CHECK(line_count == lines.size());
}

// Runs per_rank[r] as rank r of one job on loopback at once (each with GYRE_TOKEN set and the
// process flags added, waiting `connect_timeout` seconds for the others) and returns what each
// rank said, in rank order.
inline std::vector<CommandResult> run_ranks(const std::vector<std::vector<std::string>>& per_rank,
                                            const std::string& connect_timeout = "30") {
  const std::string coordinator = "127.0.0.1:" + std::to_string(free_port());
  std::vector<std::future<CommandResult>> running;
  for (std::size_t r = 0; r < per_rank.size(); ++r) {
    auto rank_argv = per_rank[r];
    rank_argv.insert(rank_argv.end(), {"--processes", std::to_string(per_rank.size()), "--process-rank",
                                       std::to_string(r), "--coordinator", coordinator, "--listen-host", "127.0.0.1",
                                       "--connect-timeout", connect_timeout});
    running.push_back(std::async(std::launch::async, [rank_argv] {
      CommandOptions o;
      o.environment = {{"GYRE_TOKEN", "test-token"}};
      return run_command(rank_argv, o);
    }));
  }
  std::vector<CommandResult> results;
  for (auto& f : running) results.push_back(f.get());
  return results;
}

// `argv` with `more` appended.
inline std::vector<std::string> with(std::vector<std::string> argv, std::initializer_list<std::string> more) {
  argv.insert(argv.end(), more);
  return argv;
}

// `argv` run under a data-segment cap of `mib` MiB (prlimit --data, RLIMIT_DATA), with glibc's
// malloc arenas kept to 2 so that the cap measures what the program holds, not per-thread
// reserves. The memory tests run a job's ranks under a cap that one process exceeds.
inline std::vector<std::string> under_memory_cap(std::size_t mib, const std::vector<std::string>& argv) {
  std::vector<std::string> capped{"env", "MALLOC_ARENA_MAX=2", "prlimit", "--data=" + std::to_string(mib << 20)};
  capped.insert(capped.end(), argv.begin(), argv.end());
  return capped;
}

// The same command line on every one of `ranks` ranks.
inline std::vector<CommandResult> run_ranks(const std::vector<std::string>& argv, int ranks) {
  return run_ranks(std::vector<std::vector<std::string>>(static_cast<std::size_t>(ranks), argv));
}

// Starts 3 ranks of the shell command line `command` (run in `dir`; it should train for a long
// time and print `ready` on rank 0's stdout), does `what` (e.g. "kill -9") to rank 1 once
// rank 0 has printed it, and returns the shell's report: rc0=, rc2=, elapsed_ms= (from
// `what` to both survivors exiting). Rank r's output goes to log<r>.txt in `dir`. A watchdog
// bounds everything at 60 s.
inline CommandResult disturb_rank_1(const TempDir& dir, const std::string& command, const std::string& what,
                                    const std::string& ready = "epoch   2") {
  const std::string coordinator = "127.0.0.1:" + std::to_string(free_port());
  std::ostringstream script;
  // The logs of an earlier call in the same directory go first: a rank's `> logR.txt` truncates
  // only when its shell gets to it, and a stale "ready" line in log0.txt would trigger `what`
  // before the ranks had even met (seen under ASan on a loaded machine: rank 1 killed before it
  // joined, the others waiting for it until the watchdog).
  script << "cd '" << dir.path().string() << "'\nrm -f log0.txt log1.txt log2.txt\nexport GYRE_TOKEN=test-token\n";
  for (int r = 0; r < 3; ++r) {
    script << command << " --processes 3 --process-rank " << r << " --coordinator " << coordinator
           << " --listen-host 127.0.0.1 > log" << r << ".txt 2>&1 &\npid" << r << "=$!\n";
  }
  script << "( sleep 60; kill -9 $pid0 $pid1 $pid2 ) >/dev/null 2>&1 &\nwatchdog=$!\n"
            "for i in $(seq 1 300); do grep -q '" << ready << "' log0.txt && break; sleep 0.1; done\n"
         << what << " $pid1\nstart=$(date +%s%N)\n"
         << "wait $pid0; echo rc0=$?\nwait $pid2; echo rc2=$?\n"
            "echo elapsed_ms=$(( ($(date +%s%N) - start) / 1000000 ))\n"
            "kill -9 $pid1 $watchdog 2>/dev/null\n";
  return run_shell(script.str());
}

// After disturb_rank_1: ranks 0 and 2 failed, within `within_ms`, and both logs name rank 1.
inline void expect_survivors_stopped(const TempDir& dir, const CommandResult& r, long within_ms) {
  INFO(r.output);
  CHECK(r.output.find("rc0=0") == std::string::npos);
  CHECK(r.output.find("rc2=0") == std::string::npos);
  const auto at = r.output.find("elapsed_ms=");
  REQUIRE(at != std::string::npos);
  CHECK(std::stol(r.output.substr(at + 11)) < within_ms);
  const auto log0 = read_text(dir / "log0.txt");
  const auto log2 = read_text(dir / "log2.txt");
  CHECK_MESSAGE(log0.find("rank 1") != std::string::npos, log0.substr(log0.size() > 600 ? log0.size() - 600 : 0));
  CHECK_MESSAGE(log2.find("rank 1") != std::string::npos, log2.substr(log2.size() > 600 ? log2.size() - 600 : 0));
}

// `argv` (a bad input for `program`) run as 3 ranks of one job, each reading its byte range:
// every rank exits non-zero; the rank whose range holds the fault (or, for a fault of the whole
// input, every rank) exits 2 with "PROGRAM: error: ", the place (`where`) and `fragment`, as one
// process does; the others name the rank that failed; nothing is written to `dir`.
inline void expect_refused_by_ranks(const std::string& program, const std::vector<std::string>& argv, const TempDir& dir,
                                    const std::string& where, const std::string& fragment) {
  const auto before = dir.entries();
  const auto ranks = run_ranks(std::vector<std::vector<std::string>>(3, argv));
  int said = 0;
  for (std::size_t r = 0; r < ranks.size(); ++r) {
    CAPTURE(r);
    const auto& out = ranks[r].output;
    // Bad input on every rank: the holder's message is the one-process message; the others
    // relay it after "rank N: ".
    CHECK(ranks[r].exit_code == 2);
    const auto error = out.find(program + ": error: " + where);
    if (error != std::string::npos && out.find(fragment, error) != std::string::npos) {
      ++said;
    } else {
      CHECK_MESSAGE(out.find("rank ") != std::string::npos, out);  // names the rank that failed
    }
  }
  CHECK(said >= 1);
  CHECK(dir.entries() == before);  // nothing half-written by any rank
}

}  // namespace gyre::test
