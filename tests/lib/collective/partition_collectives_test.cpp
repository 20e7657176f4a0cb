// tests/lib/collective/partition_collectives_test.cpp — regroup, allgather, push and pull on every backend.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <random>
#include <span>
#include <vector>

#include "gyre/collective/partition_collectives.hpp"
#include "lib/collective/on_ranks.hpp"
#include "lib/net/backends.hpp"

using namespace gyre;
using collective::Communicator;
using collective::PartitionTable;
using gyre_test::on_ranks;

namespace {

constexpr std::uint32_t kIds = 40;

// Every member's table, drawn from one seed: each id has one length (0..5) shared by all
// members, and each member holds it with probability 2/5, so some ids are held by several
// members and some by none.
template <class T>
std::vector<PartitionTable<T>> random_tables(int n, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<std::size_t> length(kIds);
  for (auto& l : length) l = rng() % 6;
  std::vector<PartitionTable<T>> tables(static_cast<std::size_t>(n));
  for (auto& t : tables)
    for (std::uint32_t id = 0; id < kIds; ++id) {
      if (rng() % 5 >= 2) continue;
      auto& values = t.parts[id];
      for (std::size_t i = 0; i < length[id]; ++i) {
        const auto x = static_cast<int>(rng() % 2001) - 1000;
        if constexpr (std::is_floating_point_v<T>)
          values.push_back(static_cast<T>(x) * std::pow(T(10), static_cast<T>(rng() % 13) - 6) / T(3));
        else
          values.push_back(static_cast<T>(x));
      }
    }
  return tables;
}

// Each id's copies summed in member order, the first copy taken as is: the order the
// collectives promise, written out independently of them.
template <class T>
PartitionTable<T> sum_in_member_order(const std::vector<PartitionTable<T>>& tables) {
  PartitionTable<T> sum;
  for (const auto& t : tables)
    for (const auto& [id, values] : t.parts) {
      auto [it, fresh] = sum.parts.try_emplace(id, values);
      if (!fresh)
        for (std::size_t i = 0; i < values.size(); ++i) it->second[i] += values[i];
    }
  return sum;
}

template <class T>
PartitionTable<T> owned_by(const PartitionTable<T>& table, int member, const collective::Partitioner& owner) {
  PartitionTable<T> mine;
  for (const auto& [id, values] : table.parts)
    if (owner(id) == member) mine.parts.emplace(id, values);
  return mine;
}

collective::Partitioner mod(int n) {
  return [n](std::uint32_t id) { return static_cast<int>(id % static_cast<std::uint32_t>(n)); };
}

template <class T>
bool bitwise_equal(const PartitionTable<T>& a, const PartitionTable<T>& b) {
  if (a.parts.size() != b.parts.size()) return false;
  for (auto i = a.parts.begin(), j = b.parts.begin(); i != a.parts.end(); ++i, ++j)
    if (i->first != j->first || i->second.size() != j->second.size() ||
        (!i->second.empty() && std::memcmp(i->second.data(), j->second.data(), i->second.size() * sizeof(T)) != 0))
      return false;
  return true;
}

}  // namespace

TEST_CASE_TEMPLATE("regroup sums every id's copies exactly onto its owner alone", B, GYRE_TEST_BACKENDS) {
  for (int n : {1, 2, 3, 5}) {
    CAPTURE(n);
    const auto tables = random_tables<std::int64_t>(n, 7 + static_cast<std::uint32_t>(n));
    const auto sum = sum_in_member_order(tables);
    if (n > 1) {  // the data must hold ids shared by several members, and ids held by none
      std::map<std::uint32_t, int> holders;
      for (const auto& t : tables)
        for (const auto& [id, values] : t.parts) ++holders[id];
      CHECK(std::count_if(holders.begin(), holders.end(), [](const auto& h) { return h.second > 1; }) > 0);
      CHECK(sum.parts.size() < kIds);
    }
    std::vector<PartitionTable<std::int64_t>> after(static_cast<std::size_t>(n));
    on_ranks<B>(n, [&](Communicator& comm, int r) {
      auto table = tables[static_cast<std::size_t>(r)];
      collective::regroup(comm, table);
      after[static_cast<std::size_t>(r)] = table;
    });
    for (int r = 0; r < n; ++r) CHECK(after[static_cast<std::size_t>(r)] == owned_by(sum, r, mod(n)));
  }
}

