// apps/common/cluster_flags.cpp — parsing and checking of the shared multi-process flags.
#include "app/cluster_flags.hpp"

#include <charconv>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <stdexcept>

#include "gyre/base/input_error.hpp"
#include "gyre/net/endpoint.hpp"
#include "gyre/net/group.hpp"
#include "gyre/net/tcp.hpp"

namespace gyre::app {
namespace {

// Names the flag and the value in every message: the library's own errors cannot know them.
void check_ip_address(const std::string& flag, const std::string& value, const std::string& host) {
  if (!net::is_ip_address(host)) throw std::invalid_argument(flag + " '" + value + "': '" + host + "' is not an IP address");
}

net::TcpEndpoint parse_coordinator(const std::string& text, int processes) {
  if (text.empty())
    throw std::invalid_argument("a job of " + std::to_string(processes) + " processes needs --coordinator HOST:PORT");
  try {
    return net::parse_endpoint(text);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(std::string("--coordinator ") + e.what());
  }
}

}  // namespace

ClusterFlags::ClusterFlags(std::string program) : program_(std::move(program)), job_id_(program_) {}

void ClusterFlags::add_to(CLI::App& app) {
  auto* multi = kGroup;
  app.add_option("--process-rank", process_rank_, "this process's rank (default: from the launcher, else 0)")
      ->group(multi);
  app.add_option("--processes", processes_, "number of processes = workers (default: from the launcher, else 1)")
      ->group(multi);
  app.add_option("--coordinator", coordinator_, "HOST:PORT where rank 0 serves the rendezvous (needed with >1 process)")
      ->group(multi);
  app.add_option("--listen-host", listen_host_,
                 "address this process's data-plane socket binds to (default: 127.0.0.1 when the coordinator is "
                 "on loopback, else 0.0.0.0)")
      ->group(multi);
  app.add_option("--token-file", token_file_, "file holding the job token (else the GYRE_TOKEN variable)")->group(multi);
  app.add_option("--job-id", job_id_, "peers of another job id are refused")->capture_default_str()->group(multi);
  app.add_option("--connect-timeout", connect_timeout_s_, "seconds to wait for every process to join")
      ->capture_default_str()->group(multi);
  app.add_option("--inject-delay", inject_delay_, "delay per message: none, fixed:MS, uniform:LO:HI, gamma:SHAPE:SCALE")
      ->capture_default_str()->group(multi);
  app.add_option("--inject-close-after", inject_close_after_, "cut this rank's links after N messages (failure tests)")
      ->group(multi);
  app.add_flag("--report-traffic", report_traffic_, "print the bytes this rank sent during training (stderr)")
      ->group(multi);
  app.add_option("--heartbeat-timeout", heartbeat_timeout_s_, "seconds of silence after which a peer is declared dead")
      ->capture_default_str()->group(multi);
}

cluster::Launch ClusterFlags::launch(const cluster::Environment& env) const {
  return cluster::resolve_launch(process_rank_, processes_, env);
}

int ClusterFlags::workers_of(const cluster::Launch& launch, int workers_flag) {
  if (workers_flag > 0 && workers_flag != launch.size)
    throw std::invalid_argument("--workers " + std::to_string(workers_flag) + " but " + std::to_string(launch.size) +
                                " processes (" + launch.source + "): one worker per process");
  return launch.size;
}

ClusterFlags::Job ClusterFlags::job(const cluster::Environment& env, std::optional<int> workers_flag,
                                   std::uint64_t fault_seed) const {
  if (workers_flag && *workers_flag < 1) throw std::invalid_argument("--workers must be at least 1");
  Job out;
  out.launch = launch(env);
  if (out.launch.size > 1) {
    out.workers = workers_of(out.launch, workers_flag.value_or(0));
    out.cluster = job_options(out.launch, env, fault_seed);
  } else {
    out.workers = workers_flag.value_or(1);
  }
  return out;
}

rotation::ClusterJobOptions ClusterFlags::job_options(const cluster::Launch& launch, const cluster::Environment& env,
                                                      std::uint64_t fault_seed) const {
  rotation::ClusterJobOptions o;
  o.launch = launch;
  o.coordinator = parse_coordinator(coordinator_, launch.size);
  // Rank 0 listens once, for the loading job and for training: between two listens an outgoing
  // connection could be given the port (when it lies in the ephemeral range).
  if (launch.rank == 0) o.coordinator_listener = std::make_shared<const net::TcpListener>(o.coordinator.host, o.coordinator.port);
  // A job whose coordinator is on loopback runs on this machine alone: its data plane is not
  // opened to the network unless --listen-host says so.
  std::string listen = listen_host_;
  if (listen.empty()) listen = net::is_loopback_address(o.coordinator.host) ? o.coordinator.host : "0.0.0.0";
  check_ip_address("--listen-host", listen, listen);
  o.listen_host = listen;
  o.job_id = job_id_;
  if (!token_file_.empty()) {
    std::ifstream in(token_file_);
    if (!in || !std::getline(in, o.token) || o.token.empty())
      throw InputError(token_file_, 1, "a job token on the first line");
  } else if (const auto it = env.find("GYRE_TOKEN"); it != env.end()) {
    o.token = it->second;
  }
  if (o.token.empty()) throw std::invalid_argument("a multi-process job needs a token: --token-file F or GYRE_TOKEN");
  o.connect_timeout = std::chrono::seconds(connect_timeout_s_);
  if (heartbeat_timeout_s_ <= 0) throw std::invalid_argument("--heartbeat-timeout must be positive");
  o.heartbeat_timeout = std::chrono::milliseconds(static_cast<long>(heartbeat_timeout_s_ * 1000));
  o.faults = net::FaultSpec::parse_delay(inject_delay_);
  o.faults.close_after = inject_close_after_;
  // Each rank draws its own delays, reproducibly for a given seed.
  o.faults.seed = fault_seed + static_cast<std::uint64_t>(launch.rank);
  return o;
}

std::function<void(std::uint64_t)> ClusterFlags::traffic_reporter(const cluster::Launch& launch) const {
  if (!report_traffic_) return {};
  return [program = program_, rank = launch.rank](std::uint64_t bytes) {
    std::fprintf(stderr, "%s: rank %d sent %llu bytes during training\n", program.c_str(), rank,
                 static_cast<unsigned long long>(bytes));
  };
}

void ClusterFlags::report_split_reads(std::span<const data::SplitStats> reads, const std::filesystem::path& file) const {
  for (std::size_t r = 0; r < reads.size(); ++r)
    std::fprintf(stderr, "%s: rank %zu read %llu bytes in %llu lines of %s\n", program_.c_str(), r,
                 static_cast<unsigned long long>(reads[r].bytes), static_cast<unsigned long long>(reads[r].lines),
                 file.c_str());
}

}  // namespace gyre::app
