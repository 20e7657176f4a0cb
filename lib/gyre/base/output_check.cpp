// gyre/base/output_check.cpp — up-front checks of output locations against the file system and the inputs.
#include "gyre/base/output_check.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <vector>

#include "gyre/base/output_file.hpp"

namespace gyre {
namespace fs = std::filesystem;

namespace {

struct Identity {
  dev_t device = 0;
  ino_t inode = 0;
  bool operator==(const Identity&) const = default;
};

std::optional<Identity> identity_of(const fs::path& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  return Identity{st.st_dev, st.st_ino};
}

fs::path canonical_or_absolute(const fs::path& path) {
  std::error_code ec;
  fs::path p = fs::weakly_canonical(path, ec);
  return ec ? fs::absolute(path).lexically_normal() : p;
}

bool is_within(const fs::path& inner, const fs::path& outer) {
  const fs::path rel = inner.lexically_relative(outer);
  return !rel.empty() && *rel.begin() != "..";
}

// Can a file be created in `dir`? Creating one answers exactly (read-only mounts, ACLs, file
// systems that take no files, root included), where access() would only read mode bits. A
// nameless file leaves nothing behind; without O_TMPFILE a named one is made and removed.
void probe_directory(const fs::path& dir, const std::string& who) {
  int fd = ::open(dir.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
  int error = fd >= 0 ? 0 : errno;
  if (fd < 0 && (error == EOPNOTSUPP || error == EISDIR || error == EINVAL)) {
    const fs::path probe = dir / (".gyre-probe-" + std::to_string(::getpid()));
    fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    error = fd >= 0 ? 0 : errno;
    if (fd >= 0) ::unlink(probe.c_str());
  }
  if (fd >= 0) {
    ::close(fd);
    return;
  }
  if (error == ENOENT) throw std::invalid_argument(who + ": directory " + dir.string() + " does not exist");
  if (error == ENOTDIR) throw std::invalid_argument(who + ": " + dir.string() + " is not a directory");
  throw std::invalid_argument(who + ": cannot create files in " + dir.string() + ": " + std::strerror(error));
}

struct CheckedOutput {
  std::string who;                  // "--metrics m.json"
  fs::path target;                  // what gets replaced (absolute); empty for streams
  std::optional<Identity> identity;
  bool directory = false;
};

struct Input {
  fs::path path;     // as given
  fs::path where;    // canonical
  std::optional<Identity> identity;
};

std::vector<Input> inputs_of(std::span<const fs::path> paths) {
  std::vector<Input> out;
  for (const fs::path& p : paths) {
    if (p.empty()) continue;
    out.push_back({p, canonical_or_absolute(p), identity_of(p)});
    std::error_code ec;
    if (!fs::is_directory(p, ec)) continue;
    for (const auto& entry : fs::directory_iterator(p, ec))
      out.push_back({entry.path(), canonical_or_absolute(entry.path()), identity_of(entry.path())});
  }
  return out;
}

// A kept directory takes new files, or its nearest existing ancestor can make it.
void probe_kept(const fs::path& dir, const std::string& who) {
  std::error_code ec;
  const fs::file_status st = fs::status(dir, ec);
  if (ec && ec != std::errc::no_such_file_or_directory)
    throw std::invalid_argument(who + ": " + (ec == std::errc::too_many_symbolic_link_levels
                                                  ? std::string("a loop of symbolic links")
                                                  : ec.message()));
  if (fs::exists(st)) {
    if (!fs::is_directory(st)) throw std::invalid_argument(who + ": exists and is not a directory");
    return probe_directory(dir, who);
  }
  fs::path ancestor = dir.parent_path();
  while (!ancestor.empty() && !fs::exists(ancestor, ec) && ancestor != ancestor.parent_path())
    ancestor = ancestor.parent_path();
  probe_directory(ancestor.empty() ? fs::path(".") : ancestor, who);
}

CheckedOutput check_one(const OutputSpec& o) {
  CheckedOutput c;
  c.who = o.flag + " " + o.path.string();
  if (o.kept) {
    c.target = canonical_or_absolute(o.path);
    probe_kept(c.target, c.who);
    c.identity = identity_of(c.target);
    return c;
  }
  if (o.directory != nullptr) {
    c.directory = true;
    c.target = canonical_or_absolute(o.path);
    try {
      check_replaceable(o.path, *o.directory);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(o.flag + ": " + e.what());
    }
    probe_directory(directory_of(c.target), c.who);
    c.identity = identity_of(c.target);
    return c;
  }
  OutputTarget t;
  try {
    t = resolve_output(o.path);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(o.flag + " " + e.what());
  }
  if (t.kind == OutputTarget::kReplace) {
    c.target = t.file;
    probe_directory(directory_of(t.file), c.who);
    c.identity = identity_of(t.file);
  } else if (t.descriptor < 0) {
    struct stat st {};
    if (::stat(o.path.c_str(), &st) == 0 && !S_ISFIFO(st.st_mode) && ::access(o.path.c_str(), W_OK) != 0)
      throw std::invalid_argument(c.who + ": " + std::strerror(errno));
  }
  return c;
}

}  // namespace

void check_outputs(std::span<const OutputSpec> outputs, std::span<const fs::path> inputs) {
  const std::vector<Input> in = inputs_of(inputs);
  std::vector<CheckedOutput> checked;
  for (const OutputSpec& o : outputs) {
    if (o.path.empty()) continue;
    CheckedOutput c = check_one(o);
    for (const Input& i : in) {
      if (c.identity && i.identity && *c.identity == *i.identity)
        throw std::invalid_argument(c.who + " is the input " + i.path.string() +
                                    " (the same file); refusing to overwrite an input");
      if (c.directory && is_within(i.where, c.target))
        throw std::invalid_argument(c.who + " holds the input " + i.path.string() +
                                    ", which replacing the directory would delete");
    }
    for (const CheckedOutput& other : checked) {
      if (c.target.empty() || other.target.empty()) continue;  // streams may be shared (/dev/null twice)
      if (c.target == other.target || (c.identity && other.identity && *c.identity == *other.identity))
        throw std::invalid_argument(c.who + " and " + other.who + " are the same output");
      if (other.directory && is_within(c.target, other.target))
        throw std::invalid_argument(c.who + " lies inside " + other.who + ", which is replaced as a whole");
      if (c.directory && is_within(other.target, c.target))
        throw std::invalid_argument(other.who + " lies inside " + c.who + ", which is replaced as a whole");
    }
    checked.push_back(std::move(c));
  }
}

}  // namespace gyre
