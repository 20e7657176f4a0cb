// apps/lda/distributed.cpp — run one LDA worker per process; every rank writes its part of the model (or rank 0 gathers it).
#include "lda/distributed.hpp"

#include <algorithm>
#include <span>
#include <stdexcept>
#include <vector>

#include "gyre/data/corpus_partition.hpp"
#include "gyre/rotation/rotation_job.hpp"
#include "gyre/wire/codec.hpp"
#include "lda/allreduce.hpp"
#include "gyre/runtime/parts_output.hpp"
#include "lda/checkpoint.hpp"
#include "lda/model_io.hpp"

namespace gyre::lda {

std::optional<rotation::GatheredModel> gather_model(const LdaPlan& plan, const runtime::Member& member,
                                                    std::span<const std::uint64_t> doc_ids, const LdaKernel& kernel,
                                                    std::vector<model::OwnedBlock>& held, std::uint64_t doc_id_limit,
                                                    std::chrono::milliseconds timeout) {
  // Doc-topic rows stay with their worker during training; rank 0 collects them with the
  // word-topic blocks.
  // The rows travel sparse, as the kernel builds them: rank 0 holds every document's topics in
  // memory proportional to the tokens, not documents × K.
  rotation::GatherOptions gather;
  gather.workers = plan.config.workers;
  gather.layout = plan.block_shapes;
  gather.row_bytes = rotation::kAnyRowBytes;
  gather.id_limit = doc_id_limit;
  gather.timeout = timeout;
  rotation::LocalRows mine;
  mine.ids.assign(doc_ids.begin(), doc_ids.end());
  mine.values = kernel.doc_topic_rows().encode();
  return rotation::gather_at_root(member.mailbox, held, std::move(mine), gather);
}

void write_parts(const LdaPlan& plan, const runtime::Member& member, std::span<const std::uint64_t> doc_ids,
                 const LdaKernel& kernel, std::vector<model::OwnedBlock>& held, const std::vector<std::string>& vocab,
                 std::span<const std::int64_t> topic_totals, const double& loglik_per_token,
                 const TrainHooks::Parts& parts, std::chrono::milliseconds timeout) {
  runtime::PartsOutput out{parts.directory, model_directory(), plan.config.workers, timeout};
  runtime::write_in_parts(
      member.mailbox, out,
      [&](const std::filesystem::path& staging) {
        std::vector<model::Block> blocks;
        for (auto& b : held) blocks.push_back(b.release());
        held.clear();
        std::vector<DocTopicRows> docs;
        docs.push_back({doc_ids, kernel.doc_topic_rows()});
        const LdaModel part = assemble_model(plan, vocab, std::move(docs), topic_totals, std::move(blocks));
        return write_model_part(staging, member.rank, part, parts.top_words);
      },
      [&](const std::filesystem::path& staging, const std::vector<std::string>& notes) {
        LdaModel header = model_header(plan, vocab, topic_totals);
        header.loglik_per_token = loglik_per_token;
        auto top = write_parts_manifest(staging, header, notes, parts.top_words);
        if (parts.top != nullptr) *parts.top = std::move(top);
      });
}

LdaModel assemble_gathered(const LdaPlan& plan, std::vector<std::string> vocab, rotation::GatheredModel parts,
                           std::span<const std::int64_t> topic_totals) {
  const std::uint32_t K = plan.config.topics;
  std::vector<DocTopicRows> docs;
  for (std::size_t w = 0; w < parts.rows.size(); ++w) {
    auto& r = parts.rows[w];
    try {
      TopicCountRows counts = TopicCountRows::decode(K, r.values, r.ids.size(), "");
      r.values = {};
      docs.push_back({r.ids, std::move(counts)});
    } catch (const wire::DecodeError& e) {
      throw std::runtime_error("rank " + std::to_string(w) + " sent malformed doc-topic rows (" + e.what() + ")");
    }
  }
  return assemble_model(plan, std::move(vocab), std::move(docs), topic_totals, std::move(parts.blocks));
}

std::optional<LdaModel> train_distributed(const LdaConfig& config, CorpusInput input, const TrainHooks& hooks,
                                          const rotation::ClusterJobOptions& cluster) {
  if (config.workers != cluster.launch.size) throw std::invalid_argument("one worker per process");
  if (hooks.heldout)
    throw std::invalid_argument("held-out evaluation after every epoch needs every worker in one process");
  const int rank = cluster.launch.rank;
  const LdaPlan plan = plan_job(config, input.corpus.vocab_size(), input.word_counts);
  const std::uint64_t doc_id_limit = input.doc_id_limit;
  // The same split train_embedded's caller makes (or a partition made by it); only this rank's part is kept.
  data::Corpus shard = input.shard_only ? std::move(input.corpus)
                                        : std::move(data::shard_corpus(input.corpus, static_cast<std::uint32_t>(config.workers))
                                                        [static_cast<std::size_t>(rank)]);
  input.corpus = data::Corpus{};
  if (config.model != ComputationModel::kRotation) {
    std::vector<data::Corpus> hosted(static_cast<std::size_t>(config.workers));
    hosted[static_cast<std::size_t>(rank)] = std::move(shard);
    const auto vocab = hosted[static_cast<std::size_t>(rank)].vocab;
    return train_shared_models(plan, hosted, vocab, doc_id_limit, hooks, rotation::processes_backend(cluster),
                           cluster.timeout);
  }
  auto kernel = make_kernel(plan, rank, shard);
  std::vector<std::uint32_t>().swap(shard.words);  // laid out in the kernel; ids and the vocabulary are still read at the end

  double last_loglik = 0;
  auto on_epoch = [&](const EpochReport& r) {
    last_loglik = r.loglik_per_token;
    if (hooks.on_epoch) hooks.on_epoch(r);
  };
  // Word-topic blocks arriving from peers are checked against this rank's plan (a rank with
  // another corpus or topic count would send blocks of another shape).
  std::optional<rotation::GatheredModel> parts;
  auto policy = epoch_policy(plan, on_epoch);
  auto options = rotation::rotation_options(cluster, config.threads, config.depth);
  take_checkpoints(plan, hooks.checkpoints, policy, options, [&](int) -> const LdaKernel& { return *kernel; });
  rotation::run_rotation(
      rotation::rotation_job(config.workers, rotation::processes_backend(cluster)), *plan.schedule,
      plan.block_shapes,
      [&](int) { return rotation::RotationWorker{kernel.get(), initial_blocks(plan, rank)}; }, policy, options,
      [&](const runtime::Member& m, std::vector<model::OwnedBlock> held) {
        if (hooks.on_traffic) hooks.on_traffic(m.group.bytes_sent());
        if (hooks.parts)
          write_parts(plan, m, shard.doc_ids, *kernel, held, shard.vocab, kernel->topic_totals(), last_loglik,
                      *hooks.parts, cluster.timeout);
        else
          parts = gather_model(plan, m, shard.doc_ids, *kernel, held, doc_id_limit, cluster.timeout);
      });
  if (!parts) return std::nullopt;
  // Rank 0's view of the totals is the job's after the last phase's allreduce.
  LdaModel model = assemble_gathered(plan, shard.vocab, std::move(*parts), kernel->topic_totals());
  model.loglik_per_token = last_loglik;
  return model;
}

}  // namespace gyre::lda
