// tests/lib/data/regression_shards_test.cpp — nnz-balanced row shards, row shard files (kind 3) and rows partition directories.
#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <numeric>

#include "gyre/data/manifest.hpp"
#include "gyre/data/planted_regression.hpp"
#include "gyre/data/regression.hpp"
#include "gyre/data/regression_partition.hpp"
#include "gyre/data/shard_file.hpp"
#include "support/input_errors.hpp"
#include "support/temp_dir.hpp"

using namespace gyre::data;
using gyre::test::catch_input_error;
using gyre::test::contains;
using gyre::test::read_text;
using gyre::test::overwrite_bytes;
using gyre::test::TempDir;
using gyre::test::write_text;

namespace {

// Rows of uneven length: nnz per row varies between 1 and 40 with the planted generator's rows cut.
RegressionSet sample_regression(std::uint64_t samples = 300) {
  PlantedRegressionOptions o;
  o.samples = samples;
  o.features = 200;
  o.nnz_per_row = 40;
  o.support = 5;
  o.seed = 9;
  const RegressionSet full = generate_planted_regression(o).set;
  RegressionSet s;
  s.features = full.features;
  for (std::uint64_t i = 0; i < full.samples(); ++i) {
    const std::size_t keep = 1 + (i * 7919) % 40;
    s.add_row(i, full.y[i], full.row_cols(i).first(keep), full.row_values(i).first(keep));
  }
  return s;
}

bool same_regression_set(const RegressionSet& a, const RegressionSet& b) {
  return a.row_begin == b.row_begin && a.cols == b.cols && a.values == b.values && a.y == b.y &&
         a.features == b.features && a.sample_ids == b.sample_ids && a.feature_names == b.feature_names;
}

}  // namespace

TEST_CASE("shard_rows: every sample once, input order within a shard, nnz balanced, deterministic") {
  const RegressionSet s = sample_regression();
  const auto shards = shard_rows(s, 4);
  REQUIRE(shards.size() == 4);
  std::vector<std::uint64_t> seen;
  std::uint64_t nnz = 0;
  for (const RegressionSet& p : shards) {
    CHECK(p.features == s.features);
    CHECK(std::is_sorted(p.sample_ids.begin(), p.sample_ids.end()));
    seen.insert(seen.end(), p.sample_ids.begin(), p.sample_ids.end());
    nnz += p.nnz();
    for (std::uint64_t i = 0; i < p.samples(); ++i) {
      const std::uint64_t orig = p.sample_ids[i];  // sample_regression(): sample id = index
      CHECK(p.y[i] == s.y[orig]);
      const auto a = s.row_values(orig), b = p.row_values(i);
      CHECK(std::equal(a.begin(), a.end(), b.begin(), b.end()));
    }
  }
  std::sort(seen.begin(), seen.end());
  std::vector<std::uint64_t> all(s.samples());
  std::iota(all.begin(), all.end(), 0);
  CHECK(seen == all);
  CHECK(nnz == s.nnz());
  CHECK(nnz_balance(shards) >= 1.0);
  CHECK(nnz_balance(shards) < 1.02);  // LPT: within one row (40) of the mean (~1500)
  const auto again = shard_rows(s, 4);
  for (std::size_t p = 0; p < 4; ++p) CHECK(same_regression_set(again[p], shards[p]));
  CHECK(same_regression_set(merge_row_shards(shards), s));
}

TEST_CASE("select_rows: the listed rows with their sample ids, features and names; shard_rows is deal_rows selected") {
  RegressionSet set = sample_regression(50);
  set.feature_names.assign(set.features, "f");
  const std::vector<std::uint32_t> rows{1, 4, 5, 49};
  const RegressionSet picked = select_rows(set, rows);
  REQUIRE(picked.samples() == rows.size());
  CHECK(picked.features == set.features);
  CHECK(picked.feature_names == set.feature_names);
  for (std::size_t k = 0; k < rows.size(); ++k) {
    CHECK(picked.sample_ids[k] == set.sample_ids[rows[k]]);
    CHECK(picked.y[k] == set.y[rows[k]]);
    CHECK(std::ranges::equal(picked.row_cols(k), set.row_cols(rows[k])));
    CHECK(std::ranges::equal(picked.row_values(k), set.row_values(rows[k])));
  }
  const auto dealt = deal_rows(set, 3);
  const auto shards = shard_rows(set, 3);
  for (std::size_t p = 0; p < 3; ++p) CHECK(same_regression_set(shards[p], select_rows(set, dealt[p])));
}

TEST_CASE("shard_rows: most non-zeros first to the least loaded part, ties by row index") {
  RegressionSet s;
  s.features = 8;
  const std::vector<std::uint32_t> cols{0, 1, 2, 3, 4};
  const std::vector<double> vals{1, 1, 1, 1, 1};
  for (const std::size_t len : {1u, 5u, 3u, 3u, 2u})
    s.add_row(s.samples(), 0, std::span(cols).first(len), std::span(vals).first(len));
  const auto shards = shard_rows(s, 2);
  // Order 1(5), 2(3), 3(3), 4(2), 0(1): 1→p0, 2→p1, 3→p1, 4→p0, 0→p1 (6 vs 7)
  CHECK(shards[0].sample_ids == std::vector<std::uint64_t>{1, 4});
  CHECK(shards[1].sample_ids == std::vector<std::uint64_t>{0, 2, 3});
  CHECK(nnz_balance(shards) == doctest::Approx(1.0));
  CHECK(nnz_balance({}) == 1.0);
}

