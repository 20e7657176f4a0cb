// tests/lib/base/output_file_test.cpp — OutputFile never renames over a device, a pipe or a symlink, and publishes files whole.
#include <doctest/doctest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <filesystem>
#include <stdexcept>
#include <thread>

#include "gyre/base/output_file.hpp"
#include "support/temp_dir.hpp"

using gyre::OutputFile;
using gyre::OutputTarget;
using gyre::resolve_output;
using gyre::test::read_text;
using gyre::test::TempDir;
using gyre::test::write_text;
namespace fs = std::filesystem;

TEST_CASE("a character device node stays a device: written through, never replaced (defect 1, as root)") {
  if (::geteuid() != 0) {
    MESSAGE("skipped: mknod needs root");
    return;
  }
  TempDir dir;
  const fs::path null = dir / "null";
  REQUIRE(::mknod(null.c_str(), S_IFCHR | 0666, ::makedev(1, 3)) == 0);  // the kernel's /dev/null
  {
    OutputFile out(null);
    CHECK(out.streams());
    out.stream() << "{\"epoch\":1}\n";
    out.commit();
  }
  struct stat st {};
  REQUIRE(::stat(null.c_str(), &st) == 0);
  CHECK(S_ISCHR(st.st_mode));
  CHECK(dir.entries() == std::vector<std::string>{"null"});  // no temporary beside it
}

TEST_CASE("a FIFO is written through as data is produced, and stays a FIFO") {
  TempDir dir;
  const fs::path fifo = dir / "pipe";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  std::string got;
  std::thread reader([&] { got = read_text(fifo); });
  {
    OutputFile out(fifo);
    CHECK(out.streams());
    out.stream() << "line 1\n";
    out.commit();
  }
  reader.join();
  CHECK(got == "line 1\n");
  CHECK(fs::is_fifo(fifo));
}

TEST_CASE("a symlink is followed: its target is replaced atomically and the link survives") {
  TempDir dir;
  write_text(dir / "real.json", "old\n");
  fs::create_symlink("real.json", dir / "link.json");
  {
    OutputFile out(dir / "link.json");
    CHECK_FALSE(out.streams());
    out.stream() << "new\n";
    CHECK(read_text(dir / "real.json") == "old\n");  // nothing visible before commit
    out.commit();
  }
  CHECK(fs::is_symlink(dir / "link.json"));
  CHECK(read_text(dir / "real.json") == "new\n");
  CHECK(dir.entries() == std::vector<std::string>{"link.json", "real.json"});
}

TEST_CASE("a dangling symlink creates its target") {
  TempDir dir;
  fs::create_symlink("made.txt", dir / "link.txt");
  OutputFile out(dir / "link.txt");
  out.stream() << "x";
  out.commit();
  CHECK(fs::is_symlink(dir / "link.txt"));
  CHECK(read_text(dir / "made.txt") == "x");
}

TEST_CASE("a replaced file keeps its permissions, and an unpublished one leaves nothing") {
  TempDir dir;
  const fs::path file = dir / "m.tsv";
  write_text(file, "old");
  fs::permissions(file, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  {
    OutputFile out(file);
    out.stream() << "new";
    out.commit();
  }
  CHECK(read_text(file) == "new");
  CHECK((fs::status(file).permissions() & fs::perms::all) ==
        (fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read));
  {
    OutputFile out(file);
    out.stream() << "abandoned";
  }  // an exception between open and commit
  CHECK(read_text(file) == "new");
  CHECK(dir.entries() == std::vector<std::string>{"m.tsv"});
}

TEST_CASE("\"-\", /dev/stdout and /dev/fd/N name the process's own descriptors") {
  CHECK(resolve_output("-").descriptor == 1);
  CHECK(resolve_output("/dev/stdout").descriptor == 1);
  CHECK(resolve_output("/dev/stderr").descriptor == 2);
  CHECK(resolve_output("/proc/self/fd/2").descriptor == 2);
  CHECK(resolve_output("-").kind == OutputTarget::kStream);
  CHECK_THROWS_AS(resolve_output("/dev/fd/987"), std::invalid_argument);  // not open
}

TEST_CASE("/dev/stdout writes into the already-open descriptor, like a shell redirection") {
  TempDir dir;
  const fs::path file = dir / "captured";
  const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  REQUIRE(fd >= 0);
  const std::string path = "/dev/fd/" + std::to_string(fd);
  {
    OutputFile out(path);
    CHECK(out.streams());
    out.stream() << "through\n";
    out.commit();
  }
  ::close(fd);
  CHECK(read_text(file) == "through\n");
  CHECK(dir.entries() == std::vector<std::string>{"captured"});
}

TEST_CASE("directories and block devices are refused; a missing directory is named") {
  TempDir dir;
  CHECK_THROWS_AS(resolve_output(dir.path()), std::invalid_argument);
  try {
    OutputFile out(dir / "no-such" / "x.json");
    FAIL("expected an error");
  } catch (const std::runtime_error& e) {
    CHECK(std::string(e.what()).find("no-such does not exist") != std::string::npos);
  }
  if (::geteuid() == 0) {
    const fs::path block = dir / "disk";
    REQUIRE(::mknod(block.c_str(), S_IFBLK | 0600, ::makedev(7, 0)) == 0);  // a loop device node
    CHECK_THROWS_AS(resolve_output(block), std::invalid_argument);
  }
}
