// tests/lib/runtime/backend_from_test.cpp — a process's backend from its launcher's variables, and HOST:PORT text.
#include <doctest/doctest.h>

#include <stdexcept>

#include "gyre/net/endpoint.hpp"
#include "gyre/runtime/job.hpp"

using namespace gyre;

TEST_CASE("without a launcher a job runs on threads; under mpirun or srun, as this process of the job") {
  CHECK(std::holds_alternative<runtime::ThreadsBackend>(runtime::backend_from({})));
  CHECK(runtime::workers_on(runtime::backend_from({}), 4) == 4);
  CHECK(runtime::reports(runtime::backend_from({})));
  // One process of one: still threads.
  CHECK(std::holds_alternative<runtime::ThreadsBackend>(runtime::backend_from({{"SLURM_PROCID", "0"}, {"SLURM_NTASKS", "1"}})));

  const cluster::Environment env{{"OMPI_COMM_WORLD_RANK", "1"}, {"OMPI_COMM_WORLD_SIZE", "3"},
                                 {"GYRE_COORDINATOR", "10.0.0.5:7700"}, {"GYRE_TOKEN", "s3cret"}};
  const auto backend = runtime::backend_from(env, "my-job");
  const auto& p = std::get<runtime::ProcessesBackend>(backend);
  CHECK(p.launch.rank == 1);
  CHECK(p.launch.size == 3);
  CHECK(p.coordinator.host == "10.0.0.5");
  CHECK(p.coordinator.port == 7700);
  CHECK(p.token == "s3cret");
  CHECK(p.job_id == "my-job");
  CHECK(p.listen_host == "0.0.0.0");  // the coordinator is on the network: so is the data plane
  CHECK(runtime::workers_on(backend, 8) == 3);
  CHECK_FALSE(runtime::reports(backend));

  auto loopback = env;
  loopback["GYRE_COORDINATOR"] = "127.0.0.1:7700";
  CHECK(std::get<runtime::ProcessesBackend>(runtime::backend_from(loopback)).listen_host == "127.0.0.1");
}

TEST_CASE("a launched process without a coordinator or a token, or with a malformed one, is refused naming the variable") {
  const cluster::Environment launched{{"PMI_RANK", "0"}, {"PMI_SIZE", "2"}};
  CHECK_THROWS_WITH_AS(runtime::backend_from(launched), doctest::Contains("needs GYRE_COORDINATOR=HOST:PORT"),
                       std::invalid_argument);
  auto no_token = launched;
  no_token["GYRE_COORDINATOR"] = "127.0.0.1:7700";
  CHECK_THROWS_WITH_AS(runtime::backend_from(no_token), doctest::Contains("needs GYRE_TOKEN"), std::invalid_argument);
  auto bad = no_token;
  bad["GYRE_TOKEN"] = "t";
  bad["GYRE_COORDINATOR"] = "rank0:7700";
  CHECK_THROWS_WITH_AS(runtime::backend_from(bad), "GYRE_COORDINATOR 'rank0:7700': 'rank0' is not an IP address",
                       std::invalid_argument);
}

TEST_CASE("HOST:PORT text: IPv4, bracketed IPv6, and what is refused") {
  CHECK(net::parse_endpoint("127.0.0.1:80").port == 80);
  CHECK(net::parse_endpoint("[::1]:65535").host == "::1");
  for (const char* bad : {"127.0.0.1", "127.0.0.1:", "127.0.0.1:0", "127.0.0.1:65536", "127.0.0.1:8x", ":80"})
    CHECK_THROWS_AS(net::parse_endpoint(bad), std::invalid_argument);
  CHECK_THROWS_WITH(net::parse_endpoint("127.0.0.1:70000"), "'127.0.0.1:70000': expected HOST:PORT with PORT in 1..65535");
  CHECK(net::is_loopback_address("::1"));
  CHECK_FALSE(net::is_loopback_address("10.1.2.3"));
  CHECK_FALSE(net::is_ip_address("eth0"));
}