TEST_CASE("row shard file: round trip, and corruption is detected") {
  TempDir dir;
  const RegressionSet s = sample_regression(50);
  const auto file = dir / "r.shard";
  write_row_shard_file(file, s);
  CHECK(std::filesystem::file_size(file) == 40 + 20 * s.samples() + 12 * s.nnz());
  const RowShardFile back = read_row_shard_file(file);
  CHECK(same_regression_set(back.set, s));
  CHECK(back.checksum == records_checksum(s));

  const auto error = [&] { return catch_input_error([&] { read_row_shard_file(file); }); };
  const unsigned char junk = 0x5A;
  overwrite_bytes(file, 40 + 20 * s.samples() + 12 * 3 + 5, &junk, 1);  // inside a value
  auto e = error();
  REQUIRE(e.thrown);
  CHECK(e.file == file);
  CHECK(contains(e.message, "expected records checksum 0x"));

  write_row_shard_file(file, s);
  overwrite_bytes(file, 40 + 8, &junk, 1);  // first row's nnz: the size no longer fits
  e = error();
  REQUIRE(e.thrown);
  CHECK(contains(e.message, "non-zeros"));

  write_row_shard_file(file, s);
  std::filesystem::resize_file(file, std::filesystem::file_size(file) - 1);
  CHECK(error().thrown);

  write_row_shard_file(file, s);
  const std::uint32_t kind = 2;
  overwrite_bytes(file, 12, &kind, 4);
  e = error();
  CHECK(contains(e.message, "expected shard kind 3 (rows), found '2'"));
}

TEST_CASE("rows partition: round trip with feature names, validated against the manifest") {
  TempDir dir;
  RegressionSet s = sample_regression(120);
  s.feature_names.resize(s.features);
  for (std::uint32_t j = 0; j < s.features; ++j) s.feature_names[j] = "f" + std::to_string(j);
  const auto shards = shard_rows(s, 3);
  const auto parts = dir / "parts";
  write_row_partition(parts, shards);
  CHECK(TempDir::list_dir(parts) == std::vector<std::string>{"feature_names.txt", "manifest.json", "part-00000.shard",
                                                             "part-00001.shard", "part-00002.shard"});
  const Manifest m = read_manifest(parts, "rows");
  CHECK(m.features == s.features);
  CHECK(m.records == s.samples());
  CHECK(m.tokens == s.nnz());
  CHECK(m.balance == doctest::Approx(nnz_balance(shards)));
  const auto json = nlohmann::json::parse(read_text(parts / "manifest.json"));
  CHECK(json["samples"] == s.samples());
  CHECK(json["nnz"] == s.nnz());
  CHECK(json["shards"][0].contains("samples"));

  const auto back = read_row_partition(parts);
  REQUIRE(back.size() == 3);
  for (std::size_t p = 0; p < 3; ++p) CHECK(same_regression_set(back[p], shards[p]));
  CHECK(same_regression_set(read_row_shard(parts, 1), shards[1]));
  CHECK(same_regression_set(load_regression(parts), s));

  // Without names: no feature_names.txt, and a stale one is removed.
  RegressionSet plain = s;
  plain.feature_names.clear();
  write_row_partition(parts, shard_rows(plain, 3));
  CHECK(!std::filesystem::exists(parts / "feature_names.txt"));
  CHECK(same_regression_set(load_regression(parts), plain));

  // A shard swapped for another: the manifest's counts and checksum catch it.
  std::filesystem::copy_file(parts / "part-00000.shard", parts / "part-00001.shard",
                             std::filesystem::copy_options::overwrite_existing);
  auto e = catch_input_error([&] { read_row_partition(parts); });
  INFO(e.message);
  REQUIRE(e.thrown);
  CHECK(e.file == parts / "part-00001.shard");
  CHECK(contains(e.message, "as listed in manifest.json"));

  write_row_partition(parts, shards);
  write_text(parts / "feature_names.txt", "a\nb\n");
  e = catch_input_error([&] { read_row_partition(parts); });
  CHECK(e.file == parts / "feature_names.txt");
  CHECK(contains(e.message, "expected " + std::to_string(s.features) + " names, one per feature"));

  write_row_partition(parts, shards);
  std::filesystem::remove(parts / "part-00002.shard");
  e = catch_input_error([&] { read_row_partition(parts); });
  CHECK(e.file == parts / "part-00002.shard");

  e = catch_input_error([&] { read_manifest(parts, "corpus"); });
  CHECK(contains(e.message, "expected \"kind\": \"corpus\", found 'rows'"));
}
