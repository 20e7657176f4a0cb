// tests/lib/rotation/gather_test.cpp — the collect-at-rank-0 protocol over inproc groups: what arrives, and what is refused.
#include <doctest/doctest.h>

#include <future>
#include <set>

#include "gyre/net/inproc.hpp"
#include "gyre/rotation/gather.hpp"
#include "gyre/runtime/mailbox.hpp"

using namespace gyre;

namespace {

constexpr int kWorkers = 3;
constexpr std::uint32_t kBlocks = 6;

// A worker after its rotation: its links, its member's mailbox, the blocks it holds.
struct RotatedWorker {
  std::unique_ptr<net::Group> group;
  std::unique_ptr<runtime::Mailbox> mailbox;
  std::vector<model::OwnedBlock> held;
  void join(std::unique_ptr<net::Group> g) {
    group = std::move(g);
    mailbox = std::make_unique<runtime::Mailbox>(*group);
  }
};

std::optional<rotation::GatheredModel> gather(RotatedWorker& w, rotation::LocalRows rows,
                                              const rotation::GatherOptions& o) {
  return rotation::gather_at_root(*w.mailbox, w.held, std::move(rows), o);
}

// Worker w holds blocks w and w+P, whose first slot says which block it is, and two rows of
// three int32s, ids 10w and 10w+1.
RotatedWorker worker(std::unique_ptr<net::Group> group, int w) {
  RotatedWorker run;
  run.join(std::move(group));
  for (auto id : {static_cast<std::uint32_t>(w), static_cast<std::uint32_t>(w + kWorkers)}) {
    model::Block b(id, 2, model::kRowAlign);
    b.counts()[0] = static_cast<std::int32_t>(100 + id);
    run.held.emplace_back(std::move(b), nullptr);
  }
  return run;
}

rotation::LocalRows worker_rows(int w) {
  const std::vector<std::uint32_t> ids{static_cast<std::uint32_t>(10 * w), static_cast<std::uint32_t>(10 * w + 1)};
  std::vector<std::int32_t> values(6);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = w * 100 + static_cast<std::int32_t>(i);
  return rotation::LocalRows::of(std::span<const std::uint32_t>(ids), std::span<const std::int32_t>(values));
}

// The plan's layout of `blocks` blocks, all of worker()'s shape.
std::vector<model::BlockShape> block_layout(std::uint32_t blocks) {
  return std::vector<model::BlockShape>(blocks, model::BlockShape{2, model::kRowAlign});
}

rotation::GatherOptions gather_options() {
  rotation::GatherOptions o;
  o.workers = kWorkers;
  o.layout = block_layout(kBlocks);
  o.row_bytes = 3 * sizeof(std::int32_t);
  o.timeout = std::chrono::seconds(5);
  return o;
}

}  // namespace

TEST_CASE("rank 0 gathers every block once and every worker's rows, in rank order; the others get nullopt") {
  auto groups = net::make_inproc_groups(kWorkers);
  std::vector<std::future<std::optional<rotation::GatheredModel>>> ranks;
  for (int w = kWorkers - 1; w >= 0; --w)  // rank 0 last: the others wait for its request
    ranks.push_back(std::async(std::launch::async, [&groups, w] {
      auto run = worker(std::move(groups[static_cast<std::size_t>(w)]), w);
      return gather(run, worker_rows(w), gather_options());
    }));
  std::optional<rotation::GatheredModel> root;
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    auto result = ranks[i].get();
    if (i + 1 == ranks.size()) {
      root = std::move(result);
    } else {
      CHECK_FALSE(result.has_value());
    }
  }
  REQUIRE(root.has_value());
  std::set<std::uint32_t> ids;
  for (const auto& b : root->blocks) {
    CHECK(b.counts()[0] == static_cast<std::int32_t>(100 + b.id()));
    ids.insert(b.id());
  }
  CHECK(ids.size() == kBlocks);
  CHECK(root->blocks.size() == kBlocks);
  REQUIRE(root->rows.size() == static_cast<std::size_t>(kWorkers));
  for (int w = 0; w < kWorkers; ++w) {
    const auto& r = root->rows[static_cast<std::size_t>(w)];
    CHECK(r.ids_as<std::uint32_t>() == std::vector<std::uint32_t>{static_cast<std::uint32_t>(10 * w),
                                                                   static_cast<std::uint32_t>(10 * w + 1)});
    const auto values = r.values_as<std::int32_t>();
    REQUIRE(values.size() == 6);
    CHECK(values[5] == w * 100 + 5);
  }
}

