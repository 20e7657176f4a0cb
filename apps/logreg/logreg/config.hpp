// apps/logreg/logreg/config.hpp — settings of data-parallel logistic regression on the parameter server.
#pragma once

#include "app/ps_sgd.hpp"

namespace gyre::logreg {

using Transport = app::ps_sgd::Transport;  // tcp: every rank in this process, over loopback
using Engine = app::ps_sgd::Engine;        // ps (servers) or p2p (peer to peer)

// The engine's settings (workers, servers, barrier, learning rate, decay, batch, steps, seconds,
// eval-every, block, step delay, slow workers, transport, seed) and the penalty.
struct LogregConfig : app::ps_sgd::Settings {
  double l2 = 1e-4;  // λ of λ/2‖w‖²

  LogregConfig() {
    name = "logreg";
    learning_rate = 0.5;
    batch = 64;
    max_steps = 200;
    eval_every = 10;
    block = 64;
  }
  void validate() const;  // throws std::invalid_argument
};

}  // namespace gyre::logreg
