// `memrel bench`: the latency benchmarks (memrel_bench, docs/benchmarks.md) of a set of backends,
// one process per backend, one after another or one per GPU at a time, one Google Benchmark JSON
// file per backend named after the backend (bench-<name>.json). The one way the scripts run
// them (scripts/suite, nightly, gpu-check). Every name and option is checked before the first
// process starts.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <utility>

#include "allocators/backend_settings.hpp"
#include "allocators/backend_table.hpp"
#include "cli/backend_library_check.hpp"
#include "cli/backend_listing.hpp"
#include "cli/bench_file_claims.hpp"
#include "cli/bench_probe.hpp"
#include "cli/bench_text.hpp"
#include "cli/exit_codes.hpp"
#include "cli/read_folders.hpp"
#include "cli/subcommand.hpp"
#include "cli/threshold_options.hpp"
#include "gate/read/input_file.hpp"
#include "harness/execution/bench_launcher.hpp"
#include "platform/address_space_limit.hpp"
#include "platform/atomic_file.hpp"
#include "platform/executable_path.hpp"
#include "platform/folder_room.hpp"
#include "platform/folders_made_here.hpp"
#include "platform/gpu_selection.hpp"
#include "platform/install_layout.hpp"
#include "platform/interrupt.hpp"
#include "platform/machine_state_error.hpp"
#include "platform/memory_limits.hpp"
#include "platform/one_line_text.hpp"
#include "platform/run_context.hpp"

namespace fs = std::filesystem;

