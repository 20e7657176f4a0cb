// tests/embed/embed.cpp — the README's embedding example: one kernel, one call, in this process or across processes.
#include <gyre/gyre.hpp>

#include <cstdio>
#include <exception>
#include <utility>
#include <vector>

using namespace gyre;

constexpr int kEpochs = 5;

// Worker w's data is the number w + 1. Visiting a block (which it owns for the call), it moves
// every value halfway to its data, and reports the squared change at the end of the phase.
struct HalfwayKernel : rotation::RotationKernel {
  float data = 0;
  double change = 0;
  void train(model::Block& block, const rotation::Visit&) override {
    for (float& x : block.values()) {
      const float step = (data - x) / 2;
      x += step;
      change += double{step} * step;
    }
  }
  void evaluate(const model::Block&, const rotation::Visit&) override {}
  rotation::PhaseSums take_phase_sums(rotation::PhaseKind) override { return {std::exchange(change, 0.0)}; }
};

// Alone: two workers on threads of this process. Under mpirun or srun (with GYRE_COORDINATOR
// and GYRE_TOKEN set): this process's worker of the job.
int main(int, char**, char** envp) try {
  const auto backend = runtime::backend_from(cluster::environment_of(envp), "embed-example");
  const int workers = runtime::workers_on(backend, 2);
  std::vector<HalfwayKernel> kernels(static_cast<std::size_t>(workers));
  for (int w = 0; w < workers; ++w) kernels[static_cast<std::size_t>(w)].data = static_cast<float>(w + 1);
  const auto model = rotation::rotate(
      rotation::rotation_job(workers, backend), {/*blocks_per_worker*/ 2, /*shape*/ {4, model::kRowAlign}, {}},
      [&](int w) -> rotation::RotationKernel& { return kernels[static_cast<std::size_t>(w)]; },
      rotation::train_phases(kEpochs, [](const rotation::PhaseResult& r) {
        std::printf("epoch %d: squared change %.9g\n", static_cast<int>(r.phase) + 1, r.sums[0]);
      }));
  for (const auto& block : model)  // every block, in the process that reports; none elsewhere
    std::printf("block %u: %.9g (%llu visits)\n", static_cast<unsigned>(block.id()), static_cast<double>(block.row(0)[0]),
                static_cast<unsigned long long>(block.version()));
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "embed: %s\n", e.what());
  return 1;
}
