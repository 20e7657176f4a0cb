// tools/bench/mf_baseline.cpp — textbook serial SGD for MF: the baseline tools/bench/mf measures gyre against.
//
// Same update rule and row-major float factors as gyre-mf, but what a first implementation
// does: one thread, ratings in a shuffled order, no grid, no padding, plain loops.
#include <CLI/CLI.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "gyre/data/ratings.hpp"
#include "mf/input.hpp"

int main(int argc, char** argv) {
  CLI::App app{"gyre-mf-baseline: serial SGD baseline"};
  std::string train_path, test_path;
  unsigned rank = 40;
  int epochs = 1;
  float lr = 0.05f, lambda = 0.05f, decay = 0.95f;
  app.add_option("--train", train_path)->required();
  app.add_option("--test", test_path);
  app.add_option("--rank", rank);
  app.add_option("--epochs", epochs);
  app.add_option("--lr", lr, "learning rate of the first epoch (as gyre-mf)");
  app.add_option("--lr-decay", decay, "learning rate factor per epoch (as gyre-mf)");
  app.add_option("--lambda", lambda);
  CLI11_PARSE(app, argc, argv);

  auto input = gyre::mf::load_input(train_path, test_path, 1);
  auto& train = input.shards.at(0);
  const auto& test = input.test;
  std::mt19937_64 rng(1);
  std::shuffle(train.ratings.begin(), train.ratings.end(), rng);
  std::uniform_real_distribution<float> init(-0.3f, 0.3f);
  std::vector<float> P(std::size_t{train.users} * rank), Q(std::size_t{train.items} * rank);
  for (auto& x : P) x = init(rng);
  for (auto& x : Q) x = init(rng);

  auto test_rmse = [&] {
    double se = 0;
    for (const auto& r : test.ratings) {
      if (r.user >= train.users || r.item >= train.items) continue;
      float pred = 0;
      for (unsigned j = 0; j < rank; ++j) pred += P[std::size_t{r.user} * rank + j] * Q[std::size_t{r.item} * rank + j];
      se += (r.value - pred) * (r.value - pred);
    }
    return std::sqrt(se / static_cast<double>(test.ratings.size()));
  };

  double seconds = 0;
  std::string rmse;
  for (int e = 0; e < epochs; ++e) {
    const auto start = std::chrono::steady_clock::now();
    for (const auto& r : train.ratings) {
      float* p = &P[std::size_t{r.user} * rank];
      float* q = &Q[std::size_t{r.item} * rank];
      float pred = 0;
      for (unsigned j = 0; j < rank; ++j) pred += p[j] * q[j];
      const float err = r.value - pred;
      for (unsigned j = 0; j < rank; ++j) {
        const float pj = p[j];
        p[j] += lr * (err * q[j] - lambda * pj);
        q[j] += lr * (err * pj - lambda * q[j]);
      }
    }
    seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    lr *= decay;
    if (!test.ratings.empty()) rmse += (rmse.empty() ? "" : " ") + std::to_string(test_rmse());
  }
  std::printf("updates_per_s %.0f\n", static_cast<double>(train.ratings.size()) * epochs / seconds);
  if (!rmse.empty()) std::printf("test_rmse %s\n", rmse.c_str());
}
