// tests/lib/collective/partition_errors_test.cpp — malformed or mismatched partitions throw naming the sender.
#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "gyre/collective/partition_collectives.hpp"
#include "lib/collective/on_ranks.hpp"
#include "lib/net/backends.hpp"

using namespace gyre;
using collective::Communicator;
using collective::PartitionTable;
using gyre_test::on_ranks;

TEST_CASE_TEMPLATE("copies of one id with different lengths are an error naming the member", B, GYRE_TEST_BACKENDS) {
  constexpr int n = 3;
  std::vector<std::string> regroup_error(n), allgather_error(n);
  on_ranks<B>(n, [&](Communicator& comm, int r) {
    auto odd_one = [r] {  // rank 2's partition 0 is longer than the others'
      PartitionTable<float> t;
      t.parts[0].assign(r == 2 ? 4 : 3, 0.5f);
      return t;
    };
    auto table = odd_one();
    try {
      collective::regroup(comm, table);
    } catch (const std::runtime_error& e) {
      regroup_error[static_cast<std::size_t>(r)] = e.what();
    }
    table = odd_one();
    try {
      collective::allgather(comm, table);
    } catch (const std::runtime_error& e) {
      allgather_error[static_cast<std::size_t>(r)] = e.what();
    }
  });
  CHECK(regroup_error[0].find("rank 2's partition 0 has 4 elements") != std::string::npos);
  CHECK(regroup_error[1].empty());  // only the owner combines
  CHECK(regroup_error[2].empty());
  for (const auto& e : allgather_error) CHECK(e.find("rank 2's partition 0 has 4 elements") != std::string::npos);
}

namespace {

// A message body written field by field, so that it can lie about its contents.
struct Crafted {
  std::vector<std::byte> bytes;
  template <class U>
  Crafted& put(U value) {
    const auto* p = reinterpret_cast<const std::byte*>(&value);
    bytes.insert(bytes.end(), p, p + sizeof(U));
    return *this;
  }
};

struct BadMessage {
  const char* what;
  std::uint32_t step;
  Crafted body;
  const char* says;  // what the error must say besides the sender's rank
};

std::string runtime_error_of(const std::function<void()>& call) {
  try {
    call();
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE_TEMPLATE("a malformed or inconsistent message throws naming its sender", B, GYRE_TEST_BACKENDS) {
  // Rank 1 takes no part: it only sends each crafted message, with the type and tag of the
  // collective's step, to rank 0, whose communicator numbers one op per call.
  using u32 = std::uint32_t;
  using u64 = std::uint64_t;
  constexpr u32 kInt64 = sizeof(std::int64_t);
  const std::vector<BadMessage> regroups = {
      {"an empty body", 0, Crafted(), "truncated"},
      {"a count without element size", 0, Crafted().put(u32{1}), "truncated"},
      {"more partitions than bytes", 0, Crafted().put(u32{0xFFFFFFFF}).put(kInt64), "announced"},
      {"another element type", 0, Crafted().put(u32{0}).put(u32{4}), "elements of 4 bytes"},
      {"a length past the end", 0, Crafted().put(u32{1}).put(kInt64).put(u32{0}).put(u64{1} << 60).put(u64{5}),
       "remain"},
      {"trailing bytes", 0, Crafted().put(u32{1}).put(kInt64).put(u32{0}).put(u64{1}).put(u64{5}).put(u32{0}),
       "trailing"},
      {"ids out of order", 0, Crafted().put(u32{2}).put(kInt64).put(u32{2}).put(u64{0}).put(u32{2}).put(u64{0}),
       "follows"},
      {"a partition the receiver does not own", 0, Crafted().put(u32{1}).put(kInt64).put(u32{1}).put(u64{0}),
       "belongs to rank 1"},
      {"a length unlike the receiver's copy", 0,
       Crafted().put(u32{1}).put(kInt64).put(u32{0}).put(u64{3}).put(u64{1}).put(u64{2}).put(u64{3}), "has 3 elements"},
  };
  // pull: rank 0 asks rank 1 for partition 1; step 0 is rank 1's request, step 1 its answer.
  const Crafted no_request;
  const std::vector<std::vector<BadMessage>> pulls = {
      {{"an id list of 3 bytes", 0, Crafted().put(std::uint8_t{1}).put(std::uint16_t{0}), "id list"}},
      {{"", 0, no_request, ""},
       {"an answer besides the one asked for", 1,
        Crafted().put(u32{2}).put(kInt64).put(u32{1}).put(u64{1}).put(u64{7}).put(u32{3}).put(u64{0}),
        "returned partition 3, which was not asked for"}},
      {{"", 0, no_request, ""}, {"a missing answer", 1, Crafted().put(u32{0}).put(kInt64), "no global partition 1"}},
      {{"", 0, no_request, ""},
       {"an answer of another length", 1,
        Crafted().put(u32{1}).put(kInt64).put(u32{1}).put(u64{2}).put(u64{7}).put(u64{8}), "has 2 elements"}},
  };
  auto groups = B::make(2);
  runtime::Mailbox inbox(*groups[0]);
  Communicator comm(inbox, {0, 1}, {std::chrono::milliseconds(20000)});
  std::uint64_t op = 0;
  auto send_from_rank_1 = [&](const BadMessage& bad) {
    net::Message m;
    m.type = collective::kCollectiveMessage;
    m.tag = Communicator::message_tag(op, bad.step);
    m.body = Buffer(bad.body.bytes.size());
    if (!bad.body.bytes.empty()) std::memcpy(m.body.data(), bad.body.bytes.data(), bad.body.bytes.size());
    groups[1]->send(0, std::move(m));
  };
  for (const auto& bad : regroups) {
    CAPTURE(std::string(bad.what));
    send_from_rank_1(bad);
    PartitionTable<std::int64_t> table;
    table.parts[0] = {1, 2};
    const auto error = runtime_error_of([&] { collective::regroup(comm, table); });
    ++op;
    CHECK(error.find("rank 1") != std::string::npos);
    CHECK_MESSAGE(error.find(bad.says) != std::string::npos, error);
    CHECK(table.parts.at(0) == std::vector<std::int64_t>{1, 2});  // unchanged
  }
  for (const auto& messages : pulls) {
    const auto& bad = messages.back();
    CAPTURE(std::string(bad.what));
    for (const auto& m : messages) send_from_rank_1(m);
    PartitionTable<std::int64_t> global, local;
    local.parts[1] = {0};
    const auto error = runtime_error_of([&] { collective::pull(comm, global, local); });
    ++op;
    CHECK(error.find("rank 1") != std::string::npos);
    CHECK_MESSAGE(error.find(bad.says) != std::string::npos, error);
  }
}
