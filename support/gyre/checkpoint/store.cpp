// gyre/checkpoint/store.cpp — sealed files, manifests, and finding the newest sound checkpoint.
#include "gyre/checkpoint/store.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <charconv>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <system_error>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include "gyre/base/crc32c.hpp"
#include "gyre/base/input_error.hpp"
#include "gyre/base/json_input.hpp"
#include "gyre/base/output_file.hpp"

namespace gyre::checkpoint {
namespace fs = std::filesystem;

namespace {

constexpr std::array<char, 8> kMagic{'G', 'Y', 'R', 'E', 'C', 'K', 'P', '1'};
constexpr std::size_t kHeader = kMagic.size() + 8;
constexpr const char* kManifest = "manifest";
constexpr const char* kPrefix = "epoch-";

void put_u64(unsigned char* out, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) out[i] = static_cast<unsigned char>(v >> (8 * i));
}
std::uint32_t get_u32(const unsigned char* in) {
  return std::uint32_t{in[0]} | std::uint32_t{in[1]} << 8 | std::uint32_t{in[2]} << 16 | std::uint32_t{in[3]} << 24;
}
std::uint64_t get_u64(const unsigned char* in) {
  std::uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= std::uint64_t{in[i]} << (8 * i);
  return v;
}

// Streams a sealed file through its checks; `sink` receives the payload in pieces (or nothing).
// Returns the file's crc32c.
std::uint32_t read_checked(const fs::path& file, const std::function<void(const char*, std::size_t)>& sink) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw InputError(file, 0, "a checkpoint file", "none (missing or unreadable)");
  unsigned char header[kHeader];
  in.read(reinterpret_cast<char*>(header), kHeader);
  if (in.gcount() != static_cast<std::streamsize>(kHeader) || std::memcmp(header, kMagic.data(), kMagic.size()) != 0)
    throw InputError(file, 0, "a gyre checkpoint file (starting GYRECKP1)", "something else");
  const std::uint64_t length = get_u64(header + kMagic.size());
  std::error_code ec;
  const auto size = fs::file_size(file, ec);
  if (ec || length > size || size - length != kHeader + 4)
    throw InputError(file, 0, "a checkpoint file of its recorded length", "a truncated or extended one");
  std::uint32_t crc = crc32c(header, kHeader);
  std::vector<char> buffer(std::min<std::uint64_t>(length, std::uint64_t{1} << 20) + 1);
  for (std::uint64_t left = length; left > 0;) {
    const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(left, buffer.size()));
    in.read(buffer.data(), static_cast<std::streamsize>(n));
    if (in.gcount() != static_cast<std::streamsize>(n)) throw InputError(file, 0, "a complete checkpoint file", "a short read");
    crc = crc32c(buffer.data(), n, crc);
    if (sink) sink(buffer.data(), n);
    left -= n;
  }
  unsigned char trailer[4];
  in.read(reinterpret_cast<char*>(trailer), 4);
  if (in.gcount() != 4 || get_u32(trailer) != crc)
    throw InputError(file, 0, "a checkpoint file whose checksum matches", "a damaged one (crc32c differs)");
  return crc;
}

// The crc32c a sealed file's trailer records, without reading the rest (checked on resume).
std::uint32_t trailer_crc(const fs::path& file) {
  std::ifstream in(file, std::ios::binary | std::ios::ate);
  unsigned char trailer[4] = {};
  if (in && in.tellg() >= static_cast<std::streamoff>(kHeader + 4)) {
    in.seekg(-4, std::ios::end);
    in.read(reinterpret_cast<char*>(trailer), 4);
  }
  if (!in) throw std::runtime_error("cannot read the checkpoint part " + file.string() + " to seal its manifest");
  return get_u32(trailer);
}

// An flock held for as long as the handle lives.
struct HeldLock {
  explicit HeldLock(int descriptor) : fd(descriptor) {}
  HeldLock(const HeldLock&) = delete;
  HeldLock& operator=(const HeldLock&) = delete;
  ~HeldLock() { ::close(fd); }
  int fd;
};

std::string hex(std::uint32_t v) {
  char text[16];
  std::snprintf(text, sizeof text, "0x%08x", v);
  return text;
}

std::string encode_manifest(const Manifest& m) {
  nlohmann::json settings = nlohmann::json::array();
  for (const auto& [name, value] : m.settings) settings.push_back({name, value});
  nlohmann::json j{{"format", "gyre checkpoint"}, {"version", 2},          {"epoch", m.epoch},
                   {"ranks", m.ranks},             {"settings", settings}, {"state", m.state},
                   {"parts", m.parts}};
  return j.dump(1);
}

