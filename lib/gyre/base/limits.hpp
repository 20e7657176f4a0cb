// gyre/base/limits.hpp — the largest thread, worker and pipeline-depth counts gyre accepts.
#pragma once

namespace gyre {

// Values beyond these are typos or attacks rather than machines: 2^31 threads crash inside
// TBB, 10^9 passes never end. Configurations are checked against them before any work.
inline constexpr int kMaxThreads = 4096;  // threads per worker (the size of its task_arena)
inline constexpr int kMaxWorkers = 4096;  // workers of one job, in one process or across processes
inline constexpr int kMaxDepth = 1024;    // pipeline depth: blocks in flight per worker

}  // namespace gyre
