// tests/embed/embed_mf.cpp — an embedder's matrix factorisation on the rotation engine, from the installed headers only.
//
// The algorithm (above the plumbing line) is coordinate descent (CCD) on each stratum: worker w
// keeps the factors of the users u ≡ w (mod P); the item factors rotate in blocks; a visit of a
// block solves, one coordinate at a time, each item's and then each of the worker's users'
// factor exactly over the ratings of that stratum. Below the line is everything else: the
// plumbing an embedder writes to run it in one process, across processes, or in the background
// with a cancel (`embed_mf cancel`). tests/embed/run.sh counts those lines.
#include <gyre/gyre.hpp>

#include <atomic>
#include <cmath>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

using namespace gyre;

constexpr int kUsers = 96, kItems = 64, kRank = 4;
constexpr float kLambda = 0.05f;

// A rank-2 matrix, three quarters of it observed.
bool observed(int u, int i) { return (u * 7 + i * 3) % 4 != 0; }
float rating(int u, int i) {
  return std::sin(0.3f * static_cast<float>(u)) * std::cos(0.2f * static_cast<float>(i)) +
         0.5f * std::cos(0.1f * static_cast<float>(u + i));
}
float start_value(int id, int f) { return 0.1f + 0.05f * static_cast<float>((id * 5 + f * 3) % 7); }

struct CcdKernel : rotation::RotationKernel {
  int worker, workers;
  std::vector<float> users;  // kRank per user u ≡ worker (mod workers), in order
  double loss = 0, ratings = 0;

  CcdKernel(int w, int p) : worker(w), workers(p) {
    for (int u = w; u < kUsers; u += p)
      for (int f = 0; f < kRank; ++f) users.push_back(start_value(u, f));
  }
  float* user(int u) { return &users[static_cast<std::size_t>((u / workers) * kRank)]; }
  static float dot(const float* a, const float* b) {
    float s = 0;
    for (int f = 0; f < kRank; ++f) s += a[f] * b[f];
    return s;
  }
  void train(model::Block& block, const rotation::Visit&) override {
    const int per_block = static_cast<int>(block.rows()), first = static_cast<int>(block.id()) * per_block;
    for (int f = 0; f < kRank; ++f) {
      for (int r = 0; r < per_block; ++r) {  // the items' coordinate f, given the users
        float* v = block.row(static_cast<std::size_t>(r));
        float num = 0, den = kLambda;
        for (int u = worker; u < kUsers; u += workers)
          if (observed(u, first + r)) {
            const float* x = user(u);
            num += (rating(u, first + r) - dot(x, v) + x[f] * v[f]) * x[f];
            den += x[f] * x[f];
          }
        v[f] = num / den;
      }
      for (int u = worker; u < kUsers; u += workers) {  // the users' coordinate f, given the items
        float* x = user(u);
        float num = 0, den = kLambda;
        for (int r = 0; r < per_block; ++r)
          if (observed(u, first + r)) {
            const float* v = block.row(static_cast<std::size_t>(r));
            num += (rating(u, first + r) - dot(x, v) + x[f] * v[f]) * v[f];
            den += v[f] * v[f];
          }
        x[f] = num / den;
      }
    }
    for (int u = worker; u < kUsers; u += workers)
      for (int r = 0; r < per_block; ++r)
        if (observed(u, first + r)) {
          const float e = rating(u, first + r) - dot(user(u), block.row(static_cast<std::size_t>(r)));
          loss += double{e} * e;
          ratings += 1;
        }
  }
  void evaluate(const model::Block&, const rotation::Visit&) override {}
  rotation::PhaseSums take_phase_sums(rotation::PhaseKind) override {
    rotation::PhaseSums s{loss, ratings};
    loss = ratings = 0;
    return s;
  }
};

void start_items(model::Block& block) {
  for (std::size_t r = 0; r < block.rows(); ++r)
    for (int f = 0; f < kRank; ++f) block.row(r)[f] = start_value(static_cast<int>(block.id() * block.rows() + r), f);
}

// ---- plumbing ----
int main(int argc, char** argv, char** envp) try {
  const auto backend = runtime::backend_from(cluster::environment_of(envp), "embed-mf");
  const int workers = runtime::workers_on(backend, 2);
  std::vector<CcdKernel> kernels;
  for (int w = 0; w < workers; ++w) kernels.emplace_back(w, workers);
  std::atomic<int> epochs{0};
  auto train = [&](const runtime::Job& job, std::uint64_t phases) {
    return rotation::rotate(job, {2, {static_cast<std::size_t>(kItems / (2 * workers)), model::kRowAlign}, start_items},
                            [&](int w) -> rotation::RotationKernel& { return kernels[static_cast<std::size_t>(w)]; },
                            rotation::train_phases(phases, [&](const rotation::PhaseResult& r) {
                              std::printf("epoch %d: rmse %.6f\n", ++epochs, std::sqrt(r.sums[0] / r.sums[1]));
                            }));
  };
  const auto job = rotation::rotation_job(workers, backend);
  if (argc > 1 && std::string(argv[1]) == "cancel") {
    auto handle = runtime::start(job, [&](const runtime::Job& j) { return train(j, 1'000'000); });
    while (epochs < 3) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    handle.cancel();
    handle.wait();  // throws runtime::JobFailed, cause kCancelled
  }
  for (const auto& block : train(job, 10)) std::printf("block %u: %.6f\n", static_cast<unsigned>(block.id()), block.row(0)[0]);
} catch (const std::exception& e) {
  std::printf("embed_mf: %s\n", e.what());
  return 1;
}
