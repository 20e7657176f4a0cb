// gyre/runtime/parts_output.cpp — the write-in-parts protocol over a finished job's still-connected worker group.
#include "gyre/runtime/parts_output.hpp"

#include <cstring>
#include <stdexcept>
#include <string>

#include "gyre/runtime/collect_parts.hpp"

namespace gyre::runtime {
namespace {

net::Message text_message(std::uint16_t type, const std::string& text) {
  net::Message m;
  m.type = type;
  m.body = Buffer(text.size());
  if (!text.empty()) std::memcpy(m.body.data(), text.data(), text.size());
  return m;
}

std::string text_of(const net::Message& m) {
  if (m.body.size() > kMaxPartNote)
    throw std::runtime_error("a note of " + std::to_string(m.body.size()) + " bytes (at most " +
                             std::to_string(kMaxPartNote) + ")");
  return {reinterpret_cast<const char*>(m.body.data()), m.body.size()};
}

net::Message from_rank_0(Mailbox& mailbox, std::uint16_t type, std::chrono::milliseconds timeout,
                         const std::string& what) {
  const int rank = mailbox.group().rank();
  net::Message m = Receiver(mailbox, "rank " + std::to_string(rank), timeout)
                       .receive([type](const net::Message& x) { return x.type == type; },
                                [&] { return Silence{0, what + " from rank 0"}; });
  if (m.sender != 0)
    throw JobFailed(m.sender, FailureCause::kBadMessage,
                             "rank " + std::to_string(rank) + ": " + what + " from rank " + std::to_string(m.sender) +
                                 ", not rank 0");
  return m;
}

}  // namespace

void write_in_parts(Mailbox& mailbox, const PartsOutput& out, const WritePart& write_part,
                    const WriteManifest& write_manifest) {
  net::Group& group = mailbox.group();
  const int rank = group.rank();
  if (rank != 0) {
    const auto where = from_rank_0(mailbox, kPartsWhere, out.timeout, "staging directory for " + out.directory.string());
    std::filesystem::path staging;
    try {
      staging = text_of(where);
    } catch (const std::runtime_error& e) {
      throw JobFailed(0, FailureCause::kBadMessage, "rank 0 sent a bad staging path: " + std::string(e.what()));
    }
    std::error_code ec;
    if (!std::filesystem::is_directory(staging, ec))
      throw std::runtime_error("rank " + std::to_string(rank) + " does not see rank 0's staging directory " +
                               staging.string() + " for " + out.directory.string() +
                               ": --out across hosts needs a file system every rank shares, as --checkpoint does");
    group.send(0, text_message(kPartWritten, write_part(staging)));
    from_rank_0(mailbox, kPartsCommitted, out.timeout, "word that " + out.directory.string() + " is complete");
    return;
  }

  OutputDirectory directory(out.directory, out.kind);
  const std::filesystem::path& staging = directory.staging();
  for (int r = 1; r < out.workers; ++r) group.send(r, text_message(kPartsWhere, staging.string()));
  std::vector<std::string> notes(static_cast<std::size_t>(out.workers));
  notes[0] = write_part(staging);
  std::vector<int> others;
  for (int r = 1; r < out.workers; ++r) others.push_back(r);
  collect_parts(mailbox, kPartWritten, others, out.timeout, "writing " + out.directory.string() + " in parts",
                [&](const net::Message& m) { notes[static_cast<std::size_t>(m.sender)] = text_of(m); });
  write_manifest(staging, notes);
  directory.commit();
  for (int r = 1; r < out.workers; ++r) group.send(r, text_message(kPartsCommitted, {}));
}

}  // namespace gyre::runtime
