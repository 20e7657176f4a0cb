// tests/apps/lasso/gyre_lasso_cli_test.cpp — gyre-lasso as a user runs it: generated data in, coefficients and metrics out; every bad input.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <cmath>
#include <sstream>

#include "support/cli_checks.hpp"
#include "support/run_command.hpp"
#include "support/temp_dir.hpp"

using gyre::test::gyre_lasso;
using gyre::test::build_path;
using gyre::test::json_lines;
using gyre::test::read_text;
using gyre::test::run_command;
using gyre::test::TempDir;
using gyre::test::write_text;

namespace {

// gyre-lasso on bad input, with outputs asked for: refused, nothing written.
void expect_bad_lasso_input(const TempDir& dir, const std::vector<std::string>& input_args, const std::string& where,
                            const std::string& fragment) {
  std::vector<std::string> argv{gyre_lasso()};
  argv.insert(argv.end(), input_args.begin(), input_args.end());
  argv.insert(argv.end(), {"--lambda", "0.1", "--out", (dir / "coef.tsv").string(), "--metrics",
                           (dir / "metrics.jsonl").string()});
  gyre::test::expect_refused("gyre-lasso", argv, dir, where, fragment);
}

// A planted problem of 1500 rows and 200 features in DIR/data (gyre-gen regression).
void generate_regression(const TempDir& dir) {
  const auto gen = run_command({build_path("tools/gyre-gen").string(), "regression", "--samples", "1500", "--features",
                                "200", "--nnz-per-row", "20", "--support", "6", "--correlation", "0.5", "--noise",
                                "0.1", "--seed", "3", "--out", (dir / "data").string()});
  REQUIRE_MESSAGE(gen.exit_code == 0, gen.output);
}

}  // namespace

TEST_CASE("gyre-lasso solves a generated problem, reports per check and writes the coefficient table") {
  TempDir dir;
  generate_regression(dir);
  const auto r = run_command({gyre_lasso(), "--data", (dir / "data").string(), "--path", "5", "--lambda-ratio", "0.05",
                              "--schedule", "priority", "--batch", "8", "--rho", "0.4", "--depth", "2", "--workers", "2",
                              "--threads", "1", "--tol", "1e-9", "--seed", "4", "--out", (dir / "coef.tsv").string(),
                              "--metrics", (dir / "metrics.jsonl").string()});
  REQUIRE_MESSAGE(r.exit_code == 0, r.output);
  CHECK(r.output.find("lambda_max") != std::string::npos);
  CHECK(r.output.find("not converged") == std::string::npos);

  const auto checks = json_lines(read_text(dir / "metrics.jsonl"));
  REQUIRE(checks.size() >= 5);
  for (const char* key : {"lambda", "round", "seconds", "objective", "nnz", "kkt_violation", "duality_gap", "updates"})
    CHECK_MESSAGE(checks.back().contains(key), key);
  CHECK(checks.back()["lambda_index"] == 4);
  CHECK(checks.back()["duality_gap"].get<double>() <= 1e-9 * checks.back()["objective"].get<double>());

  // The table: header, then per λ the intercept and the non-zeros; the last λ finds the support.
  std::istringstream table(read_text(dir / "coef.tsv"));
  std::string line;
  std::getline(table, line);
  CHECK(line == "lambda\tfeature\tname\tcoefficient");
  int intercepts = 0;
  std::size_t last_lambda_rows = 0;
  std::string last_lambda;
  while (std::getline(table, line)) {
    std::istringstream fields(line);
    std::string lambda, feature, name, value;
    std::getline(fields, lambda, '\t');
    std::getline(fields, feature, '\t');
    std::getline(fields, name, '\t');
    std::getline(fields, value, '\t');
    if (feature == "0") {
      ++intercepts;
      CHECK(name == "(intercept)");
      last_lambda = lambda;
      last_lambda_rows = 0;
    } else {
      CHECK(name == "x" + feature);
      CHECK(std::stod(value) != 0);
      ++last_lambda_rows;
    }
  }
  CHECK(intercepts == 5);
  CHECK(last_lambda_rows >= 6);
}

