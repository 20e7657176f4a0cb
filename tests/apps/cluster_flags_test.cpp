// tests/apps/cluster_flags_test.cpp — the apps' multi-process flags: where the data plane listens by default.
#include <doctest/doctest.h>

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "app/cluster_flags.hpp"

namespace {

// The data-plane address rank 1 of 2 binds with these flags (rank 1: no coordinator socket is opened).
std::string listen_host_of(std::vector<std::string> flags) {
  CLI::App app;
  gyre::app::ClusterFlags multi("gyre-test");
  multi.add_to(app);
  flags.insert(flags.begin(), {"--processes", "2", "--process-rank", "1"});
  std::vector<const char*> argv{"test"};
  for (const auto& f : flags) argv.push_back(f.c_str());
  app.parse(static_cast<int>(argv.size()), argv.data());
  const gyre::cluster::Environment env{{"GYRE_TOKEN", "t"}};
  return multi.job_options(multi.launch(env), env, 1).listen_host;
}

}  // namespace

TEST_CASE("the data plane listens where the coordinator is reached on loopback, on all addresses otherwise, or as told") {
  CHECK(listen_host_of({"--coordinator", "127.0.0.1:7700"}) == "127.0.0.1");
  CHECK(listen_host_of({"--coordinator", "127.0.0.5:7700"}) == "127.0.0.5");
  CHECK(listen_host_of({"--coordinator", "[::1]:7700"}) == "::1");
  CHECK(listen_host_of({"--coordinator", "10.1.2.3:7700"}) == "0.0.0.0");
  CHECK(listen_host_of({"--coordinator", "127.0.0.1:7700", "--listen-host", "0.0.0.0"}) == "0.0.0.0");
}
