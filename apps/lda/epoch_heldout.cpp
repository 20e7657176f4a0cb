// apps/lda/epoch_heldout.cpp — the model after each epoch gathered from final blocks in this process, and its held-out perplexity.
#include "gyre/base/thread_arena.hpp"
#include "lda/epoch_heldout.hpp"


#include <algorithm>

#include "lda/word_topic_block.hpp"

namespace gyre::lda {

EpochHeldout::EpochHeldout(const LdaPlan& plan, const HeldoutSet& documents)
    : plan_(plan), documents_(documents), rows_(plan.vocab) {}

void EpochHeldout::watch(LdaKernel& kernel) {
  kernel.show_final_blocks([this](const model::Block& block) { copy_rows(block); });
}

void EpochHeldout::copy_rows(const model::Block& block) {
  const auto& words = plan_.blocks.rows.at(block.id());
  const BlockRows rows(block, plan_.config.topics);
  for (std::size_t row = 0; row < block.rows(); ++row) {
    Row& out = rows_.at(words.at(row));
    out.topics.clear();
    out.counts.clear();
    rows.for_each(row, [&](std::uint32_t k, std::int32_t n) {
      out.topics.push_back(k);
      out.counts.push_back(n);
    });
  }
}

EpochReport EpochHeldout::add_to(EpochReport report) const {
  TopicCountRows word_topic(plan_.config.topics);
  for (const Row& row : rows_) word_topic.add_sparse(row.topics, row.counts);
  const FixedTopics model(plan_.config.topics, plan_.config.alpha_value(), plan_.config.beta, word_topic);
  // On the job's threads, idle between epochs, not on every core of the machine.
  ThreadArena arena(plan_.config.workers * plan_.config.threads);
  report.heldout_perplexity =
      arena.execute([&] { return documents_.perplexity(model, static_cast<std::uint64_t>(report.epoch)); });
  return report;
}

}  // namespace gyre::lda