TEST_CASE("gyre-lasso --model C and D: the rounds' objectives in the same table and metrics; what they refuse") {
  TempDir dir;
  generate_regression(dir);
  const auto solve = [&](const std::string& name, std::vector<std::string> flags) {
    std::vector<std::string> argv{gyre_lasso(), "--data", (dir / "data").string(), "--path", "3", "--lambda-ratio",
                                  "0.05", "--tol", "1e-10", "--out", (dir / (name + ".tsv")).string(), "--metrics",
                                  (dir / (name + ".jsonl")).string()};
    argv.insert(argv.end(), flags.begin(), flags.end());
    return run_command(argv);
  };
  const auto rounds = solve("rounds", {});
  REQUIRE_MESSAGE(rounds.exit_code == 0, rounds.output);
  const auto reference = json_lines(read_text(dir / "rounds.jsonl"));
  for (const auto& run : std::vector<std::pair<std::string, std::vector<std::string>>>{
           {"c", {"--model", "C", "--workers", "3"}}, {"allreduce", {"--model", "allreduce"}},
           {"d", {"--model", "D", "--workers", "2"}}, {"nosync", {"--model", "nosync", "--check-every", "400"}}}) {
    const std::string& name = run.first;
    CAPTURE(name);
    const auto r = solve(name, run.second);
    REQUIRE_MESSAGE(r.exit_code == 0, r.output);
    CHECK(r.output.find("workers owning columns") != std::string::npos);
    CHECK(r.output.find("not converged") == std::string::npos);
    const auto checks = json_lines(read_text(dir / (name + ".jsonl")));
    REQUIRE(!checks.empty());
    for (const auto& field : reference.back().items()) CHECK_MESSAGE(checks.back().contains(field.key()), field.key());
    CHECK(checks.back()["lambda_index"] == 2);
    CHECK(checks.back()["objective"].get<double>() ==
          doctest::Approx(reference.back()["objective"].get<double>()).epsilon(1e-8));
    const auto lines = [](const std::string& t) { return std::count(t.begin(), t.end(), '\n'); };
    CHECK(lines(read_text(dir / (name + ".tsv"))) == lines(read_text(dir / "rounds.tsv")));
  }
  // The logistic loss, checkpoints and unknown models are refused before anything is written.
  const auto logistic = solve("bad", {"--model", "C", "--loss", "logistic"});
  CHECK(logistic.exit_code == 2);
  CHECK_MESSAGE(logistic.output.find("squared loss only") != std::string::npos, logistic.output);
  const auto checkpoints = solve("bad", {"--model", "D", "--checkpoint", (dir / "ck").string()});
  CHECK(checkpoints.exit_code == 2);
  CHECK_MESSAGE(checkpoints.output.find("--model rounds only") != std::string::npos, checkpoints.output);
  CHECK_FALSE(std::filesystem::exists(dir / "ck"));
  const auto unknown = solve("bad", {"--model", "B"});
  CHECK(unknown.exit_code == 2);
  CHECK_MESSAGE(unknown.output.find("expected rounds, C|allreduce or D|nosync") != std::string::npos, unknown.output);
  CHECK_FALSE(std::filesystem::exists(dir / "bad.tsv"));
  CHECK_FALSE(std::filesystem::exists(dir / "bad.jsonl"));
}

