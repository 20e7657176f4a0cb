// gyre/report/metrics_log.hpp — one JSON object per line, published when the run ends (or streamed, to a pipe or device).
#pragma once

#include <filesystem>
#include <memory>
#include <string>

#include <nlohmann/json_fwd.hpp>

namespace gyre::report {

// Written through gyre::OutputFile: to a file, the lines go to a nameless file that finish()
// puts in place, so a run that fails before finish() leaves no file at <path>, the rule for
// every output; to "-", /dev/stdout, a FIFO or a device, each line is flushed as it comes
// (follow a long run with `--metrics /dev/stderr` or a named pipe).
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
