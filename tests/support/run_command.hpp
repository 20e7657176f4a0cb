// tests/support/run_command.hpp — runs a binary the way a user would and captures what it says.
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "support/temp_dir.hpp"

extern char** environ;

namespace gyre::test {

struct CommandResult {
  int exit_code = -1;  // the exit status, or 128 + signal number if the process was killed
  std::string output;  // stdout and stderr interleaved, as a terminal would show them
};

struct CommandOptions {
  std::filesystem::path cwd;                                     // empty: the test's directory
  std::vector<std::pair<std::string, std::string>> environment;  // set or overridden for the child
};

// Path of a built target, e.g. build_path("tools/gyre-gen"); GYRE_BUILD_DIR comes from meson.
inline std::filesystem::path build_path(const std::filesystem::path& relative) {
  return std::filesystem::path(GYRE_BUILD_DIR) / relative;
}

// A built binary's path as a command's first argument, e.g. built("apps/mf/gyre-mf").
inline std::string built(const char* relative) { return build_path(relative).string(); }

// The apps and tools the tests run.
inline std::string gyre_mf() { return built("apps/mf/gyre-mf"); }
inline std::string gyre_lda() { return built("apps/lda/gyre-lda"); }
inline std::string gyre_lasso() { return built("apps/lasso/gyre-lasso"); }
inline std::string gyre_logreg() { return built("apps/logreg/gyre-logreg"); }
inline std::string gyre_mlp() { return built("apps/mlp/gyre-mlp"); }
inline std::string gyre_sim() { return built("tools/gyre-sim"); }

// Whether what a command printed says `part`.
inline bool said(const std::string& output, const std::string& part) { return output.find(part) != std::string::npos; }

inline std::filesystem::path source_path(const std::filesystem::path& relative) {
  return std::filesystem::path(GYRE_SOURCE_DIR) / relative;
}

// fork + exec without a shell, so arguments need no quoting. argv[0] is looked up in PATH
// unless it contains a '/'. Blocks until the child exits; a failed exec reports exit code 127.
inline CommandResult run_command(const std::vector<std::string>& argv, const CommandOptions& options = {}) {
  if (argv.empty()) throw std::invalid_argument("run_command: empty argv");
  // Everything the child needs is prepared before fork: after fork in a threaded test process
  // only async-signal-safe calls are allowed.
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  std::vector<std::string> env_strings;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry(*e);
    bool overridden = false;
    for (const auto& [key, value] : options.environment) overridden |= entry.rfind(key + "=", 0) == 0;
    if (!overridden) env_strings.push_back(entry);
  }
  for (const auto& [key, value] : options.environment) env_strings.push_back(key + "=" + value);
  std::vector<char*> envp;
  for (const std::string& e : env_strings) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  const std::string cwd = options.cwd.string();

  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    ::dup2(fds[1], STDOUT_FILENO);  // dup2 clears O_CLOEXEC on the copies
    ::dup2(fds[1], STDERR_FILENO);
    if (!cwd.empty() && ::chdir(cwd.c_str()) != 0) ::_exit(127);
    ::execvpe(args[0], args.data(), envp.data());
    static const char kMsg[] = "run_command: exec failed\n";
    [[maybe_unused]] const auto n = ::write(STDERR_FILENO, kMsg, sizeof kMsg - 1);
    ::_exit(127);
  }
  ::close(fds[1]);
  CommandResult result;
  char buffer[65536];
  for (;;) {
    const ssize_t n = ::read(fds[0], buffer, sizeof buffer);
    if (n > 0) {
      result.output.append(buffer, static_cast<std::size_t>(n));
    } else if (n == 0 || errno != EINTR) {
      break;
    }
  }
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : WIFSIGNALED(status) ? 128 + WTERMSIG(status) : -1;
  return result;
}

// Runs a line through /bin/sh, for the occasional test that needs a pipe or redirection.
inline CommandResult run_shell(const std::string& command, const CommandOptions& options = {}) {
  return run_command({"/bin/sh", "-c", command}, options);
}

}  // namespace gyre::test
