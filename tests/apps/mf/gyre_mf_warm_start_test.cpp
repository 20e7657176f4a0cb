// tests/apps/mf/gyre_mf_warm_start_test.cpp — gyre-mf --init-model: 5 + 5 epochs give the bits of 10, and a model that does not fit is refused.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "gyre_mf_run.hpp"

using namespace gyre::test;

namespace {

// gyre-mf on dir's data with `extra` flags (and rank 4 unless they give one); requires success.
// The deterministic local schedule: the default (dynamic) gives other bits on every run of more
// than one thread.
void run_gyre_mf(const TempDir& dir, std::vector<std::string> extra) {
  std::vector<std::string> argv{gyre_mf(), "--train", (dir / "train.tsv").string(), "--test", (dir / "test.tsv").string(),
                                "--local-schedule", "deterministic", "--quiet"};
  if (std::find(extra.begin(), extra.end(), "--rank") == extra.end()) argv.insert(argv.end(), {"--rank", "4"});
  argv.insert(argv.end(), extra.begin(), extra.end());
  const auto r = run_command(argv);
  REQUIRE_MESSAGE(r.exit_code == 0, r.output);
}

void check_same_model(const std::filesystem::path& a, const std::filesystem::path& b) {
  for (const char* file : {"user_factors.tsv", "item_factors.tsv", "model.json"}) {
    INFO(file);
    CHECK(read_text(a / file) == read_text(b / file));
  }
}

// 10 epochs straight and 5 + 5 through a saved model. `model_flags` are given to the first runs
// only (the continuation takes them from model.json), `run_flags` to all three. Returns the
// saved half's model.json.
nlohmann::json check_continuation(const std::vector<std::string>& model_flags, const std::vector<std::string>& run_flags,
                                  const std::string& noise = "0.1") {
  TempDir dir;
  generate_mf_ratings(dir, 5, noise);
  auto with = [&](std::vector<std::string> more, bool model) {
    if (model) more.insert(more.end(), model_flags.begin(), model_flags.end());
    more.insert(more.end(), run_flags.begin(), run_flags.end());
    return more;
  };
  run_gyre_mf(dir, with({"--epochs", "10", "--out", (dir / "straight").string()}, true));
  run_gyre_mf(dir, with({"--epochs", "5", "--out", (dir / "half").string()}, true));
  run_gyre_mf(dir, with({"--init-model", (dir / "half").string(), "--epochs", "5", "--out", (dir / "continued").string(),
                         "--metrics", (dir / "m.jsonl").string()},
                        false));
  check_same_model(dir / "straight", dir / "continued");
  CHECK(read_text(dir / "half" / "user_factors.tsv") != read_text(dir / "straight" / "user_factors.tsv"));
  const auto header = nlohmann::json::parse(read_text(dir / "continued" / "model.json"));
  CHECK(header.at("epochs") == 10);
  // The continuation numbers its epochs on from the saved model's.
  CHECK(nlohmann::json::parse(read_text(dir / "m.jsonl").substr(0, read_text(dir / "m.jsonl").find('\n')))
            .at("epoch") == 6);
  return nlohmann::json::parse(read_text(dir / "half" / "model.json"));
}

}  // namespace

TEST_CASE("gyre-mf --init-model: 5 epochs, saved, then 5 more equal 10 epochs bitwise (default schedule)") {
  // The defaults hold ratings out and steer the rate by them: on these planted low-noise
  // ratings it has grown by the 5th epoch, so the continuation must go on from the grown rate
  // and from the saved model's last held-out and training RMSE.
  const auto half = check_continuation({}, {});
  CHECK(half.at("lr_grow").get<double>() == doctest::Approx(1.5));
  CHECK(half.at("rate_scale").get<double>() > 1);
  CHECK(half.at("train_rmse").get<double>() > 0);
}

TEST_CASE("gyre-mf --init-model: the same with biases and the global mean") {
  check_continuation({"--biases", "--lr", "0.03", "--lr-decay", "0.9"}, {});
}

TEST_CASE("gyre-mf --init-model: the same with 3 workers, random ring orders and depth 2 (the ring goes on)") {
  check_continuation({}, {"--workers", "3", "--ring", "random", "--depth", "2"});
}

TEST_CASE("gyre-mf --init-model: the same under CCD++ with 2 inner passes and 2 workers (its phases go on from model.json)") {
  const auto half = check_continuation({"--update", "ccd", "--ccd-inner", "2"}, {"--workers", "2"});
  CHECK(half.at("update") == "ccd");
  CHECK(half.at("ccd_inner") == 2);
  CHECK(half.at("phases") == 5 * (2 * 4 * 2 + 1));
}

