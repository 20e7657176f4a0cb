// tests/apps/lda/solo_kernel.hpp — one LDA worker's kernel on its own: a communicator of one, and the block it starts with.
#pragma once

#include <memory>
#include <utility>
#include <vector>

#include "gyre/collective/communicator.hpp"
#include "gyre/data/corpus.hpp"
#include "gyre/net/inproc.hpp"
#include "lda/trainer.hpp"

namespace gyre::test {

// Worker 0 of `plan` over `corpus`, its kernel attached to a communicator of one (so the
// topic-totals allreduce after a visit is its own), holding its first block, with a visit of
// that block in phase 0 that keeps it (the tests move visit.phase on themselves).
struct SoloKernel {
  std::unique_ptr<lda::LdaKernel> kernel;
  std::vector<std::unique_ptr<net::Group>> groups = net::make_inproc_groups(1);
  runtime::Mailbox inbox{*groups[0]};
  collective::Communicator workers{inbox, {0}};
  model::Block block;
  rotation::Visit visit;

  SoloKernel(const lda::LdaPlan& plan, const data::Corpus& corpus)
      : kernel(lda::make_kernel(plan, 0, corpus)),
        block(std::move(lda::initial_blocks(plan, 0).front())),
        visit{block.id(), 0, 0, 0, 0, rotation::Visit::kKeep} {
    kernel->attach(workers);
  }
};

}  // namespace gyre::test
