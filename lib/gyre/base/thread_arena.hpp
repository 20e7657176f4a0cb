// gyre/base/thread_arena.hpp — a TBB arena that gets the threads it is asked for, without TBB's warning on stderr.
#pragma once

#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/task_arena.h>

#include <algorithm>
#include <cstddef>
#include <optional>

namespace gyre {
namespace detail {

// TBB sizes its thread pool by the hardware (cores − 1 workers) and ignores an arena's request
// for more, printing a "TBB Warning" on stderr that no log sink can catch. While it lives,
// this raises the pool's limit to `threads`. It never lowers it, and global_control obeys the
// smallest of its live instances, so a caller's own cap (an embedding service's) still wins.
class ThreadAllowance {
 public:
  explicit ThreadAllowance(int threads) {
    using oneapi::tbb::global_control;
    const auto wanted = static_cast<std::size_t>(std::max(1, threads));
    if (global_control::active_value(global_control::max_allowed_parallelism) < wanted)
      raised_.emplace(global_control::max_allowed_parallelism, wanted);
  }
  // What an arena may have now: `threads`, or less under a caller's cap.
  static int allowed(int threads) {
    using oneapi::tbb::global_control;
    const auto limit = global_control::active_value(global_control::max_allowed_parallelism);
    return static_cast<int>(std::min<std::size_t>(static_cast<std::size_t>(std::max(1, threads)), limit));
  }

 private:
  std::optional<oneapi::tbb::global_control> raised_;
};

}  // namespace detail

// An arena of `threads` threads (at least one; fewer only under a caller's global_control cap).
// The allowance is a base constructed before the arena and destroyed after it.
class ThreadArena : private detail::ThreadAllowance, public oneapi::tbb::task_arena {
 public:
  explicit ThreadArena(int threads) : ThreadAllowance(threads), task_arena(ThreadAllowance::allowed(threads)) {}
};

}  // namespace gyre
