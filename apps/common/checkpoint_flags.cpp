// apps/common/checkpoint_flags.cpp — the checkpoint flags, and choosing and checking the checkpoint a resume starts from.
#include "app/checkpoint_flags.hpp"

#include <csignal>
#include <cstdio>
#include <stdexcept>

#include "app/job_settings.hpp"
#include "gyre/base/input_error.hpp"

namespace gyre::app {

void CheckpointFlags::add_to(CLI::App& app) {
  const char* group = "Checkpoints";
  app.add_option("--checkpoint", directory_,
                 "write a checkpoint into DIR/epoch-N after every --checkpoint-every epochs (gyre-lasso: checks)")
      ->group(group);
  app.add_option("--checkpoint-every", every_, "epochs between checkpoints")
      ->capture_default_str()->check(CLI::Range(1, 1 << 20))->group(group);
  app.add_option("--keep", keep_, "checkpoints kept; older ones are removed")
      ->capture_default_str()->check(CLI::Range(1, 1 << 20))->group(group);
  app.add_option("--resume", resume_,
                 "continue the run whose checkpoints are in DIR from its newest sound one (same flags and data; "
                 "--epochs is the total to reach); it goes on writing checkpoints there unless --checkpoint says otherwise")
      ->group(group);
  app.add_option("--inject-kill-after-epoch", kill_after_, "failure tests: SIGKILL this process once epoch N is reported")
      ->group("");
}

void CheckpointFlags::kill_if_due(int epoch) const {
  if (epoch == kill_after_) std::raise(SIGKILL);
}

cluster::JobSettings CheckpointFlags::recorded_settings(const CLI::App& app, std::vector<std::string> local,
                                                       const std::vector<std::string>& inputs,
                                                       const std::vector<std::string>& also) const {
  for (const auto& f : unrecorded()) local.push_back(f);
  local.insert(local.end(), also.begin(), also.end());
  auto settings = job_settings(app, local, inputs);
  job_ = cluster::settings_digest(settings);
  return settings;
}

std::shared_ptr<const checkpoint::Store> CheckpointFlags::store() const {
  if (!writes()) return nullptr;
  return std::make_shared<const checkpoint::Store>(directory_.empty() ? resume_ : directory_, keep_, job_);
}

checkpoint::Found CheckpointFlags::find(const cluster::JobSettings& ours, int ranks, const std::string& app_name,
                                        const std::string& parts_note) const {
  const checkpoint::Store from(resume_, keep_);
  auto found = from.newest_valid([&](const std::string& why) { std::fprintf(stderr, "%s: %s\n", app_name.c_str(), why.c_str()); });
  if (!found) throw InputError(resume_, 0, "a directory holding a whole checkpoint (epoch-N with its manifest)");
  const auto manifest = found->directory / "manifest";
  const std::string difference = cluster::settings_difference(found->manifest.settings, "the checkpoint", ours, "this run");
  if (!difference.empty())
    throw std::invalid_argument("--resume " + resume_ + ": " + manifest.string() + ": " + difference +
                                " (a resume continues the same job: give the flags and data it was started with)");
  if (found->manifest.ranks != ranks && !parts_note.empty())
    throw std::invalid_argument("--resume " + resume_ + ": " + manifest.string() + " has " +
                                std::to_string(found->manifest.ranks) + " parts and this run's would have " +
                                std::to_string(ranks) + " (" + parts_note + ")");
  if (found->manifest.ranks != ranks)
    throw std::invalid_argument("--resume " + resume_ + ": " + manifest.string() + " was taken by " +
                                std::to_string(found->manifest.ranks) + " workers and this run has " + std::to_string(ranks) +
                                " (how the data and the model are split, and the order of the sums, depend on it: resume with the "
                                "same number)");
  return *found;
}

cluster::JobSettings CheckpointFlags::shared_settings(const CLI::App& app, std::vector<std::string> local,
                                                     const std::vector<std::string>& inputs) const {
  for (const auto& f : per_rank()) local.push_back(f);
  auto settings = job_settings(app, local, inputs);
  settings.emplace_back("checkpoints", writes() ? "written (--checkpoint or --resume)" : "none");
  return settings;
}

OutputSpec CheckpointFlags::output() const {
  if (!writes()) return {};
  return directory_.empty() ? OutputSpec{"--resume", resume_, nullptr, true}
                            : OutputSpec{"--checkpoint", directory_, nullptr, true};
}

void CheckpointFlags::check_outputs_with(std::span<const OutputSpec> outputs,
                                         std::span<const std::filesystem::path> inputs, bool reports) const {
  std::vector<OutputSpec> all;
  if (reports) all.assign(outputs.begin(), outputs.end());
  all.push_back(output());
  check_outputs(all, reports ? inputs : std::span<const std::filesystem::path>());
}

void CheckpointFlags::prepare(std::optional<std::uint64_t> resumed_epoch, bool keeper) const {
  const auto target = store();
  if (!target) return;
  if (keeper && !held_) held_ = target->hold();  // first: another job's checkpoints are not "an earlier run"
  if (!resumed_epoch && target->newest_valid({}))
    throw std::invalid_argument("--checkpoint " + target->root().string() +
                                " holds checkpoints of an earlier run: --resume it to continue that run, or remove them");
  if (keeper) target->discard_after(resumed_epoch.value_or(0));
}

}  // namespace gyre::app
