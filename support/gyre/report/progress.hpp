// gyre/report/progress.hpp — a progress line that redraws in place on a terminal and stays quiet elsewhere.
#pragma once

#include <chrono>
#include <cstdio>
#include <string>

namespace gyre::report {

// On a terminal, update() redraws one status line ("\r...") with elapsed time and an ETA;
// when the stream is a file or pipe nothing is drawn, so logs hold only the permanent lines
// that print() writes. print() clears the status line first so the two never interleave.
class Progress {
 public:
  Progress(std::FILE* stream, bool enabled);
  // Whether `stream` is a terminal (the usual way to decide `enabled`).
  static bool is_terminal(std::FILE* stream);

  void update(double done, double total, const std::string& what);
  // Writes a permanent line to `out` (stdout by default) after clearing the status line.
  void print(const std::string& line, std::FILE* out = stdout);
  void finish();

 private:
  std::FILE* stream_;
  bool enabled_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace gyre::report
