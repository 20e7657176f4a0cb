// apps/mf/model_io.cpp — TSV factor files and the model's JSON header, written and read back.
#include "mf/model_io.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "app/model_header.hpp"
#include "app/part_files.hpp"
#include "gyre/base/input_error.hpp"
#include "gyre/base/json_input.hpp"
#include "gyre/base/output_directory.hpp"
#include "gyre/base/output_file.hpp"
#include "gyre/data/ratings.hpp"
#include "gyre/data/text_input.hpp"
#include "mf/mf_kernel.hpp"
#include "mf/text_output.hpp"

namespace gyre::mf {
namespace {

// A table of `rows` lines: row r's id, then what `fields(r, line)` appends (tab separated).
template <typename Id, typename Fields>
app::FileSeal write_table(const std::filesystem::path& dir, std::string name, std::size_t rows, Id id, Fields fields) {
  app::SealedOutput out(dir, std::move(name));
  std::string line;
  for (std::size_t r = 0; r < rows; ++r) {
    line = std::to_string(id(r));
    fields(r, line);
    line.push_back('\n');
    out.write(line);
  }
  return out.commit();
}

void append_values(std::string& line, const float* values, std::size_t n) {
  for (std::size_t j = 0; j < n; ++j) append_field(line, values[j]);
}

// One table file, streamed line by line (a model's text can be larger than the model), and which
// of its rows to keep (all when empty; the ids are checked all the same).
struct Table {
  std::filesystem::path file;
  const KeepUser* keep = nullptr;
};

// A table of an id and `width` − 1 finite numbers per line (`positive`: each above 0), ids
// ascending; `value(f, v)` takes field f (1-based after the id) of each kept line in order.
template <typename Value>
void read_table(const Table& table, std::size_t width, const std::string& shape, std::vector<std::uint32_t>& ids,
                Value value, bool positive = false) {
  const std::filesystem::path& file = table.file;
  data::LineReader lines(file);
  std::vector<std::string_view> fields(width + 1);
  std::string_view line;
  std::optional<std::uint32_t> last;
  while (lines.next(line)) {
    const std::size_t n = data::split_blanks(line, fields.data(), width);
    if (n == 0) continue;
    if (n != width) throw InputError(file, lines.number(), std::to_string(width) + " fields: " + shape, std::string(line));
    const auto id = static_cast<std::uint32_t>(data::parse_bounded(file, lines.number(), fields[0], "id", 0, data::kMaxId));
    if (last && id <= *last)
      throw InputError(file, lines.number(), "ids in ascending order, each once, after " + std::to_string(*last),
                       std::to_string(id));
    last = id;
    if (table.keep != nullptr && *table.keep && !(*table.keep)(id)) continue;
    ids.push_back(id);
    for (std::size_t f = 1; f < width; ++f) {
      float v = 0;
      const std::string_view t = fields[f];
      const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
      if (ec != std::errc() || end != t.data() + t.size() || !std::isfinite(v) || (positive && !(v > 0)))
        throw InputError(file, lines.number(),
                         std::string(positive ? "a finite number above 0" : "a finite number") + " in field " +
                             std::to_string(f + 1),
                         std::string(t));
      value(f, v);
    }
  }
}

// Rows as write_rows wrote them: ids ascending (so lookups can bisect), every value finite.
void read_rows(const Table& file, std::uint32_t rank, bool biases, std::vector<std::uint32_t>& ids,
               std::vector<float>& factors, std::vector<float>& bias) {
  const std::string shape = "id" + std::string(biases ? ", bias" : "") + " and " + std::to_string(rank) +
                            " factors (model.json says rank " + std::to_string(rank) +
                            (biases ? " with biases)" : " without biases)");
  read_table(file, 1 + (biases ? 1 : 0) + rank, shape, ids, [&](std::size_t f, float v) {
    (biases && f == 1 ? bias : factors).push_back(v);
  });
}

// AdaGrad's sums, one row per factor row and with the same ids: what the sums file must hold.
void read_sums(const Table& table, const std::vector<std::uint32_t>& factor_ids, std::vector<float>& sums) {
  const std::filesystem::path& file = table.file;
  std::vector<std::uint32_t> ids;
  // A sum starts at 1 and only grows: one at or below 0 would make every step of its row
  // infinite or not a number.
  read_table(table, 1 + MfModel::kSumsPerRow, "id, the factors' and the bias's AdaGrad sums", ids,
             [&](std::size_t, float v) { sums.push_back(v); }, /*positive=*/true);
  if (ids != factor_ids)
    throw InputError(file, 0, "the ids of the factor file beside it, in the same order",
                     std::to_string(ids.size()) + " rows for " + std::to_string(factor_ids.size()) + " factor rows");
}

}  // namespace

void check_phase_count(const std::filesystem::path& file, const char* key, std::uint64_t phases, std::uint64_t epochs,
                       std::uint64_t per_epoch) {
  const std::uint64_t least = epochs * per_epoch, most = least + epochs;
  if (phases < least || phases > most)
    throw InputError(file, 0,
                     "\"" + std::string(key) + "\" between " + std::to_string(least) + " and " + std::to_string(most) +
                         " (" + std::to_string(epochs) + " epochs of " + std::to_string(per_epoch) +
                         " training phases and at most one evaluation each)",
                     std::to_string(phases));
}

namespace {

MfModel read_header(const std::filesystem::path& file, const nlohmann::json& header, int version) {
  MfModel m;
  m.rank = static_cast<std::uint32_t>(app::header_count(header, file, "rank", 1, 4096));
  m.biases = app::header_field(header, file, "biases", "true or false", [](const nlohmann::json& v) { return v.is_boolean(); })
                 .get<bool>();
  m.mean = app::header_float(header, file, "mean");
  m.users = static_cast<std::uint32_t>(app::header_count(header, file, "users", 0, data::kMaxId + 1));
  m.items = static_cast<std::uint32_t>(app::header_count(header, file, "items", 0, data::kMaxId + 1));
  if (version >= 2)
    m.trained = TrainingRecord{static_cast<int>(app::header_count(header, file, "epochs", 0, std::numeric_limits<int>::max())),
                               app::header_float(header, file, "learning_rate"),
                               app::header_float(header, file, "lr_decay"),
                               app::header_float(header, file, "lambda"),
                               app::header_float(header, file, "lambda_bias"),
                               app::header_count(header, file, "seed", 0, UINT64_MAX),
                               app::header_count(header, file, "phases", 0, UINT64_MAX),
                               UpdateRule::kSgd,  // version 3 says which; before, SGD
                               1.0f,
                               RateState{}};
  if (version >= 3) {
    const auto& rule = app::header_field(header, file, "update", "\"adagrad\", \"sgd\" or \"ccd\"", [](const nlohmann::json& v) {
      return v.is_string() && (v == "adagrad" || v == "sgd" || v == "ccd");
    });
    m.trained->update = parse_update_rule(rule.get<std::string>());
    if (m.trained->update == UpdateRule::kCcd)
      m.trained->ccd_inner = static_cast<std::uint32_t>(app::header_count(header, file, "ccd_inner", 1, kMaxCcdInner));
    m.trained->scale = app::header_float(header, file, "rating_scale");
    if (!(m.trained->scale > 0)) throw InputError(file, 0, "\"rating_scale\" above 0", std::to_string(m.trained->scale));
  }
  // The learning rate's state, written since the held-out ratings steer it; a model from before
  // goes on as a fresh schedule would (scale 1, nothing held out yet).
  if (m.trained && header.contains("rate_scale")) {
    m.trained->rate.scale = app::header_float(header, file, "rate_scale");
    if (!(m.trained->rate.scale > 0 && m.trained->rate.scale <= kMaxRateScale))
      throw InputError(file, 0, "\"rate_scale\" in (0, 8]", std::to_string(m.trained->rate.scale));
    // An RMSE the rate state remembers: a number at or above 0, or null (NaN: none yet).
    const auto read_rmse = [&](const char* key, double& into) {
      const auto& v = app::header_field(header, file, key, "a number at or above 0, or null",
                                        [](const nlohmann::json& j) { return j.is_null() || (j.is_number() && j.get<double>() >= 0); });
      if (!v.is_null()) into = v.get<double>();
    };
    read_rmse("held_out_rmse", m.trained->rate.held_out_rmse);
    // Models from before the rate could grow have neither: it did not grow, and a continued run grows nothing in its first epoch.
    if (header.contains("lr_grow")) {
      m.trained->lr_grow = app::header_float(header, file, "lr_grow");
      if (!(m.trained->lr_grow >= 1 && m.trained->lr_grow <= kMaxRateScale))
        throw InputError(file, 0, "\"lr_grow\" in [1, 8]", std::to_string(m.trained->lr_grow));
      read_rmse("train_rmse", m.trained->rate.train_rmse);
    }
    m.trained->lr_cut = app::header_float(header, file, "lr_cut");
    m.trained->held_out = app::header_float(header, file, "held_out");
    if (!(m.trained->lr_cut > 0 && m.trained->lr_cut <= 1))
      throw InputError(file, 0, "\"lr_cut\" in (0, 1]", std::to_string(m.trained->lr_cut));
    if (!(m.trained->held_out >= 0 && m.trained->held_out <= 0.5f))
      throw InputError(file, 0, "\"held_out\" in [0, 0.5]", std::to_string(m.trained->held_out));
    if (header.contains("held_out_max"))
      m.trained->held_out_max = app::header_count(header, file, "held_out_max", 0, UINT64_MAX);
  }
  if (m.trained)
    check_phase_count(file, "phases", m.trained->phases, static_cast<std::uint64_t>(m.trained->epochs),
                      train_phases_per_epoch(m.trained->update, m.rank, m.trained->ccd_inner));
  return m;
}

// The filter for a table of kind `stem`: keep_user for the users' tables, none for the items'.
const KeepUser* users_of(std::string_view stem, const KeepUser& keep_user) {
  return stem.substr(0, 5) == "user_" ? &keep_user : nullptr;
}

// What a model holds besides its header, read from the files of one part (or of version 3's
// single layout): `file(stem)` gives the table of that kind.
template <typename File>
void read_part_rows(MfModel& m, File file) {
  read_rows(file("user_factors"), m.rank, m.biases, m.user_ids, m.user_factors, m.user_bias);
  read_rows(file("item_factors"), m.rank, m.biases, m.item_ids, m.item_factors, m.item_bias);
  if (m.trained && m.trained->update == UpdateRule::kAdaGrad) {
    read_sums(file("user_adagrad"), m.user_ids, m.user_sums);
    read_sums(file("item_adagrad"), m.item_ids, m.item_sums);
  }
}

// One side's rows of every part, in id order: (id, part, row in part).
using RowRef = std::tuple<std::uint32_t, std::size_t, std::size_t>;
std::vector<RowRef> by_id(const std::vector<MfModel>& parts, bool users, const std::filesystem::path& manifest) {
  std::vector<RowRef> rows;
  for (std::size_t p = 0; p < parts.size(); ++p) {
    const auto& ids = users ? parts[p].user_ids : parts[p].item_ids;
    for (std::size_t r = 0; r < ids.size(); ++r) rows.emplace_back(ids[r], p, r);
  }
  std::sort(rows.begin(), rows.end());
  for (std::size_t i = 1; i < rows.size(); ++i)
    if (std::get<0>(rows[i]) == std::get<0>(rows[i - 1]))
      throw InputError(manifest, 0, std::string("each ") + (users ? "user" : "item") + " in one part",
                       (users ? "user " : "item ") + std::to_string(std::get<0>(rows[i])) + " in parts " +
                           std::to_string(std::get<1>(rows[i - 1])) + " and " + std::to_string(std::get<1>(rows[i])));
  return rows;
}

// Appends `width` values of row `row` of `from` to `to` (nothing when `from` is empty).
void append_row(std::vector<float>& to, const std::vector<float>& from, std::size_t row, std::size_t width) {
  if (!from.empty()) to.insert(to.end(), from.begin() + std::ptrdiff_t(row * width), from.begin() + std::ptrdiff_t((row + 1) * width));
}

// The parts' rows together into `m` (the header's fields already set), ids ascending.
void merge_parts(MfModel& m, const std::vector<MfModel>& parts, const std::filesystem::path& manifest) {
  constexpr std::size_t kSums = MfModel::kSumsPerRow;
  for (const bool users : {true, false}) {
    auto& ids = users ? m.user_ids : m.item_ids;
    auto& factors = users ? m.user_factors : m.item_factors;
    auto& bias = users ? m.user_bias : m.item_bias;
    auto& sums = users ? m.user_sums : m.item_sums;
    const auto rows = by_id(parts, users, manifest);
    ids.reserve(rows.size());
    factors.reserve(rows.size() * m.rank);
    for (const auto& [id, p, r] : rows) {
      const MfModel& part = parts[p];
      ids.push_back(id);
      append_row(factors, users ? part.user_factors : part.item_factors, r, m.rank);
      append_row(bias, users ? part.user_bias : part.item_bias, r, 1);
      append_row(sums, users ? part.user_sums : part.item_sums, r, kSums);
    }
  }
}

void read_parts(MfModel& m, const std::filesystem::path& dir, const std::filesystem::path& manifest,
                const nlohmann::json& header, const KeepUser& keep_user) {
  const auto& parts = app::header_field(header, manifest, "parts", "an array of the model's parts, one or more",
                                        [](const nlohmann::json& v) { return v.is_array() && !v.empty(); });
  std::vector<MfModel> rows(parts.size());
  for (std::size_t p = 0; p < parts.size(); ++p) {
    const nlohmann::json& part = parts[p];
    const std::string which = "parts[" + std::to_string(p) + "]";
    if (!part.is_object() || !part.contains("files") || !part["files"].is_object() || !part.contains("part") ||
        part["part"] != p)
      throw InputError(manifest, 0, which + ": an object with \"part\": " + std::to_string(p) + " and its \"files\"",
                       json_excerpt(part));
    MfModel& mine = rows[p];
    mine.rank = m.rank;
    mine.biases = m.biases;
    mine.trained = m.trained;
    read_part_rows(mine, [&](const char* stem) {
      const auto& files = part["files"];
      if (!files.contains(stem))
        throw InputError(manifest, 0, which + ".files: an entry \"" + std::string(stem) + "\"", json_excerpt(files));
      return Table{app::check_sealed_file(dir, manifest, files[stem]), users_of(stem, keep_user)};
    });
  }
  merge_parts(m, rows, manifest);
}

}  // namespace

MfModel read_model(const std::filesystem::path& dir, const KeepUser& keep_user) {
  app::require_model_directory(dir, "a gyre-mf model directory (model.json, user_factors.tsv, item_factors.tsv)");
  const auto manifest = dir / "model.json";
  const nlohmann::json header = app::read_model_header(manifest, "gyre-mf", "gyre-mf --out");
  const int version = static_cast<int>(app::header_count(header, manifest, "version", 1, kPartsVersion));
  MfModel m = read_header(manifest, header, version);
  if (version >= kPartsVersion) {
    read_parts(m, dir, manifest, header, keep_user);
  } else {
    read_part_rows(m, [&](const char* stem) {
      return Table{dir / (std::string(stem) + ".tsv"), users_of(stem, keep_user)};
    });
  }
  // A truncated or mixed-up directory shows as counts that disagree with the header.
  if (m.item_ids.size() != m.items || m.user_ids.size() > m.users)
    throw InputError(manifest, 0,
                     "\"users\" and \"items\" to match the factor files (" + std::to_string(m.user_ids.size()) +
                         " user rows, " + std::to_string(m.item_ids.size()) + " item rows)",
                     "users " + std::to_string(m.users) + ", items " + std::to_string(m.items));
  return m;
}

namespace {

constexpr std::array<std::string_view, 4> kStems{"user_factors", "item_factors", "user_adagrad", "item_adagrad"};

nlohmann::json header_of(const MfModel& model, int version) {
  nlohmann::json header = {{"format", "gyre-mf"}, {"version", version}, {"rank", model.rank},
                           {"biases", model.biases}, {"mean", model.mean},  {"users", model.users},
                           {"items", model.items}};
  if (const auto& t = model.trained) {
    header["epochs"] = t->epochs;
    header["learning_rate"] = t->learning_rate;
    header["lr_decay"] = t->lr_decay;
    header["lambda"] = t->lambda;
    header["lambda_bias"] = t->lambda_bias;
    header["seed"] = t->seed;
    header["phases"] = t->phases;
    header["update"] = name_of(t->update);
    if (t->update == UpdateRule::kCcd) header["ccd_inner"] = t->ccd_inner;
    header["rating_scale"] = t->scale;
    header["rate_scale"] = t->rate.scale;
    header["lr_cut"] = t->lr_cut;
    header["held_out"] = t->held_out;
    if (t->held_out_max) header["held_out_max"] = *t->held_out_max;
    header["held_out_rmse"] = app::number_or_null(t->rate.held_out_rmse);
    header["lr_grow"] = t->lr_grow;
    header["train_rmse"] = app::number_or_null(t->rate.train_rmse);
  }
  return header;
}

void write_header(const std::filesystem::path& dir, const nlohmann::json& header) {
  OutputFile json(dir / "model.json");
  json.stream() << header.dump(2) << '\n';
  json.commit();
}

// The model's tables into `dir`, each under `name(stem)`: every user row, and the item rows
// (all by id when item_ids is empty).
template <typename Name>
nlohmann::json write_tables(const std::filesystem::path& dir, const MfModel& model, Name name) {
  const std::size_t users = model.user_ids.size();
  const std::size_t items = model.item_ids.empty() ? model.items : model.item_ids.size();
  const auto user_id = [&](std::size_t r) { return model.user_ids[r]; };
  const auto item_id = [&](std::size_t r) { return model.item_ids.empty() ? static_cast<std::uint32_t>(r) : model.item_ids[r]; };
  const std::size_t k = model.rank;
  const auto factors = [&](const std::vector<float>& values, const std::vector<float>& bias) {
    return [&, k](std::size_t r, std::string& line) {
      if (model.biases) append_field(line, bias[r]);
      append_values(line, values.data() + r * k, k);
    };
  };
  const auto sums = [](const std::vector<float>& values) {
    return [&values](std::size_t r, std::string& line) {
      append_values(line, values.data() + r * MfModel::kSumsPerRow, MfModel::kSumsPerRow);
    };
  };
  nlohmann::json files = nlohmann::json::object();
  files["user_factors"] =
      write_table(dir, name("user_factors"), users, user_id, factors(model.user_factors, model.user_bias)).to_json();
  files["item_factors"] =
      write_table(dir, name("item_factors"), items, item_id, factors(model.item_factors, model.item_bias)).to_json();
  if (!model.user_sums.empty()) {
    files["user_adagrad"] = write_table(dir, name("user_adagrad"), users, user_id, sums(model.user_sums)).to_json();
    files["item_adagrad"] = write_table(dir, name("item_adagrad"), items, item_id, sums(model.item_sums)).to_json();
  }
  return files;
}

}  // namespace

const DirectoryKind& model_directory() {
  static const DirectoryKind kind{"a gyre-mf model", [](std::string_view name) {
                                    static const auto single = DirectoryKind::of_files(
                                        "", {"model.json", "user_factors.tsv", "item_factors.tsv", "user_adagrad.tsv",
                                             "item_adagrad.tsv"});
                                    return single.owns(name) || app::is_part_file_name(name, kStems);
                                  }};
  return kind;
}

void write_model(const std::filesystem::path& path, const MfModel& model) {
  OutputDirectory out(path, model_directory());
  write_tables(out.staging(), model, [](const char* stem) { return std::string(stem) + ".tsv"; });
  write_header(out.staging(), header_of(model, kModelVersion));
  out.commit();
}

std::string write_model_part(const std::filesystem::path& dir, int part, const MfModel& header, const PartSide& users,
                             const PartSide& items) {
  const auto name = [part](const char* stem) { return app::part_file_name(stem, part); };
  const auto factors = [&](const PartSide& side) {
    return [&](std::size_t r, std::string& line) {
      if (header.biases) append_field(line, side.rows[r][side.tail + kBiasAt]);
      append_values(line, side.rows[r], header.rank);
    };
  };
  const auto sums = [](const PartSide& side) {
    return [&side](std::size_t r, std::string& line) {
      append_values(line, side.rows[r] + side.tail + kFactorSumAt, MfModel::kSumsPerRow);
    };
  };
  const auto id = [](const PartSide& side) { return [&side](std::size_t r) { return side.ids[r]; }; };
  nlohmann::json files = nlohmann::json::object();
  files["user_factors"] = write_table(dir, name("user_factors"), users.ids.size(), id(users), factors(users)).to_json();
  files["item_factors"] = write_table(dir, name("item_factors"), items.ids.size(), id(items), factors(items)).to_json();
  if (header.trained && header.trained->update == UpdateRule::kAdaGrad) {
    files["user_adagrad"] = write_table(dir, name("user_adagrad"), users.ids.size(), id(users), sums(users)).to_json();
    files["item_adagrad"] = write_table(dir, name("item_adagrad"), items.ids.size(), id(items), sums(items)).to_json();
  }
  const nlohmann::json entry = {
      {"part", part}, {"users", users.ids.size()}, {"items", items.ids.size()}, {"files", std::move(files)}};
  return entry.dump();
}

void write_parts_manifest(const std::filesystem::path& dir, const MfModel& model, const std::vector<std::string>& parts) {
  nlohmann::json header = header_of(model, kPartsVersion);
  header["parts"] = nlohmann::json::array();
  for (const std::string& p : parts) header["parts"].push_back(nlohmann::json::parse(p));
  write_header(dir, header);
}

}  // namespace gyre::mf
