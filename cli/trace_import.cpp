#include "cli/trace_import.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <stdexcept>

#include "cli/exit_codes.hpp"
#include "cli/python_module.hpp"
#include "harness/workload/trace_file.hpp"
#include "platform/error_text.hpp"
#include "platform/input_rules.hpp"
#include "platform/machine_state_error.hpp"
#include "platform/temporary_folder.hpp"

namespace memrel::cli {
namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() > suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// A run's folder is made as memrel-new-XXXXXX, locked, then renamed to memrel-run-XXXXXX: every
// memrel-run-* folder is locked while its run lives.
constexpr const char* kRunFolderPrefix = "memrel-run-";
constexpr const char* kNewFolderPrefix = "memrel-new-";
// Made in a run's folder before it is renamed into a memrel-run-* one: what tells a run's folder
// from a user's of that name holding trace-N.memtrace files, which a later run removed (the
// eighty-third adversarial pass, c9-run-removes-user-trace-folder-in-tmpdir), as the report's
// marker tells its folders.
constexpr const char* kRunFolderMarker = ".memrel-run-folder";

// A run folder whose owner is gone: its lock (flock on the folder itself, released by the kernel
// however the owner died, PID reuse or not) can be taken. A memrel-new-* one is never locked: it
// is abandoned once older than the instant between its mkdtemp and its rename.
bool abandoned(const std::string& folder, bool is_new) {
  struct stat st {};
  if (lstat(folder.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid())
    return false;
  if (is_new) return time(nullptr) - st.st_mtime > 60;
  int fd = open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return false;
  const bool unowned = flock(fd, LOCK_EX | LOCK_NB) == 0;
  close(fd);  // releases it
  return unowned;
}

// Only what a run puts there: its marker, trace-N.memtrace and the importer's hidden
// .memtrace-*.tmp. A folder holding anything else is not a run's (a user's memrel-run-notes), and
// is kept; so is one without the marker (a memrel-new-* folder a run left before it made its
// marker is empty, and goes).
bool holds_only_what_a_run_puts(const std::string& folder, bool is_new) {
  std::error_code ec;
  bool marked = false, empty = true;
  for (const auto& entry : std::filesystem::directory_iterator(folder, ec)) {
    empty = false;
    const std::string name = entry.path().filename().string();
    const bool marker = name == kRunFolderMarker;
    const bool trace = name.rfind("trace-", 0) == 0 && ends_with(name, ".memtrace");
    const bool partial = name.rfind(".memtrace-", 0) == 0 && ends_with(name, ".tmp");
    if (!(marker || trace || partial) || !entry.is_regular_file(ec)) return false;
    marked = marked || marker;
  }
  return !ec && (marked || (is_new && empty));
}

// What runs killed outright (SIGKILL, the OOM killer) left: their folders of imported traces.
void remove_abandoned_run_folders(const std::string& tmp) {
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(tmp, ec)) {
    const std::string name = entry.path().filename().string();
    const bool is_new = name.rfind(kNewFolderPrefix, 0) == 0;
    if (!is_new && name.rfind(kRunFolderPrefix, 0) != 0) continue;
    if (abandoned(entry.path().string(), is_new) &&
        holds_only_what_a_run_puts(entry.path().string(), is_new))
      std::filesystem::remove_all(entry.path(), ec);
  }
}

}  // namespace

bool needs_trace_import(const std::string& path) {
  // Told by content first, as validate and the loaders tell them; the name only where the
  // content says nothing (the importer then says what is wrong). A trace or a workload named
  // *.csv was sent to the importer and refused, where validate said ok; an RMM log named *.txt
  // was imported by run and refused by validate (the eighteenth adversarial pass,
  // c10-validate-*). A trace (its magic) and a JSON document are not imported.
  // The importer's sources are told before a trace's name: an RMM log or a snapshot named
  // *.memtrace was "no MEMTRACE magic" in run, validate and advise, where the same file under
  // any other name was imported (the twentieth adversarial pass, c10-run-w-rmm-log-named-memtrace).
  std::string head = read_input_head(path, 64);
  // A pickle of protocol 2 or later, or an RMM log's header (after a UTF-8 byte order mark).
  if (head.size() >= 2 && head[0] == '\x80' && head[1] >= 2 && head[1] <= 5) return true;
  if (head.rfind("\xef\xbb\xbf", 0) == 0) head = head.substr(3);
  if (head.rfind("Thread,Time,Action,Pointer,Size,Stream", 0) == 0) return true;
  if (is_trace_path(path)) return false;
  if (begins_as_json_document(head)) return false;
  return ends_with(path, ".pickle") || ends_with(path, ".pkl") || ends_with(path, ".csv");
}