TEST_CASE("gyre-lasso reads CSV with a header and MatrixMarket with a response file") {
  TempDir dir;
  write_text(dir / "d.csv", "a,b,c,price\n1,0,2,3.5\n0,1,1,2.0\n2,2,0,4.5\n1,1,1,3.0\n3,0,1,5.5\n");
  const auto csv = run_command({gyre_lasso(), "--data", (dir / "d.csv").string(), "--response-column", "price", "--lambda",
                                "0.01", "--out", (dir / "csv.tsv").string(), "--quiet"});
  REQUIRE_MESSAGE(csv.exit_code == 0, csv.output);
  CHECK(read_text(dir / "csv.tsv").find("\ta\t") != std::string::npos);  // names from the header

  write_text(dir / "x.mtx", "%%MatrixMarket matrix coordinate real general\n4 2 5\n1 1 1.0\n2 2 2.0\n3 1 1.5\n4 1 -1\n4 2 1\n");
  write_text(dir / "x.response", "1\n2\n3\n0.5\n");
  const auto mtx = run_command({gyre_lasso(), "--data", (dir / "x.mtx").string(), "--lambda", "0.01", "--out",
                                (dir / "mtx.tsv").string(), "--quiet"});
  REQUIRE_MESSAGE(mtx.exit_code == 0, mtx.output);
  CHECK(read_text(dir / "mtx.tsv").find("\tx2\t") != std::string::npos);
}

TEST_CASE("gyre-lasso refuses bad input with file, line and what was expected, and writes nothing") {
  TempDir dir;
  write_text(dir / "zero.libsvm", "1.0 1:0.5 3:1\n2.0 0:1.5\n");
  expect_bad_lasso_input(dir, {"--data", (dir / "zero.libsvm").string()}, "zero.libsvm:2", "1-based");
  write_text(dir / "word.libsvm", "1.0 1:0.5\n2.0 2:abc\n");
  expect_bad_lasso_input(dir, {"--data", (dir / "word.libsvm").string()}, "word.libsvm:2", "number");
  write_text(dir / "ragged.csv", "a,b,y\n1,2,3\n4,5\n");
  expect_bad_lasso_input(dir, {"--data", (dir / "ragged.csv").string()}, "ragged.csv:3", "3 fields");
  write_text(dir / "m.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 1.0\n");
  write_text(dir / "m.response", "");
  expect_bad_lasso_input(dir, {"--data", (dir / "m.mtx").string()}, "m.response", "");
  expect_bad_lasso_input(dir, {"--data", (dir / "missing.libsvm").string()}, "missing.libsvm", "");
}

TEST_CASE("gyre-lasso needs exactly one of --lambda and --path, and a sane alpha") {
  TempDir dir;
  write_text(dir / "d.libsvm", "1 1:1\n2 1:2\n");
  auto r = run_command({gyre_lasso(), "--data", (dir / "d.libsvm").string()});
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("--lambda") != std::string::npos);
  r = run_command({gyre_lasso(), "--data", (dir / "d.libsvm").string(), "--lambda", "1", "--path", "3"});
  CHECK(r.exit_code != 0);
  r = run_command({gyre_lasso(), "--data", (dir / "d.libsvm").string(), "--lambda", "1", "--alpha", "0"});
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("alpha") != std::string::npos);
}

TEST_CASE("gyre-lasso --loss logistic takes any two classes, names them, and refuses a third at its line") {
  TempDir dir;
  write_text(dir / "two.libsvm", "3 1:1 2:0.5\n7 1:-1 2:0.2\n3 1:0.8\n7 2:1.5\n7 1:-0.3 2:0.9\n3 1:0.4 2:-1\n");
  const auto ok = run_command({gyre_lasso(), "--data", (dir / "two.libsvm").string(), "--loss", "logistic", "--path", "3",
                               "--out", (dir / "coef.tsv").string()});
  CHECK_MESSAGE(ok.exit_code == 0, ok.output);
  CHECK(ok.output.find("class 1 is label 7, class 0 label 3") != std::string::npos);
  CHECK(read_text(dir / "coef.tsv").find("(intercept)") != std::string::npos);
  write_text(dir / "three.libsvm", "1 1:1\n-1 1:2\n1 1:0.5\n2 1:3\n");
  expect_bad_lasso_input(dir, {"--data", (dir / "three.libsvm").string(), "--loss", "logistic"}, "three.libsvm:4", "class");
  write_text(dir / "one.libsvm", "1 1:1\n1 1:2\n");
  expect_bad_lasso_input(dir, {"--data", (dir / "one.libsvm").string(), "--loss", "logistic"}, "one.libsvm", "class");
}
