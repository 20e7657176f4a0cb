// apps/lda/lda/epoch_heldout.hpp — held-out perplexity after every epoch, from the word-topic blocks as each becomes final for the phase.
#pragma once

#include <cstdint>
#include <vector>

#include "gyre/model/block.hpp"
#include "lda/heldout.hpp"
#include "lda/trainer.hpp"

namespace gyre::lda {

// Under rotation no worker holds the whole model at an epoch's end, and under allreduce every
// worker holds a replica; either way each block is shown to the kernel's final-block observer
// exactly once per phase, with its counts as the phase leaves them (LdaKernel::add_word_loglik).
// Copying those rows (sparse, as the blocks hold them: a word's non-zero counts) gives the model
// after the epoch without stopping or touching the sampler: training is bitwise the same with or without this. Blocks of different
// words write different rows, so workers on several threads may show theirs at once. It needs
// every worker in this process (a rank of a multi-process job sees only its own blocks).
class EpochHeldout {
 public:
  EpochHeldout(const LdaPlan& plan, const HeldoutSet& documents);

  // Makes `kernel` show this its blocks as they become final; before the job starts.
  void watch(LdaKernel& kernel);
  // `report` with the held-out perplexity of the model the blocks shown so far make (after
  // its epoch: every worker has finished the phase).
  EpochReport add_to(EpochReport report) const;

 private:
  void copy_rows(const model::Block& block);

  const LdaPlan& plan_;
  const HeldoutSet& documents_;
  struct Row {  // a word's non-zero counts, ascending topics
    std::vector<std::uint32_t> topics;
    std::vector<std::int32_t> counts;
  };
  std::vector<Row> rows_;  // V
};

}  // namespace gyre::lda
