// apps/common/app/checkpoint_flags.hpp — --checkpoint, --checkpoint-every, --keep and --resume: the flags, and the checkpoint a resume starts from.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gyre/base/output_check.hpp"
#include "gyre/checkpoint/store.hpp"

namespace gyre::app {

class CheckpointFlags {
 public:
  void add_to(CLI::App& app);

  // --checkpoint or --resume: the run writes checkpoints (into --checkpoint's directory, else --resume's).
  bool writes() const { return !directory_.empty() || !resume_.empty(); }
  bool resumes() const { return !resume_.empty(); }
  int every() const { return every_; }
  // The flags a checkpoint's recorded settings leave out: where checkpoints go, and --epochs,
  // since a resumed run may be asked to go further than the one it continues.
  static std::vector<std::string> unrecorded() {
    return {"--checkpoint", "--checkpoint-every", "--keep", "--resume", "--epochs", "--inject-kill-after-epoch"};
  }
  // Flags the ranks of one job may give differently: the directories (mounted apart on each
  // host), and the failure injection that tests give one rank.
  static std::vector<std::string> per_rank() { return {"--checkpoint", "--resume", "--inject-kill-after-epoch"}; }

  // The settings every rank of a job must share (see app::job_settings): the flags but `local`
  // ones and the checkpoint directories (each host may mount them apart), with whether
  // checkpoints are written at all, so that ranks that disagree on it never form one job.
  cluster::JobSettings shared_settings(const CLI::App& app, std::vector<std::string> local,
                                       const std::vector<std::string>& inputs) const;

  // Failure tests: the process kills itself (SIGKILL, as kill -9 would) once `epoch` is reported.
  void kill_if_due(int epoch) const;

  // The settings a checkpoint records and a resume compares (app::job_settings): all flags but
  // `local` ones, where checkpoints go, --epochs and `also`; the inputs by digest. Their digest
  // is remembered as the job the store binds its directory to (checkpoint::Store).
  cluster::JobSettings recorded_settings(const CLI::App& app, std::vector<std::string> local,
                                         const std::vector<std::string>& inputs,
                                         const std::vector<std::string>& also = {}) const;

  // The store the run writes to; null when it writes none. After recorded_settings(), bound to
  // that job.
  std::shared_ptr<const checkpoint::Store> store() const;

  // The newest sound checkpoint under --resume, whose recorded settings equal `ours` and whose
  // ranks are `ranks` (rotation resumes with the same P). Passed-over checkpoints are reported
  // on stderr, naming the file. Throws std::invalid_argument naming the manifest and the first
  // difference, or InputError when the directory holds no sound checkpoint.
  // `parts_note`, when given, replaces the rotation's wording: `ranks` is then the parts this
  // run's checkpoints have, and the note says what they are and why their number must match.
  checkpoint::Found find(const cluster::JobSettings& ours, int ranks, const std::string& app_name,
                         const std::string& parts_note = {}) const;

  // The directory checkpoints go to, as an output check_outputs checks with the run's others
  // (an empty path when the run writes none).
  OutputSpec output() const;
  // check_outputs of `outputs` and the checkpoint directory on the rank that `reports`; on the
  // others, of the checkpoint directory alone (every rank writes its part there).
  void check_outputs_with(std::span<const OutputSpec> outputs, std::span<const std::filesystem::path> inputs,
                          bool reports) const;

  // Before training, on every rank: a fresh run refuses a directory that already holds
  // checkpoints (they belong to the run --resume would continue). Then the rank that keeps the
  // store (`keeper`: rank 0) holds it for the run (another job given it is refused), and drops
  // the torn leftovers of a fresh run, or a resumed run's checkpoints past `resumed_epoch`
  // (torn, or passed over).
  void prepare(std::optional<std::uint64_t> resumed_epoch, bool keeper = true) const;

 private:
  std::string directory_, resume_;
  int every_ = 1;
  int keep_ = 2;
  int kill_after_ = -1;
  mutable std::shared_ptr<const void> held_;  // the store's lock, for the process's run
  mutable std::string job_;                   // digest of the recorded settings
};

}  // namespace gyre::app