TEST_CASE("gyre-mf --init-model: the same under held-out rate cuts (the rate's state goes on from model.json)") {
  // Noisy ratings, a rank and no regularisation that overfit them: the held-out RMSE rises
  // within the first 5 epochs, so the continuation must start from the cut rate and compare
  // its first epoch with the saved model's last held-out RMSE.
  const auto half = check_continuation({"--lr", "0.3", "--lr-decay", "1", "--lambda", "0", "--lr-cut", "0.3", "--held-out", "0.05",
                                        "--lr-grow", "1"},
                                       {"--rank", "16", "--lr-warmup", "0.333"}, "1");
  CHECK(half.at("lr_cut").get<double>() == doctest::Approx(0.3));
  CHECK(half.at("held_out").get<double>() == doctest::Approx(0.05));
  CHECK(half.at("rate_scale").get<double>() < 0.1);
  CHECK(half.at("held_out_rmse").get<double>() > 1);
}

TEST_CASE("gyre-mf --init-model refuses a model that does not fit the command line or the data") {
  TempDir dir;
  generate_mf_ratings(dir, 5);
  run_gyre_mf(dir, {"--epochs", "2", "--out", (dir / "m").string()});
  const auto model_json = (dir / "m" / "model.json").string();

  SUBCASE("a rank that disagrees names model.json and the flag") {
    const auto r = run_command({gyre_mf(), "--train", (dir / "train.tsv").string(), "--init-model", (dir / "m").string(),
                                "--rank", "6", "--out", (dir / "out").string()});
    CHECK(r.exit_code == 2);
    CHECK_MESSAGE(r.output.find(model_json + " has rank 4") != std::string::npos, r.output);
    CHECK_MESSAGE(r.output.find("--rank 6") != std::string::npos, r.output);
    CHECK(!std::filesystem::exists(dir / "out"));
  }
  SUBCASE("biases that disagree, a seed, and a held-out cap (it picks the held-out ratings as the share does)") {
    CHECK(nlohmann::json::parse(read_text(dir / "m" / "model.json")).at("held_out_max") == 10000);
    for (const std::vector<std::string>& flag :
         {std::vector<std::string>{"--biases"}, {"--seed", "7"}, {"--held-out-max", "0"}}) {
      std::vector<std::string> argv{gyre_mf(), "--train", (dir / "train.tsv").string(), "--init-model", (dir / "m").string()};
      argv.insert(argv.end(), flag.begin(), flag.end());
      const auto r = run_command(argv);
      CHECK(r.exit_code == 2);
      CHECK_MESSAGE(r.output.find(model_json) != std::string::npos, r.output);
      CHECK_MESSAGE(r.output.find(flag.front()) != std::string::npos, r.output);
    }
  }
  SUBCASE("the model's own values given again are fine") {
    const auto r = run_command({gyre_mf(), "--train", (dir / "train.tsv").string(), "--init-model", (dir / "m").string(),
                                "--rank", "4", "--seed", "1", "--epochs", "1", "--quiet"});
    CHECK_MESSAGE(r.exit_code == 0, r.output);
  }
  SUBCASE("a user the model lacks names the user and user_factors.tsv") {
    write_text(dir / "more.tsv", read_text(dir / "train.tsv") + "123456 3 4.5\n");
    const auto r = run_command({gyre_mf(), "--train", (dir / "more.tsv").string(), "--init-model", (dir / "m").string(),
                                "--out", (dir / "out").string()});
    CHECK(r.exit_code == 2);
    CHECK_MESSAGE(r.output.find("user 123456") != std::string::npos, r.output);
    CHECK_MESSAGE(r.output.find((dir / "m" / "user_factors.tsv").string()) != std::string::npos, r.output);
    CHECK(!std::filesystem::exists(dir / "out"));
  }
  SUBCASE("a damaged model names the file and the line") {
    write_text(dir / "m" / "item_factors.tsv", "0\t0.5\n");
    const auto r = run_command({gyre_mf(), "--train", (dir / "train.tsv").string(), "--init-model", (dir / "m").string()});
    CHECK(r.exit_code == 2);
    CHECK_MESSAGE(r.output.find((dir / "m" / "item_factors.tsv").string() + ":1:") != std::string::npos, r.output);
  }
  SUBCASE("a version-1 model (no training record) cannot be continued") {
    auto header = nlohmann::json::parse(read_text(dir / "m" / "model.json"));
    for (const char* key : {"epochs", "learning_rate", "lr_decay", "lambda", "lambda_bias", "seed", "phases"})
      header.erase(key);
    header["version"] = 1;
    write_text(dir / "m" / "model.json", header.dump());
    const auto r = run_command({gyre_mf(), "--train", (dir / "train.tsv").string(), "--init-model", (dir / "m").string()});
    CHECK(r.exit_code == 2);
    CHECK_MESSAGE(r.output.find("no training record") != std::string::npos, r.output);
  }
}
