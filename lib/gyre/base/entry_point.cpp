// gyre/base/entry_point.cpp — error-to-exit-code mapping of the command-line tools, and their cleanup on signals.
#include "gyre/base/entry_point.hpp"

#include <signal.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <new>
#include <stdexcept>

#include "gyre/base/input_error.hpp"
#include "gyre/base/temp_paths.hpp"

namespace gyre {
namespace {

void remove_temporaries_and_die(int signal_number) {
  remove_temp_paths();
  // SA_RESETHAND has restored the default action; the signal is blocked while this handler
  // runs, so it is delivered (and ends the process with the usual status) once we return.
  ::raise(signal_number);
}

// Ctrl-C, kill, a closed terminal or a reader gone from a pipe end the process as usual, but
// first remove the temporary names of unpublished outputs. A signal the parent set to be
// ignored (a shell's background job ignores SIGINT) stays ignored.
void install_cleanup_on_signals() {
  for (const int s : {SIGINT, SIGTERM, SIGHUP, SIGPIPE}) {
    struct sigaction current {};
    if (::sigaction(s, nullptr, &current) != 0 || current.sa_handler == SIG_IGN) continue;
    struct sigaction action {};
    action.sa_handler = remove_temporaries_and_die;
    action.sa_flags = SA_RESETHAND;
    ::sigemptyset(&action.sa_mask);
    ::sigaction(s, &action, nullptr);
  }
}

// What a run printed (epoch lines, a model's figures) is part of its result: a standard output
// that cannot take it (a full disk, /dev/full, a closed pipe) fails the run instead of losing it.
int with_output_flushed(const char* program, int code) {
  errno = 0;
  if (std::fflush(stdout) == 0 && !std::ferror(stdout)) return code;
  std::fprintf(stderr, "%s: error: cannot write to standard output: %s\n", program,
               errno != 0 ? std::strerror(errno) : "write error");
  return code == 0 ? 1 : code;
}

}  // namespace

int run_entry_point(const char* program, const std::function<int()>& body) {
  install_cleanup_on_signals();
  try {
    return with_output_flushed(program, body());
  } catch (const InputError& e) {
    std::fprintf(stderr, "%s: error: %s\n", program, e.what());
    return kExitBadInput;
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "%s: error: %s\n", program, e.what());
    return kExitBadInput;
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "%s: error: out of memory (the input or the model it needs does not fit this machine)\n",
                 program);
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: error: %s\n", program, e.what());
    return 1;
  }
}

}  // namespace gyre
