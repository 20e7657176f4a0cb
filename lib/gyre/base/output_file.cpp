// gyre/base/output_file.cpp — nameless files linked into place, and write-through for devices and pipes.
#include "gyre/base/output_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string>

#include "gyre/base/fd_streambuf.hpp"
#include "gyre/base/temp_paths.hpp"

namespace gyre {
namespace fs = std::filesystem;

namespace {

std::string system_error_text(int error) { return std::strerror(error); }

// The descriptor a path names without going through the file system: the standard streams and
// the /dev/fd, /proc/self/fd views of a process's own descriptors.
std::optional<int> descriptor_of(const fs::path& path) {
  const std::string p = path.lexically_normal().string();
  if (p == "-" || p == "/dev/stdout") return 1;
  if (p == "/dev/stderr") return 2;
  for (const std::string_view prefix : {std::string_view("/dev/fd/"), std::string_view("/proc/self/fd/")}) {
    if (!p.starts_with(prefix)) continue;
    int fd = -1;
    const char* begin = p.data() + prefix.size();
    const char* end = p.data() + p.size();
    const auto [ptr, ec] = std::from_chars(begin, end, fd);
    if (ec == std::errc() && ptr == end && begin != end) return fd;
  }
  return std::nullopt;
}

// A unique name beside `target` for the moment between linking a nameless file and renaming it,
// or for the whole write where the file system has no O_TMPFILE.
fs::path temporary_name(const fs::path& target, const void* owner) {
  char suffix[64];
  std::snprintf(suffix, sizeof suffix, ".gyre-%ld-%lx", static_cast<long>(::getpid()),
                static_cast<unsigned long>(reinterpret_cast<std::uintptr_t>(owner)));
  return target.parent_path() / ("." + target.filename().string() + suffix);
}

}  // namespace

fs::path directory_of(const fs::path& file) {
  return file.parent_path().empty() ? fs::path(".") : file.parent_path();
}

OutputTarget resolve_output(const fs::path& path) {
  if (path.empty()) throw std::invalid_argument("an empty output path");
  if (const auto fd = descriptor_of(path)) {
    if (::fcntl(*fd, F_GETFD) < 0)
      throw std::invalid_argument(path.string() + ": descriptor " + std::to_string(*fd) + " is not open");
    return {OutputTarget::kStream, {}, *fd};
  }
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) throw std::invalid_argument(path.string() + ": is a directory, expected a file");
    if (S_ISBLK(st.st_mode))
      throw std::invalid_argument(path.string() + ": is a block device; gyre writes no output over one");
    if (S_ISREG(st.st_mode)) return {OutputTarget::kReplace, fs::canonical(path), -1};
    return {OutputTarget::kStream, path, -1};  // character device, FIFO, socket
  }
  if (errno != ENOENT) throw std::invalid_argument(path.string() + ": " + system_error_text(errno));
  // A new file; through a dangling symlink, the name the link points at.
  fs::path target = path;
  std::error_code ec;
  for (int hops = 0; hops < 40 && fs::is_symlink(target, ec); ++hops) {
    const fs::path link = fs::read_symlink(target, ec);
    if (ec) break;
    target = link.is_absolute() ? link : target.parent_path() / link;
  }
  return {OutputTarget::kReplace, fs::absolute(target).lexically_normal(), -1};
}

struct OutputFile::Impl {
  fs::path path;  // as given, for messages
  OutputTarget target;
  int fd = -1;
  bool nameless = false;  // an O_TMPFILE file, still to be linked
  fs::path named_temp;    // where there is no O_TMPFILE: the file is written under this name
  TempPath temp_record;
  std::optional<mode_t> keep_mode;  // of the file being replaced
  std::unique_ptr<FdStreamBuf> buffer;
  std::ostream out{nullptr};
  bool committed = false;

  [[noreturn]] void fail(const std::string& what, int error) const {
    throw std::runtime_error(what + " " + path.string() + ": " + system_error_text(error));
  }

  void open_replacement() {
    const fs::path& file = target.file;
    struct stat st {};
    if (::stat(file.c_str(), &st) == 0) keep_mode = st.st_mode & 07777;
    const fs::path dir = directory_of(file);
    fd = ::open(dir.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
    if (fd >= 0) {
      nameless = true;
      return;
    }
    if (errno == ENOENT) throw std::runtime_error("cannot create " + path.string() + ": directory " + dir.string() + " does not exist");
    if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL) fail("cannot create", errno);
    named_temp = temporary_name(file, this);
    fd = ::open(named_temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0) fail("cannot create", errno);
    temp_record = TempPath(named_temp, false);
  }

  // Gives the nameless file a temporary name beside the target (linkat needs a new name).
  fs::path link_nameless() {
    const fs::path name = temporary_name(target.file, this);
    const std::string proc = "/proc/self/fd/" + std::to_string(fd);
    if (::linkat(AT_FDCWD, proc.c_str(), AT_FDCWD, name.c_str(), AT_SYMLINK_FOLLOW) != 0 &&
        ::linkat(fd, "", AT_FDCWD, name.c_str(), AT_EMPTY_PATH) != 0)
      fail("cannot publish", errno);
    temp_record = TempPath(name, false);
    return name;
  }

  void publish() {
    if (keep_mode && ::fchmod(fd, *keep_mode) != 0) fail("cannot set the permissions of", errno);
    const fs::path from = nameless ? link_nameless() : named_temp;
    if (::rename(from.c_str(), target.file.c_str()) != 0) {
      const int error = errno;
      ::unlink(from.c_str());
      temp_record.release();
      fail("cannot publish", error);
    }
    temp_record.release();
    named_temp.clear();
  }
};

OutputFile::OutputFile(const fs::path& path) : impl_(std::make_unique<Impl>()) {
  Impl& s = *impl_;
  s.path = path;
  s.target = resolve_output(path);
  if (s.target.descriptor >= 0) {
    // A duplicate, so that closing ours leaves the process's standard stream open.
    s.fd = ::fcntl(s.target.descriptor, F_DUPFD_CLOEXEC, 3);
    if (s.fd < 0) s.fail("cannot write", errno);
  } else if (s.target.kind == OutputTarget::kStream) {
    s.fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY);
    if (s.fd < 0) s.fail("cannot write", errno);
  } else {
    s.open_replacement();
  }
  s.buffer = std::make_unique<FdStreamBuf>(s.fd);
  s.out.rdbuf(s.buffer.get());
}

OutputFile::~OutputFile() {
  Impl& s = *impl_;
  if (s.target.kind == OutputTarget::kStream && !s.committed) s.out.flush();  // already public: deliver the rest
  if (s.fd >= 0) ::close(s.fd);
  if (!s.named_temp.empty()) ::unlink(s.named_temp.c_str());
}

std::ostream& OutputFile::stream() { return impl_->out; }

void OutputFile::commit() {
  Impl& s = *impl_;
  if (s.committed) return;
  s.out.flush();
  if (s.buffer->error() != 0) s.fail("cannot write", s.buffer->error());
  if (!s.out) throw std::runtime_error("cannot write " + s.path.string());
  if (s.target.kind == OutputTarget::kReplace) s.publish();
  const int fd = s.fd;
  s.fd = -1;
  if (::close(fd) != 0 && s.target.kind == OutputTarget::kReplace) s.fail("cannot write", errno);
  s.committed = true;
}

bool OutputFile::streams() const noexcept { return impl_->target.kind == OutputTarget::kStream; }

const fs::path& OutputFile::path() const noexcept { return impl_->path; }

}  // namespace gyre