namespace memrel::cli {
namespace {

// A backend's benchmarks beyond this are a typo, not a plan: a day, as a cell's timeout.
constexpr std::uint64_t kMaxBenchTimeoutS = 86400;

constexpr const char* kBenchExitCodes =
    "Exit codes: 0 every backend's file written, or the backend cannot run here (a line on "
    "stderr says why); 2 unusable input (bad option, unknown backend, no memrel_bench), nothing "
    "run; 3 a backend's benchmarks failed, crashed or timed out (the others still ran); 130 or "
    "143 interrupted by SIGINT or SIGTERM (the running benchmarks ended).";

struct BenchArgs {
  std::vector<std::string> backends;
  std::string out, logs, gpus, filter, bench;
  double min_time = 0;
  bool quick = false;
  std::vector<std::string> bench_args;
  std::uint64_t timeout_s = kDefaultBenchTimeoutS;
};

std::string seconds_text(double seconds) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(seconds < 10 ? 1 : 0) << seconds;
  return s.str();
}

// A benchmark's failures under a memory limit (`ulimit -v`, `ulimit -d`) may be that limit's,
// not the backend's: named beside them, as a run's cell names it (the twenty-second adversarial
// pass, c8-bench-ulimit-v-blamed-on-backend, c8-bench-ulimit-d-blamed-on-backend).
std::string memory_limit_note() {
  std::string note;
  if (const std::optional<std::uint64_t> limit = address_space_limit_bytes())
    note += "; under an address-space limit of " + limit_size_text(*limit) + " (ulimit -v)";
  if (const std::optional<std::uint64_t> limit = data_limit_bytes())
    note += "; under a data-segment limit of " + limit_size_text(*limit) + " (ulimit -d)";
  return note.empty() ? note
                      : note +
                            ": a run out of memory there ran out of the machine's limit, not the "
                            "backend's; raise or lift it";
}

// One line per backend as it ends: its time on stdout (the scripts' progress), what went wrong
// on stderr.
// With `quiet` (-q), the line on stderr only.

void print_outcome(const BenchJob& job, const BenchOutcome& o, bool quiet) {
  const std::string gpu = o.gpu ? " (gpu " + std::to_string(*o.gpu) + ")" : "";
  if (!quiet)
    std::cout << "bench " << job.name << ": " << seconds_text(o.seconds) << " s" << gpu
              << std::endl;
  // The file of an earlier run stays where this one wrote none (run_bench_jobs): said, so that
  // it is not read as this run's.
  struct stat earlier {};
  const std::string log = (job.log_path.empty() ? "" : " (" + job.log_path + ")") +
                          (!o.file_written && stat(job.json_path.c_str(), &earlier) == 0
                               ? "; the " + fs::path(job.json_path).filename().string() +
                                     " there is an earlier run's, left as it was"
                               : "");
  switch (o.status) {
    case BenchStatus::kOk:
      break;
    case BenchStatus::kUnavailable:
      std::cerr << "bench " << job.name << ": unavailable here: " << one_line_text(o.last_line)
                << log << std::endl;
      break;
    case BenchStatus::kNoneMatched:  // said in the summary, or as the error when it is every one
      break;
    case BenchStatus::kFailed:
    case BenchStatus::kCrashed:
      std::cerr << "bench " << job.name << ": " << bench_end_text(o) << memory_limit_note() << log
                << std::endl;
      break;
    case BenchStatus::kTimeout:
      std::cerr << "bench " << job.name << ": " << bench_end_text(o) << log << std::endl;
      break;
  }
}

int run_bench(BenchArgs& a, const GlobalOptions& global) {
  // From here on SIGINT and SIGTERM are requests: the launcher ends the running benchmarks.
  InterruptRequests interrupts;
  BenchCommand command;
  command.bench = a.bench.empty() ? bench_beside_executable() : a.bench;
  if (command.bench.empty())  // the build's state, not the user's input: exit 4 (the
    // seventeenth adversarial pass, c8-missing-memrel-bench-bench)
    throw MachineStateError("no memrel_bench beside " + executable_dir() +
                            " (built without Google Benchmark?); name one with --bench");
  if (access(command.bench.c_str(), X_OK) != 0)
    throw std::invalid_argument("--bench " + command.bench + ": not an executable file");
  if (std::string problem = inherited_bench_environment_problem(); !problem.empty())
    throw std::invalid_argument(problem);
  command.backends_dir = global.backends_dir;
  command.quick = a.quick;
  command.results_problem = benchmark_results_problem;
  command.records_a_failure = benchmark_results_record_a_failure;
  command.timeout_s = a.timeout_s;
  if (!a.filter.empty()) command.bench_args.push_back("--benchmark_filter=" + a.filter);
  // CLI::Range lets nan through (every comparison with it is false): refuse it here, where it
  // would otherwise mean "the default" without a word.
  if (std::isnan(a.min_time))
    throw std::invalid_argument("--min-time nan: not a number of seconds");
  if (a.min_time > 0) {
    std::ostringstream value;
    value << a.min_time;
    command.bench_args.push_back("--min-time=" + value.str());
  }
  command.bench_args.insert(command.bench_args.end(), a.bench_args.begin(), a.bench_args.end());
  std::vector<GpuSlot> gpus;
  if (!a.gpus.empty()) gpus = select_gpus(a.gpus);

  // Commas separate backends and a configuration's settings alike, as run -b reads them:
  // NAME:K=V,K=V,OTHER (split_backend_list).
  a.backends = split_backend_list(a.backends);
  const bool default_backends = a.backends.empty();
  if (default_backends) {
    // A name two files of the folder hold is listed for neither (backend_listing), and refused
    // here as `-b NAME` refuses it, naming both files: dropped silently, the run would lack it.
    for (const auto& [name, files] : names_of_several_files(global.backends_dir))
      resolve_backend(name, global.backends_dir);  // throws, naming two of the files
    // So is a file of the folder that is no backend, as run's default set refuses it: left out,
    // bench exited 0 without a word for it (the thirty-seventh adversarial pass,
    // c6-bench-backends-dir-invalid-file-skipped).
    // The backends that can run here, as `list --available-backends` names them, but a backend
    // file whose library is there and does not load is refused below (as run's default set
    // refuses it), not left out.
    for (const BackendInfo& b : all_backends())
      if (b.availability().available) a.backends.push_back(b.name);
    for (const BackendInfo& b : folder_backends(global.backends_dir))
      if (b.availability().available) a.backends.push_back(b.name);
  }
  // The process in the name too: two benches in one second shared the folder, the second's files
  // over the first's (the twenty-second adversarial pass, c6-bench-default-out-same-second).
  if (a.out.empty())
    a.out = install_layout().output_dir + "/runs/bench-" + utc_now_iso8601() + "-" +
            std::to_string(getpid());
  // Each backend resolved here, so that a typo costs nothing and two backends cannot write one
  // file; memrel_bench resolves the same string again in its own process.
  // -o is a folder of bench's own files, not replaced whole: a real folder (a link to one is
  // refused, as report, advise and ab refuse it), and each file in it checked below.
  check_output_folder(a.out, {}, "-o");
  // --logs is one as well: a link to a folder (or a dangling one) was followed, and the build
  // folder of the running memrel took a log (program_inputs, checked by check_output_folder).
  if (!a.logs.empty()) check_output_folder(a.logs, {}, "--logs");
  std::vector<BenchJob> jobs;
  std::vector<BackendInfo> backends;
  std::vector<std::string> inputs;  // the backend files and libraries -b names
  BenchFileClaims claims;           // one file per backend, none two differing only by case
  // The memrel_bench it runs is an input too: `--bench L/bench-NAME.log --logs L` wrote the log
  // over the program (the ninth adversarial pass, c1-bench-logs-holding-bench-binary).
  inputs.push_back(command.bench);
  for (const std::string& given : a.backends) {
    backends.push_back(resolve_backend(given, global.backends_dir));
    inputs.insert(inputs.end(), backends.back().input_files.begin(),
                  backends.back().input_files.end());
  }
  command.inputs = inputs;  // never removed as a leftover temporary file
  for (std::size_t i = 0; i < a.backends.size(); ++i) {
    const std::string& given = a.backends[i];
    const BackendInfo& backend = backends[i];
    const std::string file = bench_file_name(backend.name);
    claims.claim(given, backend.name);
    BenchJob job;
    job.backend = given;
    job.name = backend.name;
    job.json_path = (fs::path(a.out) / file).string();
    // Started with the backend's environment, memrel_bench need not run itself again to get it
    // (a second process start per torch backend).
    job.environment = backend.cell_environment;
    for (const auto& [name, value] : job.environment)
      if (std::string problem = bench_environment_problem(name + "=" + value); !problem.empty())
        throw std::invalid_argument("backend " + given + ": its environment's " + problem);
    // Every output obeys the rule before anything runs (docs/inputs.md, "Outputs"): the fourth
    // pass's `-b o/bench-NAME.json -o o` deleted the backend file; a link or a FIFO there was
    // replaced.
    check_output_file(job.json_path, inputs, "-o");
    refuse_output_in_read_folders(job.json_path, "-o", global);  // c1-bench-out-into-backends-dir
    if (!a.logs.empty()) {
      job.log_path =
          (fs::path(a.logs) / ("bench-" + file_name_piece(backend.name) + ".log")).string();
      check_output_file(job.log_path, inputs, "--logs");
      // The --logs folder is none of the files bench writes: `--logs bo/bench-NAME.json` was
      // refused only after the run, its folder left (the sixteenth adversarial pass,
      // c1-bench-logs-is-own-output-file).
      if (same_output_path(a.logs, job.json_path))
        throw OutputError("--logs " + a.logs + ": the same path as " + job.json_path +
                          ", which bench writes");
      // Nor one file on the other's way: with -o F/bench-null.log --logs F the results were
      // written in F/bench-null.log/, then its log could not be (the forty-seventh adversarial
      // pass, c2-bench-logs-file-is-out-folder).
      if (output_path_under(job.json_path, job.log_path) ||
          output_path_under(a.out, job.log_path) || output_path_under(a.logs, job.json_path))
        throw OutputError("--logs " + a.logs + ": " + job.log_path + " and " + job.json_path +
                          ", files bench writes, lie one on the other's way; write them apart");
    }
    jobs.push_back(job);
  }
  // Nor is -o or --logs the folder of the memrel_bench it runs, or one above it, as ab refuses an
  // --out holding its --candidate-bench: `bench --bench P/mb -o P` wrote its files beside the
  // program it ran (the sixtieth adversarial pass, c1-bench-out-holds-its-bench).
  for (const auto& [option, folder] :
       {std::pair<std::string, std::string>{"-o", a.out}, {"--logs", a.logs}})
    if (!folder.empty() && output_path_under(command.bench, folder))
      throw OutputError(option + " " + folder + ": holds " + command.bench +
                        ", the memrel_bench bench runs; write the output elsewhere");
  // A backend file whose library does not load, or ends its process while loading, is refused
  // before anything runs, as run refuses it: found by memrel_bench, it was read as
  // memrel_bench's usage error, exit 2 after the backends before it had run (the fortieth
  // adversarial pass, c8-bench-library-exit2-read-as-bad-input). The default set's too, as
  // run's default set: left out without a word, a setting its library refuses
  // (MEMREL_EXAMPLE_SLOWDOWN_NS=nan) gave exit 0 (the forty-first,
  // c4-bench-default-env-nan-silently-skips).
  const RunOptions check_options =
      library_check_options(global.backends_dir, std::min<std::uint64_t>(a.timeout_s, 300));
  LibraryCheck library_check;
  library_check.quiet = global.verbosity < 0;
  for (std::size_t i = 0; i < backends.size(); ++i)
    refuse_backend_whose_library_fails(check_options, a.backends[i], backends[i], library_check);
  // Asked last of the checks, as it starts a process; this build's own is one.
  if (!a.bench.empty()) {
    const std::string problem = bench_program_problem(command.bench);
    if (int signal = InterruptRequests::received(); signal != 0)  // during the probe
      throw Interrupted(signal, "interrupted by " + signal_name(signal) + "; nothing run");
    if (!problem.empty()) throw std::invalid_argument("--bench " + command.bench + ": " + problem);
  }
  if (!a.filter.empty()) {
    const std::string problem = bench_filter_problem(command.bench, a.filter);
    if (int signal = InterruptRequests::received(); signal != 0)  // during the probe
      throw Interrupted(signal, "interrupted by " + signal_name(signal) + "; nothing run");
    if (!problem.empty())
      throw std::invalid_argument(filter_option_text(a.filter) + ": " + problem);
  }
  std::error_code exists_ec;
  // The folders made for -o and --logs go again, each while empty, when bench refuses or is
  // stopped after all (a --filter that matched nothing left `za/bo` and `zb/lg`: the tenth
  // adversarial pass, c9-bench-refused-leaves-folders; a stop, the twenty-fifth,
  // c9-sig*-bench-leftovers).
  FoldersMadeHere made;
  made.make("-o", a.out);
  if (!a.logs.empty()) made.make("--logs", a.logs);
  // memrel_bench (Google Benchmark) does not check its writes: on a full file system its results
  // file was empty, read as "matches no benchmark", exit 2 (the twenty-second adversarial pass,
  // c8-outdir-full-bench-says-no-filter-match). The machine's state, said before any backend.
  for (const auto& [option, folder] :
       {std::pair<std::string, std::string>{"-o", a.out}, {"--logs", a.logs}}) {
    if (folder.empty()) continue;
    // A folder that takes no file at all (read-only) is the path's, exit 2, as every writer
    // says it; one that takes no 64 KiB (full) is the machine's (the twenty-seventh adversarial
    // pass, c2-readonly-folder-exit-codes).
    check_output_folder_writable(folder, option);
    if (std::string problem = folder_room_problem(folder, option + " " + folder);
        !problem.empty()) {
      throw MachineStateError(problem + "; nothing run");
    }
  }

  // -q: the folder on stdout is the answer (as run -q prints its file); what went wrong is still
  // said on stderr.
  const bool quiet = global.verbosity < 0;
  const std::vector<BenchOutcome> outcomes =
      run_bench_jobs(command, jobs, gpus, [quiet](const BenchJob& job, const BenchOutcome& o) {
        if (!quiet || o.status != BenchStatus::kOk) print_outcome(job, o, quiet);
      });
  std::size_t ok = 0, unavailable = 0, none_matched = 0, failed = 0;
  for (const BenchOutcome& o : outcomes) {
    ok += o.status == BenchStatus::kOk;
    unavailable += o.status == BenchStatus::kUnavailable;
    none_matched += o.status == BenchStatus::kNoneMatched;
    failed += o.status != BenchStatus::kOk && o.status != BenchStatus::kUnavailable &&
              o.status != BenchStatus::kNoneMatched;
  }
  if (ok == 0 && failed == 0 && none_matched > 0) {
    // A filter that selects nothing anywhere is a bad option (a typo), not an empty result.
    // "Nothing written": the logs of this refused run are dropped (the last run's stay), then
    // the folders made for it go (as the exception leaves).
    for (const BenchJob& job : jobs) drop_pending_log(job);
    throw std::invalid_argument(
        (a.filter.empty() ? std::string("no filter") : filter_option_text(a.filter)) +
        ": matches no benchmark of any backend given; nothing written");
  }
  for (std::size_t i = 0; i < jobs.size(); ++i)
    if (outcomes[i].log_pending) keep_pending_log(jobs[i]);
  for (std::size_t i = 0; i < jobs.size(); ++i)
    if (outcomes[i].status == BenchStatus::kNoneMatched)
      std::cerr << "bench " << jobs[i].name << ": no benchmark of it matches the filter; no file\n";
  // Nothing written (every backend unavailable here or failed): the folders made for it go
  // again, as every other writer leaves none it made empty (the sixtieth adversarial pass,
  // c8-bench-nothing-written-leaves-made-folders). A folder there before is the user's, kept.
  made.remove_empty();
  const bool out_left = access(a.out.c_str(), F_OK) == 0;
  if (quiet && out_left) std::cout << a.out << "\n";
  if (!quiet || failed || !out_left)
    std::cerr << "memrel bench: " << jobs.size() << " backend(s): " << ok << " ok, " << unavailable
              << " unavailable here, "
              << (none_matched ? std::to_string(none_matched) + " matched by no benchmark, " : "")
              << failed << " failed, crashed or timed out; "
              << (out_left
                      ? "files in " + a.out
                      : std::string("no results file written, the folders made for them removed"))
              << std::endl;
  return failed ? exit_code::kCellFailed : exit_code::kSuccess;
}

}  // namespace

