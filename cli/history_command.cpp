// `memrel history`: results over time (docs/history.md).
//   memrel history add RESULTS...        files or folders of results / benchmark JSON
//   memrel history show METRIC           one metric over time, a table per machine
//   memrel history list [PART]           the metrics it holds (names containing PART)
//   memrel history changes [ARGS...]     change points (Apache Otava's E-Divisive), in Python
// The database is SQLite, by default results/history.sqlite in the source tree; --db names
// another. The statistics of `changes` are Otava's, not memrel's: scripts/memrel_history.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <stdexcept>

#include "cli/exit_codes.hpp"
#include "cli/passed_through_option.hpp"
#include "cli/python_module.hpp"
#include "cli/read_folders.hpp"
#include "cli/subcommand.hpp"
#include "gate/format.hpp"
#include "gate/history/history_db.hpp"
#include "gate/history/history_figures.hpp"
#include "gate/read/input_file.hpp"
#include "platform/atomic_file.hpp"
#include "platform/folders_made_here.hpp"
#include "platform/install_layout.hpp"
#include "platform/interrupt.hpp"
#include "platform/one_line_text.hpp"

namespace memrel::cli {
namespace {

namespace fs = std::filesystem;

std::string default_db() { return install_layout().output_dir + "/history.sqlite"; }

// A folder stands for every *.json directly inside it, in name order.
std::vector<std::string> expand(const std::vector<std::string>& paths) {
  std::vector<std::string> out;
  for (const std::string& p : paths) {
    std::error_code ec;
    if (!fs::is_directory(p, ec)) {
      out.push_back(p);
      continue;
    }
    std::vector<std::string> inside;
    for (const auto& e : fs::directory_iterator(p, ec)) {
      if (e.path().extension() == ".json") inside.push_back(e.path().string());
    }
    if (inside.empty()) throw std::invalid_argument(p + ": a folder with no *.json in it");
    std::sort(inside.begin(), inside.end());
    out.insert(out.end(), inside.begin(), inside.end());
  }
  return out;
}

std::string file_content(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

int run_add(const std::string& db_path, const std::vector<std::string>& given,
            const GlobalOptions& global) {
  // SIGINT, SIGTERM and SIGHUP are requests to stop, answered between files and figures.
  InterruptRequests interrupts;
  // The database is none of the files to add, nor a link or device (docs/inputs.md, "Outputs").
  check_output_file(db_path, given, "--db");
  // Its folder takes a file, as every writer's is probed: SQLite's own "unable to open database
  // file" named neither --db nor why (the thirty-eighth adversarial pass,
  // c2-history-db-unwritable-place). An existing database is written in place, but SQLite makes
  // its journal beside it.
  check_output_writable(db_path, "--db");
  // Nor a *.json of a folder added (a folder stands for its *.json): made there, it was taken
  // once, and every later `history add` of the folder read it as a results file (the tenth
  // adversarial pass, c1-history-db-json-in-added-folder); nor one the workloads or backends
  // folder would read.
  if (fs::path(db_path).extension() == ".json") {
    if (std::string folder = folder_holding_output(db_path, given); !folder.empty())
      throw OutputError("--db " + db_path + ": a *.json in the folder " + folder +
                        ", which is added, read as one of its results next time; name the "
                        "history elsewhere");
  }
  refuse_output_in_read_folders(db_path, "--db", global);
  const std::vector<std::string> paths = expand(given);
  // Nor where SQLite keeps the database's journal: a results file added as `h.sqlite-journal`
  // was taken for a journal and removed by SQLite at the commit, exit 0 (the twenty-seventh
  // adversarial pass, c1-history-input-is-sqlite-journal).
  for (const char* suffix : {"-journal", "-wal", "-shm"}) {
    const std::string companion = db_path + suffix;
    struct stat kept {};
    if (lstat(companion.c_str(), &kept) != 0) continue;
    for (const std::string& path : paths) {
      struct stat input {};
      if (stat(path.c_str(), &input) == 0 && input.st_dev == kept.st_dev &&
          input.st_ino == kept.st_ino)
        throw OutputError("--db " + db_path + ": SQLite keeps its journal at " + companion +
                          ", which is the input " + path +
                          ": SQLite would remove it; add the file under another name");
    }
  }
  // Every file is read and checked before the database is touched: a bad one adds nothing.
  std::vector<InputFile> files;
  std::vector<std::string> contents;
  for (const std::string& path : paths) {
    if (const int signal = InterruptRequests::received(); signal != 0)
      throw Interrupted(signal, "interrupted by " + signal_name(signal) + "; nothing added");
    files.push_back(read_input_file(path));
    if (std::string problem = history_naming_problem(files.back()); !problem.empty())
      throw ResultsError(path + ": " + problem);
    contents.push_back(file_content(path));
  }
  // What this add makes for the history (its folders, a new database) goes again when it adds
  // nothing: stopped, or failed part way.
  FoldersMadeHere folders;
  const fs::path parent = fs::path(db_path).parent_path();
  if (!parent.empty()) folders.make("--db", parent.string());
  std::vector<HistoryAdded> added;
  {
    HistoryDb db(db_path, true);
    try {
      added = db.add(files, contents);
    } catch (...) {
      if (db.made_here() && db.holds_no_run()) {
        unlink(db_path.c_str());
        unlink((db_path + "-journal").c_str());
      }
      throw;
    }
  }
  for (const HistoryAdded& a : added) {
    // A line per file is progress; -q keeps the history's path alone (the twenty-fourth
    // adversarial pass, c10-history-add-quiet).
    if (global.verbosity < 0) continue;
    // A file found in a folder is named as its name reads on a terminal: raw, an ESC in it set
    // the terminal's title (the thirteenth adversarial pass, c9-ctrl-history-add-folder-filename).
    if (a.run_id == 0)
      std::cout << one_line_text(a.path) << ": already in the history\n";
    else
      std::cout << one_line_text(a.path) << ": run " << a.run_id << ", " << a.figures
                << " figures\n";
  }
  std::cout << "history: " << one_line_text(db_path) << "\n";
  return exit_code::kSuccess;
}

// A figure with its unit, as a reader wants it (not 3.19301e+08): times by their _ns names, bytes
// by the byte counters' and byte metrics' names (docs/history.md, docs/metrics.md), in MiB;
// ratios and counts as plain numbers.
std::string shown(double v, const std::string& metric) {
  const std::string figure = metric.substr(metric.rfind(':') + 1);
  auto has = [&figure](const char* part) { return figure.find(part) != std::string::npos; };
  if (has("_ns")) return format::nanoseconds(v);
  const bool bytes = has("bytes") || has("peak_reserved") || has("peak_allocated") ||
                     has("peak_requested") || has("peak_device_used") || figure == "reserved" ||
                     figure == "allocated";
  if (bytes && std::abs(v) >= (1 << 20)) return format::printf_string("%.2f MiB", v / (1 << 20));
  if (bytes) return format::printf_string("%.0f B", v);
  return format::printf_string("%.6g", v);
}

int run_show(const std::string& db_path, const std::string& metric) {
  HistoryDb db(db_path, false);
  std::vector<HistoryPoint> points = db.series(metric);
  if (points.empty()) {
    std::string hint;
    auto near = db.metrics(metric.substr(0, metric.find(':')));
    if (!near.empty()) hint = " (e.g. " + near.front().first + "; memrel history list PART)";
    throw std::invalid_argument(metric + ": not in the history " + db_path + hint);
  }
  // One table per machine, in the order machines first appear: latency is comparable only
  // within one machine (docs/gate.md), bytes across machines of one GPU model.
  std::vector<std::string> machines;
  std::map<std::string, std::vector<const HistoryPoint*>> by_machine;
  for (const HistoryPoint& p : points) {
    if (!by_machine.count(p.machine_id)) machines.push_back(p.machine_id);
    by_machine[p.machine_id].push_back(&p);
  }
  // Markdown, as compare's and history changes' tables: every text from a run escaped (a
  // workload named 'a|b<i>' and a commit 'c|x' split the row and passed markup: the twentieth
  // adversarial pass, c9-history-show-raw-markup).
  using format::markdown_cell;
  using format::markdown_heading;  // headings: every '#' escaped too
  std::cout << "# " << markdown_heading(metric) << "\n";
  for (const std::string& m : machines) {
    const auto& series = by_machine[m];
    std::cout << "\n## machine "
              << (m.empty() ? "unknown (no fingerprint recorded)" : markdown_heading(m)) << " ("
              << (series.front()->gpu_model.empty() ? "no GPU"
                                                    : markdown_heading(series.front()->gpu_model))
              << "), " << series.size() << " runs\n\n"
              << "| run | started | memrel | value | change |\n|---|---|---|---|---|\n";
    const HistoryPoint* previous = nullptr;
    for (const HistoryPoint* p : series) {
      std::string change = previous == nullptr ? ""
                                               : format::relative_change(p->value - previous->value,
                                                                         previous->value);
      std::cout << "| " << p->run_id << " | " << markdown_cell(p->started) << " | "
                << (p->memrel_commit.empty() ? "?" : markdown_cell(p->memrel_commit)) << " | "
                << shown(p->value, metric) << " | " << change << " |\n";
      previous = p;
    }
    if (series.size() >= 2) {
      const double first = series.front()->value, last = series.back()->value;
      std::cout << "\nTrend: " << shown(first, metric) << " -> " << shown(last, metric) << " ("
                << (first == 0 ? std::string("from 0")
                               : format::relative_change(last - first, first))
                << " over " << series.size() << " runs)\n";
    }
  }
  return exit_code::kSuccess;
}

int run_list(const std::string& db_path, const std::string& part) {
  HistoryDb db(db_path, false);
  for (const auto& [metric, runs] : db.metrics(part)) std::cout << metric << "\t" << runs << "\n";
  return exit_code::kSuccess;
}

// The user's cache folder as the XDG Base Directory specification names it, and only where it
// is absolute ("a relative path ... should be considered invalid and ignored"): XDG_CACHE_HOME=.
// or HOME=. named a folder below the working folder, and `history changes` ran the interpreter
// found there (the tenth adversarial pass, c3-otava-venv-*-dot-*). "" when there is none. The
// twin of scripts/memrel_outputs/user_folders.py.
std::string user_cache_folder() {
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  // Nor the working folder under an absolute spelling (/proc/self/cwd, $PWD): as "." it took the
  // Otava interpreter from where the user stands (the forty-ninth adversarial pass,
  // c3-xdg-cache-proc-self-cwd-runs-cwd-interpreter).
  struct stat given {
  }, here{};
  const bool is_working_folder = xdg != nullptr && stat(xdg, &given) == 0 &&
                                 stat(".", &here) == 0 && given.st_dev == here.st_dev &&
                                 given.st_ino == here.st_ino;
  if (xdg != nullptr && xdg[0] == '/' && !is_working_folder) return xdg;
  const char* home = std::getenv("HOME");
  return home != nullptr && home[0] == '/' ? std::string(home) + "/.cache" : "";
}

// Otava lives in its own virtual environment (scripts/install-deps: its pinned numpy and scipy
// stay out of the system's Python); $MEMREL_HISTORY_PYTHON chooses another interpreter. Without
// either, MEMREL_PYTHON's (python3), whose error says Otava is missing. Errors name
// MEMREL_HISTORY_PYTHON, not MEMREL_PYTHON (the eighth pass, c8-history-python-named), and the
// Otava environment where it chose (the twelfth, c8-otava-venv-broken-blames-unset-variable).
PythonInterpreter changes_python() {
  if (const char* p = std::getenv("MEMREL_HISTORY_PYTHON"); p != nullptr && *p != '\0')
    return {"MEMREL_HISTORY_PYTHON", "", ""};
  const std::string cache = user_cache_folder();
  const std::string venv = cache.empty() ? "" : cache + "/memrel/otava/bin/python";
  if (!venv.empty() && access(venv.c_str(), X_OK) == 0)
    return {"MEMREL_HISTORY_PYTHON", venv, "the Otava environment scripts/install-deps made"};
  return {};
}

}  // namespace

RunSubcommand attach_history(CLI::App& sub, const GlobalOptions& global) {
  struct Args {
    std::string db = default_db();
    std::vector<std::string> files;
    std::string metric, part;
  };
  auto args = std::make_shared<Args>();
  sub.require_subcommand(1);
  sub.add_option("--db", args->db, "The history database (SQLite)")->capture_default_str();
  CLI::App* add = sub.add_subcommand("add", "Add results or benchmark files (or folders of them)");
  add->add_option("files", args->files, "memrel results or Google Benchmark JSON, or folders")
      ->required();
  CLI::App* show = sub.add_subcommand("show", "One metric over time, a table per machine");
  show->add_option("metric", args->metric,
                   "SUBJECT:FIGURE, e.g. pair/host-malloc/warm/4096:real_time_ns "
                   "(memrel history list)")
      ->required();
  CLI::App* list = sub.add_subcommand("list", "The metrics in the history, with their run counts");
  list->add_option("part", args->part, "Only metrics whose name contains this");
  CLI::App* changes = sub.add_subcommand(
      "changes", "Change points per metric and machine (Apache Otava; --help for its options)");
  changes->set_help_flag();
  changes->prefix_command();
  return [args, add, show, list, changes, &global] {
    if (add->parsed()) return run_add(args->db, args->files, global);
    if (show->parsed()) return run_show(args->db, args->metric);
    if (list->parsed()) return run_list(args->db, args->part);
    std::vector<std::string> words = python_verbosity_arguments(global.verbosity);
    // One word: a database named `-h.sqlite` was read as an option by the Python part (the
    // twenty-third adversarial pass, c10-history-changes-db-dash-name).
    // Not when the words after `changes` name it themselves (`history changes --db X`).
    const std::vector<std::string> remaining = changes->remaining();
    if (std::none_of(remaining.begin(), remaining.end(),
                     [](const std::string& w) { return w == "--db" || w.rfind("--db=", 0) == 0; }))
      words.push_back("--db=" + args->db);
    for (const std::string& w : remaining) words.push_back(w);
    // Its hot journal rolled back first: `changes` opens the history read-only.
    const std::string named = passed_through_option(remaining, "--db");
    roll_back_hot_journal(named.empty() ? args->db : named);
    return run_python_command("memrel history changes", "memrel_history", words,
                              "change points need Apache Otava (scripts/install-deps)",
                              changes_python());
  };
}

}  // namespace memrel::cli
