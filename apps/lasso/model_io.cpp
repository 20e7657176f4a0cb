// apps/lasso/model_io.cpp — long-format coefficient table, one row per non-zero per λ.
#include "lasso/model_io.hpp"

#include <charconv>

#include "gyre/base/output_file.hpp"

namespace gyre::lasso {

namespace {
std::string shortest(double v) {
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}
}  // namespace

void write_coefficients(const std::filesystem::path& file, const LassoRun& run,
                        const std::vector<std::string>& feature_names, const data::IdTable& columns) {
  OutputFile out(file);
  auto& s = out.stream();
  s << "lambda\tfeature\tname\tcoefficient\n";
  for (const LambdaSolution& sol : run.path) {
    const std::string lambda = shortest(sol.lambda);
    s << lambda << "\t0\t(intercept)\t" << shortest(sol.intercept) << '\n';
    for (std::size_t j = 0; j < sol.beta.size(); ++j) {
      if (sol.beta[j] == 0) continue;
      const std::uint64_t column = (columns.original.empty() ? j : columns.original.at(j)) + 1;
      const std::string name = j < feature_names.size() ? feature_names[j] : "x" + std::to_string(column);
      s << lambda << '\t' << column << '\t' << name << '\t' << shortest(sol.beta[j]) << '\n';
    }
  }
  out.commit();
}

}  // namespace gyre::lasso
