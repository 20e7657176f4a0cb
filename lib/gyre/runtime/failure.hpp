// gyre/runtime/failure.hpp — how a job fails: one exception on every member, one notice on the wire.
#pragma once

#include <cstddef>
#include <cstdint>
#include <exception>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "gyre/base/export.hpp"
#include "gyre/net/group.hpp"
#include "gyre/wire/channels.hpp"

namespace gyre::runtime {

// Why a job failed, so that an embedder can react (retry on a lost peer, not on bad input)
// without parsing text.
enum class FailureCause : std::uint8_t {
  kError = 1,       // a part threw: a kernel, a policy, the app's own checks
  kPeerLost = 2,    // a member's connection dropped or it went silent
  kTimeout = 3,     // an expected message did not come within its deadline
  kBadMessage = 4,  // a member sent something its receiver's plan does not allow
  kCancelled = 5,   // the embedder cancelled the job
  kBadInput = 6,    // a part refused its input or settings (InputError, std::invalid_argument)
  kSetup = 7,       // the job never formed: a member never joined, or was refused (net::SetupFailed)
};
GYRE_API std::string_view to_string(FailureCause cause) noexcept;

// Raised on every member of a failed job. what() is the full text, naming the member that
// failed first; rank() is that member (-1 when nobody knows: a transport closed by no peer's failure).
//
// Inside one process a part's failure may also keep the exception that started it
// (`original`): an exception of the embedder's own type that a kernel threw. The runner
// rethrows that one instead (run_parts), so the embedder catches its own type; across
// processes only the text travels.
class GYRE_API JobFailed : public std::runtime_error {
 public:
  JobFailed(int rank, FailureCause cause, const std::string& text, std::exception_ptr original = nullptr)
      : std::runtime_error(text), rank_(rank), cause_(cause), original_(std::move(original)) {}
  int rank() const noexcept { return rank_; }
  FailureCause cause() const noexcept { return cause_; }
  const std::exception_ptr& original() const noexcept { return original_; }

 private:
  int rank_;
  FailureCause cause_;
  std::exception_ptr original_;
};

// Whether `error` is of a type the embedder defined, rather than one of the standard
// library's (std::runtime_error and kin, which say nothing a JobFailed's text does not).
GYRE_API bool is_own_type(const std::exception_ptr& error);

// The notice that tells the other members; its text travels whole (up to this many bytes,
// which no real message approaches; a longer one is cut with a note saying so).
inline constexpr std::uint16_t kFailureNotice = wire::channels::kRuntime.at(0);
inline constexpr std::size_t kMaxFailureText = 64 * 1024;

// A message of `type` carrying `failure` (kFailureNotice, or a protocol's own abort type).
GYRE_API net::Message failure_message(const JobFailed& failure, std::uint16_t type = kFailureNotice);
GYRE_API bool is_failure_notice(const net::Message& m) noexcept;
// The failure a notice carries. A notice that does not decode is a failure all the same,
// blamed on its sender as kBadMessage.
GYRE_API JobFailed read_failure(const net::Message& m);

// Whether `error` is the job's failure already: a JobFailed, or a closed transport. A member
// rethrows it as it is; whoever found it has told everyone.
GYRE_API bool is_job_failure(const std::exception& error) noexcept;

// `error` as the job's failure, for members that did not see it happen: a JobFailed as it is, a
// closed transport as a lost peer, anything else as `member`'s own error (its refusal of the
// input, std::invalid_argument or InputError, as bad input).
GYRE_API JobFailed as_job_failure(const std::exception_ptr& error, int member);

// Tells `ranks` about `failure`, then throws it. Best effort: a rank that is already gone
// (maybe the one that failed) is skipped, the others still hear of it.
[[noreturn]] GYRE_API void fail_job(net::Group& group, const std::vector<int>& ranks, const JobFailed& failure);

}  // namespace gyre::runtime
