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

constexpr std::uint16_t kWelcome = wire::channels::kHandshake.at(3);
constexpr std::uint16_t kRefusal = wire::channels::kHandshake.at(4);
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

}  // namespace

std::string random_token() {
  init_sodium();
  std::array<unsigned char, 32> bytes;
  randombytes_buf(bytes.data(), bytes.size());
  std::string hex(2 * bytes.size(), '0');
  sodium_bin2hex(hex.data(), hex.size() + 1, bytes.data(), bytes.size());
  return hex;
}

namespace {

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
    for (int shift = 0; shift < 32; shift += 8)
      text.push_back(static_cast<unsigned char>(static_cast<std::uint32_t>(id) >> shift));
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
void write_message(tcp::socket& socket, std::shared_ptr<void> keep_alive, Message m, int sender,
                   std::function<void(const std::string&)> then) {
  auto frame = OutFrame::of(std::move(m), sender);
  asio::async_write(socket, frame->buffers(),
                    [keep_alive, frame, then = std::move(then)](boost::system::error_code ec, std::size_t) {
                      then(ec ? ec.message() : std::string());
                    });
}

// The acceptor's run of the exchange, step by step; each pending operation keeps it alive.
struct AcceptorRun : std::enable_shared_from_this<AcceptorRun> {
  AcceptorRun(tcp::socket& s, std::shared_ptr<void> k, const HandshakeKey& key_, int self_,
              std::function<void(const std::string&, const DialerHello&)> done_)
      : socket(s), keep_alive(std::move(k)), key(key_), self(self_), done(std::move(done_)) {}

  void start() {
    async_read_frame(socket, keep_alive, kHandshakeLimits, -1,
                     [run = shared_from_this()](const std::string& error, Message m) { run->on_hello(error, m); });
  }

  void on_hello(const std::string& error, const Message& m) {
    if (!error.empty()) return done(error, {});
    std::string why;
    const auto h = record_of<HelloRecord>(m, kHelloType, "hello", why);
    if (!h) return done(why, {});
    hello = *h;
    ChallengeRecord challenge;
    challenge.nonce = nonce = fresh_nonce();
    challenge.mac = mac_of(key, "acceptor", hello, nonce, self);
    write_message(socket, keep_alive, message_of(kChallengeType, challenge), self,
                  [run = shared_from_this()](const std::string& werror) { run->await_proof(werror); });
  }

  void await_proof(const std::string& error) {
    if (!error.empty()) return done(error, {});
    async_read_frame(socket, keep_alive, kHandshakeLimits, hello.id,
                     [run = shared_from_this()](const std::string& rerror, Message m) { run->on_proof(rerror, m); });
  }

  void on_proof(const std::string& error, const Message& m) {
    if (error == "connection closed")
      return done("it closed the connection instead of proving it holds the job token", {});
    if (!error.empty()) return done(error, {});
    std::string why;
    const auto proof = record_of<ProofRecord>(m, kProofType, "proof", why);
    if (!proof) return done(why, {});
    if (!same_mac(proof->mac, mac_of(key, "dialer", hello, nonce, self)))
      return done("wrong or missing job token (its proof does not verify; a replay?)", {});
    done({}, DialerHello{hello.id, text_of(hello.job), text_of(hello.digest)});
  }

  tcp::socket& socket;
  std::shared_ptr<void> keep_alive;
  HandshakeKey key;
  int self;
  std::function<void(const std::string&, const DialerHello&)> done;
  HelloRecord hello;
  Nonce nonce{};
};

// The dialer's run of the exchange.
struct DialerRun : std::enable_shared_from_this<DialerRun> {
  using Kind = DialOutcome::Kind;
  DialerRun(tcp::socket& s, std::shared_ptr<void> k, const HandshakeKey& key_, int self_, int peer_,
            std::function<void(DialOutcome)> done_)
      : socket(s), keep_alive(std::move(k)), key(key_), self(self_), peer(peer_), done(std::move(done_)) {}

  void start() {
    hello.id = self;
    hello.job = wire::fixed_text<64>(key.job_id, "job id");
    hello.digest = wire::fixed_text<64>(key.job_digest, "job digest");
    hello.nonce = fresh_nonce();
    write_message(socket, keep_alive, message_of(kHelloType, hello), self,
                  [run = shared_from_this()](const std::string& werror) { run->await_challenge(werror); });
  }

  void await_challenge(const std::string& error) {
    if (!error.empty()) return done({Kind::kNoChallenge, error});
    auto run = shared_from_this();
    async_read_frame(socket, keep_alive, kHandshakeLimits, peer,
                     [run](const std::string& rerror, Message m) { run->on_challenge(rerror, m); });
  }

  void on_challenge(const std::string& error, const Message& m) {
    // Closed before a word: the acceptor may be at its limit of unauthenticated connections,
    // or not listening for us yet.
    static const std::string reset = asio::error::make_error_code(asio::error::connection_reset).message();
    if (error == "connection closed" || error == reset) return done({Kind::kNoChallenge, error});
    if (!error.empty()) return done({Kind::kFailed, error});
    std::string why;
    const auto challenge = record_of<ChallengeRecord>(m, kChallengeType, "challenge", why);
    if (!challenge) return done({Kind::kFailed, why});
    if (!same_mac(challenge->mac, mac_of(key, "acceptor", hello, challenge->nonce, peer)))
      return done({Kind::kImpostor, "could not prove it holds the job token"});
    ProofRecord proof;
    proof.mac = mac_of(key, "dialer", hello, challenge->nonce, peer);
    auto run = shared_from_this();
    write_message(socket, keep_alive, message_of(kProofType, proof), self, [run](const std::string& werror) {
      run->done(werror.empty() ? DialOutcome{Kind::kProven, {}} : DialOutcome{Kind::kFailed, werror});
    });
  }

  tcp::socket& socket;
  std::shared_ptr<void> keep_alive;
  HandshakeKey key;
  int self;
  int peer;
  std::function<void(DialOutcome)> done;
  HelloRecord hello;
};

}  // namespace

void async_accept_handshake(tcp::socket& socket, std::shared_ptr<void> keep_alive, const HandshakeKey& key, int self,
                            std::function<void(const std::string&, const DialerHello&)> done) {
  std::make_shared<AcceptorRun>(socket, std::move(keep_alive), key, self, std::move(done))->start();
}

void async_dial_handshake(tcp::socket& socket, std::shared_ptr<void> keep_alive, const HandshakeKey& key, int self,
                          int peer, std::function<void(DialOutcome)> done) {
  std::make_shared<DialerRun>(socket, std::move(keep_alive), key, self, peer, std::move(done))->start();
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
