// gyre/gyre.hpp — the one header an embedding service includes: the embedding API, and nothing else.
//
// What an embedder does is write a kernel and start a job; this header holds what that takes.
//  - A job and how it fails (runtime/): runtime::Job, its backends (ThreadsBackend in this
//    process, LoopbackBackend, ProcessesBackend across processes: launch, coordinator, token,
//    log sink), runtime::run and JobHandle (cancel, wait), the member's Mailbox, JobFailed and
//    its cause. Every engine starts through runtime::run.
//  - The engines an embedder drives, a folder each: rotation/ (RotationKernel, rotate,
//    run_rotation, run_embedded; the phases a PhasePolicy sees, the RotationSchedule and its
//    Visit), rounds/ (run_rounds_app, serve_rounds: an app's schedule / push / pull, with
//    RoundsDriver, Task and Step, and a rounds app's scheduling tools: ParameterSampler,
//    cyclic, random or priority; DependencyCheck, STRADS's ρ filter), and ps/ (one ps::Program
//    written against ps::Worker, run on the parameter server, run_ps, or peer to peer, run_p2p:
//    every worker owns a part of the keys; BarrierSpec and BarrierRule, a barrier of the
//    embedder's own).
//  - The map-reduce engine (mapreduce/): typed distributed collections over the same runtime,
//    with Owl Actor's verbs (load by byte ranges, map, flatmap, filter, fold, reduce,
//    reduce_by_key, shuffle, union, join, collect, count, broadcast, save), mapreduce::run;
//    for an app's own reader of a file by byte ranges, settle_ranges and run_loading.
//  - A kernel's own tools: model::Block (the rows it updates), collective::Communicator
//    (allreduce, allgather, broadcast over the workers: a part's or a kernel's state that does
//    not rotate), collective::DeltaExchange (changes to a summed state pushed to every peer and
//    added as they arrive: Harp's no-sync model), averaging::ModelAverager (averaging/: a replica per worker blended with the others' in
//    the background: model averaging, with abort and resume), Random (seeded, reproducible draws).
//  - A protocol of the embedder's own on a member's links: the channel registry
//    (wire::channels::user_channel) and the body codec (wire::Writer, wire::Reader, bounded reads).
// Left out, and not installed: the engines' insides (the rotation driver and worker flow graph,
// the parameter server's servers and workers, the peers and owners, their messages), the lock
// service, partition-table collectives, the gather to rank 0 and the transport's (Asio,
// libsodium); the data readers, reports and checkpoints are support/, the apps' and tools'.
#pragma once

#include "gyre/averaging/model_averager.hpp"
#include "gyre/base/export.hpp"
#include "gyre/base/random.hpp"
#include "gyre/collective/communicator.hpp"
#include "gyre/collective/delta_exchange.hpp"
#include "gyre/mapreduce/mapreduce.hpp"
#include "gyre/model/block.hpp"
#include "gyre/ps/ps_job.hpp"
#include "gyre/rotation/rotation_job.hpp"
#include "gyre/rotation/rotation_kernel.hpp"
#include "gyre/rounds/rounds.hpp"
#include "gyre/rounds/scheduling.hpp"
#include "gyre/runtime/job.hpp"
#include "gyre/runtime/failure.hpp"
#include "gyre/runtime/mailbox.hpp"
#include "gyre/wire/body.hpp"
#include "gyre/wire/channels.hpp"
