// apps/lda/lda/config.hpp — every knob of LDA by collapsed Gibbs sampling, with the defaults gyre-lda uses.
#pragma once

#include <cstdint>

#include "gyre/scheduler/rotation_schedule.hpp"

namespace gyre::lda {

struct LdaConfig {
  std::uint32_t topics = 100;  // K
  double alpha = 0;            // symmetric doc-topic prior; 0 means 50/K (Griffiths & Steyvers)
  double beta = 0.01;          // symmetric topic-word prior
  // Metropolis-Hastings steps per token, each a word then a doc proposal. 4 tracks the exact
  // sampler per sweep within 1% on real text (2 is faster per sweep but lags ~1.5%; see
  // tests/apps/lda/lda_reference_test.cpp).
  int mh_steps = 4;
  std::uint64_t seed = 1;

  int epochs = 50;
  int workers = 1;   // rotation ring size (threads of this process in the embedded default)
  int threads = 1;   // threads per worker
  int depth = 1;     // pipeline depth d: B = workers · depth word blocks
  scheduler::RingOrder ring = scheduler::RingOrder::kFixed;

  double alpha_value() const { return alpha > 0 ? alpha : 50.0 / topics; }
};

}  // namespace gyre::lda
