// gyre/gyre.hpp — the one header an embedding service includes: the embedding API, and nothing else.
//
// What an embedder does is write a kernel and start a job; this header holds what that takes.
//  - A job and how it fails (runtime/): runtime::Job, its backends (ThreadsBackend in this
//    process, LoopbackBackend, ProcessesBackend across processes: launch, coordinator, token,
//    log sink), runtime::run and JobHandle (cancel, wait), the member's Mailbox, JobFailed and
//    its cause. Every engine starts through runtime::run.
//  - The engines an embedder drives (pipeline/): rotation (RotationKernel, run_rotation,
//    run_embedded, ClusterJobOptions), the parameter server (PsProgram, run_ps), the peer-to-peer
//    engine (P2pProgram, run_p2p: every peer owns a part of the keys, no server) and the rounds
//    (run_rounds_job, serve_rounds: an app's schedule / push / pull). Their headers bring the
//    scheduler's pieces they name: RotationSchedule, Visit, PhasePolicy and PhaseResult,
//    BarrierSpec and BarrierRule (a barrier of the embedder's own), RoundsDriver, Task and
//    Step; a rounds app's scheduling tools come with them (ParameterSampler: cyclic, random
//    or priority; DependencyCheck: STRADS's ρ filter).
//  - The map-reduce engine (mapreduce/): typed distributed collections over the same runtime,
//    with Owl Actor's verbs (load by byte ranges, map, flatmap, filter, fold, reduce,
//    reduce_by_key, shuffle, union, join, collect, count, broadcast, save), mapreduce::run;
//    for an app's own reader of a file by byte ranges, settle_ranges and run_loading.
//  - A kernel's own tools: model::Block (the rows it updates), collective::Communicator
//    (allreduce, allgather, broadcast over the workers: a part's or a kernel's state that does
//    not rotate), collective::ModelAverager (a replica per worker blended with the others' in
//    the background: model averaging, with abort and resume), Random (seeded, reproducible draws).
//  - A protocol of the embedder's own on a member's links: the channel registry
//    (channels::user_channel) and the body codec (wire::Writer, wire::Reader, bounded reads).
// Left out, and not installed: the data readers and shard files, the reports, the lock service,
// partition-table collectives, the gather to rank 0, the worker engine's
// insides and the transport's (Asio, libsodium): the apps' and tools' business, or internal.
#pragma once

#include "gyre/base/export.hpp"
#include "gyre/base/random.hpp"
#include "gyre/collective/communicator.hpp"
#include "gyre/collective/model_averager.hpp"
#include "gyre/mapreduce/mapreduce.hpp"
#include "gyre/model/block.hpp"
#include "gyre/pipeline/cluster_job.hpp"
#include "gyre/pipeline/embedded_job.hpp"
#include "gyre/pipeline/p2p_job.hpp"
#include "gyre/pipeline/ps_job.hpp"
#include "gyre/pipeline/rotate.hpp"
#include "gyre/pipeline/rotation_job.hpp"
#include "gyre/pipeline/rotation_kernel.hpp"
#include "gyre/pipeline/rounds_job.hpp"
#include "gyre/scheduler/dependency_check.hpp"
#include "gyre/scheduler/parameter_sampler.hpp"
#include "gyre/runtime/backend_from.hpp"
#include "gyre/runtime/failure.hpp"
#include "gyre/runtime/job.hpp"
#include "gyre/runtime/mailbox.hpp"
#include "gyre/runtime/parts.hpp"
#include "gyre/wire/body.hpp"
#include "gyre/wire/channels.hpp"
