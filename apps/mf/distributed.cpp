// apps/mf/distributed.cpp — run one MF worker per process and gather the model on rank 0.
#include "mf/distributed.hpp"

#include <cereal/cereal.hpp>

#include <cstring>
#include <stdexcept>

#include "gyre/pipeline/block_codec.hpp"
#include "gyre/scheduler/protocol.hpp"
#include "gyre/wire/codec.hpp"

namespace gyre::mf {
namespace {

// After the rotation: rank 0 asks, every other rank answers with its user rows and blocks.
constexpr std::uint16_t kCollectRequest = 0x0201;
constexpr std::uint16_t kUserRows = 0x0202;

struct UserRowsMeta {
  std::uint64_t count = 0;
  std::uint64_t stride = 0;
  template <class Archive>
  void serialize(Archive& ar) { ar(count, stride); }
};

net::Message encode_users(const UserRows& u, std::size_t stride) {
  net::Message m;
  m.type = kUserRows;
  m.meta = wire::encode(UserRowsMeta{u.ids.size(), stride});
  const std::size_t id_bytes = u.ids.size() * sizeof(std::uint32_t);
  m.body = Buffer(id_bytes + u.rows.size() * sizeof(float));
  std::memcpy(m.body.data(), u.ids.data(), id_bytes);
  std::memcpy(m.body.data() + id_bytes, u.rows.data(), u.rows.size() * sizeof(float));
  return m;
}

UserRows decode_users(const net::Message& m, std::size_t stride) {
  const auto meta = wire::decode<UserRowsMeta>(m.meta);
  if (meta.stride != stride || meta.count > m.body.size() / sizeof(std::uint32_t) ||
      m.body.size() != meta.count * (sizeof(std::uint32_t) + stride * sizeof(float)))
    throw std::runtime_error("rank " + std::to_string(m.sender) + " sent malformed user rows");
  UserRows u;
  u.ids.resize(meta.count);
  u.rows.resize(meta.count * stride);
  std::memcpy(u.ids.data(), m.body.data(), meta.count * sizeof(std::uint32_t));
  std::memcpy(u.rows.data(), m.body.data() + meta.count * sizeof(std::uint32_t), u.rows.size() * sizeof(float));
  return u;
}

net::Message expect(net::Group& g, std::chrono::milliseconds timeout, const char* what) {
  auto m = g.receive(net::Clock::now() + timeout);
  if (!m) throw scheduler::JobFailed(std::string("rank ") + std::to_string(g.rank()) + ": no " + what + " within " +
                                     std::to_string(timeout.count()) + " ms");
  return std::move(*m);
}

}  // namespace

std::optional<MfModel> train_distributed(const MfConfig& config, std::vector<data::RatingsSet> train_shards,
                                         const data::RatingsSet& test, const TrainHooks& hooks,
                                         const pipeline::ClusterJobOptions& cluster) {
  if (config.workers != cluster.launch.size) throw std::invalid_argument("one worker per process");
  const int rank = cluster.launch.rank;
  MfPlan plan = plan_job(config, train_shards, test);
  auto kernel = make_kernel(plan, rank, train_shards[static_cast<std::size_t>(rank)]);
  train_shards.clear();
  plan.test_shards.clear();

  pipeline::ClusterJobOptions options = cluster;
  options.threads_per_worker = config.threads;
  auto run = pipeline::run_cluster_worker(options, *plan.schedule, *kernel, initial_blocks(plan, rank),
                                          epoch_policy(plan, hooks.on_epoch));
  if (hooks.on_traffic) hooks.on_traffic(run.bytes_sent);
  net::Group& group = *run.group;
  const std::size_t stride = plan.layout.stride;

  if (rank != 0) {
    const auto request = expect(group, cluster.timeout, "collect request from rank 0");
    if (request.type != kCollectRequest) throw std::runtime_error("unexpected message after the job");
    group.send(0, encode_users(kernel->user_rows(), stride));
    for (auto& b : run.held) group.send(0, pipeline::encode_block(b.release(), 0));
    return std::nullopt;
  }

  for (int r = 1; r < config.workers; ++r) {
    net::Message request;
    request.type = kCollectRequest;
    group.send(r, std::move(request));
  }
  std::vector<UserRows> users{kernel->user_rows()};
  std::vector<model::Block> received;
  std::size_t blocks = run.held.size();
  const auto B = static_cast<std::size_t>(plan.schedule->blocks());
  while (users.size() < static_cast<std::size_t>(config.workers) || blocks < B) {
    auto m = expect(group, cluster.timeout, "model part");
    if (m.type == kUserRows) {
      users.push_back(decode_users(m, stride));
    } else if (m.type == scheduler::kBlockMessage) {
      received.push_back(pipeline::decode_block(std::move(m), static_cast<std::uint32_t>(B)).block);
      ++blocks;
    }
  }
  std::vector<const model::Block*> all;
  for (auto& b : run.held) all.push_back(&*b);
  for (auto& b : received) all.push_back(&b);
  return assemble_model(plan, users, all);
}

}  // namespace gyre::mf