Manifest decode_manifest(const fs::path& file, const std::vector<std::byte>& bytes) {
  try {
    const auto j = parse_json(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()), file,
                              "a gyre checkpoint manifest");
    if (j.at("format") != "gyre checkpoint" || (j.at("version") != 1 && j.at("version") != 2))
      throw InputError(file, 0, "a gyre checkpoint manifest of version 1 or 2");
    Manifest m;
    m.epoch = j.at("epoch").get<std::uint64_t>();
    m.ranks = j.at("ranks").get<int>();
    for (const auto& s : j.at("settings")) m.settings.emplace_back(s.at(0).get<std::string>(), s.at(1).get<std::string>());
    m.state = j.at("state").get<std::string>();
    if (m.ranks < 1) throw InputError(file, 0, "a manifest of at least one rank");
    if (j.at("version") == 2) {
      m.parts = j.at("parts").get<std::vector<std::uint32_t>>();
      if (m.parts.size() != static_cast<std::size_t>(m.ranks))
        throw InputError(file, 0, "a checksum for each of its " + std::to_string(m.ranks) + " parts",
                         std::to_string(m.parts.size()));
    }
    return m;
  } catch (const nlohmann::json::exception& e) {
    throw InputError(file, 0, "a gyre checkpoint manifest", e.what());
  }
}

std::optional<std::uint64_t> epoch_of(const std::string& name) {
  if (name.rfind(kPrefix, 0) != 0) return std::nullopt;
  const char* first = name.data() + std::strlen(kPrefix);
  const char* last = name.data() + name.size();
  std::uint64_t epoch = 0;
  const auto [end, ec] = std::from_chars(first, last, epoch);
  if (ec != std::errc() || end != last || first == last) return std::nullopt;
  return epoch;
}

}  // namespace

void write_sealed(const fs::path& file, std::span<const std::byte> payload) {
  unsigned char header[kHeader];
  std::memcpy(header, kMagic.data(), kMagic.size());
  put_u64(header + kMagic.size(), payload.size());
  const std::uint32_t crc = crc32c(payload.data(), payload.size(), crc32c(header, kHeader));
  const unsigned char trailer[4] = {static_cast<unsigned char>(crc), static_cast<unsigned char>(crc >> 8),
                                    static_cast<unsigned char>(crc >> 16), static_cast<unsigned char>(crc >> 24)};
  OutputFile out(file);
  out.stream().write(reinterpret_cast<const char*>(header), kHeader);
  out.stream().write(reinterpret_cast<const char*>(payload.data()), static_cast<std::streamsize>(payload.size()));
  out.stream().write(reinterpret_cast<const char*>(trailer), 4);
  out.commit();
}

std::vector<std::byte> read_sealed(const fs::path& file) {
  std::vector<std::byte> out;
  read_checked(file, [&](const char* data, std::size_t n) {
    const auto* b = reinterpret_cast<const std::byte*>(data);
    out.insert(out.end(), b, b + n);
  });
  return out;
}

std::uint32_t check_sealed(const fs::path& file) { return read_checked(file, {}); }

Store::Store(fs::path root, int keep, std::string job) : root_(std::move(root)), keep_(keep), job_(std::move(job)) {
  if (root_.empty()) throw std::invalid_argument("a checkpoint store needs a directory");
  if (keep_ < 1) throw std::invalid_argument("a checkpoint store keeps at least one checkpoint (--keep >= 1)");
}

fs::path Store::directory(std::uint64_t epoch) const { return root_ / (kPrefix + std::to_string(epoch)); }

fs::path Store::part_file(std::uint64_t epoch, int rank) const {
  return directory(epoch) / ("rank-" + std::to_string(rank) + ".part");
}

void Store::require_held_for_job() const {
  std::ifstream in(root_ / ".gyre-lock");
  std::string pid, job;
  std::getline(in, pid);
  std::getline(in, job);
  if (job != job_)
    throw std::runtime_error("the checkpoint directory " + root_.string() +
                             " is not the one rank 0 holds for this job (" +
                             (in ? "it is held for another job" : "no lock of this job's in it") +
                             "): every rank of a job must write checkpoints to one shared directory");
}

void Store::write_part(std::uint64_t epoch, int rank, std::span<const std::byte> payload) const {
  if (!job_.empty()) std::call_once(*job_checked_, [this] { require_held_for_job(); });
  std::error_code ec;
  fs::create_directories(directory(epoch), ec);  // every rank may race to make it
  if (!fs::is_directory(directory(epoch)))
    throw std::runtime_error("cannot make the checkpoint directory " + directory(epoch).string() + ": " + ec.message());
  write_sealed(part_file(epoch, rank), payload);
}

