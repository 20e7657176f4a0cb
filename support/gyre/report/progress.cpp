// gyre/report/progress.cpp — terminal status line with ETA.
#include "gyre/report/progress.hpp"

#include <unistd.h>

namespace gyre::report {

Progress::Progress(std::FILE* stream, bool enabled)
    : stream_(stream), enabled_(enabled), start_(std::chrono::steady_clock::now()) {}

bool Progress::is_terminal(std::FILE* stream) { return ::isatty(::fileno(stream)) == 1; }

void Progress::update(double done, double total, const std::string& what) {
  if (!enabled_) return;
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const double fraction = total > 0 ? done / total : 0;
  const double eta = fraction > 0 ? elapsed * (1 - fraction) / fraction : 0;
  std::fprintf(stream_, "\r\033[K%s  %5.1f%%  %.0fs elapsed  eta %.0fs", what.c_str(), 100 * fraction,
               elapsed, eta);
  std::fflush(stream_);
  drawn_ = true;
}

void Progress::print(const std::string& line, std::FILE* out) {
  finish();
  std::fputs(line.c_str(), out);
  std::fputc('\n', out);
  std::fflush(out);
}

void Progress::finish() {
  if (drawn_) std::fputs("\r\033[K", stream_);
  drawn_ = false;
  std::fflush(stream_);
}

}  // namespace gyre::report
