// tests/lib/base/output_check_test.cpp — outputs are checked before any work: writable, not an input, not each other.
#include <doctest/doctest.h>

#include <filesystem>
#include <stdexcept>
#include <string>

#include "gyre/base/output_check.hpp"
#include "support/temp_dir.hpp"

using gyre::check_outputs;
using gyre::DirectoryKind;
using gyre::OutputSpec;
using gyre::test::TempDir;
using gyre::test::write_text;
namespace fs = std::filesystem;

namespace {

const DirectoryKind kModel = DirectoryKind::of_files("a test model", {"model.json"});

// The message of the refusal, or "" if the outputs pass.
std::string refusal(std::vector<OutputSpec> outputs, std::vector<fs::path> inputs) {
  try {
    check_outputs(outputs, inputs);
    return "";
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("an output that is an input is refused, by path or through a hard link (defect 4)") {
  TempDir dir;
  write_text(dir / "r.tsv", "1 2 3\n");
  fs::create_hard_link(dir / "r.tsv", dir / "alias.tsv");
  auto why = refusal({{"--metrics", dir / "r.tsv"}}, {dir / "r.tsv"});
  CHECK(has(why, "--metrics"));
  CHECK(has(why, "is the input"));
  CHECK(has(refusal({{"--metrics", dir / "alias.tsv"}}, {dir / "r.tsv"}), "is the input"));
  CHECK(refusal({{"--metrics", dir / "m.json"}}, {dir / "r.tsv"}).empty());
}

TEST_CASE("a model directory that holds an input, or another output, is refused") {
  TempDir dir;
  fs::create_directories(dir / "model");
  write_text(dir / "model" / "model.json", "{}");
  CHECK(has(refusal({{"--out", dir / "model", &kModel}}, {dir / "model" / "model.json"}), "holds the input"));
  CHECK(has(refusal({{"--out", dir / "model", &kModel}, {"--metrics", dir / "model" / "m.json"}}, {}),
            "lies inside"));
  CHECK(has(refusal({{"--metrics", dir / "m.json"}, {"--csv", dir / "m.json"}}, {}), "are the same output"));
  CHECK(refusal({{"--metrics", "/dev/null"}, {"--csv", "/dev/null"}}, {}).empty());  // a sink may be shared
}

TEST_CASE("unwritable places are found before any work: missing directory, a file as directory, read-only") {
  TempDir dir;
  write_text(dir / "file", "x");
  CHECK(has(refusal({{"--out", dir / "nope" / "model", &kModel}}, {}), "does not exist"));
  CHECK(has(refusal({{"--metrics", dir / "file" / "m.json"}}, {}), "--metrics"));
  CHECK(has(refusal({{"--metrics", dir.path()}}, {}), "is a directory"));
  CHECK(has(refusal({{"--out", dir / "file", &kModel}}, {}), "not a directory"));
  // A read-only file system refuses even root; /proc is one on every Linux machine.
  CHECK(has(refusal({{"--metrics", "/proc/gyre-metrics.json"}}, {}), "--metrics"));
}