void Store::commit(const Manifest& manifest) const {
  Manifest sealed = manifest;
  sealed.parts.clear();
  for (int r = 0; r < manifest.ranks; ++r) sealed.parts.push_back(trailer_crc(part_file(manifest.epoch, r)));
  const std::string text = encode_manifest(sealed);
  write_sealed(directory(manifest.epoch) / kManifest, std::as_bytes(std::span(text.data(), text.size())));
  int whole = 0;
  for (const std::uint64_t epoch : epochs_on_disk()) {
    if (epoch > manifest.epoch) continue;  // none: discard_after cleared them at the start
    const bool is_whole = fs::exists(directory(epoch) / kManifest);
    if (is_whole && whole < keep_) {
      ++whole;
      continue;
    }
    std::error_code ec;
    fs::remove_all(directory(epoch), ec);
  }
}

std::optional<Found> Store::newest_valid(const std::function<void(const std::string&)>& warn) const {
  for (const std::uint64_t epoch : epochs_on_disk()) {
    const fs::path dir = directory(epoch);
    try {
      if (!fs::exists(dir / kManifest))
        throw InputError(dir / kManifest, 0, "the manifest that makes a checkpoint whole",
                         "none (a rank stopped while the checkpoint was written)");
      Found found{decode_manifest(dir / kManifest, read_sealed(dir / kManifest)), dir};
      if (found.manifest.epoch != epoch)
        throw InputError(dir / kManifest, 0, "epoch " + std::to_string(epoch), "epoch " + std::to_string(found.manifest.epoch));
      for (int r = 0; r < found.manifest.ranks; ++r) {
        const std::uint32_t crc = check_sealed(part_file(epoch, r));
        // A sound part that is not the one the manifest was sealed with: copied from another
        // epoch or another job, it would resume silently into a wrong model.
        if (!found.manifest.parts.empty() && crc != found.manifest.parts[static_cast<std::size_t>(r)])
          throw InputError(part_file(epoch, r), 0,
                           "the part its manifest was sealed with (crc32c " +
                               hex(found.manifest.parts[static_cast<std::size_t>(r)]) + ")",
                           "another one (crc32c " + hex(crc) + "), from another checkpoint or job");
      }
      return found;
    } catch (const InputError& e) {
      if (warn) warn(std::string(e.what()) + "; passing over the checkpoint of epoch " + std::to_string(epoch));
    }
  }
  return std::nullopt;
}

std::vector<std::byte> Store::read_part(const Found& found, int rank) const {
  return read_sealed(found.directory / ("rank-" + std::to_string(rank) + ".part"));
}

std::shared_ptr<const void> Store::hold() const {
  std::error_code ec;
  fs::create_directories(root_, ec);
  if (!fs::is_directory(root_))
    throw std::invalid_argument("checkpoint directory " + root_.string() + ": cannot make it" +
                                (ec ? ": " + ec.message() : std::string()));
  const fs::path file = root_ / ".gyre-lock";
  const int fd = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) throw std::invalid_argument("checkpoint directory " + root_.string() + ": cannot open " + file.string() +
                                          ": " + std::strerror(errno));
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    char holder[32] = {};
    const ssize_t n = ::pread(fd, holder, sizeof holder - 1, 0);
    ::close(fd);
    const std::string pid = n > 0 ? std::string(holder, static_cast<std::size_t>(n)) : std::string("?");
    throw std::invalid_argument("checkpoint directory " + root_.string() + " is in use by another job (process " +
                                pid.substr(0, pid.find_first_not_of("0123456789")) +
                                "): give each job a directory of its own");
  }
  auto held = std::make_shared<const HeldLock>(fd);
  // The holder's pid (for a second job's message), then the job the other ranks check for.
  const std::string record = std::to_string(::getpid()) + "\n" + job_ + "\n";
  if (::ftruncate(fd, 0) != 0 ||
      ::pwrite(fd, record.data(), record.size(), 0) != static_cast<ssize_t>(record.size()))
    throw std::invalid_argument("checkpoint directory " + root_.string() + ": cannot write " + file.string() + ": " +
                                std::strerror(errno));
  return held;
}

void Store::discard_after(std::uint64_t epoch) const {
  for (const std::uint64_t e : epochs_on_disk()) {
    if (e <= epoch) continue;
    std::error_code ec;
    fs::remove_all(directory(e), ec);
    if (ec) throw std::runtime_error("cannot remove the stale checkpoint " + directory(e).string() + ": " + ec.message());
  }
}

std::vector<std::uint64_t> Store::epochs_on_disk() const {
  std::vector<std::uint64_t> out;
  std::error_code ec;
  if (!fs::is_directory(root_, ec)) return out;
  for (const auto& entry : fs::directory_iterator(root_, ec)) {
    // A name that does not lead to a directory (a file, a symlink loop) is no checkpoint: passed over.
    std::error_code unreadable;
    if (const auto epoch = epoch_of(entry.path().filename().string()); epoch && entry.is_directory(unreadable))
      out.push_back(*epoch);
  }
  std::sort(out.rbegin(), out.rend());
  return out;
}

}  // namespace gyre::checkpoint
