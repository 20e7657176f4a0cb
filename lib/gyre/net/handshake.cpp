// gyre/net/handshake.cpp — hello, challenge and proof over frames; HMAC-SHA256 and nonces from libsodium.
#include "gyre/net/handshake.hpp"

#include <sodium.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "gyre/net/frame_io.hpp"
#include "gyre/wire/codec.hpp"
#include "gyre/wire/fixed_text.hpp"

namespace gyre::net {
namespace asio = boost::asio;
using asio::ip::tcp;

namespace {

constexpr std::uint16_t kWelcome = 0xFF23;
constexpr std::uint16_t kRefusal = 0xFF24;
// Before a peer is authenticated, only frames this small are read.
constexpr wire::FrameLimits kHandshakeLimits{256, 0};

using Nonce = std::array<unsigned char, kNonceBytes>;
using Mac = std::array<unsigned char, kMacBytes>;

void init_sodium() {
  static const int status = sodium_init();  // once; later calls would be no-ops anyway
  if (status < 0) throw std::runtime_error("libsodium could not be initialised");
}

Nonce fresh_nonce() {
  init_sodium();
  Nonce n;
  randombytes_buf(n.data(), n.size());
  return n;
}

std::string text_of(const std::array<char, 64>& field) {
  return std::string(field.data(), strnlen(field.data(), field.size()));
}

// Everything both proofs cover; `side` is "acceptor" or "dialer".
Mac mac_of(const HandshakeKey& key, const char* side, const HelloRecord& hello, const Nonce& acceptor_nonce,
           int acceptor_id) {
  init_sodium();
  std::vector<unsigned char> text;
  const std::string label = "gyre/" + key.protocol + "/" + side;
  text.push_back(static_cast<unsigned char>(label.size()));  // length first: no label is a prefix of another
  text.insert(text.end(), label.begin(), label.end());
  text.insert(text.end(), hello.nonce.begin(), hello.nonce.end());
  text.insert(text.end(), acceptor_nonce.begin(), acceptor_nonce.end());
  text.insert(text.end(), hello.job.begin(), hello.job.end());
  text.insert(text.end(), hello.digest.begin(), hello.digest.end());
  for (const std::int32_t id : {hello.id, static_cast<std::int32_t>(acceptor_id)})
    for (int shift = 0; shift < 32; shift += 8) text.push_back(static_cast<unsigned char>(static_cast<std::uint32_t>(id) >> shift));
  crypto_auth_hmacsha256_state state;
  crypto_auth_hmacsha256_init(&state, reinterpret_cast<const unsigned char*>(key.token.data()), key.token.size());
  crypto_auth_hmacsha256_update(&state, text.data(), text.size());
  Mac out;
  crypto_auth_hmacsha256_final(&state, out.data());
  sodium_memzero(&state, sizeof state);
  return out;
}

bool same_mac(const Mac& a, const Mac& b) { return sodium_memcmp(a.data(), b.data(), a.size()) == 0; }

template <class Record>
Message message_of(std::uint16_t type, const Record& r) {
  Message m;
  m.type = type;
  m.meta = wire::encode(r);
  return m;
}

// Decodes `m` as a `Record` of message type `type`, or says why not.
template <class Record>
std::optional<Record> record_of(const Message& m, std::uint16_t type, const char* what, std::string& why) {
  if (m.type != type) {
    why = std::string("expected a ") + what + ", got message type " + std::to_string(m.type);
    return std::nullopt;
  }
  try {
    return wire::decode<Record>(m.meta);
  } catch (const wire::DecodeError& e) {
    why = std::string("malformed ") + what + ": " + e.what();
    return std::nullopt;
  }
}

// Writes `m` (kept alive until written) and calls `then` with the error text, empty on success.
void write(tcp::socket& socket, std::shared_ptr<void> keep_alive, Message m, int sender,
           std::function<void(const std::string&)> then) {
  auto frame = OutFrame::of(std::move(m), sender);
  asio::async_write(socket, frame->buffers(),
                    [keep_alive, frame, then = std::move(then)](boost::system::error_code ec, std::size_t) {
                      then(ec ? ec.message() : std::string());
                    });
}

}  // namespace

void async_accept_handshake(tcp::socket& socket, std::shared_ptr<void> keep_alive, const HandshakeKey& key, int self,
                            std::function<void(const std::string&, const DialerHello&)> done) {
  async_read_frame(socket, keep_alive, kHandshakeLimits, -1, [&socket, keep_alive, key, self, done](const std::string& error, Message m) {
    if (!error.empty()) return done(error, {});
    std::string why;
    const auto hello = record_of<HelloRecord>(m, kHelloType, "hello", why);
    if (!hello) return done(why, {});
    ChallengeRecord challenge;
    challenge.nonce = fresh_nonce();
    challenge.mac = mac_of(key, "acceptor", *hello, challenge.nonce, self);
    write(socket, keep_alive, message_of(kChallengeType, challenge), self,
          [&socket, keep_alive, key, self, done, hello = *hello, nonce = challenge.nonce](const std::string& werror) {
            if (!werror.empty()) return done(werror, {});
            async_read_frame(socket, keep_alive, kHandshakeLimits, hello.id,
                             [key, self, done, hello, nonce](const std::string& rerror, Message reply) {
                               if (rerror == "connection closed")
                                 return done("it closed the connection instead of proving it holds the job token", {});
                               if (!rerror.empty()) return done(rerror, {});
                               std::string why2;
                               const auto proof = record_of<ProofRecord>(reply, kProofType, "proof", why2);
                               if (!proof) return done(why2, {});
                               if (!same_mac(proof->mac, mac_of(key, "dialer", hello, nonce, self)))
                                 return done("wrong or missing job token (its proof does not verify; a replay?)", {});
                               done({}, DialerHello{hello.id, text_of(hello.job), text_of(hello.digest)});
                             });
          });
  });
}

void async_dial_handshake(tcp::socket& socket, std::shared_ptr<void> keep_alive, const HandshakeKey& key, int self,
                          int peer, std::function<void(DialOutcome)> done) {
  using Kind = DialOutcome::Kind;
  HelloRecord hello;
  hello.id = self;
  hello.job = wire::fixed_text<64>(key.job_id, "job id");
  hello.digest = wire::fixed_text<64>(key.job_digest, "job digest");
  hello.nonce = fresh_nonce();
  write(socket, keep_alive, message_of(kHelloType, hello), self, [&socket, keep_alive, key, self, peer, done, hello](const std::string& werror) {
    if (!werror.empty()) return done({Kind::kNoChallenge, werror});
    async_read_frame(socket, keep_alive, kHandshakeLimits, peer, [&socket, keep_alive, key, self, peer, done, hello](const std::string& error, Message m) {
      // The acceptor closed before a word: it may be at its limit of unauthenticated
      // connections, or not listening for us yet.
      if (error == "connection closed" || error == asio::error::make_error_code(asio::error::connection_reset).message())
        return done({Kind::kNoChallenge, error});
      if (!error.empty()) return done({Kind::kFailed, error});
      std::string why;
      const auto challenge = record_of<ChallengeRecord>(m, kChallengeType, "challenge", why);
      if (!challenge) return done({Kind::kFailed, why});
      if (!same_mac(challenge->mac, mac_of(key, "acceptor", hello, challenge->nonce, peer)))
        return done({Kind::kImpostor, "could not prove it holds the job token"});
      ProofRecord proof;
      proof.mac = mac_of(key, "dialer", hello, challenge->nonce, peer);
      write(socket, keep_alive, message_of(kProofType, proof), self, [done](const std::string& perror) {
        if (!perror.empty()) return done({Kind::kFailed, perror});
        done({Kind::kProven, {}});
      });
    });
  });
}

Message welcome() {
  Message m;
  m.type = kWelcome;
  return m;
}

Message refusal(const std::string& reason) {
  Message m;
  m.type = kRefusal;
  const std::size_t n = std::min<std::size_t>(reason.size(), kVerdictLimits.max_body);
  m.body = Buffer(n);
  if (n > 0) std::memcpy(m.body.data(), reason.data(), n);
  return m;
}

bool is_welcome(const Message& m) { return m.type == kWelcome && m.meta.empty() && m.body.empty(); }

std::optional<std::string> refusal_reason(const Message& m) {
  if (m.type != kRefusal) return std::nullopt;
  if (m.body.empty()) return std::string("no reason given");
  return std::string(reinterpret_cast<const char*>(m.body.data()), m.body.size());
}

}  // namespace gyre::net