TEST_CASE_TEMPLATE("regroup then allgather equals a dense allreduce on every member", B, GYRE_TEST_BACKENDS) {
  for (int n : {1, 2, 3, 5}) {
    CAPTURE(n);
    const auto tables = random_tables<std::int64_t>(n, 100 + static_cast<std::uint32_t>(n));
    // The dense layout: every id's slot at the same offset on every member, zeros where a member
    // holds nothing; an id nobody holds keeps its slot but must not appear in the table.
    std::vector<std::size_t> offset(kIds + 1, 0), length(kIds, 0);
    for (const auto& t : tables)
      for (const auto& [id, values] : t.parts) length[id] = values.size();
    for (std::uint32_t id = 0; id < kIds; ++id) offset[id + 1] = offset[id] + length[id];
    std::vector<std::vector<std::int64_t>> dense(static_cast<std::size_t>(n));
    std::vector<PartitionTable<std::int64_t>> sparse(static_cast<std::size_t>(n));
    on_ranks<B>(n, [&](Communicator& comm, int r) {
      auto table = tables[static_cast<std::size_t>(r)];
      std::vector<std::int64_t> flat(offset[kIds], 0);
      for (const auto& [id, values] : table.parts)
        std::copy(values.begin(), values.end(), flat.begin() + static_cast<std::ptrdiff_t>(offset[id]));
      comm.allreduce_sum(std::span<std::int64_t>(flat));
      collective::regroup(comm, table);
      collective::allgather(comm, table);
      dense[static_cast<std::size_t>(r)] = flat;
      sparse[static_cast<std::size_t>(r)] = table;
    });
    const auto sum = sum_in_member_order(tables);
    for (int r = 0; r < n; ++r) {
      const auto& got = sparse[static_cast<std::size_t>(r)];
      CHECK(got == sum);
      for (const auto& [id, values] : got.parts)
        CHECK(std::equal(values.begin(), values.end(),
                         dense[static_cast<std::size_t>(r)].begin() + static_cast<std::ptrdiff_t>(offset[id])));
    }
  }
}

// push(local deltas) into a global model of ids 0..kIds−1 spread over the owners, then pull:
// each member gets back init + all deltas for the ids it holds, and no other id. An empty
// partitioner goes to the collectives as is, to test their default.
template <class B>
void push_then_pull(int n, const collective::Partitioner& partitioner) {
  const auto owner = partitioner ? partitioner : mod(n);
  const auto deltas = random_tables<std::int64_t>(n, 300 + static_cast<std::uint32_t>(n));
  const auto summed = sum_in_member_order(deltas);
  PartitionTable<std::int64_t> model;  // the global model as one table, before and after
  for (std::uint32_t id = 0; id < kIds; ++id) {
    const auto it = summed.parts.find(id);
    model.parts[id].assign(it == summed.parts.end() ? 3 : it->second.size(), 1000 * static_cast<std::int64_t>(id));
  }
  auto updated = model;
  for (auto& [id, values] : updated.parts)
    if (const auto it = summed.parts.find(id); it != summed.parts.end())
      for (std::size_t i = 0; i < values.size(); ++i) values[i] += it->second[i];
  std::vector<PartitionTable<std::int64_t>> globals(static_cast<std::size_t>(n)), locals(static_cast<std::size_t>(n));
  on_ranks<B>(n, [&](Communicator& comm, int r) {
    auto global = owned_by(model, r, owner);
    auto local = deltas[static_cast<std::size_t>(r)];
    collective::push(comm, local, global, partitioner);
    collective::pull(comm, global, local, partitioner);
    globals[static_cast<std::size_t>(r)] = global;
    locals[static_cast<std::size_t>(r)] = local;
  });
  for (int r = 0; r < n; ++r) {
    CAPTURE(r);
    CHECK(globals[static_cast<std::size_t>(r)] == owned_by(updated, r, owner));
    PartitionTable<std::int64_t> want;
    for (const auto& [id, values] : deltas[static_cast<std::size_t>(r)].parts) want.parts[id] = updated.parts.at(id);
    CHECK(locals[static_cast<std::size_t>(r)] == want);
  }
}

TEST_CASE_TEMPLATE("push then pull gives every member the summed value of the ids it holds, and only those", B,
                   GYRE_TEST_BACKENDS) {
  for (int n : {1, 2, 3, 5}) {
    CAPTURE(n);
    push_then_pull<B>(n, {});
  }
}

TEST_CASE_TEMPLATE("a custom partitioner decides where regroup, push and pull put each id", B, GYRE_TEST_BACKENDS) {
  for (int n : {1, 2, 3, 5}) {
    CAPTURE(n);
    // Runs of 7 ids, dealt to the members from the last one down: unlike id mod n for n > 1.
    const collective::Partitioner owner = [n](std::uint32_t id) { return n - 1 - static_cast<int>(id / 7) % n; };
    push_then_pull<B>(n, owner);
    const auto tables = random_tables<std::int64_t>(n, 500 + static_cast<std::uint32_t>(n));
    std::vector<PartitionTable<std::int64_t>> after(static_cast<std::size_t>(n));
    on_ranks<B>(n, [&](Communicator& comm, int r) {
      auto table = tables[static_cast<std::size_t>(r)];
      collective::regroup(comm, table, owner);
      after[static_cast<std::size_t>(r)] = table;
    });
    const auto sum = sum_in_member_order(tables);
    for (int r = 0; r < n; ++r) CHECK(after[static_cast<std::size_t>(r)] == owned_by(sum, r, owner));
  }
}

