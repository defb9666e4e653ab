// `memrel run`: every (backend, workload) cell, each in its own process, into one results file.
// Every name and file is checked before the first cell runs, so a typo costs nothing.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>

#include "allocators/backend_table.hpp"
#include "cli/backend_library_check.hpp"
#include "cli/duplicate_names.hpp"
#include "cli/exit_codes.hpp"
#include "cli/host_capacity.hpp"
#include "cli/read_folders.hpp"
#include "cli/subcommand.hpp"
#include "cli/trace_import.hpp"
#include "harness/execution/results_size.hpp"
#include "harness/execution/run_journal.hpp"
#include "harness/execution/run_summary.hpp"
#include "harness/execution/runner.hpp"
#include "harness/execution/shard.hpp"
#include "harness/results/report_page_name.hpp"
#include "harness/workload/trace_plan.hpp"
#include "harness/workload/workload.hpp"
#include "harness/workload/workload_files.hpp"
#include "platform/atomic_file.hpp"
#include "platform/byte_size.hpp"
#include "platform/executable_path.hpp"
#include "platform/file_version.hpp"
#include "platform/folders_made_here.hpp"
#include "platform/gpu_selection.hpp"
#include "platform/install_layout.hpp"
#include "platform/interrupt.hpp"
#include "platform/machine_state_error.hpp"
#include "platform/one_line_text.hpp"
#include "platform/temporary_folder.hpp"

namespace fs = std::filesystem;

