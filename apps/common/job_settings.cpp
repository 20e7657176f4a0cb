// apps/common/job_settings.cpp — a job's flags in canonical form, and content digests of its inputs.
#include "app/job_settings.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "app/cluster_flags.hpp"
#include "gyre/base/crc32c.hpp"
#include "gyre/base/input_error.hpp"
#include "gyre/data/byte_ranges.hpp"
#include "gyre/data/text_input.hpp"

namespace gyre::app {
namespace fs = std::filesystem;

namespace {

bool listed(const std::vector<std::string>& names, const CLI::Option* option) {
  return std::any_of(names.begin(), names.end(), [&](const std::string& n) { return option->check_name(n); });
}

// A number in one spelling whatever way it was typed; anything else as it is.
std::string canonical(const CLI::Option* option, const std::string& text) {
  const std::string type = option->get_type_name();
  if (type.find("FLOAT") == std::string::npos && type.find("INT") == std::string::npos) return text;
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || *end != '\0') return text;
  char out[40];
  return std::string(out, std::to_chars(out, out + sizeof out, value).ptr);  // shortest round trip
}

std::string value_of(const CLI::Option* option) {
  if (option->get_expected_max() == 0) return std::to_string(option->count());  // a flag: how often given
  if (option->count() == 0) return canonical(option, option->get_default_str());
  std::string out;
  for (const std::string& r : option->results()) out += (out.empty() ? "" : ",") + canonical(option, r);
  return out;
}

struct Digest {
  std::uint64_t bytes = 0;
  std::uint32_t crc = 0;
  void add_file(const fs::path& file) {
    // The digest reads an input before the job does: a pipe would reach the job empty.
    if (data::is_stream(file))
      throw InputError(file, 0, "a regular file (--checkpoint and runs of several processes read an input twice)",
                       "a pipe or device");
    std::ifstream in(file, std::ios::binary);
    if (!in) throw InputError(file, 0, "a readable file");
    std::vector<char> buffer(std::size_t{1} << 20);
    while (in) {
      in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
      const auto n = static_cast<std::size_t>(in.gcount());
      crc = crc32c(buffer.data(), n, crc);
      bytes += n;
    }
  }
};

}  // namespace

std::string input_digest(const fs::path& path) {
  if (path.empty()) return "none";
  Digest d;
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    if (fs::exists(path / "manifest.json", ec)) {
      d.add_file(path / "manifest.json");
    } else {
      for (const data::InputFile& f : data::list_input_files(path)) d.add_file(f.path);  // the files the readers read
    }
  } else {
    d.add_file(path);
  }
  char text[80];
  std::snprintf(text, sizeof text, "%llu bytes, crc32c 0x%08x", static_cast<unsigned long long>(d.bytes), d.crc);
  return text;
}

Settings job_settings(const CLI::App& app, const std::vector<std::string>& local, const std::vector<std::string>& inputs) {
  Settings out;
  for (const CLI::Option* option : app.get_options()) {
    if (option->get_group() == ClusterFlags::kGroup || option->get_name() == "--help" || listed(local, option))
      continue;
    const std::string name = option->get_name();
    if (listed(inputs, option)) {
      // A value that names no file ("default" stop words) is compared as it is.
      const std::string value = option->count() > 0 ? option->results().front() : std::string();
      std::error_code ec;
      out.emplace_back("input " + name, value.empty() || fs::exists(value, ec) ? input_digest(value) : value);
      continue;
    }
    out.emplace_back(name, value_of(option));
  }
  return out;
}

}  // namespace gyre::app
