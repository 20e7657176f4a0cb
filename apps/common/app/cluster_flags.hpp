// apps/common/app/cluster_flags.hpp — the multi-process flags every app's main shares, and the job settings they make.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <span>
#include <string>

#include "gyre/cluster/launch.hpp"
#include "gyre/data/byte_ranges.hpp"
#include "gyre/rotation/rotation_job.hpp"

namespace gyre::app {

// One home for these flags so that gyre-mf and gyre-lda cannot drift apart: a user (or a job
// script) starts either the same way. Nothing here reads the process environment: the main
// passes cluster::environment_of(environ) in, as the library expects of an entry point.
class ClusterFlags {
 public:
  // The help group of these flags; they differ per rank by nature (see job_settings).
  static constexpr const char* kGroup = "multi-process (also from mpirun/srun variables)";

  // `program` names the tool in messages and is the default --job-id.
  explicit ClusterFlags(std::string program);

  // Adds --process-rank, --processes, --coordinator, --listen-host, --token-file, --job-id,
  // --connect-timeout, --inject-delay, --inject-close-after, --report-traffic and
  // --heartbeat-timeout to `app`, in a help group of their own.
  void add_to(CLI::App& app);

  // Flags win over a launcher's variables in `env`; with neither, one process.
  cluster::Launch launch(const cluster::Environment& env) const;

  // The worker count of a multi-process job: one per process. `workers_flag` <= 0 means the
  // user gave none; any other value must equal the number of processes.
  static int workers_of(const cluster::Launch& launch, int workers_flag);

  // Settings of this process's part of the job: the coordinator, the token (--token-file, else
  // GYRE_TOKEN in `env`), timeouts, and the injected faults seeded by `fault_seed` + rank.
  // Throws std::invalid_argument when the coordinator or the token is missing or a value is
  // out of range (--coordinator must be IP:PORT with PORT in 1..65535, --listen-host an IP
  // address; the message names the flag), gyre::InputError when the token file holds no token.
  // The settings are left empty: the app fills them in (see ClusterJobOptions::settings).
  rotation::ClusterJobOptions job_options(const cluster::Launch& launch, const cluster::Environment& env,
                                          std::uint64_t fault_seed) const;

  // The setup gyre-lda and gyre-lasso share: for a multi-process job one worker per process and
  // the job's settings (checked now, so a bad job is refused before any input is read); for one
  // process `workers_flag` (default 1, must be at least 1) and no settings.
  struct Job {
    cluster::Launch launch;
    int workers = 1;
    std::optional<rotation::ClusterJobOptions> cluster;  // set for a multi-process job
    bool reports() const { return launch.rank == 0; }    // rank 0 prints and writes for the job
  };
  Job job(const cluster::Environment& env, std::optional<int> workers_flag, std::uint64_t fault_seed) const;

  // With --report-traffic: prints "PROGRAM: rank R sent N bytes during training" on stderr;
  // otherwise empty.
  std::function<void(std::uint64_t)> traffic_reporter(const cluster::Launch& launch) const;

  // Prints "PROGRAM: rank R read B bytes in L lines of FILE" on stderr for every rank's part of
  // an input read by byte ranges (`reads`, in rank order): what each process read, said once.
  void report_split_reads(std::span<const data::SplitStats> reads, const std::filesystem::path& file) const;

  // --token-file, or empty: an input that no output may overwrite.
  const std::string& token_file() const { return token_file_; }

 private:
  std::string program_;
  std::optional<int> process_rank_, processes_;
  std::string coordinator_, listen_host_, token_file_, job_id_;
  int connect_timeout_s_ = 60;
  double heartbeat_timeout_s_ = 30;
  std::string inject_delay_ = "none";
  std::uint64_t inject_close_after_ = 0;
  bool report_traffic_ = false;
};

}  // namespace gyre::app
