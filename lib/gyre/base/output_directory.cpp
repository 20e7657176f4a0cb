// gyre/base/output_directory.cpp — staging beside the target, then one exchange of directories.
#include "gyre/base/output_directory.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string_view>
#include <stdexcept>

namespace gyre {
namespace fs = std::filesystem;

namespace {

fs::path resolved(const fs::path& path) {
  std::error_code ec;
  if (fs::is_symlink(path, ec) && fs::exists(path, ec)) return fs::canonical(path);
  return fs::absolute(path).lexically_normal();
}

fs::path sibling_name(const fs::path& target, const char* role, const void* owner) {
  char suffix[80];
  std::snprintf(suffix, sizeof suffix, ".gyre-%s-%ld-%lx", role, static_cast<long>(::getpid()),
                static_cast<unsigned long>(reinterpret_cast<std::uintptr_t>(owner)));
  return target.parent_path() / ("." + target.filename().string() + suffix);
}

// The process that named a sibling of `target` (".NAME.gyre-new-PID-ADDR", or -old-), if it is one.
std::optional<long> sibling_owner(const fs::path& target, const std::string& entry) {
  const std::string stem = "." + target.filename().string() + ".gyre-";
  if (entry.rfind(stem, 0) != 0) return std::nullopt;
  std::string_view rest = std::string_view(entry).substr(stem.size());
  for (const std::string_view role : {"new-", "old-"})
    if (rest.rfind(role, 0) == 0) {
      rest.remove_prefix(role.size());
      long pid = 0;
      std::size_t digits = 0;
      for (; digits < rest.size() && rest[digits] >= '0' && rest[digits] <= '9' && digits < 10; ++digits)
        pid = pid * 10 + (rest[digits] - '0');
      if (digits == 0 || digits >= rest.size() || rest[digits] != '-' || pid <= 0) return std::nullopt;
      return pid;
    }
  return std::nullopt;
}

// A run killed while it staged (kill -9 gets no clean-up) leaves a hidden copy of a whole
// output beside the target; the next run for the same target removes those of processes that
// have ended, and says so. A live process's (another run at work) is left alone.
void reclaim_stale_siblings(const fs::path& target) {
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(target.parent_path(), ec)) {
    const std::string name = entry.path().filename().string();
    const auto pid = sibling_owner(target, name);
    if (!pid || *pid == ::getpid() || ::kill(static_cast<pid_t>(*pid), 0) == 0 || errno != ESRCH) continue;
    std::error_code removed;
    fs::remove_all(entry.path(), removed);
    if (!removed)
      std::fprintf(stderr, "gyre: removed %s, left unfinished by process %ld, which has ended\n",
                   entry.path().c_str(), *pid);
  }
}

// renameat2 with a flag, or false when this kernel or file system lacks the flag.
bool rename_with(const fs::path& from, const fs::path& to, unsigned flags, int& error) {
  if (::renameat2(AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), flags) == 0) return true;
  error = errno;
  return false;
}

}  // namespace

DirectoryKind DirectoryKind::of_files(std::string what, std::vector<std::string> names) {
  return {std::move(what), [names = std::move(names)](std::string_view name) {
            for (const std::string& n : names)
              if (n == name) return true;
            return false;
          }};
}

void check_replaceable(const fs::path& path, const DirectoryKind& kind) {
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);  // follows symlinks
  if (!fs::exists(st)) return;
  if (!fs::is_directory(st))
    throw std::invalid_argument(path.string() + " exists and is not a directory; expected " + kind.what +
                                " directory");
  for (const auto& entry : fs::directory_iterator(path, ec)) {
    const std::string name = entry.path().filename().string();
    if (!kind.owns(name))
      throw std::invalid_argument(path.string() + " holds '" + name + "', which " + kind.what +
                                  " does not; refusing to replace that directory (remove it or choose another)");
  }
  if (ec) throw std::invalid_argument("cannot list " + path.string() + ": " + ec.message());
}

OutputDirectory::OutputDirectory(const fs::path& path, DirectoryKind kind)
    : path_(path), target_(resolved(path)), kind_(std::move(kind)) {
  check_replaceable(target_, kind_);
  reclaim_stale_siblings(target_);
  staging_ = sibling_name(target_, "new", this);
  if (::mkdir(staging_.c_str(), 0777) != 0)
    throw std::runtime_error("cannot create a directory beside " + path_.string() + ": " + std::strerror(errno));
  staging_record_ = TempPath(staging_, true);
  // The new directory takes the old one's place, so it keeps its mode and owner (a 0700 model
  // directory must not become readable by all); set now, so that the files are never exposed,
  // but writable by us until commit() gives it the mode exactly.
  struct stat old {};
  if (::stat(target_.c_str(), &old) == 0) {
    mode_ = old.st_mode & 07777;
    if (::chmod(staging_.c_str(), *mode_ | S_IRWXU) != 0)
      throw std::runtime_error("cannot give " + staging_.string() + " the mode of " + path_.string() + ": " +
                               std::strerror(errno));
    struct stat now {};
    if (::stat(staging_.c_str(), &now) == 0 && (now.st_uid != old.st_uid || now.st_gid != old.st_gid) &&
        ::chown(staging_.c_str(), old.st_uid, old.st_gid) != 0 && errno != EPERM)
      throw std::runtime_error("cannot give " + staging_.string() + " the owner of " + path_.string() + ": " +
                               std::strerror(errno));
  }
}

OutputDirectory::~OutputDirectory() {
  if (committed_) return;
  std::error_code ignored;
  fs::remove_all(staging_, ignored);
}

void OutputDirectory::commit() {
  if (committed_) return;
  std::error_code ec;
  int error = 0;
  if (!fs::exists(target_, ec)) {
    if (!rename_with(staging_, target_, RENAME_NOREPLACE, error) &&
        ((error != EINVAL && error != ENOSYS) || ::rename(staging_.c_str(), target_.c_str()) != 0))
      throw std::runtime_error("cannot publish " + path_.string() + ": " + std::strerror(error ? error : errno));
  } else {
    check_replaceable(target_, kind_);  // again: it may have changed while we worked
    if (mode_ && ::chmod(staging_.c_str(), *mode_) != 0)
      throw std::runtime_error("cannot give " + staging_.string() + " the mode of " + path_.string() + ": " +
                               std::strerror(errno));
    if (rename_with(staging_, target_, RENAME_EXCHANGE, error)) {
      fs::remove_all(staging_, ec);  // now the old contents
    } else if (error == EINVAL || error == ENOSYS) {
      // No atomic exchange here: the target is missing for the moment between two renames.
      const fs::path old = sibling_name(target_, "old", this);
      TempPath old_record(old, true);
      if (::rename(target_.c_str(), old.c_str()) != 0)
        throw std::runtime_error("cannot replace " + path_.string() + ": " + std::strerror(errno));
      if (::rename(staging_.c_str(), target_.c_str()) != 0) {
        const int failed = errno;
        ::rename(old.c_str(), target_.c_str());
        throw std::runtime_error("cannot replace " + path_.string() + ": " + std::strerror(failed));
      }
      fs::remove_all(old, ec);
    } else {
      throw std::runtime_error("cannot replace " + path_.string() + ": " + std::strerror(error));
    }
  }
  staging_record_.release();
  committed_ = true;
}

}  // namespace gyre
