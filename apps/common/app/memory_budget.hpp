// apps/common/app/memory_budget.hpp — how much memory a run may plan for, and the refusal when its model would not fit.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>

namespace gyre::app {

// This machine's physical memory, or the process's cgroup limit if that is lower; 0 if neither
// can be read. Read by the binaries only: the library takes budgets as explicit numbers.
std::uint64_t machine_memory_bytes();

// Adds --max-memory SIZE (bytes, or with a K, M, G or T suffix, powers of 1024) binding
// `bytes`, whose default is machine_memory_bytes().
void add_max_memory_flag(CLI::App& app, std::uint64_t& bytes);

// Throws std::invalid_argument when `needed` bytes exceed `budget`: "<what> needs about 3.2 GiB,
// more than the memory budget of 1.0 GiB (--max-memory)". A budget of 0 means unknown: no check.
void require_memory(std::uint64_t needed, std::uint64_t budget, const std::string& what);

// "3.2 GiB", "512 MiB", "800 bytes".
std::string format_bytes(double bytes);

// Has glibc's malloc keep one arena for every thread (M_ARENA_MAX = 1; nothing elsewhere). By
// default each thread that allocates gets an arena of its own, which keeps what that thread
// freed: gyre-lda's parsing threads left ~25 MB of the text's tokens in theirs, which training,
// on other threads, could not reuse. Called by a binary's main, before any thread starts: the
// process is the binary's, so its allocator is too (the library leaves an embedder's alone).
void use_one_malloc_arena();

}  // namespace gyre::app
