#include "gate/read/pairing.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <set>

#include "harness/results/results.hpp"
#include "platform/input_rules.hpp"

namespace fs = std::filesystem;

namespace memrel {
namespace {

std::vector<std::string> json_files_in(const std::string& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (!is_results_file_name(entry.path().string())) continue;
    // A *.json that is not a regular file (a FIFO, a device, a folder) is refused by the input
    // rules, as `history add DIR` refuses it, not skipped: skipped, it passed unmentioned.
    if (!entry.is_regular_file())
      InputFd(entry.path().string(), kMaxResultsFileBytes, "results file");
    names.push_back(entry.path().filename().string());
  }
  if (ec) throw ResultsError(dir + ": cannot read folder (" + ec.message() + ")");
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace

bool is_results_file_name(const std::string& path) { return fs::path(path).extension() == ".json"; }

std::vector<InputPair> pair_inputs(const std::string& baseline, const std::string& current) {
  for (const auto& p : {baseline, current}) {
    // The system's reason: b.json/../b.json was "no such file or folder" (the eightieth
    // adversarial pass, c1-input-dotdot-through-regular-file), where stat says Not a directory
    // (std::filesystem::exists reads both as "not found").
    if (struct stat st{}; stat(p.c_str(), &st) != 0)
      throw ResultsError(p + ": cannot open (" +
                         (errno == ENOENT ? std::string("no such file or folder")
                                          : std::string(std::strerror(errno))) +
                         ")");
  }
  bool base_dir = fs::is_directory(baseline), cur_dir = fs::is_directory(current);
  if (base_dir != cur_dir) {
    throw ResultsError((cur_dir ? current : baseline) + ": a folder, but " +
                       (cur_dir ? baseline : current) +
                       " is a file: compare a folder with a folder or a file with a file");
  }
  if (!base_dir) {
    std::string bn = fs::path(baseline).filename().string(),
                cn = fs::path(current).filename().string();
    return {{bn == cn ? bn : bn + " vs " + cn, baseline, current}};
  }
  std::vector<std::string> base_files = json_files_in(baseline), cur_files = json_files_in(current);
  if (base_files.empty()) throw ResultsError(baseline + ": no *.json files to compare with");
  std::set<std::string> names(base_files.begin(), base_files.end());
  names.insert(cur_files.begin(), cur_files.end());
  std::vector<InputPair> pairs;
  for (const auto& name : names) {
    bool in_base = std::binary_search(base_files.begin(), base_files.end(), name);
    bool in_cur = std::binary_search(cur_files.begin(), cur_files.end(), name);
    pairs.push_back({name, in_base ? (fs::path(baseline) / name).string() : "",
                     in_cur ? (fs::path(current) / name).string() : ""});
  }
  return pairs;
}

}  // namespace memrel