TEST_CASE("rows of any size (kAnyRowBytes): each worker's body arrives as sent, however long") {
  auto groups = net::make_inproc_groups(kWorkers);
  // Worker w sends w + 1 ids and 5·w bytes: the sizes differ by rank and need not divide.
  const auto body_of = [](int w) {
    rotation::LocalRows r;
    for (int i = 0; i <= w; ++i) r.ids.push_back(static_cast<std::uint64_t>(10 * w + i));
    for (int i = 0; i < 5 * w; ++i) r.values.push_back(static_cast<std::byte>(w * 16 + i));
    return r;
  };
  auto o = gather_options();
  o.row_bytes = rotation::kAnyRowBytes;
  std::vector<std::future<std::optional<rotation::GatheredModel>>> ranks;
  for (int w = kWorkers - 1; w >= 0; --w)
    ranks.push_back(std::async(std::launch::async, [&groups, &body_of, &o, w] {
      auto run = worker(std::move(groups[static_cast<std::size_t>(w)]), w);
      return gather(run, body_of(w), o);
    }));
  std::optional<rotation::GatheredModel> root;
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    auto result = ranks[i].get();
    if (i + 1 == ranks.size()) root = std::move(result);
  }
  REQUIRE(root.has_value());
  REQUIRE(root->rows.size() == static_cast<std::size_t>(kWorkers));
  for (int w = 0; w < kWorkers; ++w) {
    CHECK(root->rows[static_cast<std::size_t>(w)].ids == body_of(w).ids);
    CHECK(root->rows[static_cast<std::size_t>(w)].values == body_of(w).values);
  }
}

TEST_CASE("a rank whose rows have another width, or that sends a block twice, is refused by rank 0") {
  SUBCASE("row width") {
    auto groups = net::make_inproc_groups(2);
    auto other = std::async(std::launch::async, [&groups] {
      auto run = worker(std::move(groups[1]), 1);
      auto o = gather_options();
      o.workers = 2;
      o.row_bytes = 2 * sizeof(std::int32_t);  // disagrees with rank 0
      auto r = rotation::LocalRows::of(std::span<const std::uint32_t>(std::vector<std::uint32_t>{1, 2, 3}),
                                       std::span<const std::int32_t>(std::vector<std::int32_t>(6)));
      return gather(run, std::move(r), o);
    });
    auto run = worker(std::move(groups[0]), 0);
    auto o = gather_options();
    o.workers = 2;
    o.layout = block_layout(4);
    CHECK_THROWS_WITH_AS(gather(run, worker_rows(0), o),
                         "rank 1 sent local rows of 8 bytes; the plan here has rows of 12 bytes",
                         std::runtime_error);
    other.get();
  }
  SUBCASE("duplicate block") {
    auto groups = net::make_inproc_groups(2);
    auto other = std::async(std::launch::async, [&groups] {
      auto run = worker(std::move(groups[1]), 0);  // holds rank 0's blocks as well
      auto o = gather_options();
      o.workers = 2;
      o.layout = block_layout(4);
      return gather(run, worker_rows(1), o);
    });
    auto run = worker(std::move(groups[0]), 0);
    auto o = gather_options();
    o.workers = 2;
    o.layout = block_layout(4);
    CHECK_THROWS_WITH_AS(gather(run, worker_rows(0), o), "rank 1 sent block 0 twice or out of range",
                         std::runtime_error);
    other.get();
  }
}

TEST_CASE("a block in another shape than the plan's, or a row id beyond the app's ids, is refused naming its sender") {
  SUBCASE("block shape") {
    auto groups = net::make_inproc_groups(2);
    auto other = std::async(std::launch::async, [&groups] {
      RotatedWorker run;
      run.join(std::move(groups[1]));
      for (std::uint32_t id : {1u, 3u}) run.held.emplace_back(model::Block(id, 5, 2 * model::kRowAlign), nullptr);
      auto o = gather_options();
      o.workers = 2;
      o.layout = {{2, 8}, {5, 16}, {2, 8}, {5, 16}};  // rank 1's plan has other shapes
      return gather(run, worker_rows(1), o);
    });
    auto run = worker(std::move(groups[0]), 0);
    auto o = gather_options();
    o.workers = 2;
    o.layout = block_layout(4);
    CHECK_THROWS_WITH_AS(gather(run, worker_rows(0), o),
                         "block 1 from rank 1 has 5 rows of 16 floats; the plan here has 2 rows of 8 floats",
                         std::runtime_error);
    other.get();
  }
  SUBCASE("row id") {
    auto groups = net::make_inproc_groups(2);
    auto other = std::async(std::launch::async, [&groups] {
      auto run = worker(std::move(groups[1]), 1);
      auto o = gather_options();
      o.workers = 2;
      o.layout = block_layout(4);
      return gather(run, worker_rows(1), o);  // ids 10 and 11
    });
    auto run = worker(std::move(groups[0]), 0);
    auto o = gather_options();
    o.workers = 2;
    o.layout = block_layout(4);
    o.id_limit = 11;
    CHECK_THROWS_WITH_AS(gather(run, worker_rows(0), o),
                         "rank 1 sent local row id 11; ids here are below 11", std::runtime_error);
    other.get();
  }
}

TEST_CASE("rank 0 names what is missing when a part does not arrive in time") {
  auto groups = net::make_inproc_groups(2);
  auto run = worker(std::move(groups[0]), 0);
  auto o = gather_options();
  o.workers = 2;
  o.layout = block_layout(4);
  o.timeout = std::chrono::milliseconds(50);
  try {
    gather(run, worker_rows(0), o);
    FAIL("no exception");
  } catch (const std::exception& e) {
    const std::string what = e.what();
    CHECK_MESSAGE(what.find("rows of rank 1") != std::string::npos, what);
    CHECK_MESSAGE(what.find("2 of 4 blocks") != std::string::npos, what);
  }
}
