#include "harness/cli_support.hpp"

#include <algorithm>
#include <cmath>
#include <ctime>
#include <filesystem>
#include <stdexcept>

#include "harness/workload.hpp"

namespace fs = std::filesystem;

namespace memrel {

std::uint64_t parse_byte_size(const std::string& text, const std::string& option) {
  static const std::vector<std::pair<std::string, std::uint64_t>> units = {
      {"TiB", 1ull << 40}, {"GiB", 1ull << 30}, {"MiB", 1ull << 20}, {"KiB", 1ull << 10}, {"B", 1}};
  std::string number = text;
  std::uint64_t scale = 1;
  for (const auto& [suffix, factor] : units) {
    if (text.size() > suffix.size() &&
        text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0) {
      number = text.substr(0, text.size() - suffix.size());
      scale = factor;
      break;
    }
  }
  std::size_t used = 0;
  double value = 0;
  try {
    value = std::stod(number, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != number.size() || !(value > 0) ||
      value * static_cast<double>(scale) > static_cast<double>(kMaxRequestBytes)) {
    throw std::invalid_argument(option + ": '" + text +
                                "' is not a positive size (e.g. 4096, 512MiB, 1GiB)");
  }
  return static_cast<std::uint64_t>(std::llround(value * static_cast<double>(scale)));
}

std::vector<std::string> all_workload_files(const std::string& dir) {
  std::vector<std::string> files;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (entry.is_regular_file() && entry.path().extension() == ".json")
      files.push_back(entry.path().string());
  }
  if (ec)
    throw std::invalid_argument("--workloads-dir: cannot read '" + dir + "': " + ec.message());
  std::sort(files.begin(), files.end());
  return files;
}

std::vector<std::string> resolve_workloads(const std::vector<std::string>& names_or_paths,
                                           const std::string& dir) {
  if (names_or_paths.empty()) {
    auto files = all_workload_files(dir);
    if (files.empty())
      throw std::invalid_argument("--workloads-dir: no *.json workloads in '" + dir + "'");
    return files;
  }
  std::vector<std::string> out;
  for (const auto& item : names_or_paths) {
    if (fs::is_regular_file(item)) {
      out.push_back(item);
      continue;
    }
    fs::path candidate = fs::path(dir) / (item + ".json");
    if (fs::is_regular_file(candidate)) {
      out.push_back(candidate.string());
      continue;
    }
    std::string known;
    for (const auto& f : all_workload_files(dir))
      known += (known.empty() ? "" : ", ") + fs::path(f).stem().string();
    throw std::invalid_argument("unknown workload '" + item + "' (known in " + dir + ": " + known +
                                ")");
  }
  return out;
}

std::string default_run_path(const std::string& dir) {
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buffer[64];
  std::strftime(buffer, sizeof buffer, "run-%Y%m%dT%H%M%SZ.json", &tm);
  return (fs::path(dir) / buffer).string();
}

}  // namespace memrel