std::string not_imported_from_workloads_folder(const std::string& path) {
  return path +
         ": a PyTorch snapshot or an RMM log in the workloads folder is not imported by a plain "
         "run: import it (memrel trace import) or name it with -w";
}

ImportedTraces::ImportedTraces() {
  if (temporary_folder_problem().empty()) remove_abandoned_run_folders(temporary_folder());
}

ImportedTraces::~ImportedTraces() {
  if (folder_.empty()) return;
  std::error_code ec;
  std::filesystem::remove_all(folder_, ec);
  close(lock_fd_);
}

std::string ImportedTraces::next_trace() {
  if (folder_.empty()) {
    const std::string tmp = temporary_folder();
    // The machine's state, said as run says it for a cell's files (exit 4, what to do), not as
    // memrel's own failure ("internal error": the thirty-first adversarial pass,
    // c9-tmpdir-bad-said-internal-error).
    if (std::string problem = temporary_folder_problem(); !problem.empty())
      throw MachineStateError("cannot import a trace: " + problem +
                              "; set TMPDIR to a folder with room that memrel can write in");
    remove_abandoned_run_folders(tmp);
    std::string made = tmp + "/" + kNewFolderPrefix + "XXXXXX";
    if (mkdtemp(made.data()) == nullptr)
      throw MachineStateError("cannot create a folder in TMPDIR (" + tmp +
                              ") for the imported traces: " + std::strerror(errno) +
                              "; set TMPDIR to a folder with room that memrel can write in");
    const std::string folder = tmp + "/" + kRunFolderPrefix + made.substr(made.size() - 6);
    const std::string marker = made + "/" + kRunFolderMarker;
    const int marker_fd =
        open(marker.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (marker_fd >= 0) close(marker_fd);
    lock_fd_ = marker_fd < 0 ? -1 : open(made.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (lock_fd_ < 0 || flock(lock_fd_, LOCK_EX) != 0 ||
        renameat2(AT_FDCWD, made.c_str(), AT_FDCWD, folder.c_str(), RENAME_NOREPLACE) != 0) {
      const int error = errno;
      if (lock_fd_ >= 0) close(lock_fd_);
      unlink(marker.c_str());
      rmdir(made.c_str());
      throw MachineStateError("cannot prepare " + made + ": " + error_text(error) +
                              "; set TMPDIR to a folder with room that memrel can write in");
    }
    folder_ = folder;
  }
  return folder_ + "/trace-" + std::to_string(originals_.size() + 1) + ".memtrace";
}

std::string ImportedTraces::prepare(const std::string& path) {
  if (!needs_trace_import(path)) return path;
  std::string trace = next_trace();
  originals_[trace] = path;
  // The file after "--": one named `-log.csv` was read as an option (the twenty-third adversarial
  // pass, c10-run-workload-csv-dash-name).
  PythonResult r = run_python_module("memrel_trace", {"import", "--out=" + trace, "--", path});
  if (r.exit_code == exit_code::kSuccess) return trace;
  // The importer's line is "memrel trace: FILE: where: what"; memrel's dispatcher adds its own.
  std::string line = r.error_text.substr(r.error_text.rfind('\n') + 1);
  // memrel_entry.py's own lines (running out of memory) start "memrel: ".
  for (const std::string prefix : {"memrel trace: ", "memrel: "})
    if (line.compare(0, prefix.size(), prefix) == 0) line = line.substr(prefix.size());
  if (r.exit_code == exit_code::kUnusableInput) throw std::invalid_argument(line);
  // Exit 4 is the machine's (out of memory under `ulimit -v`, TMPDIR full), and the importer's
  // line says which, "internal error" included when it is a bug: said as it is, not as memrel's
  // own internal error.
  throw MachineStateError("importing " + path + ": " + (line.empty() ? "no message" : line));
}

}  // namespace memrel::cli
