#include "harness/workload/workload_files.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <ctime>
#include <filesystem>
#include <stdexcept>

#include "harness/workload/workload.hpp"
#include "platform/input_rules.hpp"
#include "platform/own_descriptor_path.hpp"

namespace fs = std::filesystem;

namespace memrel {

namespace {

// A folder's workloads: step lists (*.json) and imported traces (*.memtrace, docs/traces.md).
// Every such name but a folder: a FIFO or a device is refused by the reader (the input rules),
// never skipped (the fourth adversarial pass, v12).
bool is_workload_file(const fs::directory_entry& entry) {
  std::error_code ec;
  if (entry.is_directory(ec)) return false;
  return is_workload_file_name(entry.path().string());
}

// A file's own name field, or its file name where it does not read (the reader says why later).
std::string workload_file_own_name(const std::string& f) {
  try {
    return parse_workload_file(f).name;
  } catch (const std::exception&) {
    return fs::path(f).stem().string();
  }
}

// The file of `dir` that `-w NAME` means when NAME is no path: NAME.json, NAME.memtrace, or the
// one whose own name is NAME; "" when none, or when it is `item` itself (the working folder is
// the workloads folder).
std::string folder_workload_named(const std::string& item, const std::string& dir) {
  std::vector<std::string> files;
  for (const char* extension : {".json", ".memtrace"})
    if (const fs::path p = fs::path(dir) / (item + extension); fs::is_regular_file(p))
      files.push_back(p.string());
  if (files.empty()) {
    try {
      for (const auto& f : all_workload_files(dir))
        if (workload_file_own_name(f) == item) files.push_back(f);
    } catch (const std::exception&) {  // an unreadable folder is said where it is read
    }
  }
  std::error_code ec;
  for (const std::string& f : files)
    if (!fs::equivalent(f, item, ec)) return f;
  return "";
}

}  // namespace

bool is_workload_file_name(const std::string& path) {
  const fs::path extension = fs::path(path).extension();
  return extension == ".json" || extension == ".memtrace";
}

std::vector<std::string> all_workload_files(const std::string& dir) {
  std::vector<std::string> files;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (is_workload_file(entry)) files.push_back(entry.path().string());
  }
  if (ec) throw WorkloadsFolderUnreadable(dir, ec.message(), ec.value());
  std::sort(files.begin(), files.end());
  return files;
}

