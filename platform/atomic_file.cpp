#include "platform/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <utility>
#include <vector>

#include "platform/child_process.hpp"
#include "platform/error_text.hpp"
#include "platform/executable_path.hpp"
#include "platform/file_kind.hpp"
#include "platform/folders_made_here.hpp"
#include "platform/install_layout.hpp"
#include "platform/machine_state_error.hpp"
#include "platform/mount_points.hpp"
#include "platform/not_a_folder.hpp"
#include "platform/path_spelling.hpp"
#include "platform/replace_barrier.hpp"
#include "platform/stop_signals_held.hpp"

namespace fs = std::filesystem;

namespace memrel {
namespace {

std::string prefix(const std::string& option, const std::string& path) {
  return (option.empty() ? "" : option + " ") + path + ": ";
}

bool same_file(const struct stat& a, const struct stat& b) {
  return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

// `path` is the output's name, not the temporary's: the user named it (`cannot write big.json:
// File too large`, past `ulimit -f`).
void write_all(int fd, const std::string& content, const std::string& path) {
  const char* p = content.data();
  std::size_t left = content.size();
  while (left > 0) {
    ssize_t n = ::write(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw MachineStateError("cannot write " + path + ": " + std::strerror(errno));
    p += n;
    left -= static_cast<std::size_t>(n);
  }
}

// An existing file directly in FOLDER that is OUT (by identity): a hard link of a file in an input
// folder is that input, whatever its name or place (the fourth pass: `compare b c --summary
// sum.md` with sum.md a hard link of c/run.json was taken).
// Whether `out` is one of the files a folder input stands for: a *.json directly in it (compare and
// history add read those). Any other file there is none of its inputs: `compare b c --summary
// c/s.md` was taken once and refused the next time, as was `history --db d/h.sqlite add d` (the
// eleventh adversarial pass, c1-*-second-time, c1-history-add-folder-holding-db).
bool is_a_file_of(const std::string& folder, const struct stat& out) {
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(folder, ec)) {
    if (entry.path().extension() != ".json") continue;
    struct stat st {};
    if (stat(entry.path().c_str(), &st) == 0 && same_file(st, out)) return true;
  }
  return false;
}

// A file memrel runs, by identity: program_inputs()'s files, and every file below a folder it names
// (the Python parts: a hard link of scripts/memrel_entry.py anywhere is that file, the sixth pass).
struct ProgramFile {
  dev_t dev;
  ino_t ino;
  std::string name;
};

// Cached per process: the files do not change under a running memrel, and the Python folder is
// small, but it is walked for every output checked.
const std::vector<ProgramFile>& program_files() {
  static const std::vector<ProgramFile> files = [] {
    std::vector<ProgramFile> out;
    for (const auto& program : program_inputs()) {
      struct stat st {};
      if (stat(program.c_str(), &st) != 0) continue;
      out.push_back({st.st_dev, st.st_ino, program});
      if (!S_ISDIR(st.st_mode)) continue;
      std::error_code ec;
      for (fs::recursive_directory_iterator it(program, ec), end; !ec && it != end;
           it.increment(ec)) {
        struct stat f {};
        if (lstat(it->path().c_str(), &f) == 0 && S_ISREG(f.st_mode))
          out.push_back({f.st_dev, f.st_ino, it->path().string()});
      }
    }
    return out;
  }();
  return files;
}

// An existing regular file below FOLDER (at any depth, links not followed) that is one of the
// inputs by identity: a folder output is replaced whole, so it holds no input anywhere below it,
// not even under another name (the sixth pass: `advise --out ex` with ex/x.bin a hard link of
// its trace was taken). An input folder's inputs are the files directly in it.
std::string input_below(const std::string& folder, const std::vector<std::string>& inputs) {
  std::vector<std::pair<struct stat, std::string>> ids;
  const std::size_t program = program_files().size();  // the first ids: memrel's own files
  for (const auto& p : program_files()) {
    struct stat st {};
    st.st_dev = p.dev;
    st.st_ino = p.ino;
    ids.emplace_back(st, p.name);
  }
  for (const auto& input : inputs) {
    struct stat st {};
    if (stat(input.c_str(), &st) != 0) continue;
    ids.emplace_back(st, input);
    if (!S_ISDIR(st.st_mode)) continue;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(input, ec)) {
      struct stat f {};
      if (stat(entry.path().c_str(), &f) == 0 && S_ISREG(f.st_mode))
        ids.emplace_back(f, entry.path().string());
    }
  }
  std::error_code ec;
  for (fs::recursive_directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
    struct stat f {};
    if (lstat(it->path().c_str(), &f) != 0 || !S_ISREG(f.st_mode)) continue;
    for (std::size_t i = 0; i < ids.size(); ++i) {
      if (!same_file(ids[i].first, f)) continue;
      // memrel's own file is not an input the command reads, nor does every folder output
      // replace its folder (bench keeps what is there): said as what it is (arguable in the
      // thirty-third adversarial pass, c1-bench-o-own-folder-false-reason).
      if (i < program)
        return it->path().string() +
               ", a file of memrel's own (its code, its data or a program it runs), "
               "which no output may take the place of";
      return it->path().string() + " (the input " + ids[i].second + ") and would be replaced";
    }
  }
  return "";
}

}  // namespace

std::string program_identities() {
  std::string text;
  for (const auto& p : program_files())
    text += (text.empty() ? "" : " ") + std::to_string(p.dev) + ":" + std::to_string(p.ino);
  return text;
}

std::vector<std::string> program_inputs() {
  // What memrel itself runs is an input of every command: the program (the fourth pass: `./memrel
  // run -o ./memrel` replaced the running binary, exit 0), the memrel_bench and plugins beside
  // it, and its Python parts (a folder: nothing below it is an output).
  std::vector<std::string> inputs;
  if (std::string exe = executable_path(); !exe.empty()) inputs.push_back(exe);
  const InstallLayout& layout = install_layout();
  // The Python parts memrel would run, found or not (a lone binary looks beside itself).
  inputs.push_back(layout.python_dir);
  // And the files it reads as its own: the default workloads, backends, advise grid and trace
  // sources (a folder: nothing below it is an output), and a build tree's marker, which names
  // the source tree every default path comes from. Written over, memrel's own defaults were
  // gone: `run -o benchmarks/advise/grid.json` left an advise that refused its own grid, and
  // `-o memrel-build-tree` a memrel that found none of its files (the twenty-seventh adversarial
  // pass, c1-out-onto-default-advise-grid, c1-run-out-build-tree-marker).
  inputs.push_back(layout.data_dir);
  if (layout.found && !layout.installed)
    inputs.push_back((fs::path(layout.library_dir) / "memrel-build-tree").string());
  if (layout.found) {
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(layout.library_dir, ec)) {
      const std::string name = entry.path().filename().string();
      if (name == "memrel_bench" || (name.size() > 3 && name.rfind(".so") == name.size() - 3))
        inputs.push_back(entry.path().string());
    }
    std::error_code bench_ec;
    const fs::path bench = fs::path(layout.executable_dir) / "benchmarks" / "memrel_bench";
    if (fs::exists(bench, bench_ec)) inputs.push_back(bench.string());
  }
  // And the programs it runs its Python parts and framework plugins with: `trace import -o py`,
  // `advise --json py` and `history changes --markdown py` wrote over the MEMREL_PYTHON=./py they
  // then ran, and `report --out rep` removed rep/py with the old report (the thirty-sixth
  // adversarial pass, c1-*-over-memrel-python). A regular file only: a variable naming a folder
  // makes no folder memrel's own.
  const char* python = std::getenv("MEMREL_PYTHON");
  const char* const programs_run[] = {python != nullptr && *python != '\0' ? python : "python3",
                                      std::getenv("MEMREL_HISTORY_PYTHON"),
                                      std::getenv("MEMREL_PYTHON_PLUGIN")};
  for (const char* named : programs_run) {
    if (named == nullptr || *named == '\0') continue;
    const std::string program = program_as_run(named);
    struct stat st {};
    if (program.empty() || stat(program.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
    inputs.push_back(program);
    // And the virtual environment's pyvenv.cfg, which the interpreter reads as it starts, beside
    // its bin/ or in it: `trace import -o V/pyvenv.cfg` replaced the config of the MEMREL_PYTHON
    // it ran with (the fifty-eighth adversarial pass, c1-trace-import-over-venv-pyvenv-cfg).
    const fs::path bin = fs::path(program).parent_path();
    for (const fs::path& config : {bin / "pyvenv.cfg", bin.parent_path() / "pyvenv.cfg"})
      if (stat(config.c_str(), &st) == 0 && S_ISREG(st.st_mode)) inputs.push_back(config.string());
  }
  return inputs;
}

std::string folder_holding_output(const std::string& path,
                                  const std::vector<std::string>& folders) {
  const fs::path parent = fs::path(path).parent_path();
  struct stat at {};
  if (stat(parent.empty() ? "." : parent.c_str(), &at) != 0) return "";  // a folder made for it
  for (const auto& folder : folders) {
    struct stat st {};
    if (stat(folder.c_str(), &st) == 0 && S_ISDIR(st.st_mode) && same_file(st, at)) return folder;
  }
  return "";
}

bool same_output_path(const std::string& a, const std::string& b) {
  // Two names of one existing file (a hard link): one output would replace the other, and the
  // link between them was lost (the eleventh adversarial pass, c1-compare-json-summary-hardlink).
  struct stat sa {
  }, sb{};
  if (stat(a.c_str(), &sa) == 0 && stat(b.c_str(), &sb) == 0 && same_file(sa, sb)) return true;
  std::error_code e1, e2;
  const fs::path pa = fs::weakly_canonical(fs::absolute(a, e1), e1);
  const fs::path pb = fs::weakly_canonical(fs::absolute(b, e2), e2);
  return !e1 && !e2 && pa == pb;
}

bool output_path_under(const std::string& inner, const std::string& outer) {
  std::error_code e1, e2;
  const fs::path pi = fs::weakly_canonical(fs::absolute(inner, e1), e1);
  const fs::path po = fs::weakly_canonical(fs::absolute(outer, e2), e2);
  if (e1 || e2 || pi == po) return false;
  auto i = pi.begin();
  for (auto o = po.begin(); o != po.end(); ++o, ++i) {
    if (o->empty()) continue;  // a trailing separator's empty name
    if (i == pi.end() || *i != *o) return false;
  }
  return true;
}

// Every name of the path fits the file system with the longest suffix memrel adds to an output's
// name (`.journal`, `.tmp.PID`, SQLite's `-journal`): a 300-byte `-o` name ran every cell, or
// compared every figure, and then failed with "File name too long", exit 4 (the eighth
// adversarial pass, c8-longname-*). Said before any work, exit 2.
void check_output_name_lengths(const std::string& path, const std::string& option) {
  fs::path existing = fs::absolute(path);
  struct stat st {};
  while (existing.has_parent_path() && existing != existing.parent_path() &&
         stat(existing.c_str(), &st) != 0)
    existing = existing.parent_path();
  const long limit = pathconf(existing.c_str(), _PC_NAME_MAX);
  const std::size_t name_max = limit > 0 ? static_cast<std::size_t>(limit) : 255;
  // Only the output's own name takes a suffix; a folder on its way needs no room past the file
  // system's limit (an existing folder of 240 bytes refused every output in it, and a TMPDIR so
  // named every run of a snapshot: the seventy-eighth adversarial pass,
  // c8-existing-long-folder-output-refused, c8-long-tmpdir-name-run-trace-blames-o).
  const fs::path whole(path);
  const std::string own = whole.filename().empty() ? whole.parent_path().filename().native()
                                                   : whole.filename().native();
  for (const fs::path& part : whole) {
    const std::size_t length = part.native().size();
    const bool suffixed = part.native() == own;
    if (length + (suffixed ? kOutputSuffixBytes : 0) > name_max)
      throw OutputError(prefix(option, path) + "the name '" + part.native().substr(0, 40) +
                        "...' is " + std::to_string(length) + " bytes; a name here holds " +
                        (suffixed ? std::to_string(name_max - kOutputSuffixBytes) + " at most (" +
                                        std::to_string(name_max) + ", less " +
                                        std::to_string(kOutputSuffixBytes) +
                                        " for the suffix of a temporary or journal beside it)"
                                  : std::to_string(name_max) + " at most"));
  }
  // PATH_MAX counts the string's terminating NUL: a path with its suffix has PATH_MAX - 1 bytes
  // at most, and the message says the longest taken (it said "over 4080" of 4080: the review of
  // the seventy-eighth adversarial pass).
  if (fs::absolute(path).native().size() + kOutputSuffixBytes >= PATH_MAX)
    throw OutputError(prefix(option, path) + "the path is over " +
                      std::to_string(PATH_MAX - kOutputSuffixBytes - 1) + " bytes long");
}

namespace {

// Every output is written beside its place and renamed into it, a folder output too: a file the
// file system keeps from being replaced, or a folder it keeps from taking a rename, fails only
// then, after the work (the thirty-sixth adversarial pass, c2-unwritable-file-exit4-compare,
// c2-append-only-folder-leftovers). Refused before any work, as a folder without write
// permission is. The folder is asked only when it exists: one memrel makes takes renames.
// PATH itself is asked once it is known to be what the output replaces (a file, a folder).
void refuse_replace_barrier(const std::string& path, const std::string& option, bool itself) {
  fs::path folder = fs::path(path).parent_path();
  if (folder.empty()) folder = ".";
  struct stat st {};
  if (stat(folder.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
    if (std::string barrier = replace_barrier(folder.string()); !barrier.empty())
      throw OutputError(prefix(option, path) + "its folder " + folder.string() + " " + barrier +
                        ": nothing can be renamed into it; write the output elsewhere");
  if (!itself) return;
  if (std::string barrier = replace_barrier(path); !barrier.empty())
    throw OutputError(prefix(option, path) + barrier +
                      ": it cannot be written over; write the output elsewhere");
}

// A new *.so or memrel_bench in the folder memrel loads its plugins and memrel_bench from: the
// next run loaded the output as one of its own ("invalid ELF header"; the twenty-ninth
// adversarial pass, c1-new-output-in-memrel-lib-folder, c1-trace-import-into-memrel-lib-folder).
void refuse_loaded_name_in_library_folder(const std::string& path, const std::string& option) {
  const fs::path p(path);
  const std::string name = p.filename().string();
  const bool loaded =
      name == "memrel_bench" || (name.size() > 3 && name.compare(name.size() - 3, 3, ".so") == 0);
  const InstallLayout& layout = install_layout();
  if (!loaded || !layout.found) return;
  struct stat parent {
  }, library{};
  const fs::path folder = p.has_parent_path() ? p.parent_path() : fs::path(".");
  if (stat(folder.c_str(), &parent) != 0 || stat(layout.library_dir.c_str(), &library) != 0) return;
  if (same_file(parent, library))
    throw OutputError(prefix(option, path) + "is in " + layout.library_dir +
                      ", where memrel loads its plugins and memrel_bench from, under a name it "
                      "would load; write the output elsewhere");
}

}  // namespace

void check_output_file(const std::string& path, const std::vector<std::string>& inputs,
                       const std::string& option) {
  if (path.empty()) throw OutputError((option.empty() ? "output" : option) + ": an empty path");
  // `-o new/` names a folder: it was made, then refused as one (the tenth adversarial pass,
  // c9-trailing-slash-output-makes-folder).
  if (path.back() == '/')
    throw OutputError(
        prefix(option, path) + "names a folder (it ends in /); " +
        (option.empty() ? std::string("a file is wanted") : option + " takes a file"));
  // So does one whose last name is `.` or `..`: `run -o a/b/.` made a/b, ran every cell into
  // `a/b/..journal`, then refused the folder (the fifty-fifth adversarial pass,
  // c2-run-out-dot-makes-folders-and-journal, c2-merge-out-dot-leaves-folders,
  // c2-advise-json-dot-after-sweep).
  if (const std::string last = fs::path(path).filename().string(); last == "." || last == "..")
    throw OutputError(
        prefix(option, path) + "names a folder (its last name is " + last + "); " +
        (option.empty() ? std::string("a file is wanted") : option + " takes a file"));
  if (std::string problem = path_spelling_problem(path); !problem.empty())
    throw OutputError(prefix(option, path) + problem);
  check_output_name_lengths(path, option);
  // In memrel's own code whether or not a file is there yet: `run -o scripts/json.py` went
  // through, and the file then shadowed the standard `json` of every Python part (the eleventh
  // adversarial pass, c1-mkcopy-*-new-*).
  for (const auto& program : program_inputs()) {
    struct stat in {};
    if (stat(program.c_str(), &in) != 0 || !S_ISDIR(in.st_mode)) continue;
    std::error_code ec;
    for (fs::path p = fs::weakly_canonical(fs::absolute(path, ec), ec); !ec; p = p.parent_path()) {
      struct stat st {};
      if (stat(p.c_str(), &st) == 0 && same_file(st, in))
        throw OutputError(prefix(option, path) + "is in " + program +
                          ", memrel's own code or data; write the output elsewhere");
      if (p == p.parent_path()) break;
    }
  }
  refuse_loaded_name_in_library_folder(path, option);
  // A new file too: `run -o r.json.journal` wrote results where a run of r.json keeps its journal,
  // and that run was then refused as "interrupted", its --resume "malformed JSON" (the
  // forty-sixth adversarial pass, c5-results-named-as-journal).
  if (fs::path(path).extension() == ".journal" && access(path.c_str(), F_OK) != 0)
    throw OutputError(prefix(option, path) +
                      "ends in .journal, the name a run gives its journal (-o X keeps X.journal); "
                      "name the output otherwise");
  // Nor a folder made for it under that name (`--markdown R/r.json.journal/m.md` made the folder
  // where `run -o R/r.json` keeps its journal: the forty-seventh adversarial pass,
  // c2-markdown-folder-at-run-journal).
  for (fs::path p = fs::path(path).parent_path(); !p.empty() && p != p.parent_path();
       p = p.parent_path()) {
    if (access(p.c_str(), F_OK) == 0) break;
    if (p.extension() == ".journal")
      throw OutputError(prefix(option, path) + "would make the folder " + p.string() +
                        ", named as a run's journal (-o X keeps X.journal); name it otherwise");
  }
  struct stat out {};
  if (lstat(path.c_str(), &out) != 0) return refuse_replace_barrier(path, option, false);
  if (!S_ISREG(out.st_mode))
    throw OutputError(prefix(option, path) + "is " + file_kind_name(out.st_mode) +
                      ", not a regular file; refusing to write over it");
  refuse_replace_barrier(path, option, true);
  if (!mount_point_at_or_below(path).empty())
    throw OutputError(prefix(option, path) +
                      "is a mount point; a file is written beside it and renamed over it: unmount "
                      "it or write the output elsewhere");
  // A run's journal holds the cells an interrupted run finished: written over, its --resume is
  // lost (the ninth adversarial pass, c1-run-o-is-journal-of-other).
  if (fs::path(path).extension() == ".journal")
    throw OutputError(prefix(option, path) +
                      "is a run's journal (the cells of an interrupted run); refusing to write "
                      "over it");
  for (const auto& program : program_inputs()) {
    struct stat in {};
    if (stat(program.c_str(), &in) != 0) continue;
    if (same_file(in, out))
      throw OutputError(prefix(option, path) + "is " + program +
                        ", a file memrel runs; write the output elsewhere");
  }
  for (const auto& program : program_files())
    if (program.dev == out.st_dev && program.ino == out.st_ino)
      throw OutputError(prefix(option, path) + "is " + program.name +
                        " (the same file), a file memrel runs; write the output elsewhere");
  for (const auto& input : inputs) {
    struct stat in {};
    if (stat(input.c_str(), &in) != 0) continue;
    if (same_file(in, out))
      throw OutputError(prefix(option, path) + "is the input " + input +
                        " (the same file); write the output elsewhere");
    if (S_ISDIR(in.st_mode) && is_a_file_of(input, out))
      throw OutputError(prefix(option, path) + "is a file of the input folder " + input +
                        "; write the output elsewhere");
  }
}

void check_output_writable(const std::string& path, const std::string& option) {
  fs::path folder = fs::path(path).parent_path();
  if (folder.empty()) folder = ".";
  // A missing folder is made with its parents when the output is written (write_file_atomically):
  // the probe goes where the first of them will be made, as for a folder output.
  if (struct stat st{}; lstat(folder.c_str(), &st) != 0 && errno == ENOENT)
    return check_output_folder_writable(folder.string(), option, path);
  if (std::string why = not_a_folder(where_folders_are_made(folder.string())); !why.empty())
    throw OutputError(prefix(option, path) + "cannot create its folder (" + why + ")");
  refuse_replace_barrier(path, option, false);  // before the probe, which it would keep
  std::string probe = (folder / ".memrel-probe-XXXXXX").string();
  int fd = mkostemp(probe.data(), O_CLOEXEC);
  if (fd < 0)
    throw OutputError(prefix(option, path) + "cannot write in its folder (" + std::strerror(errno) +
                      ")");
  close(fd);
  unlink(probe.c_str());
}

void check_output_folder_writable(const std::string& folder, const std::string& option,
                                  const std::string& shown) {
  // Where the first missing folder would be made, asked of the absolute path: the probe goes
  // there.
  std::error_code ec;
  const fs::path absolute = fs::absolute(folder.empty() ? "." : folder, ec);
  const fs::path at = where_folders_are_made(ec ? folder : absolute.string());
  if (std::string why = not_a_folder(where_folders_are_made(folder)); !why.empty())
    throw OutputError(
        prefix(option, shown.empty() ? folder : shown) +
        (shown.empty() ? "cannot create the folder (" : "cannot create its folder (") + why + ")");
  // A folder that keeps what is made in it would keep the probe, and the folders made there
  // should the write fail: refused as a folder that takes no rename is.
  if (std::string barrier = replace_barrier(at.string()); !barrier.empty())
    throw OutputError(prefix(option, shown.empty() ? folder : shown) + at.string() + " " + barrier +
                      ": nothing made in it can be removed; write the output elsewhere");
  fs::path probe = at / ".memrel-probe-XXXXXX";
  std::string name = probe.string();
  int fd = mkostemp(name.data(), O_CLOEXEC);
  if (fd < 0)
    throw OutputError(prefix(option, shown.empty() ? folder : shown) + "cannot write in " +
                      at.string() + " (" + std::strerror(errno) + ")");
  close(fd);
  unlink(name.c_str());
}

void check_output_folder(const std::string& folder, const std::vector<std::string>& inputs,
                         const std::string& option) {
  if (folder.empty()) throw OutputError((option.empty() ? "output" : option) + ": an empty path");
  if (std::string problem = path_spelling_problem(folder); !problem.empty())
    throw OutputError(prefix(option, folder) + problem);
  check_output_name_lengths(folder, option);
  refuse_loaded_name_in_library_folder(folder, option);
  struct stat out {};
  if (lstat(folder.c_str(), &out) != 0) return refuse_replace_barrier(folder, option, false);
  // A regular file is the common slip (`ab --out results.json`): say what the option wants.
  if (S_ISREG(out.st_mode))
    throw OutputError(
        prefix(option, folder) + "is a file; " +
        (option.empty() ? std::string("a folder is wanted") : option + " wants a folder"));
  if (!S_ISDIR(out.st_mode))
    throw OutputError(prefix(option, folder) + "is " + file_kind_name(out.st_mode) +
                      ", not a folder; refusing to write over it");
  if (std::string point = mount_point_at_or_below(folder); !point.empty())
    throw OutputError(prefix(option, folder) +
                      (point == fs::weakly_canonical(fs::absolute(folder)).string()
                           ? std::string("is a mount point")
                           : "holds the mount point " + point) +
                      "; the folder is replaced whole: unmount it or write the output elsewhere");
  refuse_replace_barrier(folder, option, true);
  std::vector<std::string> all = program_inputs();
  all.insert(all.end(), inputs.begin(), inputs.end());
  for (const auto& input : all) {
    std::error_code ec;
    fs::path real = fs::canonical(input, ec);
    if (ec) continue;
    for (fs::path p = real;; p = p.parent_path()) {
      struct stat st {};
      if (stat(p.c_str(), &st) == 0 && same_file(st, out))
        throw OutputError(prefix(option, folder) + "holds the input " + input +
                          " and would be replaced; write the output elsewhere");
      if (p == p.parent_path()) break;
    }
  }
  if (std::string held = input_below(folder, inputs); !held.empty())
    throw OutputError(prefix(option, folder) + "holds " + held + "; write the output elsewhere");
}

namespace {

void write_and_sync(int fd, const std::string& content, const std::string& path) {
  write_all(fd, content, path);
  if (::fsync(fd) != 0) throw MachineStateError(path + ": cannot sync (" + error_text(errno) + ")");
}

// BASE, else BASE.1, BASE.2, ...: the first name `take` takes (false with errno EEXIST: taken
// already), put in `name`. A name taken already is never ours, whatever it looks like: not even a
// file named like this process's temporary (a user's input `r.json.tmp.PID`, given to this very
// process, was removed as "a leftover": the twenty-seventh adversarial pass,
// c1-tmp-name-is-input-deleted). False when no name could be taken (errno says why).
bool take_free_name(const std::string& base, std::string& name,
                    const std::function<bool(const std::string&)>& take) {
  for (int attempt = 0; attempt < 100; ++attempt) {
    name = attempt == 0 ? base : base + "." + std::to_string(attempt);
    if (take(name)) return true;
    if (errno != EEXIST) return false;
  }
  return false;
}

}  // namespace

void write_file_atomically(const std::string& path, const std::string& content) {
  check_output_file(path);
  // An output's missing folders are made, by every writer (docs/inputs.md, "Outputs"): some
  // writers made them and others refused (the thirty-third adversarial pass,
  // c2-missing-parent-folder-two-rules). Removed again, while empty, when the write fails.
  FoldersMadeHere made;
  if (const fs::path folder = fs::path(path).parent_path(); !folder.empty()) {
    try {
      made.make("", folder.string());
    } catch (const std::invalid_argument& e) {
      throw OutputError(
          std::string(e.what()).substr(1));  // "FOLDER: cannot create the folder (...)"
    }
  }
  const StopSignalsHeld held;  // from the temporary file's making to its rename
  // The content goes first into a file without a name (O_TMPFILE), which gets its temporary
  // name only once it is whole and synced, just before the rename: a SIGKILL while writing left
  // OUT.tmp.PID for good, beside every writer's output (the forty-second adversarial pass,
  // c9-*-sigkill-tmp-left). Where the file system or /proc takes no such file, the linked_whole
  // temporary is written as before.
  const fs::path folder_of_path = fs::path(path).parent_path();
  const std::string folder_text = folder_of_path.empty() ? "." : folder_of_path.string();
  const std::string base = path + ".tmp." + std::to_string(getpid());
  std::string tmp = base;
  const int unnamed = ::open(folder_text.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
  bool linked_whole = false;
  if (unnamed >= 0) {
    try {
      write_and_sync(unnamed, content, path);
      // The check again just before the file gets a name (for a named temporary, below, before
      // its rename): the shortest window for a link to appear; the name lives for two system
      // calls.
      check_output_file(path);
    } catch (...) {
      ::close(unnamed);
      throw;
    }
    const std::string self = "/proc/self/fd/" + std::to_string(unnamed);
    linked_whole = take_free_name(base, tmp, [&](const std::string& name) {
      return ::linkat(AT_FDCWD, self.c_str(), AT_FDCWD, name.c_str(), AT_SYMLINK_FOLLOW) == 0;
    });
    ::close(unnamed);
  }
  if (!linked_whole) {
    int fd = -1;
    take_free_name(base, tmp, [&](const std::string& name) {
      fd = ::open(name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
      return fd >= 0;
    });
    if (fd < 0) throw MachineStateError(tmp + ": cannot create (" + error_text(errno) + ")");
    try {
      write_and_sync(fd, content, tmp);
    } catch (...) {
      ::close(fd);
      ::unlink(tmp.c_str());
      throw;
    }
    ::close(fd);
  }
  // The check again just before the rename: the shortest window for a link to appear.
  if (!linked_whole) {
    try {
      check_output_file(path);
    } catch (...) {
      ::unlink(tmp.c_str());
      throw;
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    throw MachineStateError(path + ": cannot rename into place (" + error_text(err) + ")");
  }
  fs::path folder = fs::path(path).parent_path();
  int dir = ::open(folder.empty() ? "." : folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir >= 0) {
    ::fsync(dir);  // the new name durable; a failure here loses nothing already written
    ::close(dir);
  }
}

}  // namespace memrel
