// gyre/net/handshake.hpp — the mutual challenge–response that opens every connection: both sides prove they hold the job token without sending it (internal to lib/, not installed).
#pragma once

#include <utility>  // before Asio: Boost 1.74's awaitable.hpp uses std::exchange unincluded

#include <boost/asio.hpp>
#include <cereal/types/array.hpp>

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "gyre/net/group.hpp"
#include "gyre/wire/channels.hpp"
#include "gyre/wire/frame.hpp"

namespace gyre::net {

// The exchange, dialer D and acceptor A, every message a frame with fixed-size fields:
//   D → A  hello      D's id, job id, job digest, nonce_D                (no secret)
//   A → D  challenge  nonce_A, MAC_A = HMAC-SHA256(token, label_A ‖ transcript)
//   D → A  proof      MAC_D = HMAC-SHA256(token, label_D ‖ transcript)
// transcript = nonce_D ‖ nonce_A ‖ job id ‖ job digest ‖ D's id ‖ A's id. The token never
// crosses the wire; fresh nonces on both sides make a recorded exchange worthless on a new
// connection; the labels name the protocol and the side, so a proof can be neither reflected
// back to its sender nor carried from the rendezvous to the data plane. The MACs cover the
// ids and the job identity the dialer declared, so the acceptor may compare those afterwards
// and tell an authenticated peer why it is refused.
struct HandshakeKey {
  std::string protocol;    // "rendezvous" or "data plane"
  std::string job_id;      // at most 63 bytes
  std::string job_digest;  // at most 63 bytes (settings digest; may be empty)
  std::string token;       // the shared secret (any length)
};

// Identity of the coordinator in the rendezvous, where ranks use 0 and up.
inline constexpr int kCoordinatorId = -1;

// What the dialer declared in its hello; authenticated once the handshake succeeds.
struct DialerHello {
  int id = -1;
  std::string job_id;
  std::string job_digest;
};

// The acceptor's side on a freshly accepted socket, whose id in the MACs is `self`: reads the
// hello, answers with its nonce and proof, reads and verifies the dialer's proof. `done` gets
// an empty error and the dialer's hello once it proved it holds the token, else the reason to
// log (an unauthenticated peer is told nothing: the caller just closes).
void async_accept_handshake(boost::asio::ip::tcp::socket& socket, std::shared_ptr<void> keep_alive,
                            const HandshakeKey& key, int self,
                            std::function<void(const std::string& error, const DialerHello& hello)> done);

struct DialOutcome {
  enum class Kind {
    kProven,       // the acceptor proved it holds the token; our proof is on its way
    kNoChallenge,  // the connection ended before any challenge (acceptor busy or not ready): retry
    kImpostor,     // the acceptor answered but could not prove it holds the token (or is not `peer`)
    kFailed,       // anything else, in `error`
  };
  Kind kind = Kind::kFailed;
  std::string error;
};

// The dialer's side on a connected socket: sends the hello as `self`, verifies that the
// acceptor is `peer` and holds the token, then sends its own proof.
void async_dial_handshake(boost::asio::ip::tcp::socket& socket, std::shared_ptr<void> keep_alive,
                          const HandshakeKey& key, int self, int peer, std::function<void(DialOutcome)> done);

// After a handshake the acceptor's verdict: a welcome, or a refusal whose reason the (now
// authenticated) dialer reports. Read with kVerdictLimits.
// A secret for a job whose members are all this process's own (a loopback group): 32 random
// bytes in hex, which keep other local processes out as a shared token would.
std::string random_token();

Message welcome();
Message refusal(const std::string& reason);
inline constexpr wire::FrameLimits kVerdictLimits{0, 4096};
bool is_welcome(const Message& m);
std::optional<std::string> refusal_reason(const Message& m);  // nullopt unless `m` is a refusal

// The records on the wire, for tests that play a side by hand.
inline constexpr std::uint16_t kHelloType = wire::channels::kHandshake.at(0);
inline constexpr std::uint16_t kChallengeType = wire::channels::kHandshake.at(1);
inline constexpr std::uint16_t kProofType = wire::channels::kHandshake.at(2);
inline constexpr std::size_t kNonceBytes = 32;
inline constexpr std::size_t kMacBytes = 32;
struct HelloRecord {
  std::int32_t id = -1;
  std::array<char, 64> job{};
  std::array<char, 64> digest{};
  std::array<unsigned char, kNonceBytes> nonce{};
  template <class Archive>
  void serialize(Archive& ar) { ar(id, job, digest, nonce); }
};
struct ChallengeRecord {
  std::array<unsigned char, kNonceBytes> nonce{};
  std::array<unsigned char, kMacBytes> mac{};
  template <class Archive>
  void serialize(Archive& ar) { ar(nonce, mac); }
};
struct ProofRecord {
  std::array<unsigned char, kMacBytes> mac{};
  template <class Archive>
  void serialize(Archive& ar) { ar(mac); }
};

}  // namespace gyre::net
