// tests/embed/embed.cpp — the README's embedding snippet, made to check its own result.
#include <gyre/gyre.hpp>

#include <cstdio>

namespace {
// Adds 1 to row 0 of every block it visits.
struct CountingKernel : gyre::pipeline::RotationKernel {
  void train(gyre::model::Block& b, const gyre::scheduler::Visit&) override { b.row(0)[0] += 1.0f; }
  void evaluate(const gyre::model::Block&, const gyre::scheduler::Visit&) override {}
  gyre::scheduler::PhaseSums take_phase_sums(gyre::scheduler::PhaseKind) override { return {}; }
};
}  // namespace

int main() {
  using namespace gyre;
  constexpr int kWorkers = 4, kEpochs = 10;
  const scheduler::RotationSchedule schedule(kWorkers, 2, scheduler::RingOrder::kFixed, 1);
  std::vector<CountingKernel> kernels(kWorkers);
  std::vector<pipeline::EmbeddedWorker> workers(kWorkers);
  for (int w = 0; w < kWorkers; ++w) {
    workers[static_cast<std::size_t>(w)].kernel = &kernels[static_cast<std::size_t>(w)];
    for (auto id : schedule.held_at_start(w, 0)) workers[static_cast<std::size_t>(w)].initial_blocks.emplace_back(id, 100, 16);
  }
  pipeline::EmbeddedJobOptions options;
  options.threads_per_worker = 1;
  int epochs = 0;
  auto held = pipeline::run_embedded(
      schedule, std::move(workers),
      [&](const scheduler::PhaseResult*) -> std::optional<scheduler::PhaseKind> {
        if (epochs++ == kEpochs) return std::nullopt;
        return scheduler::PhaseKind::kTrain;
      },
      options);
  int blocks = 0;
  for (auto& worker : held)
    for (auto& b : worker) {
      ++blocks;
      if (b->row(0)[0] != kWorkers * kEpochs) {
        std::fprintf(stderr, "block %u visited %g times\n", b.id(), static_cast<double>(b->row(0)[0]));
        return 1;
      }
    }
  std::printf("embedded gyre: %d blocks, each visited %d times\n", blocks, kWorkers * kEpochs);
  return blocks == schedule.blocks() ? 0 : 1;
}
