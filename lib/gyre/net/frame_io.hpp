// gyre/net/frame_io.hpp — reading and writing whole frames on an Asio stream (internal to lib/, not installed).
#pragma once

#include <utility>  // before Asio: Boost 1.74's awaitable.hpp uses std::exchange unincluded

#include <boost/asio.hpp>

#include <array>
#include <functional>
#include <memory>
#include <new>
#include <string>

#include "gyre/base/crc32c.hpp"
#include "gyre/net/group.hpp"
#include "gyre/wire/frame.hpp"

namespace gyre::net {

inline std::uint32_t payload_crc(const Message& m) {
  return crc32c(m.body.data(), m.body.size(), crc32c(m.meta.data(), m.meta.size()));
}

// A message with its encoded header, kept alive until its write completes.
struct OutFrame {
  std::array<std::byte, wire::kFrameHeaderSize> header;
  Message message;

  static std::shared_ptr<OutFrame> of(Message m, int sender) {
    wire::FrameHeader h;
    h.type = m.type;
    h.sender = sender;
    h.tag = m.tag;
    h.meta_length = static_cast<std::uint32_t>(m.meta.size());
    h.body_length = m.body.size();
    h.crc = payload_crc(m);
    return std::make_shared<OutFrame>(OutFrame{wire::encode_header(h), std::move(m)});
  }
  // Header, meta and body as one gather write: the body is not copied.
  std::array<boost::asio::const_buffer, 3> buffers() const {
    return {boost::asio::buffer(header), boost::asio::buffer(message.meta),
            boost::asio::buffer(message.body.data(), message.body.size())};
  }
};

// Reads one frame: the header, checked against `limits` before anything is allocated, then
// meta and body, checked against the CRC. `done(error, message)` gets an empty error and the
// message (sender = `sender`), or a reason to drop the connection.
template <class Stream>
void async_read_frame(Stream& stream, std::shared_ptr<void> keep_alive, const wire::FrameLimits& limits, int sender,
                      std::function<void(const std::string&, Message)> done) {
  auto header = std::make_shared<std::array<std::byte, wire::kFrameHeaderSize>>();
  boost::asio::async_read(
      stream, boost::asio::buffer(*header),
      [&stream, keep_alive, header, limits, sender, done = std::move(done)](boost::system::error_code ec,
                                                                          std::size_t) mutable {
        if (ec) return done(ec == boost::asio::error::eof ? "connection closed" : ec.message(), {});
        std::string why;
        const auto h = wire::parse_header(*header, limits, why);
        if (!h) return done(why, {});
        std::shared_ptr<Message> m;
        try {
          m = std::make_shared<Message>();
          m->type = h->type;
          m->sender = sender;
          m->tag = h->tag;
          m->meta.resize(h->meta_length);
          m->body = Buffer(static_cast<std::size_t>(h->body_length));
        } catch (const std::bad_alloc&) {
          // A frame within the limits that this process cannot hold: the connection is dropped,
          // and with it the job, saying why (thrown here it would end the process unexplained).
          return done("out of memory here receiving a frame of " + std::to_string(h->meta_length + h->body_length) +
                          " bytes from it (this process's memory limit is too low for the job)",
                      {});
        }
        const std::array<boost::asio::mutable_buffer, 2> parts{boost::asio::buffer(m->meta),
                                                               boost::asio::buffer(m->body.data(), m->body.size())};
        boost::asio::async_read(stream, parts,
                                [keep_alive, m, crc = h->crc, done = std::move(done)](boost::system::error_code ec2,
                                                                                      std::size_t) {
                                  if (ec2)
                                    return done(ec2 == boost::asio::error::eof ? "connection closed mid-frame"
                                                                               : ec2.message(),
                                                {});
                                  if (payload_crc(*m) != crc) return done("frame checksum mismatch", {});
                                  done({}, std::move(*m));
                                });
      });
}

}  // namespace gyre::net
