// apps/mf/model_io.cpp — TSV factor files and the model's JSON header.
#include "mf/model_io.hpp"

#include <nlohmann/json.hpp>

#include <charconv>
#include <string>

#include "gyre/base/atomic_file.hpp"

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
  AtomicFile out(file);
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

void write_model(const std::filesystem::path& dir, const MfModel& model) {
  std::filesystem::create_directories(dir);
  write_rows(dir / "user_factors.tsv", static_cast<std::uint32_t>(model.user_ids.size()), model.rank, model.biases,
             &model.user_ids, model.user_factors, model.user_bias);
  write_rows(dir / "item_factors.tsv", model.items, model.rank, model.biases, nullptr, model.item_factors,
             model.item_bias);
  // Written last: a directory whose model.json matches its factor files is complete.
  const nlohmann::json header = {{"format", "gyre-mf"}, {"version", 1},         {"rank", model.rank},
                                 {"biases", model.biases}, {"mean", model.mean}, {"users", model.users},
                                 {"items", model.items}};
  AtomicFile out(dir / "model.json");
  out.stream() << header.dump(2) << '\n';
  out.commit();
}

}  // namespace gyre::mf
