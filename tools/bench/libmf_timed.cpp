// tools/bench/libmf_timed.cpp — LIBMF's training (its public API: read_problem,
// mf_train_with_validation) with each of its iteration lines stamped by the seconds since
// training began, so that tools/bench/mf-libmf can read LIBMF's training clock beside
// gyre-mf's --metrics seconds. Neither counts reading the text files. Built by that script
// against a LIBMF checkout (this file is gyre's; LIBMF's code stays in its own folder).
//
//   libmf_timed TRAIN TEST RANK THREADS LAMBDA ETA ITERATIONS
//
// The settings are mf-train's for `-k RANK -s THREADS -l2 LAMBDA -r ETA -t ITERATIONS -p TEST`:
// squared loss, L2 on both sides, its default bins (at least 2·THREADS + 1), the ratings not
// copied. Output: "start" once the files are read, then each of LIBMF's lines prefixed by the
// seconds since then ("12.345 | 3 0.8123 0.8421 1.2e+07").
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <streambuf>
#include <string>

#include "mf.h"

namespace {

// Writes what LIBMF prints, a line at a time, each with the seconds since `start_` in front.
class StampedLines : public std::streambuf {
 public:
  explicit StampedLines(std::streambuf* out) : out_(out) {}
  void start() { start_ = std::chrono::steady_clock::now(); }

 protected:
  int overflow(int c) override {
    if (c == traits_type::eof()) return traits_type::not_eof(c);
    line_ += static_cast<char>(c);
    if (c == '\n') flush_line();
    return c;
  }
  int sync() override { return out_->pubsync(); }

 private:
  void flush_line() {
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    char stamp[32];
    std::snprintf(stamp, sizeof stamp, "%.3f | ", seconds);
    out_->sputn(stamp, static_cast<std::streamsize>(std::char_traits<char>::length(stamp)));
    out_->sputn(line_.data(), static_cast<std::streamsize>(line_.size()));
    out_->pubsync();
    line_.clear();
  }

  std::streambuf* out_;
  std::string line_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

}  // namespace

int main(int argc, char** argv) {
  if (argc != 8) {
    std::cerr << "usage: libmf_timed TRAIN TEST RANK THREADS LAMBDA ETA ITERATIONS\n";
    return 2;
  }
  mf::mf_problem train = mf::read_problem(argv[1]);
  mf::mf_problem test = mf::read_problem(argv[2]);
  mf::mf_parameter param = mf::mf_get_default_param();
  param.k = std::atoi(argv[3]);
  param.nr_threads = std::atoi(argv[4]);
  param.lambda_p2 = param.lambda_q2 = static_cast<float>(std::atof(argv[5]));
  param.eta = static_cast<float>(std::atof(argv[6]));
  param.nr_iters = std::atoi(argv[7]);
  param.nr_bins = std::max(param.nr_bins, 2 * param.nr_threads + 1);
  param.copy_data = false;

  StampedLines stamped(std::cout.rdbuf());
  std::cout << "start" << std::endl;
  std::streambuf* plain = std::cout.rdbuf(&stamped);
  stamped.start();
  mf::mf_model* model = mf::mf_train_with_validation(&train, &test, param);
  std::cout.rdbuf(plain);
  mf::mf_destroy_model(&model);
  delete[] train.R;
  delete[] test.R;
  return 0;
}
