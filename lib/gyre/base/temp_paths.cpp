// gyre/base/temp_paths.cpp — a fixed table of temporary names, emptied with async-signal-safe calls only.
#include "gyre/base/temp_paths.hpp"

#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <climits>
#include <cstddef>
#include <cstring>

namespace gyre {
namespace {

// A slot is free (0), being written (1) or recorded (2); the handler only reads recorded ones,
// so it never sees half a path.
struct Slot {
  std::atomic<int> state{0};
  bool directory = false;
  char path[PATH_MAX] = {};
};

// Sixteen outputs written at once by one process is far beyond what any gyre binary does; a
// path that finds the table full is simply not cleaned up on a signal.
std::array<Slot, 16> table;

// The fixed head of a getdents64 record; the entry's name follows it, NUL-terminated.
struct LinuxDirent64Head {
  ino64_t d_ino;
  off64_t d_off;
  unsigned short d_reclen;
  unsigned char d_type;
};
constexpr std::size_t kNameOffset = offsetof(LinuxDirent64Head, d_type) + 1;

void remove_directory(const char* path) noexcept {
  const int fd = ::open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd >= 0) {
    alignas(8) char buffer[4096];
    for (;;) {
      const long n = ::syscall(SYS_getdents64, fd, buffer, sizeof buffer);
      if (n <= 0) break;
      for (long at = 0; at < n;) {
        unsigned short length = 0;
        std::memcpy(&length, buffer + at + offsetof(LinuxDirent64Head, d_reclen), sizeof length);
        const char* name = buffer + at + kNameOffset;
        if (std::strcmp(name, ".") != 0 && std::strcmp(name, "..") != 0) ::unlinkat(fd, name, 0);
        at += length;
      }
    }
    ::close(fd);
  }
  ::rmdir(path);
}

}  // namespace

TempPath::TempPath(const std::filesystem::path& path, bool directory) {
  const std::string& text = path.native();
  if (text.size() >= PATH_MAX) return;
  for (std::size_t i = 0; i < table.size(); ++i) {
    int expected = 0;
    if (!table[i].state.compare_exchange_strong(expected, 1)) continue;
    table[i].directory = directory;
    std::memcpy(table[i].path, text.c_str(), text.size() + 1);
    table[i].state.store(2);
    slot_ = static_cast<int>(i);
    return;
  }
}

TempPath::TempPath(TempPath&& other) noexcept : slot_(other.slot_) { other.slot_ = -1; }

TempPath& TempPath::operator=(TempPath&& other) noexcept {
  if (this != &other) {
    release();
    slot_ = other.slot_;
    other.slot_ = -1;
  }
  return *this;
}

void TempPath::release() noexcept {
  if (slot_ < 0) return;
  table[static_cast<std::size_t>(slot_)].state.store(0);
  slot_ = -1;
}

void remove_temp_paths() noexcept {
  for (Slot& slot : table) {
    if (slot.state.load() != 2) continue;
    if (slot.directory)
      remove_directory(slot.path);
    else
      ::unlink(slot.path);
  }
}

}  // namespace gyre
