// gyre/report/metrics_log.hpp — one JSON object per line, published atomically when the run ends.
#pragma once

#include <filesystem>
#include <memory>
#include <string>

#include <nlohmann/json_fwd.hpp>

namespace gyre::report {

// Lines are flushed as they come, into "<path>.tmp-<pid>" (so a long run can be followed with
// tail -f); finish() renames the file into place. A run that fails before finish() leaves no
// file at <path>, the same rule as for every other output.
class MetricsLog {
 public:
  explicit MetricsLog(std::filesystem::path path);
  ~MetricsLog();
  MetricsLog(const MetricsLog&) = delete;
  MetricsLog& operator=(const MetricsLog&) = delete;

  void write(const nlohmann::json& record);
  void finish();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace gyre::report
