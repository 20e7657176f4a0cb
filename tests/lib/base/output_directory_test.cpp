// tests/lib/base/output_directory_test.cpp — a model directory is replaced as a whole, and only if it holds nothing foreign.
#include <doctest/doctest.h>

#include <filesystem>
#include <stdexcept>

#include "gyre/base/output_directory.hpp"
#include "gyre/base/output_file.hpp"
#include "support/temp_dir.hpp"

using gyre::DirectoryKind;
using gyre::OutputDirectory;
using gyre::test::read_text;
using gyre::test::TempDir;
using gyre::test::write_text;
namespace fs = std::filesystem;

namespace {

const DirectoryKind kThreeFileModel = DirectoryKind::of_files("a test model", {"model.json", "a.tsv", "b.tsv"});

void write_model(const fs::path& dir, const std::string& version, bool fail_midway = false) {
  OutputDirectory out(dir, kThreeFileModel);
  write_text(out.staging() / "a.tsv", version);
  if (fail_midway) throw std::runtime_error("killed while writing");
  write_text(out.staging() / "b.tsv", version);
  write_text(out.staging() / "model.json", version);
  out.commit();
}

}  // namespace

TEST_CASE("a new model replaces the old one whole; a failed write leaves the old one whole (defect 4)") {
  TempDir dir;
  const fs::path model = dir / "model";
  write_model(model, "v1");
  CHECK(TempDir::list_dir(model) == std::vector<std::string>{"a.tsv", "b.tsv", "model.json"});
  CHECK_THROWS(write_model(model, "v2", true));
  for (const char* f : {"a.tsv", "b.tsv", "model.json"}) CHECK(read_text(model / f) == "v1");  // never a mix
  write_model(model, "v3");
  for (const char* f : {"a.tsv", "b.tsv", "model.json"}) CHECK(read_text(model / f) == "v3");
  CHECK(dir.entries() == std::vector<std::string>{"model"});  // no staging or old copy left
}

TEST_CASE("files of an older model that the new one does not write are gone with it") {
  TempDir dir;
  fs::create_directories(dir / "model");
  write_text(dir / "model" / "b.tsv", "stale");
  OutputDirectory out(dir / "model", kThreeFileModel);
  write_text(out.staging() / "a.tsv", "new");
  out.commit();
  CHECK(TempDir::list_dir(dir / "model") == std::vector<std::string>{"a.tsv"});
}

TEST_CASE("a directory holding anything else is refused, not swapped away") {
  TempDir dir;
  fs::create_directories(dir / "home");
  write_text(dir / "home" / "thesis.tex", "years of work");
  CHECK_THROWS_AS(OutputDirectory(dir / "home", kThreeFileModel), std::invalid_argument);
  CHECK(read_text(dir / "home" / "thesis.tex") == "years of work");
  write_text(dir / "file", "x");
  CHECK_THROWS_AS(OutputDirectory(dir / "file", kThreeFileModel), std::invalid_argument);
}

TEST_CASE("a symlink to a model directory is followed; the link survives") {
  TempDir dir;
  write_model(dir / "real", "v1");
  fs::create_directory_symlink("real", dir / "current");
  write_model(dir / "current", "v2");
  CHECK(fs::is_symlink(dir / "current"));
  CHECK(read_text(dir / "real" / "model.json") == "v2");
}
