// apps/lda/distributed.cpp — run one LDA worker per process and gather the model on rank 0.
#include "lda/distributed.hpp"

#include <algorithm>
#include <span>
#include <stdexcept>
#include <vector>

#include "gyre/data/corpus_partition.hpp"
#include "gyre/pipeline/gather.hpp"
#include "gyre/pipeline/rotation_job.hpp"

namespace gyre::lda {

std::optional<LdaModel> train_distributed(const LdaConfig& config, const data::Corpus& corpus, const TrainHooks& hooks,
                                          const pipeline::ClusterJobOptions& cluster) {
  if (config.workers != cluster.launch.size) throw std::invalid_argument("one worker per process");
  const int rank = cluster.launch.rank;
  const LdaPlan plan = plan_job(config, corpus.vocab_size(), data::count_words(std::span(&corpus, 1)));
  // The same split train_embedded's caller makes; only this rank's part is kept.
  data::Corpus shard = std::move(data::shard_corpus(corpus, static_cast<std::uint32_t>(config.workers))
                                     [static_cast<std::size_t>(rank)]);
  auto kernel = make_kernel(plan, rank, shard);

  double last_loglik = 0;
  auto on_epoch = [&](const EpochReport& r) {
    last_loglik = r.loglik_per_token;
    if (hooks.on_epoch) hooks.on_epoch(r);
  };
  // Word-topic blocks arriving from peers are checked against this rank's plan (a rank with
  // another corpus or topic count would send blocks of another shape).
  const auto layout = plan.blocks.shapes(model::padded_width(plan.config.topics));
  std::optional<pipeline::GatheredModel> parts;
  pipeline::run_rotation(
      pipeline::rotation_job(config.workers, pipeline::processes_backend(cluster)), *plan.schedule, layout,
      [&](int) { return pipeline::RotationWorker{kernel.get(), initial_blocks(plan, rank)}; },
      epoch_policy(plan, on_epoch), pipeline::rotation_options(cluster, config.threads),
      [&](const runtime::Member& m, std::vector<model::OwnedBlock> held) {
        if (hooks.on_traffic) hooks.on_traffic(m.group.bytes_sent());
        // Doc-topic rows stay with their worker during the rotation; rank 0 collects them with
        // the word-topic blocks.
        pipeline::GatherOptions gather;
        gather.workers = config.workers;
        gather.layout = layout;
        gather.row_bytes = std::size_t{plan.config.topics} * sizeof(std::int32_t);
        gather.id_limit =
            corpus.doc_ids.empty() ? 0 : *std::max_element(corpus.doc_ids.begin(), corpus.doc_ids.end()) + 1;
        gather.timeout = cluster.timeout;
        parts = pipeline::gather_at_root(m.mailbox, held,
                                         pipeline::LocalRows::of(std::span<const std::uint64_t>(shard.doc_ids),
                                                                 std::span<const std::int32_t>(kernel->doc_topic())),
                                         gather);
      });
  if (!parts) return std::nullopt;

  std::vector<std::vector<std::int32_t>> counts;
  for (const auto& r : parts->rows) counts.push_back(r.values_as<std::int32_t>());
  std::vector<DocTopicRows> docs;
  for (std::size_t w = 0; w < counts.size(); ++w) docs.push_back({parts->rows[w].ids, counts[w], {}});
  std::vector<const model::Block*> blocks;
  for (const auto& b : parts->blocks) blocks.push_back(&b);
  // Rank 0's view of the totals is the job's after the last phase's allreduce.
  LdaModel model = assemble_model(plan, corpus.vocab, std::move(docs), kernel->topic_totals(), blocks);
  model.loglik_per_token = last_loglik;
  return model;
}

}  // namespace gyre::lda