std::vector<std::string> resolve_workloads(const std::vector<std::string>& names_or_paths,
                                           const std::string& dir) {
  if (names_or_paths.empty()) {
    auto files = all_workload_files(dir);
    if (files.empty())
      throw std::invalid_argument("--workloads-dir: no *.json workloads or *.memtrace traces in '" +
                                  dir + "'");
    return files;
  }
  auto own_name = [](const std::string& f) { return workload_file_own_name(f); };
  // ITEM found as a file name: unless that file calls itself otherwise and another file of the
  // folder is named ITEM, for `-w x` then means two workloads (x.json named "zz", y.json named
  // "x": it ran "zz", exit 0, the thirty-first adversarial pass, c6-w-name-is-stem-and-other-name).
  auto by_file_name = [&](const std::string& item, const std::string& file) {
    if (own_name(file) == item) return;
    for (const auto& f : all_workload_files(dir)) {
      if (fs::path(f) != fs::path(file) && own_name(f) == item)
        throw std::invalid_argument("workload '" + item + "' is the file " + file + " (named '" +
                                    own_name(file) + "') and the name of " + f + ": give the file");
    }
  };
  std::vector<std::string> out;
  for (const auto& item : names_or_paths) {
    std::error_code ec;
    if (fs::exists(item, ec) && !fs::is_directory(item, ec)) {
      // A bare word that is a file here and a workload of the folder too: the file ran, without
      // a word, where `-b` takes the name first (`-w temp-then-delete` with ./temp-then-delete
      // holding another workload: the seventieth adversarial pass, c6-w-name-shadowed-by-cwd-file).
      if (item.find('/') == std::string::npos)
        if (const std::string other = folder_workload_named(item, dir); !other.empty())
          throw std::invalid_argument("workload '" + item + "' is both the file " + item +
                                      " here and " + other + " of " + dir + ": give ./" + item +
                                      " for the file, or " + other);
      // A FIFO or a device too: the reader refuses it by the input rules, naming what it is.
      // /dev/stdin and its kin by the file they name here: each cell opens the path again.
      out.push_back(file_behind_own_descriptor(item));
      continue;
    }
    // Asked without throwing: a path too long for the folder's name made the lookup's own
    // "DIR/PATH.json: File name too long" the error, a file memrel made up (the seventy-eighth
    // adversarial pass, c10-run-w-long-path-names-data-folder-file).
    fs::path candidate = fs::path(dir) / (item + ".json");
    if (fs::is_regular_file(candidate, ec)) {
      by_file_name(item, candidate.string());
      out.push_back(candidate.string());
      continue;
    }
    // A bare word too long for any file's name: said so, as the lookup's own error said it
    // before (the twenty-fifth adversarial pass, c10-run-w-long-name-exit4), naming the word.
    if (ec == std::errc::filename_too_long && item.find('/') == std::string::npos)
      throw std::invalid_argument("workload '" + item.substr(0, 40) + "...': " + ec.message() +
                                  " (" + std::to_string(item.size()) +
                                  " bytes: no file here or in " + dir + " has such a name)");
    fs::path trace = fs::path(dir) / (item + ".memtrace");
    if (fs::is_regular_file(trace, ec)) {
      by_file_name(item, trace.string());
      out.push_back(trace.string());
      continue;
    }
    // The name `list` prints, which results hold: a file's own name field, where it differs from
    // the file's (`list` showed temp-then-delete for wd/a.json, and `-w temp-then-delete` was
    // unknown: the fifteenth adversarial pass, c10-*-name-list-vs-w). A file that does not read
    // is left to the file-name lookup above.
    std::vector<std::string> named, known;
    for (const auto& f : all_workload_files(dir)) {
      const std::string name = own_name(f);
      if (name == item) named.push_back(f);
      known.push_back(name);
    }
    if (named.size() == 1) {
      out.push_back(named.front());
      continue;
    }
    if (named.size() > 1)
      throw std::invalid_argument("workload '" + item + "' is the name of " +
                                  std::to_string(named.size()) + " files in " + dir + " (" +
                                  named[0] + ", " + named[1] + "): give the file");
    // A path, or a workload file's name, names a file that is not there: "unknown workload"
    // read as a name memrel does not know (the sixtieth adversarial pass, noticed).
    if (const fs::path given(item); item.find('/') != std::string::npos ||
                                    given.extension() == ".json" ||
                                    given.extension() == ".memtrace" ||
                                    given.extension() == ".pickle" || given.extension() == ".csv") {
      // A folder, a link loop or a path through a file is there, and no file: the reader's
      // words say which, as `validate` does, not "no such file".
      if (path_names_something(item)) {
        InputFd refused_or_regular(item, UINT64_MAX, "workload");
        out.push_back(file_behind_own_descriptor(item));  // it became a file meanwhile
        continue;
      }
      throw std::invalid_argument("workload file '" + item + "': no such file (nor a workload " +
                                  "of that name in " + dir + ")");
    }
    std::sort(known.begin(), known.end());
    std::string names;
    for (const std::string& name : known) names += (names.empty() ? "" : ", ") + name;
    throw std::invalid_argument("unknown workload '" + item + "' (known in " + dir + ": " + names +
                                ")");
  }
  return out;
}

std::string default_run_path(const std::string& dir) {
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buffer[64];
  std::strftime(buffer, sizeof buffer, "run-%Y%m%dT%H%M%SZ", &tm);
  // And the process: two runs in one second wrote one file, the first's results replaced
  // without a word (the twenty-second adversarial pass, c6-run-default-out-same-second).
  return (fs::path(dir) / (std::string(buffer) + "-" + std::to_string(getpid()) + ".json"))
      .string();
}

}  // namespace memrel
