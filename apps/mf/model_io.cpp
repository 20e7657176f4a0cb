// apps/mf/model_io.cpp — TSV factor files and the model's JSON header, written and read back.
#include "mf/model_io.hpp"

#include <nlohmann/json.hpp>

#include <charconv>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "app/model_header.hpp"
#include "gyre/base/input_error.hpp"
#include "gyre/base/output_directory.hpp"
#include "gyre/base/output_file.hpp"
#include "gyre/data/ratings.hpp"
#include "gyre/data/text_input.hpp"
#include "mf/text_output.hpp"

namespace gyre::mf {
namespace {

void write_rows(const std::filesystem::path& file, std::uint32_t rows, std::uint32_t rank, bool biases,
                const std::vector<std::uint32_t>* ids, const std::vector<float>& factors,
                const std::vector<float>& bias) {
  OutputFile out(file);
  std::string line;
  for (std::uint32_t r = 0; r < rows; ++r) {
    line = std::to_string(ids != nullptr ? (*ids)[r] : r);
    if (biases) append_field(line, bias[r]);
    for (std::uint32_t j = 0; j < rank; ++j) append_field(line, factors[std::size_t{r} * rank + j]);
    line.push_back('\n');
    out.stream() << line;
  }
  out.commit();
}

// A table of an id and `width` − 1 finite numbers per line (`positive`: each above 0), ids
// ascending; `value(f, v)` takes field f (1-based after the id) of each line in order.
template <typename Value>
void read_table(const std::filesystem::path& file, std::size_t width, const std::string& shape,
                std::vector<std::uint32_t>& ids, Value value, bool positive = false) {
  const std::string text = data::slurp(file);
  data::LineCursor lines(text);
  std::vector<std::string_view> fields(width + 1);
  std::string_view line;
  while (lines.next(line)) {
    const std::size_t n = data::split_blanks(line, fields.data(), width);
    if (n == 0) continue;
    if (n != width) throw InputError(file, lines.number(), std::to_string(width) + " fields: " + shape, std::string(line));
    const auto id = static_cast<std::uint32_t>(data::parse_bounded(file, lines.number(), fields[0], "id", 0, data::kMaxId));
    if (!ids.empty() && id <= ids.back())
      throw InputError(file, lines.number(), "ids in ascending order, each once, after " + std::to_string(ids.back()),
                       std::to_string(id));
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
void read_rows(const std::filesystem::path& file, std::uint32_t rank, bool biases, std::vector<std::uint32_t>& ids,
               std::vector<float>& factors, std::vector<float>& bias) {
  const std::string shape = "id" + std::string(biases ? ", bias" : "") + " and " + std::to_string(rank) +
                            " factors (model.json says rank " + std::to_string(rank) +
                            (biases ? " with biases)" : " without biases)");
  read_table(file, 1 + (biases ? 1 : 0) + rank, shape, ids, [&](std::size_t f, float v) {
    (biases && f == 1 ? bias : factors).push_back(v);
  });
}

// AdaGrad's sums, one row per factor row and with the same ids: what the sums file must hold.
void read_sums(const std::filesystem::path& file, const std::vector<std::uint32_t>& factor_ids, std::vector<float>& sums) {
  std::vector<std::uint32_t> ids;
  // A sum starts at 1 and only grows: one at or below 0 would make every step of its row
  // infinite or not a number.
  read_table(file, 1 + MfModel::kSumsPerRow, "id, the factors' and the bias's AdaGrad sums", ids,
             [&](std::size_t, float v) { sums.push_back(v); }, /*positive=*/true);
  if (ids != factor_ids)
    throw InputError(file, 0, "the ids of the factor file beside it, in the same order",
                     std::to_string(ids.size()) + " rows for " + std::to_string(factor_ids.size()) + " factor rows");
}

MfModel read_header(const std::filesystem::path& file) {
  const nlohmann::json header = app::read_model_header(file, "gyre-mf", "gyre-mf --out");
  const int version = static_cast<int>(app::header_count(header, file, "version", 1, kModelVersion));
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
                               app::header_count(header, file, "phases", 0, UINT64_MAX)};
  if (m.trained) {
    // Each epoch is a training phase and at most one evaluation: a count outside that is not
    // one gyre-mf wrote, and would place the rotation's ring anywhere.
    const std::uint64_t epochs = static_cast<std::uint64_t>(m.trained->epochs);
    if (m.trained->phases < epochs || m.trained->phases > 2 * epochs)
      throw InputError(file, 0, "\"phases\" between \"epochs\" and twice it (" + std::to_string(epochs) + ".." +
                                    std::to_string(2 * epochs) + ")",
                       std::to_string(m.trained->phases));
  }
  if (version >= 3) {
    const auto& rule = app::header_field(header, file, "update", "\"adagrad\" or \"sgd\"", [](const nlohmann::json& v) {
      return v.is_string() && (v == "adagrad" || v == "sgd");
    });
    m.trained->update = parse_update_rule(rule.get<std::string>());
    m.trained->scale = app::header_float(header, file, "rating_scale");
    if (!(m.trained->scale > 0)) throw InputError(file, 0, "\"rating_scale\" above 0", std::to_string(m.trained->scale));
  }
  return m;
}

}  // namespace

MfModel read_model(const std::filesystem::path& dir) {
  app::require_model_directory(dir, "a gyre-mf model directory (model.json, user_factors.tsv, item_factors.tsv)");
  MfModel m = read_header(dir / "model.json");
  read_rows(dir / "user_factors.tsv", m.rank, m.biases, m.user_ids, m.user_factors, m.user_bias);
  read_rows(dir / "item_factors.tsv", m.rank, m.biases, m.item_ids, m.item_factors, m.item_bias);
  if (m.trained && m.trained->update == UpdateRule::kAdaGrad) {
    read_sums(dir / "user_adagrad.tsv", m.user_ids, m.user_sums);
    read_sums(dir / "item_adagrad.tsv", m.item_ids, m.item_sums);
  }
  // A truncated or mixed-up directory shows as counts that disagree with the header.
  if (m.item_ids.size() != m.items || m.user_ids.size() > m.users)
    throw InputError(dir / "model.json", 0,
                     "\"users\" and \"items\" to match the factor files (" + std::to_string(m.user_ids.size()) +
                         " user rows, " + std::to_string(m.item_ids.size()) + " item rows)",
                     "users " + std::to_string(m.users) + ", items " + std::to_string(m.items));
  return m;
}

const DirectoryKind& model_directory() {
  static const DirectoryKind kind =
      DirectoryKind::of_files("a gyre-mf model",
                              {"model.json", "user_factors.tsv", "item_factors.tsv", "user_adagrad.tsv", "item_adagrad.tsv"});
  return kind;
}

void write_model(const std::filesystem::path& path, const MfModel& model) {
  OutputDirectory out(path, model_directory());
  const std::filesystem::path& dir = out.staging();
  write_rows(dir / "user_factors.tsv", static_cast<std::uint32_t>(model.user_ids.size()), model.rank, model.biases,
             &model.user_ids, model.user_factors, model.user_bias);
  write_rows(dir / "item_factors.tsv", model.items, model.rank, model.biases,
             model.item_ids.empty() ? nullptr : &model.item_ids, model.item_factors, model.item_bias);
  if (!model.user_sums.empty()) {
    constexpr auto kSums = static_cast<std::uint32_t>(MfModel::kSumsPerRow);
    write_rows(dir / "user_adagrad.tsv", static_cast<std::uint32_t>(model.user_ids.size()), kSums, false,
               &model.user_ids, model.user_sums, {});
    write_rows(dir / "item_adagrad.tsv", model.items, kSums, false, model.item_ids.empty() ? nullptr : &model.item_ids,
               model.item_sums, {});
  }
  nlohmann::json header = {{"format", "gyre-mf"}, {"version", kModelVersion}, {"rank", model.rank},
                           {"biases", model.biases}, {"mean", model.mean},          {"users", model.users},
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
    header["rating_scale"] = t->scale;
  }
  OutputFile json(dir / "model.json");
  json.stream() << header.dump(2) << '\n';
  json.commit();
  out.commit();
}

}  // namespace gyre::mf
