// tests/lib/base/temp_paths_test.cpp — SIGTERM in a gyre binary removes the temporaries of unpublished outputs.
#include <doctest/doctest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>

#include "gyre/base/entry_point.hpp"
#include "gyre/base/output_directory.hpp"
#include "gyre/base/output_file.hpp"
#include "support/temp_dir.hpp"

using gyre::test::TempDir;
using gyre::test::write_text;
namespace fs = std::filesystem;

TEST_CASE("SIGTERM while a model directory is staged leaves nothing behind (defect 4)") {
  TempDir dir;
  write_text(dir / "input.tsv", "1 2 3\n");
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    const int code = gyre::run_entry_point("test", [&] {
      gyre::OutputDirectory model(dir / "model", gyre::DirectoryKind::of_files("a model", {"f.tsv"}));
      write_text(model.staging() / "f.tsv", std::string(1 << 20, 'x'));
      gyre::OutputFile metrics(dir / "metrics.json");
      metrics.stream() << "{}\n";
      ::raise(SIGTERM);  // as `kill` would, mid-run
      return 0;
    });
    ::_exit(code == 0 ? 99 : code);
  }
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  CHECK(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGTERM);  // still dies of the signal, as the shell expects
  CHECK(dir.entries() == std::vector<std::string>{"input.tsv"});
}
