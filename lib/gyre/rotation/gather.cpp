// gyre/rotation/gather.cpp — the collect protocol run over a finished job's still-connected worker group.
#include "gyre/rotation/gather.hpp"

#include <cereal/cereal.hpp>

#include <string>

#include "gyre/rotation/block_codec.hpp"
#include "gyre/rotation/protocol.hpp"
#include "gyre/rotation/rotation_driver.hpp"
#include "gyre/runtime/receiver.hpp"
#include "gyre/wire/body.hpp"
#include "gyre/wire/codec.hpp"

namespace gyre::rotation {
namespace {

struct RowsMeta {
  std::uint64_t count = 0;
  std::uint64_t row_bytes = 0;
  template <class Archive>
  void serialize(Archive& ar) { ar(count, row_bytes); }
};

}  // namespace

net::Message encode_local_rows(const LocalRows& r, std::size_t row_bytes) {
  net::Message m;
  m.type = kLocalRows;
  m.meta = wire::encode(RowsMeta{r.ids.size(), row_bytes});
  m.body = wire::Writer(r.ids.size() * sizeof(std::uint64_t) + r.values.size())
               .put_array<std::uint64_t>(r.ids)
               .put_bytes(r.values)
               .finish();
  return m;
}

LocalRows decode_local_rows(const net::Message& m, std::size_t row_bytes, std::uint64_t id_limit) {
  const std::string from = "rank " + std::to_string(m.sender);
  RowsMeta meta;
  try {
    meta = wire::decode<RowsMeta>(m.meta);
  } catch (const wire::DecodeError& e) {
    throw std::runtime_error(from + " sent malformed local rows (" + e.what() + ")");
  }
  if (meta.row_bytes != row_bytes)
    throw std::runtime_error(from + " sent local rows of " + std::to_string(meta.row_bytes) +
                             " bytes; the plan here has rows of " + std::to_string(row_bytes) + " bytes");
  // count is bounded by the body before it is multiplied, so the product cannot overflow.
  if (meta.count > m.body.size() / sizeof(std::uint64_t) ||
      (row_bytes != kAnyRowBytes && m.body.size() != meta.count * (sizeof(std::uint64_t) + row_bytes)))
    throw std::runtime_error(from + " sent " + std::to_string(meta.count) + " local rows of " +
                             std::to_string(row_bytes) + " bytes in a body of " + std::to_string(m.body.size()) +
                             " bytes");
  LocalRows r;
  wire::Reader in(m.body.bytes(), from + " sent local rows: ");
  r.ids = in.get_array<std::uint64_t>(meta.count, "the row ids");
  for (const std::uint64_t id : r.ids)
    if (id >= id_limit)
      throw std::runtime_error(from + " sent local row id " + std::to_string(id) + "; ids here are below " +
                               std::to_string(id_limit));
  const auto values = in.take(in.remaining(), "the rows");
  r.values.assign(values.begin(), values.end());
  return r;
}

namespace {

net::Message expect(runtime::Mailbox& mailbox, const runtime::Mailbox::Accept& accept, std::chrono::milliseconds timeout,
                    const std::string& what) {
  const int rank = mailbox.group().rank();
  return runtime::Receiver(mailbox, "rank " + std::to_string(rank), timeout).receive(accept, [&] {
    return runtime::Silence{rank, what};
  });
}

std::string missing(const std::vector<std::optional<LocalRows>>& rows, std::size_t blocks, std::uint32_t all) {
  std::string ranks;
  for (std::size_t r = 0; r < rows.size(); ++r)
    if (!rows[r]) ranks += (ranks.empty() ? "rank " : ", ") + std::to_string(r);
  return "model part (still missing: " + (ranks.empty() ? std::string("no rows") : "rows of " + ranks) + "; " +
         std::to_string(all - blocks) + " of " + std::to_string(all) + " blocks)";
}

}  // namespace

std::optional<GatheredModel> gather_at_root(runtime::Mailbox& mailbox, std::vector<model::OwnedBlock>& held,
                                            LocalRows mine, const GatherOptions& options) {
  if (options.row_bytes != kAnyRowBytes && mine.values.size() != mine.ids.size() * options.row_bytes)
    throw std::invalid_argument("local rows do not match their row width");
  const auto blocks = static_cast<std::uint32_t>(options.layout.size());
  net::Group& group = mailbox.group();
  if (group.rank() != 0) {
    const auto request = expect(
        mailbox, [](const net::Message& m) { return m.type == kCollectRequest; }, options.timeout,
        "collect request from rank 0");
    if (request.sender != 0)
      throw std::runtime_error("a collect request from rank " + std::to_string(request.sender) + ", not rank 0");
    group.send(0, encode_local_rows(mine, options.row_bytes));
    for (auto& b : held) group.send(0, encode_block(b.release(), 0));
    held.clear();
    return std::nullopt;
  }

  for (int r = 1; r < options.workers; ++r) {
    net::Message request;
    request.type = kCollectRequest;
    group.send(r, std::move(request));
  }
  GatheredModel out;
  std::vector<std::optional<LocalRows>> rows(static_cast<std::size_t>(options.workers));
  rows[0] = std::move(mine);
  std::size_t have_rows = 1;
  std::vector<bool> seen(blocks, false);
  auto add_block = [&](model::Block b, int from) {
    if (b.id() >= blocks || seen[b.id()])
      throw std::runtime_error("rank " + std::to_string(from) + " sent block " + std::to_string(b.id()) +
                               " twice or out of range");
    seen[b.id()] = true;
    out.blocks.push_back(std::move(b));
  };
  for (auto& b : held) add_block(b.release(), 0);
  held.clear();
  const auto parts = [](const net::Message& m) { return m.type == kLocalRows || m.type == kBlockMessage; };
  while (have_rows < rows.size() || out.blocks.size() < blocks) {
    auto m = expect(mailbox, parts, options.timeout, missing(rows, out.blocks.size(), blocks));
    if (m.type == kLocalRows) {
      const auto from = static_cast<std::size_t>(m.sender);
      if (m.sender < 1 || from >= rows.size() || rows[from])
        throw std::runtime_error("unexpected local rows from rank " + std::to_string(m.sender));
      rows[from] = decode_local_rows(m, options.row_bytes, options.id_limit);
      ++have_rows;
    } else if (m.type == kBlockMessage) {
      const int from = m.sender;
      add_block(decode_block(std::move(m), options.layout).block, from);
    }
  }
  for (auto& r : rows) out.rows.push_back(std::move(*r));
  return out;
}

}  // namespace gyre::rotation
