// gyre/runtime/failure.cpp — the failure notice's encoding, and telling the others.
#include "gyre/runtime/failure.hpp"

#include <cstring>
#include <system_error>
#include <typeinfo>

#include "gyre/base/input_error.hpp"
#include "gyre/wire/codec.hpp"

namespace gyre::runtime {
namespace {

// The fixed part goes in meta (cereal, fixed size); the text in the body, whose length the
// frame already bounds, so a long text is never cut to fit a record.
struct NoticeHeader {
  std::int32_t rank = -1;
  std::uint8_t cause = 0;
  template <class Archive>
  void serialize(Archive& ar) { ar(rank, cause); }
};

bool known(std::uint8_t cause) {
  return cause >= static_cast<std::uint8_t>(FailureCause::kError) &&
         cause <= static_cast<std::uint8_t>(FailureCause::kSetup);
}

}  // namespace

std::string_view to_string(FailureCause cause) noexcept {
  switch (cause) {
    case FailureCause::kError: return "error";
    case FailureCause::kPeerLost: return "peer lost";
    case FailureCause::kTimeout: return "timeout";
    case FailureCause::kBadMessage: return "bad message";
    case FailureCause::kCancelled: return "cancelled";
    case FailureCause::kBadInput: return "bad input";
    case FailureCause::kSetup: return "setup";
  }
  return "unknown";
}

bool is_own_type(const std::exception_ptr& error) {
  if (!error) return false;
  try {
    std::rethrow_exception(error);
  } catch (const std::exception& e) {
    const std::type_info& t = typeid(e);
    for (const std::type_info* standard :
         {&typeid(std::exception), &typeid(std::runtime_error), &typeid(std::logic_error),
          &typeid(std::invalid_argument), &typeid(std::out_of_range), &typeid(std::domain_error),
          &typeid(std::length_error), &typeid(std::range_error), &typeid(std::overflow_error),
          &typeid(std::underflow_error), &typeid(std::system_error), &typeid(std::bad_alloc),
          &typeid(JobFailed), &typeid(net::GroupClosed)})
      if (t == *standard) return false;
    return true;
  } catch (...) {
    return true;  // not even a std::exception: certainly the embedder's
  }
}

net::Message failure_message(const JobFailed& failure, std::uint16_t type) {
  std::string text = failure.what();
  if (text.size() > kMaxFailureText) {
    const std::string note = " … (" + std::to_string(text.size() - kMaxFailureText) + " more bytes)";
    text.resize(kMaxFailureText - note.size());
    text += note;
  }
  net::Message m;
  m.type = type;
  m.meta = wire::encode(NoticeHeader{failure.rank(), static_cast<std::uint8_t>(failure.cause())});
  m.body = Buffer(text.size());
  if (!text.empty()) std::memcpy(m.body.data(), text.data(), text.size());
  return m;
}

bool is_failure_notice(const net::Message& m) noexcept { return m.type == kFailureNotice; }

JobFailed read_failure(const net::Message& m) {
  const auto malformed = [&](const std::string& why) {
    return JobFailed(m.sender, FailureCause::kBadMessage,
                     "rank " + std::to_string(m.sender) + " sent a malformed failure notice (" + why + ")");
  };
  NoticeHeader h;
  try {
    h = wire::decode<NoticeHeader>(m.meta);
  } catch (const wire::DecodeError& e) {
    return malformed(e.what());
  }
  if (!known(h.cause)) return malformed("unknown cause " + std::to_string(h.cause));
  if (m.body.size() > kMaxFailureText) return malformed("text of " + std::to_string(m.body.size()) + " bytes");
  std::string text(reinterpret_cast<const char*>(m.body.data()), m.body.size());
  return JobFailed(h.rank, static_cast<FailureCause>(h.cause), text);
}

bool is_job_failure(const std::exception& error) noexcept {
  return dynamic_cast<const JobFailed*>(&error) != nullptr || dynamic_cast<const net::GroupClosed*>(&error) != nullptr;
}

JobFailed as_job_failure(const std::exception_ptr& error, int member) {
  try {
    std::rethrow_exception(error);
  } catch (const JobFailed& e) {
    return e;
  } catch (const net::SetupFailed& e) {
    return JobFailed(e.peer(), FailureCause::kSetup, e.what());
  } catch (const net::GroupClosed& e) {
    return JobFailed(e.peer(), FailureCause::kPeerLost, e.what());
  } catch (const InputError& e) {
    return JobFailed(member, FailureCause::kBadInput, e.what(), error);
  } catch (const std::invalid_argument& e) {
    return JobFailed(member, FailureCause::kBadInput, e.what(), error);
  } catch (const std::exception& e) {
    return JobFailed(member, FailureCause::kError, e.what(), error);
  } catch (...) {
    return JobFailed(member, FailureCause::kError, "member " + std::to_string(member) + " failed", error);
  }
}

void fail_job(net::Group& group, const std::vector<int>& ranks, const JobFailed& failure) {
  for (int to : ranks) {
    try {
      group.send(to, failure_message(failure));
    } catch (const std::exception&) {
      // The peer may be the one that failed; the others still get told.
    }
  }
  throw failure;
}

}  // namespace gyre::runtime
