// apps/lasso/lasso_rounds_state.cpp — the control plane's part of a checkpoint: written between two checks, read back to continue.
#include "lasso/lasso_rounds.hpp"

#include <string>

namespace gyre::lasso {

void LassoRounds::save(StateWriter& out) const {
  out.put(kStateVersion);
  out.put(snapshots_.checks_reported());
  out.put(rounds());
  out.put(seconds());
  out.put(path_.seconds_on_lambda());
  out.put_all(gamma_);
  out.put(pace_.batch());
  out.put(pace_.depth());
  out.put(updates_);
  out.put(checks_);
  out.put(kSavedBetweenChecks);
  path_.save_solutions(out);
  out.put(certificate_);
  out.put(last_objective_);
  path_.save_spent(out);
  out.put(interval_.coordinates_sent());
  out.put<std::uint8_t>(interval_.over());
  out.put(nonzero_);
  out.put<std::uint8_t>(stage_ == Stage::kCycle);
  out.put<std::uint8_t>(stage_ == Stage::kCheck);
  out.put(stalled_);
  out.put_all(interval_.recent());
  const rounds::ParameterSampler::State sampler = sampler_.state();
  out.put(sampler.rng);
  out.put_all(sampler.order);
  out.put(sampler.cursor);
  out.put(sampler.proposed);
  out.put(sampler.largest_step);
  out.put_all(sampler.weights);
  out.put_all(sampler.held);
  out.put_all(sampler.deferred);
  loss_.save(out);
}

void LassoRounds::restore(StateReader& in) {
  if (in.get<std::uint32_t>() != kStateVersion) in.fail("a gyre-lasso scheduler state of version 1");
  const auto reported = in.get<std::uint64_t>();
  snapshots_.resume(reported, in.get<std::uint64_t>());
  const auto now = Clock::now();
  start_ = now - std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(in.get<double>()));
  path_.resume_clock(in.get<double>());
  gamma_ = in.get_all<double>(p_, "the coefficients");
  const auto batch = in.get<std::uint32_t>();
  const bool sound_pace = pace_.restore(batch, in.get<int>());
  updates_ = in.get<std::uint64_t>();
  checks_ = in.get<std::uint64_t>();
  if (in.get<std::uint8_t>() != kSavedBetweenChecks || !sound_pace) in.fail("a scheduler between the checks of a λ");
  path_.restore_solutions(in, config_, p_);
  certificate_ = in.get<Certificate>();
  last_objective_ = in.get<double>();
  path_.restore_spent(in);
  const auto sent = in.get<std::uint64_t>();
  const bool over = in.get<std::uint8_t>() != 0;
  nonzero_ = in.get<std::uint64_t>();
  const bool cycle_next = in.get<std::uint8_t>() != 0, check_next = in.get<std::uint8_t>() != 0;
  if (cycle_next && check_next) in.fail("a scheduler that sends either a cycle or a check next");
  stage_ = cycle_next ? Stage::kCycle : check_next ? Stage::kCheck : Stage::kRounds;
  stalled_ = in.get<int>();
  interval_.restore(sent, over, in.get_all<double>());
  rounds::ParameterSampler::State sampler;
  sampler.rng = in.get<std::uint64_t>();
  sampler.order = in.get_all<std::uint32_t>();
  sampler.cursor = in.get<std::uint32_t>();
  sampler.proposed = in.get<std::uint64_t>();
  sampler.largest_step = in.get<double>();
  sampler.weights = in.get_all<double>();
  sampler.held = in.get_all<double>();
  sampler.deferred = in.get_all<std::uint32_t>();
  try {
    sampler_.restore(sampler);
  } catch (const std::invalid_argument& e) {
    in.fail(std::string("a sampler of this run's features (") + e.what() + ")");
  }
  loss_.restore(in);
}

}  // namespace gyre::lasso
