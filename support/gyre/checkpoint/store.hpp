// gyre/checkpoint/store.hpp — checkpoints on disk: every rank's part sealed by a checksum, a manifest written last, the newest sound one found.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "gyre/cluster/launch.hpp"

namespace gyre::checkpoint {

// A sealed file: the magic "GYRECKP1", the payload's length (u64, little-endian), the payload,
// and the crc32c of everything before it. It is written under a temporary name and renamed into
// place, so a process killed mid-write leaves the old file or none, never a part; a flipped or
// missing byte fails the checksum or the length.
void write_sealed(const std::filesystem::path& file, std::span<const std::byte> payload);
// The payload; throws InputError naming the file and what is wrong with it.
std::vector<std::byte> read_sealed(const std::filesystem::path& file);
// read_sealed's checks without keeping the payload (a resume validates every part before it
// reads any, and parts can be as large as the model); returns the file's crc32c.
std::uint32_t check_sealed(const std::filesystem::path& file);

// What makes a checkpoint whole. It is written after every rank's part, so a checkpoint without
// one (a rank died while writing) is torn and never used.
struct Manifest {
  std::uint64_t epoch = 0;   // epochs done when it was taken; the directory is epoch-<epoch>
  int ranks = 0;             // parts rank-0 … rank-(ranks−1)
  // The run's settings (flags that shape the result, digests of its inputs), so that a resume
  // with other ones is refused naming the first difference.
  cluster::JobSettings settings;
  std::string state;         // the control plane's own state: JSON text, the app's format
  // Each part's crc32c, recorded by Store::commit (version 2), so that a part that is not the
  // one written for this checkpoint is refused on resume; empty in a version-1 manifest.
  std::vector<std::uint32_t> parts;
};

struct Found {
  Manifest manifest;
  std::filesystem::path directory;
};

// A checkpoint directory: root/epoch-<N>/{rank-<r>.part, manifest}. The ranks of a job on
// several hosts must see the same root (a shared file system), as they see their inputs.
class Store {
 public:
  // Keeps the newest `keep` (>= 1) whole checkpoints; older ones go when a new one is made whole.
  // `job` (e.g. a digest of the settings every rank shares) binds the directory to one job:
  // hold() records it, and write_part() refuses a root whose holder is not this job (a rank
  // whose --checkpoint names another directory than rank 0's, whose parts no resume could find).
  Store(std::filesystem::path root, int keep, std::string job = {});

  const std::filesystem::path& root() const noexcept { return root_; }
  int keep() const noexcept { return keep_; }
  std::filesystem::path directory(std::uint64_t epoch) const;
  std::filesystem::path part_file(std::uint64_t epoch, int rank) const;

  // Rank `rank`'s part of the checkpoint after `epoch` (the directory is made if missing).
  // With a job: first checks, once, that the root is held for that job; std::runtime_error if not.
  void write_part(std::uint64_t epoch, int rank, std::span<const std::byte> payload) const;
  // Makes the checkpoint whole once every part is written, then prunes: every checkpoint
  // directory but the newest `keep` whole ones goes.
  void commit(const Manifest& manifest) const;

  // The newest whole checkpoint whose manifest and parts pass their checks. Each newer one that
  // does not is passed over with `warn` saying why, naming the file ("…/epoch-4/rank-1.part:
  // its checksum does not match"). nullopt when there is none (or no root).
  std::optional<Found> newest_valid(const std::function<void(const std::string&)>& warn) const;
  std::vector<std::byte> read_part(const Found& found, int rank) const;

  // Makes the root if missing and holds it for this run until the handle goes (an flock on
  // root/.gyre-lock): a second job given the same directory is refused rather than writing
  // over this one's checkpoints. Throws std::invalid_argument naming the process that holds it.
  std::shared_ptr<const void> hold() const;

  // Removes the checkpoint directories after `epoch` (all of them for 0): a fresh run starts
  // from an empty store, and a resumed one drops the torn ones past its start, so that none
  // of an earlier run can be taken for this one's. Only entries named epoch-<N> are touched.
  void discard_after(std::uint64_t epoch) const;

 private:
  std::vector<std::uint64_t> epochs_on_disk() const;  // descending

  void require_held_for_job() const;

  std::filesystem::path root_;
  int keep_;
  std::string job_;
  std::shared_ptr<std::once_flag> job_checked_ = std::make_shared<std::once_flag>();
};

}  // namespace gyre::checkpoint
