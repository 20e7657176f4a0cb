// tests/lib/runtime/parts_output_test.cpp — writing a model in parts over every backend: each rank its part, rank 0 the manifest, published whole or not at all.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <future>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "gyre/runtime/failure.hpp"
#include "gyre/runtime/mailbox.hpp"
#include "gyre/runtime/parts_output.hpp"
#include "lib/net/backends.hpp"
#include "support/temp_dir.hpp"

using namespace gyre;
namespace fs = std::filesystem;

namespace {

constexpr int kRanks = 3;

std::string file_text(const fs::path& file) {
  std::ifstream in(file);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// What a test's kind of output may replace: its own files only.
DirectoryKind kind() {
  return {"a test model", [](std::string_view name) { return name.starts_with("part-") || name == "manifest"; }};
}

// Every rank of a job of backend B writes "part-r" (or throws, for `failing`), rank 0 the
// manifest of the notes; returns each rank's exception text (empty if none).
template <class B>
std::vector<std::string> write_job(const fs::path& out, int failing = -1) {
  auto groups = B::make(kRanks);
  std::vector<std::future<void>> ranks;
  for (int r = 0; r < kRanks; ++r)
    ranks.push_back(std::async(std::launch::async, [&, r] {
      runtime::Mailbox mailbox(*groups[static_cast<std::size_t>(r)]);
      try {
        runtime::write_in_parts(
            mailbox, {out, kind(), kRanks, std::chrono::seconds(10)},
            [r, failing](const fs::path& staging) {
              if (r == failing) throw std::runtime_error("disk full on rank " + std::to_string(r));
              std::ofstream(staging / ("part-" + std::to_string(r))) << "rows of rank " << r << "\n";
              return "note " + std::to_string(r);
            },
            [](const fs::path& staging, const std::vector<std::string>& notes) {
              std::ofstream manifest(staging / "manifest");
              for (const auto& n : notes) manifest << n << "\n";
            });
      } catch (...) {
        // As a job's runner does: the others hear of it and stop waiting.
        groups[static_cast<std::size_t>(r)]->close("rank " + std::to_string(r) + " failed");
        throw;
      }
    }));
  std::vector<std::string> errors;
  for (auto& f : ranks) {
    try {
      f.get();
      errors.emplace_back();
    } catch (const std::exception& e) {
      errors.emplace_back(e.what());
    }
  }
  return errors;
}

}  // namespace

TEST_CASE_TEMPLATE("every rank writes its part into rank 0's staging directory; the manifest lists them in rank order", B,
                   GYRE_TEST_BACKENDS) {
  gyre::test::TempDir dir;
  const auto out = dir / "model";
  for (const auto& e : write_job<B>(out)) CHECK_MESSAGE(e.empty(), e);
  CHECK(file_text(out / "manifest") == "note 0\nnote 1\nnote 2\n");
  for (int r = 0; r < kRanks; ++r) CHECK(file_text(out / ("part-" + std::to_string(r))) == "rows of rank " + std::to_string(r) + "\n");
  // Written again over the old one: replaced as a whole.
  for (const auto& e : write_job<B>(out)) CHECK_MESSAGE(e.empty(), e);
  CHECK(file_text(out / "manifest") == "note 0\nnote 1\nnote 2\n");
}

TEST_CASE_TEMPLATE("a rank that cannot write its part fails the job, and nothing is published", B, GYRE_TEST_BACKENDS) {
  gyre::test::TempDir dir;
  const auto out = dir / "model";
  const auto errors = write_job<B>(out, 1);
  CHECK(errors[1] == "disk full on rank 1");
  CHECK_FALSE(errors[0].empty());  // rank 0 awaited rank 1's part: told it failed
  // Nothing published. (Rank 0's staging directory goes with it, unless a rank still writing
  // into it races the removal; a later write to the same target clears such leftovers.)
  CHECK_FALSE(fs::exists(out));
}