namespace memrel::cli {
namespace {

// A cell's timeout beyond this is a typo, not a plan: a day.
constexpr std::uint64_t kMaxCellTimeoutS = 86400;

struct RunArgs {
  RunOptions options;
  std::vector<std::string> backends, workloads;
  std::string out, host_capacity = "1GiB", trace_scale = "auto", timeout = "300", gpus, shard;
  bool include_null = false, resume = false, no_zygote = false;
  std::string zygote = "device";
};

std::uint64_t parse_timeout(const std::string& text) {
  const std::string usage = "--timeout: '" + text +
                            "' is not a whole number of seconds from 1 to " +
                            std::to_string(kMaxCellTimeoutS) + " (ASCII digits, no leading zero)";
  // A leading zero too, as bench's and advise's --timeout refuse it (the sixty-third adversarial
  // pass, c4-run-timeout-leading-zero-taken).
  if (text.empty() || text.size() > 6 ||
      text.find_first_not_of("0123456789") != std::string::npos || text[0] == '0')
    throw std::invalid_argument(usage);
  std::uint64_t seconds = std::stoull(text);
  if (seconds < 1 || seconds > kMaxCellTimeoutS) throw std::invalid_argument(usage);
  return seconds;
}

// Before the first cell: a run must not end with nowhere to put its results. The folder is
// probed by creating (and at once removing) a file in it, which also catches read-only file
// systems, where permissions say nothing.
void check_output(const std::string& out) {
  struct stat st {};
  if (stat(out.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
    throw std::invalid_argument(out + ": is a folder (-o takes the results file)");
  check_output_file(out, {}, "-o");  // not a link, FIFO, device or socket (docs/inputs.md)
  if (stat(out.c_str(), &st) == 0) {
    if (access(out.c_str(), W_OK) != 0)
      throw std::invalid_argument(out + ": is not writable (" + std::strerror(errno) + ")");
  }
  // Probed where its first missing folder would be made; the folders themselves are made only
  // once every input is checked, just before the journal: a run refused for a bad backend left
  // -o's new folders behind (the tenth adversarial pass, c9-run-refused-leaves-folders). Under a
  // file or a link to nothing, check_output_writable says so, as every writer does.
  // The one probe of every writer: not made in a folder that would keep it (chattr +a): run's
  // own left `.memrel-probe-XXXXXX` there for good (the fiftieth adversarial pass,
  // c2-run-appendonly-grandparent-probe-left).
  check_output_writable(out, "-o");
}

// The binary that provides `memrel cell`: this one; "memrel" (found on PATH) if the kernel does
// not say.
std::string self_executable() {
  const std::string path = executable_path();
  return path.empty() ? "memrel" : path;
}

void throw_if_interrupted(const std::string& when) {
  if (int signal = InterruptRequests::received())
    throw Interrupted(signal, "interrupted by " + signal_name(signal) + " " + when);
}

int run_run(RunArgs& a, const GlobalOptions& global) {
  // From here on SIGINT and SIGTERM are requests: the runner ends its cells and keeps the
  // journal, and temporary traces are removed as the stack unwinds.
  InterruptRequests interrupts;
  a.options.cell_timeout_s = parse_timeout(a.timeout);
  if (!a.gpus.empty()) a.options.gpus = select_gpus(a.gpus);
  std::optional<Shard> shard;
  if (!a.shard.empty()) shard = parse_shard(a.shard);
  if (a.resume && a.out.empty())
    throw std::invalid_argument("--resume: give -o, the results file of the interrupted run");
  if (a.out.empty()) a.out = default_run_path(install_layout().output_dir + "/runs");
  check_output(a.out);
  a.options.journal_path = journal_path_for(a.out);
  a.options.resume = a.resume;
  a.options.backends_dir = global.backends_dir;
  a.options.memrel_executable = self_executable();
  a.options.zygote = parse_zygote_use(a.no_zygote ? "none" : a.zygote, "--zygote");
  // Progress on a terminal, short in a log; -v and -q choose (cli/subcommand.hpp).
  a.options.progress_every_cell =
      global.verbosity > 0 || (global.verbosity == 0 && isatty(STDERR_FILENO) == 1);
  // Commas separate backends, and a configuration's settings: NAME:K=V,K=V,OTHER.
  a.backends = split_backend_list(a.backends);
  const bool default_backends = a.backends.empty();
  if (a.backends.empty()) {
    for (const auto& b : all_backends()) {
      if (b.name != "null" || a.include_null) a.backends.push_back(b.name);
    }
    for (const auto& b : folder_backends(global.backends_dir)) a.backends.push_back(b.name);
  } else if (a.include_null &&
             std::find(a.backends.begin(), a.backends.end(), "null") == a.backends.end()) {
    // With -b too: it did nothing, exit 0, without a word (the eleventh adversarial pass,
    // c5-include-null-with-b-ignored).
    a.backends.push_back("null");
  }
  // Reject unknown names and bad files before any cell.
  std::vector<BackendInfo> backends;
  for (const auto& name : a.backends)
    backends.push_back(resolve_backend(name, global.backends_dir));
  a.options.backends = a.backends;
  a.options.cell.host_capacity_bytes = host_capacity_bytes(a.host_capacity);
  a.options.cell.trace_scale_divisor = parse_trace_scale(a.trace_scale);
  // Snapshots and RMM logs become temporary traces, removed when this function returns.
  ImportedTraces imported;
  a.options.workloads.clear();
  std::uint64_t results_bytes = 0;  // at least, over the matrix's cells
  for (const auto& p : resolve_workloads(a.workloads, global.workloads_dir)) {
    // The workloads folder's files are workloads and traces, as `list` reads them: a snapshot or
    // a log there (whatever its name) is not imported, as --help says. `list` called
    // wl/log.json INVALID while a plain run imported and ran it (the thirty-fifth adversarial
    // pass, c10-log-named-*-in-workloads-dir).
    if (a.workloads.empty() && needs_trace_import(p))
      throw std::invalid_argument(not_imported_from_workloads_folder(p));
    // Before the first read: a file edited from here on is not the one the run read.
    const std::optional<FileVersion> version = file_version(p);
    std::string path;
    try {
      path = imported.prepare(p);
    } catch (const std::exception&) {
      // Ctrl-C reaches the importer too (same process group): its failure is the signal's, and
      // so is a version probe cut short by one (a hung MEMREL_PYTHON: the sixteenth pass).
      throw_if_interrupted("while importing " + p);
      throw;
    }
    // Read once here; each cell reads its own file again in its own process.
    Workload workload = parse_workload_file(path);
    // A host backend's capacity is --host-capacity: a workload whose sizes come to 0 bytes on it,
    // or whose groups expand past the step limit, is said now, not an error cell of every host
    // backend (--host-capacity 1 gave exit 3 and a results file of failed cells: the sixteenth
    // adversarial pass, c4-run-host-capacity-1-byte; a group of 1-byte blocks up to half of 1 GiB:
    // the seventeenth, c4-alloc-many-expands-past-cap-exit3). A device's capacity is known only
    // in its cell.
    if (std::any_of(backends.begin(), backends.end(),
                    [](const BackendInfo& b) { return b.space == MemorySpace::kHost; })) {
      try {
        check_resolvable(workload, a.options.cell.host_capacity_bytes);
      } catch (const WorkloadError& e) {
        throw std::invalid_argument(std::string(e.what()) + " (with --host-capacity " +
                                    a.host_capacity + ", a host backend's capacity)");
      }
    }
    std::vector<std::string> programs;
    for (const Step& step : workload.steps) {
      if (!step.program.empty() &&
          std::find(programs.begin(), programs.end(), step.program) == programs.end())
        programs.push_back(step.program);
    }
    a.options.workloads.push_back({path, p, workload.name, programs, version});
    results_bytes += cell_results_bytes(workload) * backends.size();
  }
  if (std::string why = results_too_large(results_bytes); !why.empty())
    throw std::invalid_argument(why);
  throw_if_interrupted("before the first cell");
  // -o must be none of the run's inputs (a workload, a trace, a backend file), by identity.
  std::vector<std::string> inputs = a.workloads;
  for (const auto& b : a.backends) inputs.push_back(b);
  // A backend file named by its name, and the library it loads, are inputs too.
  for (const BackendInfo& b : backends)
    inputs.insert(inputs.end(), b.input_files.begin(), b.input_files.end());
  std::vector<std::string> workload_names, workload_sources;
  for (const RunWorkload& w : a.options.workloads) {
    inputs.push_back(w.original);
    workload_names.push_back(w.name);
    workload_sources.push_back(w.original);
  }
  check_output_file(a.out, inputs, "-o");
  refuse_output_in_read_folders(a.out, "-o", global);
  std::vector<std::string> backend_names, backend_sources;
  for (const auto& b : backends) {
    backend_names.push_back(b.name);
    backend_sources.push_back(b.file.empty() ? b.name : b.file);
  }
  // Taken by default, they are memrel's table and the backends folder's files: a file of the
  // folder named `Host-Malloc` was blamed on -b, never given, and not named (the thirty-fifth
  // adversarial pass, c6-backends-dir-case-twin-blames-b).
  refuse_duplicates(backend_names, default_backends ? backend_sources : a.backends,
                    default_backends ? "the backends run by default (no -b):" : "-b: the backend",
                    kRenameBackend);
  // Taken by default, they are the workloads folder's files, -w never given (the thirty-sixth
  // adversarial pass, c6-workloads-dir-duplicate-blames-w).
  refuse_duplicates(
      workload_names, workload_sources,
      a.workloads.empty() ? "the workloads run by default (no -w):" : "-w: the workload",
      kRenameWorkload);
  a.options.shard = shard;
  // A backend file's library must load and export its symbols, checked in a child process (the
  // parent never loads one) wherever its cells could run.
  // One taken by default (not named by -b) whose library cannot be found is unavailable (its
  // cells say why, as `list` does, docs/pluggable-backends.md): checked, it stopped a plain run
  // with exit 2 where memrel's own example library was not built (the thirty-fourth adversarial
  // pass, c8-default-run-missing-example-library-exit2). One named by -b is the user's word:
  // a typo in its library is said before any cell.
  for (std::size_t i = 0; i < backends.size(); ++i) {
    if (!backends[i].check_loadable || !machine_runs_space(backends[i].space) ||
        (default_backends && !backends[i].availability().available))
      continue;
    LibraryCheck check;
    check.quiet = global.verbosity < 0;
    refuse_backend_whose_library_fails(a.options, a.backends[i], backends[i], check);
  }
  // Every cell writes its result and its stderr to files of TMPDIR: one that cannot take a file
  // is said before the journal is made. Found at the first cell, it left a journal of no cell
  // that the next run refused as "an interrupted run" (the tenth adversarial pass,
  // c8-run-tmpdir-bad-leaves-journal).
  if (std::string problem = temporary_folder_problem(); !problem.empty())
    throw MachineStateError("cannot run a cell: " + problem +
                            "; set TMPDIR to a folder with room that memrel can write in");
  // -o's missing folders, for the journal first: removed again (while empty) when the run
  // stops before its journal is made.
  FoldersMadeHere made_for_out;
  if (const fs::path folder = fs::path(a.out).parent_path(); !folder.empty())
    made_for_out.make("-o", folder.string());
  std::ostream no_progress(nullptr);  // -q: a stream without a buffer writes nothing
  std::optional<RunJournal> journal;  // held until removed: no other run takes it meanwhile
  RunResults results =
      run_suite(a.options, global.verbosity < 0 ? no_progress : std::cerr, &journal);
  // The estimate is from below: results past the readers' cap are not written either (the cells
  // stay in the journal), never a file that compare and report then refuse.
  const std::string text = to_json(results).dump(1) + "\n";
  refuse_results_past_the_cap("-o", a.out, text, "the cells are in " + a.options.journal_path);
  write_file_atomically(a.out, text);
  // Every cell is in the results now; a kill before this line leaves a journal to resume. Ours
  // only: removed by hand while this run went on, the name may be another run's journal now,
  // and removing it lost that run's finished cells (the twenty-second adversarial pass,
  // c5-live-journal-removed-second-run-loses-cells).
  if (journal) remove_if_same_file(a.options.journal_path, journal->identity());
  int failed = 0;
  for (const auto& c : results.cells)
    failed += (c.status == "crashed" || c.status == "timeout" || c.status == "error");
  std::cout << one_line_text(a.out) << "\n";
  if (global.verbosity >= 0) std::cerr << run_summary(results.cells);
  // -q: the path on stdout is the answer; a line on stderr only when cells failed.
  if (global.verbosity >= 0 || failed) {
    std::cerr << "memrel: " << results.cells.size() << " cells written to " << one_line_text(a.out);
    if (failed) std::cerr << "; " << failed << " crashed, timed out or failed";
    std::cerr << "\n";
  }
  return failed ? exit_code::kCellFailed : exit_code::kSuccess;
}

}  // namespace

RunSubcommand attach_run(CLI::App& app, const GlobalOptions& global) {
  auto a = std::make_shared<RunArgs>();
  app.add_option("-b,--backend", a->backends,
                 "Backends: names, or backend files (docs/pluggable-backends.md); repeat or "
                 "comma-separate; a configuration NAME:KEY=VALUE,... (docs/backends.md, "
                 "\"Settings\") (default: all but null, and every file of --backends-dir)");
  app.add_option(
         "-w,--workload", a->workloads,
         "Workload names or files, or traces: FILE.memtrace, a PyTorch snapshot .pickle or "
         "an RMM log .csv (docs/traces.md) (default: every workload .json and trace .memtrace in "
         "--workloads-dir; a snapshot or a log there is not imported: import it first)")
      ->delimiter(',');
  app.add_option(
      "-o,--out", a->out,
      "Results file (default: " + install_layout().output_dir + "/runs/run-TIME-PID.json)");
  app.add_option("--timeout", a->timeout,
                 "Seconds before a cell is killed and recorded as timeout (1 to 86400)")
      ->capture_default_str();
  app.add_flag("--resume", a->resume,
               "Continue the interrupted run whose results file is -o: its journal (-o's path + "
               ".journal) has the finished cells; the options must be the same "
               "(docs/run-journal.md)");
  app.add_option("--gpus", a->gpus,
                 "Run cells in parallel, one per GPU at a time, each seeing only its GPU: all, "
                 "or nvidia-smi indices like 0,2 (default: one cell at a time, GPUs as they are)");
  app.add_option("--host-capacity", a->host_capacity,
                 "What device_fraction means for host backends (bytes, or with KiB/MiB/GiB)")
      ->capture_default_str();
  app.add_option("--trace-scale", a->trace_scale,
                 "Traces (-w FILE.memtrace, .pickle or .csv): divide every size by N (1/N), or "
                 "auto: host backends fit --host-capacity, device backends replay as recorded")
      ->capture_default_str();
  app.add_option("--module-loading", a->options.module_loading,
                 "CUDA_MODULE_LOADING for every cell")
      ->check(CLI::IsMember({"LAZY", "EAGER"}));
  app.add_option("--shard", a->shard,
                 "Run shard K of N (K/N, from 1/N to N/N): the cells at positions K-1, K-1+N, ... "
                 "of the matrix's backend/workload names sorted; join with memrel merge "
                 "(docs/slurm.md)");
  app.add_option("--zygote", a->zygote,
                 "Which cells are forked from their backend's warm zygote, the others started "
                 "by fork + exec of memrel cell: device (default; a host cell's heap figures "
                 "would carry the zygote's history), all, none (docs/design.md, \"Cells start "
                 "warm\")")
      ->check(CLI::IsMember({"none", "device", "all"}))
      ->capture_default_str();
  app.add_flag("--no-zygote", a->no_zygote, "The same as --zygote none")->excludes("--zygote");
  app.add_flag("--no-host-lane{false}", a->options.host_lane,
               "Run the host cells in turn with the device cells, not beside them in a lane of "
               "their own (docs/design.md, \"Host cells beside device cells\")");
  app.add_flag("--no-exit-overlap{false}", a->options.exit_overlap,
               "Start each cell once the one before it has exited, not while it exits "
               "(docs/design.md, \"A cell's exit beside the next cell's start\")");
  app.add_flag("--include-null", a->include_null,
               "Also run the null backend (measures memrel itself), with -b or without");
  return [a, &global] { return run_run(*a, global); };
}

}  // namespace memrel::cli
