// tools/bench/lda_baseline.cpp — gyre-lda-baseline: the textbook O(K) collapsed Gibbs sampler on one thread, timed per sweep.
#include <CLI/CLI.hpp>

#include <cstdio>

#include "gyre/base/entry_point.hpp"
#include "gyre/data/corpus_io.hpp"
#include "lda/reference_sampler.hpp"

int main(int argc, char** argv) {
  using namespace gyre;
  CLI::App app{"gyre-lda-baseline: plain collapsed Gibbs sampling (one thread), the yardstick of tools/bench/lda"};
  std::string corpus_path;
  std::size_t topics = 100;
  double alpha = 0, beta = 0.01;
  int epochs = 10;
  std::uint64_t seed = 1;
  app.add_option("--corpus", corpus_path, "corpus, as gyre-lda reads it (text lines use the default stop words)")->required();
  app.add_option("--topics,-k", topics)->capture_default_str();
  app.add_option("--alpha", alpha, "default 50/K");
  app.add_option("--beta", beta)->capture_default_str();
  app.add_option("--epochs,-e", epochs)->capture_default_str();
  app.add_option("--seed", seed)->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  return run_entry_point("gyre-lda-baseline", [&] {
    data::CorpusOptions opts;
    for (auto& w : data::default_stop_words()) opts.tokenizer.stop_words.insert(w);
    const data::Corpus corpus = data::load_corpus(corpus_path, opts);
    if (alpha <= 0) alpha = 50.0 / static_cast<double>(topics);
    double seconds = 0;
    std::vector<double> sweep_seconds;
    const auto ll = lda::reference_sampler(corpus, topics, alpha, beta, epochs, seed, [&](int, double s) {
      sweep_seconds.push_back(s);
    });
    for (int e = 0; e <= epochs; ++e) {
      const double s = e > 0 ? sweep_seconds[static_cast<std::size_t>(e - 1)] : 0.0;
      seconds += s;
      std::printf("{\"epoch\": %d, \"seconds\": %.4f, \"loglik_per_token\": %.6f, \"tokens_per_s\": %.1f}\n", e, seconds,
                  ll[static_cast<std::size_t>(e)], s > 0 ? static_cast<double>(corpus.tokens()) / s : 0.0);
    }
    return 0;
  });
}