TEST_CASE("a partitioner's answer out of range is refused before anything is sent") {
  on_ranks<gyre_test::InprocBackend>(1, [](Communicator& comm, int) {
    PartitionTable<float> table;
    table.parts[3] = {1.0f};
    CHECK_THROWS_AS(collective::regroup(comm, table, [](std::uint32_t) { return 1; }), std::invalid_argument);
    CHECK(table.parts.size() == 1);
  });
}

namespace {

struct FloatResults {
  PartitionTable<double> allgathered, global, local;
};

// regroup + allgather of every member's table, then that sum as the global model (each id on
// its owner), the same tables pushed into it and pulled back, on backend B.
template <class B>
std::vector<FloatResults> float_results(int n, const std::vector<PartitionTable<double>>& tables) {
  std::vector<FloatResults> out(static_cast<std::size_t>(n));
  on_ranks<B>(n, [&](Communicator& comm, int r) {
    auto& mine = out[static_cast<std::size_t>(r)];
    mine.allgathered = tables[static_cast<std::size_t>(r)];
    collective::regroup(comm, mine.allgathered);
    collective::allgather(comm, mine.allgathered);
    mine.global = owned_by(mine.allgathered, r, mod(n));
    mine.local = tables[static_cast<std::size_t>(r)];
    collective::push(comm, mine.local, mine.global);
    collective::pull(comm, mine.global, mine.local);
  });
  return out;
}

}  // namespace

TEST_CASE("floating-point sums follow member order, bitwise the same on inproc and tcp") {
  constexpr int n = 5;
  const auto tables = random_tables<double>(n, 900);
  const auto inproc = float_results<gyre_test::InprocBackend>(n, tables);
  const auto tcp = float_results<gyre_test::TcpBackend>(n, tables);
  const auto sum = sum_in_member_order(tables);
  // Summing in another order must change some bits, or this test could not tell orders apart.
  CHECK_FALSE(bitwise_equal(sum, sum_in_member_order(std::vector(tables.rbegin(), tables.rend()))));
  // push adds each member's copy to the owner's global value in member order.
  std::vector<PartitionTable<double>> global_then_members{sum};
  global_then_members.insert(global_then_members.end(), tables.begin(), tables.end());
  const auto pushed = sum_in_member_order(global_then_members);
  for (int r = 0; r < n; ++r) {
    CAPTURE(r);
    const auto& a = inproc[static_cast<std::size_t>(r)];
    const auto& b = tcp[static_cast<std::size_t>(r)];
    CHECK(bitwise_equal(a.allgathered, b.allgathered));
    CHECK(bitwise_equal(a.global, b.global));
    CHECK(bitwise_equal(a.local, b.local));
    CHECK(bitwise_equal(a.allgathered, sum));
    CHECK(bitwise_equal(a.global, owned_by(pushed, r, mod(n))));
    PartitionTable<double> want;
    for (const auto& [id, values] : tables[static_cast<std::size_t>(r)].parts) want.parts[id] = pushed.parts.at(id);
    CHECK(bitwise_equal(a.local, want));
  }
}

TEST_CASE("pull moves only the partitions a member holds (bytes on the tcp wire)") {
  constexpr int n = 3;
  constexpr std::size_t kLength = 4096;  // doubles: 32 KiB a partition, 10 partitions a member
  std::vector<std::uint64_t> sent(n);
  on_ranks<gyre_test::TcpBackend>(n, [&](Communicator& comm, int r, net::Group& group) {
    PartitionTable<double> global;
    for (std::uint32_t id = 0; id < 30; ++id)
      if (static_cast<int>(id) % n == r) global.parts[id].assign(kLength, static_cast<double>(id));
    const auto wanted = static_cast<std::uint32_t>(r + 1) % n;  // the next member owns it
    PartitionTable<double> local;
    local.parts[wanted].assign(kLength, -1.0);
    const auto before = group.bytes_sent();
    collective::pull(comm, global, local);
    std::vector<std::int64_t> done{1};  // once everyone is through, every answer has been delivered
    comm.allreduce_sum(std::span<std::int64_t>(done));
    sent[static_cast<std::size_t>(r)] = group.bytes_sent() - before;
    CHECK(local.parts.size() == 1);
    CHECK(local.parts[wanted] == std::vector<double>(kLength, static_cast<double>(wanted)));
  });
  for (int r = 0; r < n; ++r) {
    CAPTURE(r);
    CHECK(sent[static_cast<std::size_t>(r)] >= kLength * sizeof(double));
    CHECK(sent[static_cast<std::size_t>(r)] < kLength * sizeof(double) * 3 / 2);
  }
}
