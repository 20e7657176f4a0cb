// apps/lasso/round_scheduler.cpp — Lasso's control plane on the rounds engine: the loss, the driver and the app (lasso_rounds.hpp), resumed if asked.
#include "lasso/round_scheduler.hpp"

#include <algorithm>
#include <memory>
#include <string>
#include <utility>

#include "lasso/lasso_rounds.hpp"
#include "lasso/lasso_worker.hpp"

namespace gyre::lasso {

std::uint32_t default_batch(std::uint32_t usable_features) {
  return std::clamp<std::uint32_t>(usable_features / 16, 1, 1024);
}

LassoRun run_lasso_scheduler(runtime::Mailbox& mailbox, std::vector<int> workers, const SchedulerData& data,
                             const LassoConfig& config, std::function<void(const CheckReport&)> on_check,
                             std::chrono::milliseconds timeout, const Checkpoints* checkpoints) {
  const std::unique_ptr<LossModel> loss = config.loss == Loss::logistic
                                              ? logistic_loss_model(data.stats, config.intercept)
                                              : squared_loss_model(data.stats);
  rounds::RoundsDriver driver(mailbox, std::move(workers), rounds_options(loss->parameters(), timeout));
  LassoRounds app(driver, *loss, data, config, std::move(on_check), checkpoints);
  if (checkpoints && checkpoints->resume) {
    try {
      const OpenedPart part = open_part(*checkpoints->resume, static_cast<int>(driver.workers().size()));
      StateReader in = part.reader();
      app.restore(in);
      in.finish();
    } catch (const std::exception& e) {
      driver.fail(std::string("lasso scheduler: resuming: ") + e.what());
    }
  }
  rounds::run_rounds(driver, app);
  return std::move(app).result();
}

}  // namespace gyre::lasso
