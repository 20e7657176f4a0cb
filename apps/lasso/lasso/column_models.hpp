// apps/lasso/lasso/column_models.hpp — Lasso under Harp's allreduce (C) and no-sync (D) models: each worker owns a set of columns and sweeps them against its replica of the residual.
#pragma once

#include <optional>

#include "gyre/data/regression.hpp"
#include "gyre/runtime/job.hpp"
#include "lasso/config.hpp"
#include "lasso/round_scheduler.hpp"
#include "lasso/solver.hpp"

namespace gyre::lasso {

// The job of the column models: config.workers workers and no scheduler, for every worker
// reaches the same decisions from the same numbers.
runtime::Job column_job(int workers, runtime::Backend backend);

// Least squares only (config.loss); no checkpoints. Worker k of P owns the usable features j
// with j mod P = k and keeps a replica of the raw residual r = (y − ȳ) − Xβ and its mean
// m = −μᵀβ (ColumnStats' conventions, so intercepts and standardisation are the rounds').
//
// A round: every worker sweeps its own features once, in order, each by the exact minimiser of
// CoCoA+'s local subproblem (Ma et al., 2015) with σ′ = P, which scales the curvature by P and
// moves the worker's own copy of the residual by P times its steps; the replicas then take the
// steps themselves, unscaled. Why not Shotgun's plain sum of the parallel steps (σ′ = 1,
// Bradley et al., 2011): it overshoots along columns of different owners that are correlated,
// and the sum of the P subproblems at σ′ = P bounds F, so a round of C never raises it. On
// tools/bench/lasso-models' problem (groups of 10 correlated columns, dealt j mod P) σ′ = 1
// with a round undone whenever F rose needed 60 sweeps to F*(1 + 1e-6) at P = 2, σ′ = P 24.
//  - C (kAllreduce): the workers' changes to (r, m) are summed (Communicator::allreduce_sum)
//    and every replica becomes the round's start plus the sum: the same bits on every worker.
//  - D (kNoSync): each worker pushes its change to every peer (collective::DeltaExchange) and
//    adds whatever the peers have pushed by then, waiting for nobody. Runs depend on timing
//    and are not bitwise repeatable.
// Every config.check_every coordinate updates (0: every fourth sweep) the workers check
// together: D first waits for every push and takes worker 0's (r, m), so that every replica is
// the same; each worker then adds its features' part of the duality gap (CoefficientSums) and
// the parts are joined. The gap decides, as in the rounds, whether the λ is done.
//
// Runs this process's members of `job`. Across processes every process passes the whole set
// (the columns of a worker span every row). Returns the run where worker 0 ran, nullopt
// elsewhere; options.on_check is called there.
std::optional<LassoRun> solve_by_columns(const runtime::Job& job, const data::RegressionSet& set,
                                         const LassoConfig& config, const SolveOptions& options = {});

}  // namespace gyre::lasso
