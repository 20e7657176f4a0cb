// tests/lib/checkpoint/store_test.cpp — checkpoint::Store: whole checkpoints found, torn or damaged ones passed over naming the file, old ones pruned.
#include <doctest/doctest.h>

#include <unistd.h>

#include <fstream>
#include <string>
#include <vector>

#include "gyre/base/input_error.hpp"
#include "gyre/checkpoint/store.hpp"
#include "support/temp_dir.hpp"

using namespace gyre;
using gyre::test::flip_byte;
using gyre::test::TempDir;

namespace {

std::vector<std::byte> bytes_of_text(const std::string& text) {
  const auto* p = reinterpret_cast<const std::byte*>(text.data());
  return {p, p + text.size()};
}

std::string text_of_bytes(const std::vector<std::byte>& bytes) {
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

// A whole checkpoint of `ranks` parts after `epoch`, part r holding "epoch E rank r".
void take(const checkpoint::Store& store, std::uint64_t epoch, int ranks) {
  for (int r = 0; r < ranks; ++r)
    store.write_part(epoch, r, bytes_of_text("epoch " + std::to_string(epoch) + " rank " + std::to_string(r)));
  checkpoint::Manifest m;
  m.epoch = epoch;
  m.ranks = ranks;
  m.settings = {{"--rank", "4"}, {"input --train", "12 bytes, crc32c 0x01020304"}};
  m.state = R"({"next_phase":)" + std::to_string(2 * epoch) + "}";
  store.commit(m);
}

// newest_valid, with what it said while passing over checkpoints.
struct Search {
  std::optional<checkpoint::Found> found;
  std::vector<std::string> warnings;
};
Search search(const checkpoint::Store& store) {
  Search s;
  s.found = store.newest_valid([&](const std::string& w) { s.warnings.push_back(w); });
  return s;
}

}  // namespace

TEST_CASE("a sealed file reads back; a flipped byte, a cut tail or another file is refused naming the file") {
  TempDir dir;
  const auto file = dir / "x.part";
  checkpoint::write_sealed(file, bytes_of_text("hello, checkpoint"));
  CHECK(text_of_bytes(checkpoint::read_sealed(file)) == "hello, checkpoint");
  checkpoint::write_sealed(dir / "empty", {});
  CHECK(checkpoint::read_sealed(dir / "empty").empty());

  flip_byte(file, 20);
  CHECK_THROWS_WITH_AS(checkpoint::read_sealed(file), doctest::Contains("x.part"), InputError);
  CHECK_THROWS_WITH_AS(checkpoint::check_sealed(file), doctest::Contains("crc32c"), InputError);

  checkpoint::write_sealed(file, bytes_of_text("hello, checkpoint"));
  std::filesystem::resize_file(file, std::filesystem::file_size(file) - 1);
  CHECK_THROWS_WITH_AS(checkpoint::read_sealed(file), doctest::Contains("truncated"), InputError);

  gyre::test::write_text(dir / "other", "GYRECKP1 but not really a checkpoint file at all");
  CHECK_THROWS_AS(checkpoint::read_sealed(dir / "other"), InputError);
  gyre::test::write_text(dir / "text", "just text");
  CHECK_THROWS_WITH_AS(checkpoint::read_sealed(dir / "text"), doctest::Contains("GYRECKP1"), InputError);
  CHECK_THROWS_WITH_AS(checkpoint::read_sealed(dir / "missing"), doctest::Contains("missing"), InputError);
}

TEST_CASE("the newest whole checkpoint is found with its manifest; none in an empty or missing directory") {
  TempDir dir;
  const checkpoint::Store store(dir / "ck", 3);
  CHECK_FALSE(search(store).found);
  take(store, 2, 3);
  take(store, 4, 3);
  const auto s = search(store);
  REQUIRE(s.found);
  CHECK(s.warnings.empty());
  CHECK(s.found->manifest.epoch == 4);
  CHECK(s.found->manifest.ranks == 3);
  CHECK(s.found->manifest.state == R"({"next_phase":8})");
  CHECK(s.found->manifest.settings.at(1).second == "12 bytes, crc32c 0x01020304");
  CHECK(s.found->directory == store.directory(4));
  CHECK(text_of_bytes(store.read_part(*s.found, 2)) == "epoch 4 rank 2");
}

TEST_CASE("a torn checkpoint (no manifest), a missing rank file or a damaged part is passed over for the previous one") {
  TempDir dir;
  const checkpoint::Store store(dir / "ck", 5);
  take(store, 1, 2);
  take(store, 2, 2);
  take(store, 3, 2);
  take(store, 4, 2);
  // Epoch 5: every part written, the job killed before the manifest.
  store.write_part(5, 0, bytes_of_text("a"));
  store.write_part(5, 1, bytes_of_text("b"));
  std::filesystem::remove(store.part_file(4, 1));  // a rank's file lost
  flip_byte(store.part_file(3, 0), 18);           // a flipped byte in a part
  flip_byte(store.directory(2) / "manifest", 30);  // and in a manifest

  const auto s = search(store);
  REQUIRE(s.found);
  CHECK(s.found->manifest.epoch == 1);
  REQUIRE(s.warnings.size() == 4);
  CHECK(s.warnings[0].find("epoch-5/manifest") != std::string::npos);
  CHECK(s.warnings[0].find("passing over the checkpoint of epoch 5") != std::string::npos);
  CHECK(s.warnings[1].find("epoch-4/rank-1.part") != std::string::npos);
  CHECK(s.warnings[2].find("epoch-3/rank-0.part") != std::string::npos);
  CHECK(s.warnings[2].find("crc32c") != std::string::npos);
  CHECK(s.warnings[3].find("epoch-2/manifest") != std::string::npos);
}

TEST_CASE("a commit keeps the newest --keep whole checkpoints and removes older ones, torn or not") {
  TempDir dir;
  const checkpoint::Store store(dir / "ck", 2);
  take(store, 1, 1);
  store.write_part(2, 0, bytes_of_text("torn"));  // never made whole
  take(store, 3, 1);
  CHECK(std::filesystem::exists(store.directory(1)));
  CHECK_FALSE(std::filesystem::exists(store.directory(2)));  // torn, older than the newest
  take(store, 4, 1);
  CHECK_FALSE(std::filesystem::exists(store.directory(1)));
  CHECK(std::filesystem::exists(store.directory(3)));
  CHECK(std::filesystem::exists(store.directory(4)));
  gyre::test::write_text(dir / "ck" / "notes.txt", "mine");  // not the store's: left alone
  store.discard_after(3);
  CHECK(std::filesystem::exists(store.directory(3)));
  CHECK_FALSE(std::filesystem::exists(store.directory(4)));
  store.discard_after(0);
  CHECK_FALSE(std::filesystem::exists(store.directory(3)));
  CHECK(std::filesystem::exists(dir / "ck" / "notes.txt"));
  CHECK_THROWS_AS(checkpoint::Store(dir / "ck", 0), std::invalid_argument);
}

TEST_CASE("a sound part that is not the one its manifest was sealed with is passed over; a version-1 manifest still reads") {
  TempDir dir;
  const checkpoint::Store store(dir / "ck", 5);
  take(store, 1, 2);
  take(store, 2, 2);
  std::filesystem::copy_file(store.part_file(1, 1), store.part_file(2, 1),
                             std::filesystem::copy_options::overwrite_existing);
  auto s = search(store);
  REQUIRE(s.found);
  CHECK(s.found->manifest.epoch == 1);
  CHECK(s.found->manifest.parts.size() == 2);
  REQUIRE(s.warnings.size() == 1);
  CHECK(s.warnings[0].find("epoch-2/rank-1.part: expected the part its manifest was sealed with") != std::string::npos);
  // A manifest from before the parts were recorded (version 1) binds nothing, as then.
  std::string text = R"({"format":"gyre checkpoint","version":1,"epoch":3,"ranks":1,"settings":[],"state":"{}"})";
  store.write_part(3, 0, bytes_of_text("x"));
  checkpoint::write_sealed(store.directory(3) / "manifest", bytes_of_text(text));
  s = search(store);
  REQUIRE(s.found);
  CHECK(s.found->manifest.epoch == 3);
  CHECK(s.found->manifest.parts.empty());
}

TEST_CASE("hold(): a second holder of a store's directory is refused naming the process; released, it can be held again") {
  TempDir dir;
  const checkpoint::Store store(dir / "ck", 2);
  {
    const auto held = store.hold();
    CHECK(std::filesystem::is_directory(dir / "ck"));
    const std::string expected = "in use by another job (process " + std::to_string(::getpid()) + ")";
    CHECK_THROWS_WITH_AS(store.hold(), doctest::Contains(expected.c_str()), std::invalid_argument);
  }
  CHECK_NOTHROW(store.hold());
  CHECK(search(store).warnings.empty());  // the lock file is no checkpoint
}
