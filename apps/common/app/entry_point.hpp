// app/entry_point.hpp — a binary's entry point, where another rank's refusal of its input is bad input here too.
#pragma once

#include <functional>

namespace gyre::app {

// gyre::run_entry_point, and a runtime::JobFailed whose cause is kBadInput (another rank of a
// multi-process job refused the input) exits as bad input (2), as the rank that refused it
// does: a fault every rank finds (a whole-file fault) then exits 2 everywhere, whichever
// rank's notice arrives first.
int run_entry_point(const char* program, const std::function<int()>& body);

}  // namespace gyre::app
