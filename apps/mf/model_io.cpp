// apps/mf/model_io.cpp — TSV factor files and the model's JSON header.
#include "mf/model_io.hpp"

#include <nlohmann/json.hpp>

#include <charconv>
#include <string>

#include "gyre/base/output_directory.hpp"
#include "gyre/base/output_file.hpp"

namespace gyre::mf {
namespace {

void append(std::string& line, float v) {
  char buf[32];
  const auto end = std::to_chars(buf, buf + sizeof buf, v).ptr;
  line.push_back('\t');
  line.append(buf, end);
}

void write_rows(const std::filesystem::path& file, std::uint32_t rows, std::uint32_t rank, bool biases,
                const std::vector<std::uint32_t>* ids, const std::vector<float>& factors,
                const std::vector<float>& bias) {
  OutputFile out(file);
  std::string line;
  for (std::uint32_t r = 0; r < rows; ++r) {
    line = std::to_string(ids != nullptr ? (*ids)[r] : r);
    if (biases) append(line, bias[r]);
    for (std::uint32_t j = 0; j < rank; ++j) append(line, factors[std::size_t{r} * rank + j]);
    line.push_back('\n');
    out.stream() << line;
  }
  out.commit();
}

}  // namespace

const DirectoryKind& model_directory() {
  static const DirectoryKind kind =
      DirectoryKind::of_files("a gyre-mf model", {"model.json", "user_factors.tsv", "item_factors.tsv"});
  return kind;
}

void write_model(const std::filesystem::path& path, const MfModel& model) {
  OutputDirectory out(path, model_directory());
  const std::filesystem::path& dir = out.staging();
  write_rows(dir / "user_factors.tsv", static_cast<std::uint32_t>(model.user_ids.size()), model.rank, model.biases,
             &model.user_ids, model.user_factors, model.user_bias);
  write_rows(dir / "item_factors.tsv", model.items, model.rank, model.biases,
             model.item_ids.empty() ? nullptr : &model.item_ids, model.item_factors, model.item_bias);
  const nlohmann::json header = {{"format", "gyre-mf"}, {"version", 1},         {"rank", model.rank},
                                 {"biases", model.biases}, {"mean", model.mean}, {"users", model.users},
                                 {"items", model.items}};
  OutputFile json(dir / "model.json");
  json.stream() << header.dump(2) << '\n';
  json.commit();
  out.commit();
}

}  // namespace gyre::mf
