// tests/support/checkpoint_runs.hpp — what the apps' checkpoint tests share: comparing outputs, models in parts as one, and a 3-process run killed with kill -9 and resumed.
#pragma once

#include <doctest/doctest.h>

#include <filesystem>
#include <initializer_list>
#include <string>
#include <vector>

#include "support/multiprocess.hpp"

namespace gyre::test {

inline void expect_same_files(const std::filesystem::path& a, const std::filesystem::path& b,
                              std::initializer_list<const char*> files) {
  for (const char* file : files) {
    INFO(file);
    CHECK(read_text(a / file) == read_text(b / file));
  }
}

// A model that several processes wrote in parts, as one process's files: what `program export`
// makes of it, in a directory beside it. Holding that to a one-process run's files holds the
// parts to it: every row in exactly one part, each bitwise.
inline std::filesystem::path exported_model(const std::string& program, const std::filesystem::path& parts) {
  const auto out = parts.string() + "-whole";
  const auto r = run_command({program, "export", "--model", parts.string(), "--out", out});
  REQUIRE_MESSAGE(r.exit_code == 0, r.output);
  return out;
}

// The model directory `model` as one process writes it: itself, or, when several processes wrote
// it in parts, what `program export` makes of it (in a directory beside it).
inline std::filesystem::path whole_model(const std::string& program, const std::filesystem::path& model) {
  if (read_text(model / "model.json").find("\"parts\"") == std::string::npos) return model;
  const auto out = model.string() + "-whole";
  const auto r = run_command({program, "export", "--model", model.string(), "--out", out});
  REQUIRE_MESSAGE(r.exit_code == 0, r.output);
  return out;
}

// A resume refused before anything is trained or written: exit 2, naming `named` (the setting
// that differs) and `manifest` (the checkpoint's), `output` not written.
inline void expect_resume_refused(const CommandResult& r, const std::string& named, const std::string& manifest,
                                  const std::filesystem::path& output) {
  INFO(r.output);
  CHECK(r.exit_code == 2);
  CHECK(r.output.find(named) != std::string::npos);
  CHECK(r.output.find(manifest) != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(output));
}

// Runs `argv` (an app's command line that checkpoints into dir/ck and writes dir/never) as 3
// processes over tcp with every message delayed 10 ms, kills rank 1 with kill -9 once rank 0's
// log shows `ready`, checks that ranks 0 and 2 stopped naming rank 1 and that no output was
// written, then resumes all 3 with `resume_argv` and returns the epoch the resume said it
// continues after (its output must say "resuming after epoch N").
inline int kill_rank_1_and_resume(const TempDir& dir, const std::vector<std::string>& argv,
                                  const std::vector<std::string>& resume_argv, const std::string& ready) {
  std::string command;
  for (const auto& a : argv) command += "'" + a + "' ";
  command += "--inject-delay fixed:10";
  const auto killed = disturb_rank_1(dir, command, "kill -9", ready);
  expect_survivors_stopped(dir, killed, 30000);
  CHECK_FALSE(std::filesystem::exists(dir / "never"));

  const auto resumed = run_ranks(resume_argv, 3);
  for (const auto& r : resumed) CHECK_MESSAGE(r.exit_code == 0, r.output);
  INFO(resumed[0].output);
  const auto at = resumed[0].output.find("resuming after epoch ");
  REQUIRE(at != std::string::npos);
  return std::stoi(resumed[0].output.substr(at + 21));
}

}  // namespace gyre::test
