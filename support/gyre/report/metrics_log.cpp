// gyre/report/metrics_log.cpp — JSON-lines metrics over an OutputFile.
#include "gyre/report/metrics_log.hpp"

#include <nlohmann/json.hpp>

#include "gyre/base/output_file.hpp"

namespace gyre::report {

struct MetricsLog::Impl {
  explicit Impl(std::filesystem::path path) : file(std::move(path)) {}
  OutputFile file;
};

MetricsLog::MetricsLog(std::filesystem::path path) : impl_(std::make_unique<Impl>(std::move(path))) {}
MetricsLog::~MetricsLog() = default;

void MetricsLog::write(const nlohmann::json& record) {
  impl_->file.stream() << record.dump() << '\n';
  impl_->file.stream().flush();
}

void MetricsLog::finish() { impl_->file.commit(); }

}  // namespace gyre::report
