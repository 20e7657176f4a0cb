// apps/lda/epoch_heldout.cpp — the model after each epoch gathered from final blocks in this process, and its held-out perplexity.
#include "lda/epoch_heldout.hpp"

#include <oneapi/tbb/task_arena.h>

#include <algorithm>

#include "lda/word_topic_block.hpp"

namespace gyre::lda {

EpochHeldout::EpochHeldout(const LdaPlan& plan, const HeldoutSet& documents)
    : plan_(plan), documents_(documents), word_topic_(static_cast<std::size_t>(plan.vocab) * plan.config.topics, 0) {}

void EpochHeldout::watch(LdaKernel& kernel) {
  kernel.show_final_blocks([this](const model::Block& block) { copy_rows(block); });
}

void EpochHeldout::copy_rows(const model::Block& block) {
  const std::uint32_t K = plan_.config.topics;
  const auto& words = plan_.blocks.rows.at(block.id());
  const BlockRows rows(block, K);
  for (std::size_t row = 0; row < block.rows(); ++row)
    rows.copy_dense(row, std::span(word_topic_).subspan(static_cast<std::size_t>(words.at(row)) * K, K));
}

EpochReport EpochHeldout::add_to(EpochReport report) const {
  const FixedTopics model(plan_.config.topics, plan_.config.alpha_value(), plan_.config.beta, word_topic_);
  // On the job's threads, idle between epochs, not on every core of the machine.
  oneapi::tbb::task_arena arena(plan_.config.workers * plan_.config.threads);
  report.heldout_perplexity =
      arena.execute([&] { return documents_.perplexity(model, static_cast<std::uint64_t>(report.epoch)); });
  return report;
}

}  // namespace gyre::lda