RunSubcommand attach_bench(CLI::App& app, const GlobalOptions& global) {
  auto a = std::make_shared<BenchArgs>();
  app.footer(kBenchExitCodes);
  app.add_option(
      "-b,--backend", a->backends,
      "Backends: names, names of backend files in --backends-dir, or backend file paths; "
      "repeat or comma-separate; a configuration NAME:KEY=VALUE,... (as memrel run -b) "
      "(default: every backend that can run here, as memrel list --available-backends "
      "prints them)");
  app.add_option("-o,--out", a->out,
                 "Folder for the files, one per backend: bench-<backend name>.json (default: "
                 "results/runs/bench-<UTC time>-<process id>)")
      ->check(no_control_characters());
  app.add_option("--logs", a->logs,
                 "Folder for each memrel_bench's stdout and stderr, bench-<backend name>.log "
                 "(default: not kept; a failure's last line is printed)");
  app.add_flag("--quick", a->quick, "memrel_bench --quick: 4 sizes and a short churn");
  app.add_option("--filter", a->filter,
                 "Only the benchmarks whose names match this regular expression "
                 "(--benchmark_filter), e.g. '^pair/'")
      ->check(no_control_characters());
  app.add_option("--min-time", a->min_time,
                 "Google Benchmark's minimum time per repetition, in seconds (default: "
                 "memrel_bench's, docs/benchmarks.md)")
      ->check(CLI::Range(1e-6, 86400.0))
      ->check(exact_bounds(1e-6, 86400.0));
  app.add_option("--bench-arg", a->bench_args,
                 "An argument for every memrel_bench (repeatable; only those of docs/inputs.md), "
                 "e.g. "
                 "--bench-arg=--benchmark_repetitions=9")
      ->check(CLI::Validator([](std::string& argument) { return bench_arg_problem(argument); }, "",
                             "bench-arg"));
  app.add_option("--gpus", a->gpus,
                 "One backend per GPU at a time, each seeing only its GPU: all, or nvidia-smi "
                 "indices like 0,2 (default: one at a time, GPUs as they are)");
  app.add_option("--timeout", a->timeout_s,
                 "Seconds before a backend's memrel_bench is killed, with everything it started")
      ->capture_default_str()
      ->check(CLI::Range(static_cast<std::uint64_t>(1), kMaxBenchTimeoutS));
  app.add_option("--bench", a->bench,
                 "The memrel_bench to run (default: the one this memrel was built with, beside "
                 "it)");
  return [a, &global] { return run_bench(*a, global); };
}

}  // namespace memrel::cli
