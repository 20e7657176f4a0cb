// gyre/rotation/phase_follower.hpp — a worker that runs whatever phase the scheduler starts, for engines without a flow graph.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>

#include "gyre/rotation/protocol.hpp"
#include "gyre/runtime/mailbox.hpp"

namespace gyre::rotation {

// Runs one phase, given what the scheduler sent with its start, and returns the sums the
// scheduler's policy reads.
using RunPhase = std::function<rotation::PhaseSums(std::uint64_t phase, rotation::PhaseKind kind,
                                                    std::span<const std::byte> payload)>;

// Answers the RotationDriver's protocol: each kPhaseGo runs `run` and reports kPhaseDone; kStop
// returns. A failure notice (or the group closing) throws runtime::JobFailed with its text; an
// exception from `run`, or a phase start out of order or of an unknown kind, is told to the
// scheduler (which fails the job) and rethrown. The
// engines of Harp's locking and allreduce models use it, so the epoch policy, its reports and
// its failure handling are the rotation's.
void follow_phases(runtime::Mailbox& inbox, int scheduler_rank, std::chrono::milliseconds timeout, const RunPhase& run);

}  // namespace gyre::rotation
