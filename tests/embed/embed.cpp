// tests/embed/embed.cpp — the README's embedding example: one kernel, one call, in this process or across processes.
#include <gyre/gyre.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

using namespace gyre;

constexpr int kEpochs = 5;
constexpr std::size_t kRows = 4, kStride = model::kRowAlign;  // each block: 4 rows of 8 floats

// Worker w's data is the number w + 1. Visiting a block (which it owns for the call), it moves
// every value halfway to its data, and reports the squared change at the end of the phase.
struct HalfwayKernel : pipeline::RotationKernel {
  float data = 0;
  double change = 0;
  void train(model::Block& block, const scheduler::Visit&) override {
    for (float& x : block.values()) {
      const float step = (data - x) / 2;
      x += step;
      change += double{step} * step;
    }
  }
  void evaluate(const model::Block&, const scheduler::Visit&) override {}
  scheduler::PhaseSums take_phase_sums(scheduler::PhaseKind) override { return {std::exchange(change, 0.0)}; }
};

// The one call: `workers` workers rotate the blocks for kEpochs on `backend`. Prints each epoch's
// squared change (where the scheduler runs) and the model (where worker 0 runs).
void train(int workers, runtime::Backend backend) {
  const scheduler::RotationSchedule schedule(workers, /*blocks_per_worker*/ 2, scheduler::RingOrder::kFixed, /*seed*/ 1);
  const std::vector<model::BlockShape> layout(static_cast<std::size_t>(schedule.blocks()), {kRows, kStride});
  std::vector<HalfwayKernel> kernels(static_cast<std::size_t>(workers));  // this process uses its workers' only
  pipeline::run_rotation(
      pipeline::rotation_job(workers, std::move(backend)), schedule, layout,
      [&](int w) {  // a worker of this process: its kernel and the blocks it starts with
        auto& kernel = kernels[static_cast<std::size_t>(w)];
        kernel.data = static_cast<float>(w + 1);
        pipeline::RotationWorker worker{&kernel, {}};
        for (const auto id : schedule.held_at_start(w, 0)) worker.initial_blocks.emplace_back(id, kRows, kStride);
        return worker;
      },
      [&](const scheduler::PhaseResult* last) -> std::optional<scheduler::PhaseKind> {  // the scheduler's policy
        if (last == nullptr) return scheduler::PhaseKind::kTrain;
        std::printf("epoch %d: squared change %.9g\n", static_cast<int>(last->phase) + 1, last->sums[0]);
        if (last->phase + 1 == kEpochs) return std::nullopt;
        return scheduler::PhaseKind::kTrain;
      },
      pipeline::RotationOptions{},
      [&](const runtime::Member& member, std::vector<model::OwnedBlock> held) {  // each worker, at the end
        std::vector<float> model(static_cast<std::size_t>(schedule.blocks()) * kRows * kStride);
        for (const auto& block : held) {
          if (block->version() != static_cast<std::uint64_t>(kEpochs * workers))
            throw std::runtime_error("block " + std::to_string(block.id()) + " missed a visit");
          std::copy_n(block->data(), kRows * kStride, model.data() + std::size_t{block.id()} * kRows * kStride);
        }
        std::vector<int> ranks(static_cast<std::size_t>(workers));
        std::iota(ranks.begin(), ranks.end(), 0);
        collective::Communicator(member.mailbox, ranks).allreduce_sum(std::span<float>(model));  // every block once
        if (member.rank != 0) return;
        for (int b = 0; b < schedule.blocks(); ++b)
          std::printf("block %d: %.9g\n", b, static_cast<double>(model[static_cast<std::size_t>(b) * kRows * kStride]));
      });
}

// embed                        every worker a thread of this process
// embed RANK PROCESSES PORT    one process of a job on 127.0.0.1 (process 0 serves PORT); token in GYRE_TOKEN
int main(int argc, char** argv) try {
  if (argc == 1) {
    train(2, runtime::ThreadsBackend{});
    return 0;
  }
  if (argc != 4) throw std::invalid_argument("usage: embed [RANK PROCESSES PORT]");
  runtime::ProcessesBackend processes;
  processes.launch = {std::stoi(argv[1]), std::stoi(argv[2]), "flags"};
  processes.coordinator = {"127.0.0.1", static_cast<std::uint16_t>(std::stoi(argv[3]))};
  const char* token = std::getenv("GYRE_TOKEN");  // the service decides where its secret comes from
  processes.token = token != nullptr ? token : "";
  processes.job_id = "embed-example";
  processes.log = [](const std::string& line) { std::fprintf(stderr, "embed: %s\n", line.c_str()); };
  train(processes.launch.size, processes);
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "embed: %s\n", e.what());
  return 1;
}
