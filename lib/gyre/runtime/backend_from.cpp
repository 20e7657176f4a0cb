// gyre/runtime/backend_from.cpp — launcher variables to a backend.
#include "gyre/runtime/job.hpp"

#include <stdexcept>

#include "gyre/net/endpoint.hpp"

namespace gyre::runtime {

Backend backend_from(const cluster::Environment& env, const std::string& job_id) {
  const auto launch = cluster::from_launcher(env);
  if (!launch || launch->size == 1) return ThreadsBackend{};
  ProcessesBackend p;
  p.launch = *launch;
  p.job_id = job_id;
  const auto coordinator = env.find("GYRE_COORDINATOR");
  if (coordinator == env.end() || coordinator->second.empty())
    throw std::invalid_argument("a job of " + std::to_string(launch->size) + " processes (" + launch->source +
                                ") needs GYRE_COORDINATOR=HOST:PORT, where process 0 serves the rendezvous");
  try {
    p.coordinator = net::parse_endpoint(coordinator->second);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(std::string("GYRE_COORDINATOR ") + e.what());
  }
  p.listen_host = net::is_loopback_address(p.coordinator.host) ? p.coordinator.host : "0.0.0.0";
  const auto token = env.find("GYRE_TOKEN");
  if (token == env.end() || token->second.empty())
    throw std::invalid_argument("a job of " + std::to_string(launch->size) + " processes needs GYRE_TOKEN, a secret every process shares");
  p.token = token->second;
  return p;
}

int workers_on(const Backend& backend, int threads) {
  if (const auto* p = std::get_if<ProcessesBackend>(&backend)) return p->launch.size;
  return threads;
}

bool reports(const Backend& backend) {
  const auto* p = std::get_if<ProcessesBackend>(&backend);
  return p == nullptr || p->launch.rank == 0;
}

}  // namespace gyre::runtime
