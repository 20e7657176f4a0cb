// gyre/base/entry_point.hpp — how every gyre binary turns an error into a message and an exit code.
#pragma once

#include <functional>

namespace gyre {

// Runs `body` and returns its exit code. gyre::InputError and std::invalid_argument (bad input
// files, impossible settings) print "PROGRAM: error: WHAT" and return kExitBadInput (2); any
// other exception prints the same way and returns 1 (std::bad_alloc as "out of memory").
// For binaries only: it first makes SIGINT, SIGTERM, SIGHUP and SIGPIPE remove the temporary
// names of unpublished outputs (remove_temp_paths) before they end the process.
int run_entry_point(const char* program, const std::function<int()>& body);

}  // namespace gyre
