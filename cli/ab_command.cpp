// `memrel ab`: a reference and a candidate benchmarked on one machine, interleaved (for each
// backend: reference, candidate, reference, candidate, ...), and gated with `memrel compare`'s
// rules: latency by the rank test over the rounds, bytes exactly as ever (docs/ab.md). The way
// to gate latency on a fleet where every night may get another machine: both sides meet the same
// machine, the same hour and the same drift.
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <utility>
#include <vector>

#include "allocators/backend_settings.hpp"
#include "allocators/backend_table.hpp"
#include "cli/backend_library_check.hpp"
#include "cli/bench_file_claims.hpp"
#include "cli/bench_probe.hpp"
#include "cli/bench_text.hpp"
#include "cli/comparison_outputs.hpp"
#include "cli/exit_codes.hpp"
#include "cli/subcommand.hpp"
#include "cli/threshold_options.hpp"
#include "gate/compare.hpp"
#include "gate/format.hpp"
#include "gate/read/input_file.hpp"
#include "gate/read/interleaved_rounds.hpp"
#include "gate/rules/alpha_spending.hpp"
#include "gate/rules/tolerances.hpp"
#include "harness/execution/bench_launcher.hpp"
#include "platform/address_layout.hpp"
#include "platform/atomic_file.hpp"
#include "platform/child_process.hpp"
#include "platform/cpu_affinity.hpp"
#include "platform/executable_path.hpp"
#include "platform/folders_made_here.hpp"
#include "platform/install_layout.hpp"
#include "platform/interrupt.hpp"
#include "platform/machine_state_error.hpp"
#include "platform/one_line_text.hpp"
#include "platform/run_context.hpp"

namespace memrel::cli {
namespace {

namespace fs = std::filesystem;

constexpr const char* kAbExitCodes =
    "Exit codes: 0 no regression of the candidate; 1 a regression (latency by the rank test over "
    "the rounds, and per family of sizes by the signed-rank test of the rounds paired; bytes "
    "exactly), a benchmark missing from the candidate, or the candidate failing to run; 2 unusable "
    "input (bad option, no memrel_bench, every backend unavailable here); 4 the reference failing "
    "to run (nothing to compare against).";

// One side of the comparison: which memrel_bench, which backend, with what environment.
struct Side {
  std::string role;  // "reference" or "candidate"
  std::string bench;
  std::string backend;                   // empty: the one given with --backend
  std::vector<std::string> environment;  // NAME=VALUE, set on top of memrel's own
};

struct AbArgs {
  std::vector<std::string> backends;
  Side reference{"reference", "", "", {}}, candidate{"candidate", "", "", {}};
  // 10: the paired family test (gate/rules/family_rules.hpp) needs 6 rounds before its
  // smallest p falls below 0.05, and more to pass the false discovery rate over a file's tests;
  // with 10 it can reach 0.002 (docs/gate.md, "Families").
  int rounds = 10;
  // Looks of --rounds rounds each while a slowdown is undecided, with the false-alarm rate
  // spent over them (gate/rules/alpha_spending.hpp). 3: a family at +10 % on the H200 needed
  // about 30 rounds (docs/ab.md); 1: --rounds and no further look.
  int looks = 3;
  bool quick = false;
  std::string cpus;      // --cpus: both sides run on these CPUs (platform/cpu_affinity.hpp)
  bool no_aslr = false;  // --no-aslr: one address layout for every process (address_layout.hpp)
  std::string filter;    // --filter: memrel_bench's --benchmark_filter
  double min_time = 0;   // --min-time: memrel_bench's --min-time; 0: its default
  std::vector<std::string> bench_args;
  std::string out, markdown, junit, summary, json;
  std::string run_id;  // the out folder and the start time: what tells this run's halves apart
  CompareOptions options;
  // The folders this run made for --out (with rounds/, reference/, candidate/): removed again,
  // with the rounds in them, on bad input.
  std::shared_ptr<FoldersMadeHere> made = std::make_shared<FoldersMadeHere>();
};

bool is_variable_name(const std::string& name) {
  if (name.empty() || (name[0] >= '0' && name[0] <= '9')) return false;
  for (const char c : name)
    if (!(c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')))
      return false;
  return true;
}

void check_side(Side& side) {
  const std::string option = "--" + side.role + "-bench";
  if (side.bench.empty()) {
    side.bench = bench_beside_executable();
    if (side.bench.empty())  // the build's state, not the user's input: exit 4 (the seventeenth
      // adversarial pass, c8-missing-memrel-bench-ab)
      throw MachineStateError(option + ": no memrel_bench beside " + executable_dir() +
                              " (built without Google Benchmark?); name one");
  } else if (access(side.bench.c_str(), X_OK) != 0) {
    throw std::invalid_argument(option + " " + side.bench + ": not an executable file");
  }
  std::set<std::string> names;
  for (const std::string& setting : side.environment) {
    std::size_t eq = setting.find('=');
    if (eq == 0 || eq == std::string::npos)
      throw std::invalid_argument("--" + side.role + "-env '" + one_line_text(setting) +
                                  "': not NAME=VALUE");
    // A name a program can look up (POSIX's: letters, digits, '_', not first a digit): one
    // holding a newline or a blank was set and recorded, a variable no one reads (the
    // sixty-seventh adversarial pass, c6-ab-env-name-not-a-name).
    if (!is_variable_name(setting.substr(0, eq)))
      throw std::invalid_argument("--" + side.role + "-env '" + one_line_text(setting) + "': '" +
                                  one_line_text(setting.substr(0, eq)) +
                                  "' is not a variable name (ASCII letters, digits and _, not "
                                  "first a digit)");
    // One value a name: the process got the last, the results recorded both (the fiftieth
    // adversarial pass, c6-ab-env-name-twice).
    if (!names.insert(setting.substr(0, eq)).second)
      throw std::invalid_argument("--" + side.role + "-env " + setting.substr(0, eq) +
                                  ": given twice; give each name once");
    if (std::string problem = bench_environment_problem(setting); !problem.empty())
      throw std::invalid_argument("--" + side.role + "-env " + problem);
    // A search path given for a side by the rule memrel's own follows for every child: an empty
    // or relative entry is the working folder, and the candidate's memrel_bench loaded
    // ./libpwn.so (LD_PRELOAD=libpwn.so) or a ./libbenchmark.so of the working folder (the
    // sixty-sixth adversarial pass, c3-ab-candidate-env-ld-library-path-empty-entry-*).
    const std::string name = setting.substr(0, eq);
    if (name == "LD_LIBRARY_PATH" || name == "PATH") {
      if (std::string entry = working_folder_entry(setting.substr(eq + 1)); !entry.empty())
        throw std::invalid_argument("--" + side.role + "-env " + setting + ": " + entry +
                                    ": no program memrel starts searches the working folder "
                                    "(docs/inputs.md, \"Code\"); give absolute folders outside it");
    }
  }
  if (std::string problem = inherited_bench_environment_problem(); !problem.empty())
    throw std::invalid_argument(problem);
}

// The side's NAME=VALUE settings (checked by check_side) as the child's environment.
std::map<std::string, std::string> environment_of(const Side& side) {
  std::map<std::string, std::string> env;
  for (const std::string& setting : side.environment) {
    const std::size_t eq = setting.find('=');
    env[setting.substr(0, eq)] = setting.substr(eq + 1);
  }
  return env;
}

nlohmann::json ab_context(const Side& side, const std::string& backend, const AbArgs& a) {
  return {{"role", side.role},
          {"backend", backend},
          {"bench", side.bench},
          {"environment", side.environment},
          {"rounds", a.rounds},
          {"run", a.run_id},
          {"order",
           "per backend, round by round: reference then candidate in odd rounds, candidate then "
           "reference in even rounds"},
          {"filter", a.filter},
          {"min_time", a.min_time},
          {"bench_args", a.bench_args},
          {"cpus", a.cpus},
          {"no_aslr", a.no_aslr}};
}

// A round's files, without .json or .log: OUT/rounds/ROLE-NAME-ROUND, named after --backend's
// name on both sides.
std::string round_stem(const std::string& rounds_dir, const Side& side,
                       const std::string& backend_name, int round) {
  return rounds_dir + "/" + side.role + "-" + file_name_piece(backend_name) + "-" +
         std::to_string(round);
}

// The merged file of one side: OUT/ROLE/bench-NAME.json.
std::string merged_path(const AbArgs& a, const Side& side, const std::string& backend_name) {
  return a.out + "/" + side.role + "/" + bench_file_name(backend_name);
}

// The output rule (docs/inputs.md, "Outputs") for every file ab may write, before the first
// round: a link, FIFO or folder at a round's file or a merged one was found only after every
// round had run (the fifth pass). Each is checked again as it is put in place.
void check_ab_outputs(const AbArgs& a, const std::vector<std::string>& backend_names,
                      const std::vector<std::string>& backend_inputs, const GlobalOptions& global) {
  std::vector<std::string> inputs = {a.reference.bench, a.candidate.bench, a.candidate.backend};
  inputs.insert(inputs.end(), a.backends.begin(), a.backends.end());
  inputs.insert(inputs.end(), backend_inputs.begin(), backend_inputs.end());
  // A library a side preloads is loaded by every one of its rounds: an input as well (the
  // twentieth adversarial pass, c1-ab-markdown-onto-reference-env-preload). ld.so splits the
  // list at colons and spaces.
  for (const Side* side : {&a.reference, &a.candidate})
    for (const auto& [name, value] : environment_of(*side))
      if (name == "LD_PRELOAD")
        for (std::size_t start = 0; start < value.size();) {
          const std::size_t end = std::min(value.find_first_of(": ", start), value.size());
          if (end > start) inputs.push_back(value.substr(start, end - start));
          start = end + 1;
        }
  check_output_folder(a.out, inputs, "--out");
  for (const char* sub : {"rounds", "reference", "candidate"})
    check_output_folder(a.out + "/" + sub, inputs, "--out");
  const int most_rounds = a.rounds * a.looks;
  for (const std::string& name : backend_names) {
    for (const Side* side : {&a.reference, &a.candidate}) {
      check_output_file(merged_path(a, *side, name), inputs, "--out");
      for (int round = 1; round <= most_rounds; ++round) {
        const std::string stem = round_stem(a.out + "/rounds", *side, name, round);
        check_output_file(stem + ".json", inputs, "--out");
        check_output_file(stem + ".log", inputs, "--out");
      }
    }
  }
  check_comparison_outputs({a.markdown, a.junit, a.summary, a.json}, inputs, global,
                           {a.out + "/rounds", a.out + "/reference", a.out + "/candidate"});
  // Nor is a file output --out itself, which ab makes a folder: `--out A --junit A` ran every
  // round, then failed at the write naming no option and removed A with the rounds (the
  // forty-fourth adversarial pass, c2-ab-file-output-is-out-folder).
  for (const auto& [path, option] : {std::pair<std::string, const char*>{a.markdown, "--markdown"},
                                     {a.junit, "--junit"},
                                     {a.summary, "--summary"},
                                     {a.json, "--json"}}) {
    if (!path.empty() && same_output_path(path, a.out))
      throw OutputError(std::string(option) + " " + path +
                        ": the same path as --out, the folder ab writes its rounds in");
    // Nor on --out's way: ab made --out inside the file's path and ran every round, then the
    // file could not be written (the forty-seventh adversarial pass).
    if (!path.empty() && output_path_under(a.out, path))
      throw OutputError("--out " + a.out + ": lies under " + option + " " + path +
                        ", a file ab writes; write them apart");
  }
}

// What one side runs: its memrel_bench with the options both sides share.
BenchCommand command_of(const Side& side, const AbArgs& a, const GlobalOptions& global) {
  BenchCommand command;
  command.bench = side.bench;
  command.backends_dir = global.backends_dir;
  command.quick = a.quick;
  command.results_problem = benchmark_results_problem;
  command.records_a_failure = benchmark_results_record_a_failure;
  // As bench passes them (cli/bench_command.cpp): --bench-arg may not set either.
  if (!a.filter.empty()) command.bench_args.push_back("--benchmark_filter=" + a.filter);
  if (a.min_time > 0) {
    std::ostringstream value;
    value << a.min_time;
    command.bench_args.push_back("--min-time=" + value.str());
  }
  command.bench_args.insert(command.bench_args.end(), a.bench_args.begin(), a.bench_args.end());
  return command;
}

// A backend as given (a name, a name in the backends folder, or a file's path) and its name.
// The files it reads (a backend file and the library it names) are inputs of ab: its outputs
// were written over the library every round loads, exit 0 (the twentieth adversarial pass,
// c1-ab-markdown-onto-backend-library), where run, cell, advise and bench refused it.
struct GivenBackend {
  std::string given, name;
  std::vector<std::string> input_files;
  BackendInfo info;  // as resolved from `given`
};

GivenBackend resolved(const std::string& given, const GlobalOptions& global) {
  BackendInfo backend = resolve_backend(given, global.backends_dir);
  return {given, backend.name, backend.input_files, backend};
}

// One backend's rounds so far, per role.
struct BackendRounds {
  GivenBackend backend;
  std::map<std::string, std::vector<BenchmarkRun>> runs;  // role -> one per round
  bool available = true;
  int done() const {
    auto it = runs.find("candidate");
    return it == runs.end() ? 0 : static_cast<int>(it->second.size());
  }
};

std::string join(const std::vector<std::string>& parts) {
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : ", ") + p;
  return out;
}

// The latency rows a further look could still decide (Row::undecided).
std::vector<std::string> undecided_subjects(const Report& report) {
  std::vector<std::string> open;
  for (const FileComparison& f : report.files)
    for (const Row& r : f.rows)
      if (r.undecided) open.push_back(r.subject);
  return open;
}

// A latency regression found at a look stays one at the later looks (its share of alpha was
// spent on it), while further rounds decide what was left undecided: a later look tests every
// figure again, over more rounds but at a smaller alpha, and could otherwise take it back.
struct EarlierRegression {
  std::size_t look = 0, rounds = 0;
  std::string change;
  std::optional<double> p_value;
};
using RowKey = std::string;  // file, subject and metric

RowKey key_of(const FileComparison& f, const Row& r) {
  return f.title + "\n" + r.subject + "\n" + r.metric;
}

void remember_regressions(const Report& report, std::size_t look, std::size_t rounds,
                          std::map<RowKey, EarlierRegression>& found) {
  for (const FileComparison& f : report.files)
    for (const Row& r : f.rows)
      if (r.verdict == Verdict::kRegression && r.p_value && !found.count(key_of(f, r)))
        found[key_of(f, r)] = {look, rounds, r.change, r.p_value};
}

void keep_earlier_regressions(Report& report, const std::map<RowKey, EarlierRegression>& found) {
  for (FileComparison& f : report.files) {
    for (Row& r : f.rows) {
      auto it = found.find(key_of(f, r));
      if (it == found.end() || r.verdict == Verdict::kRegression) continue;
      const EarlierRegression& e = it->second;
      r.verdict = Verdict::kRegression;
      r.reason = "a regression at look " + std::to_string(e.look) + " (" +
                 std::to_string(e.rounds) + " rounds, " + e.change +
                 (e.p_value ? ", p=" + format::printf_string("%.3g", *e.p_value) : "") +
                 "); later rounds were for other figures";
    }
  }
}

// Round `round` of one backend: both sides, in the alternating order. An exit code when the run
// must end here (a side failed); marks the backend unavailable when its reference cannot run
// here in the first round.
std::optional<int> run_round(const AbArgs& a, const std::map<const Side*, BenchCommand>& commands,
                             const std::optional<GivenBackend>& candidate_backend,
                             const std::string& rounds_dir, BackendRounds& b, int round,
                             std::vector<std::string>& unavailable) {
  const GivenBackend& backend = b.backend;
  // The order alternates, so that going first or second in a round (a machine warming up
  // or cooling down between the two) falls on both sides alike and cancels out of the
  // paired family test instead of reading as a change.
  const std::vector<const Side*> order = round % 2
                                             ? std::vector<const Side*>{&a.reference, &a.candidate}
                                             : std::vector<const Side*>{&a.candidate, &a.reference};
  for (const Side* side : order) {
    const GivenBackend& runs_here =
        side == &a.candidate && candidate_backend ? *candidate_backend : backend;
    const std::string stem = round_stem(rounds_dir, *side, backend.name, round);
    BenchJob job;
    job.backend = runs_here.given;
    job.name = runs_here.name;
    job.json_path = stem + ".json";
    job.log_path = stem + ".log";
    job.environment = environment_of(*side);
    // A usage error (exit 2) is thrown as one: the same for every round.
    const BenchOutcome r = run_bench_job(commands.at(side), job);
    if (r.status == BenchStatus::kFailed || r.status == BenchStatus::kCrashed ||
        r.status == BenchStatus::kTimeout) {
      std::cerr << "memrel ab: the " << side->role << " " << job.name << " failed in round "
                << round << ": " << bench_end_text(r) << " (" << job.log_path << ")\n";
      // The candidate failing is its regression, as a cell that newly crashes is compare's;
      // the reference failing leaves nothing to compare against: not a verdict (1).
      return side == &a.reference ? exit_code::kInternalError : exit_code::kRegression;
    }
    if (r.status == BenchStatus::kNoneMatched) {
      // A bad option when the reference matches nothing in its first round (it runs first
      // there); once it has matched, a side that runs no benchmark of the filter has failed: a
      // candidate's memrel_bench that wrote an empty file was "--filter matches no benchmark",
      // exit 2 (the forty-ninth adversarial pass, c8-ab-candidate-without-benchmarks-blamed-on-
      // filter).
      if (round == 1 && side == &a.reference)
        throw std::invalid_argument(filter_option_text(a.filter) + " matches no benchmark of " +
                                    job.name + ": nothing to compare");
      std::cerr << "memrel ab: the " << side->role << " " << job.name << " ran no benchmark"
                << (a.filter.empty() ? std::string() : " of " + filter_option_text(a.filter))
                << " in round " << round << ", where the reference's ran some (" << job.log_path
                << ")\n";
      return side == &a.reference ? exit_code::kInternalError : exit_code::kRegression;
    }
    if (r.status == BenchStatus::kUnavailable) {  // memrel_bench says why
      if (round > 1 || side != &a.reference) {
        // The reference ran here, so the candidate's side is what cannot run.
        std::cerr << "memrel ab: the " << side->role << " " << job.name
                  << " wrote no results in round " << round << ": " << one_line_text(r.last_line)
                  << " (" << job.log_path << ")\n";
        return exit_code::kRegression;
      }
      unavailable.push_back(backend.name + ": " + one_line_text(r.last_line));
      b.available = false;
      return std::nullopt;
    }
    b.runs[side->role].push_back(read_benchmark_file(job.json_path));
  }
  return std::nullopt;
}

int run_ab(AbArgs& a, const GlobalOptions& global) {
  // From here on SIGINT and SIGTERM are requests: the launcher ends the running memrel_bench.
  InterruptRequests interrupts;
  check_side(a.reference);
  check_side(a.candidate);
  // CLI::Range lets nan through (every comparison with it is false), as bench's does.
  if (std::isnan(a.min_time))
    throw std::invalid_argument("--min-time nan: not a number of seconds");
  // Commas separate backends and a configuration's settings alike, as run -b reads them.
  a.backends = split_backend_list(a.backends);
  if (a.backends.empty()) throw std::invalid_argument("--backend: name at least one");
  if (!a.candidate.backend.empty() && a.backends.size() != 1)
    throw std::invalid_argument("--candidate-backend: compares against exactly one --backend");
  // Every backend resolved before the first round, so that a typo costs nothing; the files are
  // named after the backends' names, never their paths.
  std::vector<GivenBackend> backends;
  BenchFileClaims claims;
  for (const std::string& given : a.backends) {
    backends.push_back(resolved(given, global));
    claims.claim(given, backends.back().name);
  }
  std::optional<GivenBackend> candidate_backend;
  if (!a.candidate.backend.empty()) candidate_backend = resolved(a.candidate.backend, global);
  // Parsed before anything is written: a bad list is bad input (exit 2).
  if (!a.cpus.empty()) pin_to_cpus(parse_cpu_list(a.cpus, "--cpus"), "--cpus");
  if (a.no_aslr) disable_address_randomization("--no-aslr");
  const std::string started = utc_now_iso8601();
  // With the process id: two runs started in one second (a CI matrix) shared one folder.
  if (a.out.empty())
    a.out = install_layout().output_dir + "/runs/ab-" + started + "-" + std::to_string(getpid());
  a.run_id = a.out + " " + started;
  std::vector<std::string> backend_names, backend_inputs;
  for (const GivenBackend& b : backends) {
    backend_names.push_back(b.name);
    backend_inputs.insert(backend_inputs.end(), b.input_files.begin(), b.input_files.end());
  }
  if (candidate_backend)
    backend_inputs.insert(backend_inputs.end(), candidate_backend->input_files.begin(),
                          candidate_backend->input_files.end());
  check_ab_outputs(a, backend_names, backend_inputs, global);
  // Each side's backends load under that side's settings, checked as bench and run check them:
  // found inside the first round, a library refusing MEMREL_EXAMPLE_SLOWDOWN_NS=nan was the
  // reference's exit 4 or the candidate's "regression", exit 1, and a candidate backend whose
  // library is missing exit 1 (the forty-first adversarial pass, c4-ab-env-slowdown-nan-exit4,
  // c8-ab-candidate-env-bad-value-exit1, c8-ab-candidate-backend-missing-library-exit1).
  const RunOptions check_options =
      library_check_options(global.backends_dir, 300);  // run's cell timeout
  for (const Side* side : {&a.reference, &a.candidate}) {
    LibraryCheck check;
    check.environment = environment_of(*side);
    check.quiet = global.verbosity < 0;
    check.whose = "the " + side->role + "'s backend" +
                  (side->environment.empty() ? std::string() : " (with --" + side->role + "-env)") +
                  ": ";
    const std::vector<GivenBackend>& runs = side == &a.candidate && candidate_backend
                                                ? std::vector<GivenBackend>{*candidate_backend}
                                                : backends;
    for (const GivenBackend& b : runs)
      refuse_backend_whose_library_fails(check_options, b.given, b.info, check);
  }
  // Asked last of the checks, as it starts a process; this build's own is one.
  for (const Side* side : {&a.reference, &a.candidate}) {
    if (side->bench == bench_beside_executable()) continue;
    const std::string problem = bench_program_problem(side->bench);
    if (int signal = InterruptRequests::received(); signal != 0)  // during the probe
      throw Interrupted(signal, "interrupted by " + signal_name(signal) + "; nothing run");
    if (!problem.empty())
      throw std::invalid_argument("--" + side->role + "-bench " + side->bench + ": " + problem);
  }
  if (!a.filter.empty()) {
    const std::string problem = bench_filter_problem(a.reference.bench, a.filter);
    if (int signal = InterruptRequests::received(); signal != 0)  // during the probe
      throw Interrupted(signal, "interrupted by " + signal_name(signal) + "; nothing run");
    if (!problem.empty())
      throw std::invalid_argument(filter_option_text(a.filter) + ": " + problem);
  }
  const std::string rounds_dir = a.out + "/rounds";
  // Made for this run, --out's missing folders go again with it on bad input (the default
  // results/runs/ was left behind: the fifteenth adversarial pass, c9-ab-bad-filter-leftover-and-
  // two-lines); a link there, even a dangling one or a loop, is the user's and is never taken for
  // a folder of this run (the refused ab removed it: the twenty-fifth adversarial pass,
  // c2-ab-out-under-dangling-symlink-deletes-it).
  a.made->make("--out", a.out);
  // One ab per --out: two at once wrote over each other's rounds, and one's verdict was of the
  // other's candidate (the fifty-sixth adversarial pass, c2-two-ab-one-out), where run and advise
  // refuse a second writer of their journal. The folder is locked for this process's life
  // (flock: released however it ends); not passed on to the rounds (close-on-exec).
  static int out_lock = -1;
  if (out_lock >= 0) close(out_lock);  // an earlier ab of this process (the tests run several)
  out_lock = open(a.out.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (out_lock >= 0 && flock(out_lock, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK)
    throw std::invalid_argument("--out " + a.out +
                                ": in use by an ab that is still going; give another --out");
  for (const std::string& folder : {rounds_dir, a.out + "/reference", a.out + "/candidate"})
    a.made->make("--out", folder);
  // -q: the table on stdout is the answer; the progress below is left out, what went wrong not.
  const bool quiet = global.verbosity < 0;
  std::map<const Side*, BenchCommand> commands = {
      {&a.reference, command_of(a.reference, a, global)},
      {&a.candidate, command_of(a.candidate, a, global)}};
  // Every input of the A/B, never removed as a leftover temporary file (bench_launcher).
  for (auto& [side, command] : commands) {
    command.inputs = backend_inputs;
    command.inputs.insert(command.inputs.end(), {a.reference.bench, a.candidate.bench});
  }

  // Progress on stderr: stdout is the Markdown table, which CI pipes into its summary.
  const auto step = static_cast<std::size_t>(a.rounds);
  const std::size_t most = step * static_cast<std::size_t>(a.looks);
  const std::vector<std::size_t> looks = look_rounds(step, most);
  const std::vector<double> alphas = look_alphas(a.options.alpha, step, most);
  // Said once the first round has run: a --filter that matches nothing is found there, and its
  // one line was the second (c9-ab-bad-filter-leftover-and-two-lines).
  bool said_start = quiet;
  const auto say_start = [&] {
    if (said_start) return;
    said_start = true;
    std::cerr << "memrel ab: " << a.rounds << " rounds, interleaved"
              << (looks.size() > 1 ? ", up to " + std::to_string(looks.back()) + " while undecided"
                                   : std::string())
              << ", into " << a.out << "\n";
  };
  std::vector<BackendRounds> all;
  for (const GivenBackend& backend : backends) all.push_back({backend, {}, true});
  std::vector<std::string> unavailable;
  std::map<RowKey, EarlierRegression> regressions;  // found at a look, kept at the later ones
  for (std::size_t look = 0; look < looks.size(); ++look) {
    for (BackendRounds& b : all) {
      if (!b.available) continue;
      while (static_cast<std::size_t>(b.done()) < looks[look]) {
        const int round = b.done() + 1;
        if (const std::optional<int> stop =
                run_round(a, commands, candidate_backend, rounds_dir, b, round, unavailable))
          return *stop;
        say_start();
        if (!b.available) break;
        if (!quiet)
          std::cerr << "  " << b.backend.name << ": round " << round << " of " << looks[look]
                    << " done\n"
                    << std::flush;
      }
    }
    std::size_t compared = 0;
    // The files this run wrote, and no other: anything else in reference/ or candidate/ (a
    // user's file, an earlier run's backend) is neither read nor touched (the fifth pass: a
    // stray mine.json was read as a benchmark file, exit 2 after every round).
    std::vector<InputPair> pairs;
    const std::string rename_from = candidate_backend ? candidate_backend->name : "";
    for (const BackendRounds& b : all) {
      if (!b.available) continue;
      for (const Side* side : {&a.reference, &a.candidate}) {
        nlohmann::json context = ab_context(*side, b.backend.name, a);
        context["rounds"] = b.done();
        context["look"] = {{"of", looks.size()},
                           {"number", look + 1},
                           {"alpha", alphas[look]},
                           {"rule", "Pocock-type alpha spending over looks every --rounds rounds"}};
        nlohmann::json merged =
            merge_rounds(b.runs.at(side->role), context, side == &a.candidate ? rename_from : "",
                         b.backend.name);
        write_file_atomically(merged_path(a, *side, b.backend.name), merged.dump(1) + "\n");
      }
      pairs.push_back({bench_file_name(b.backend.name), merged_path(a, a.reference, b.backend.name),
                       merged_path(a, a.candidate, b.backend.name)});
      ++compared;
    }
    if (look == 0 && compared == 0) {
      // One line, the reasons in it: they were lines of their own before the error (the tenth
      // adversarial pass, c10-ab-all-unavailable-two-lines).
      std::string why;
      for (const std::string& u : unavailable) why += (why.empty() ? "" : "; ") + u;
      throw std::invalid_argument("nothing to compare: every backend was unavailable here (" + why +
                                  ")");
    }
    if (look == 0)
      for (const std::string& u : unavailable) std::cerr << "  unavailable here: " << u << "\n";
    CompareOptions options = a.options;
    options.interleaved = true;
    options.alpha = alphas[look];
    std::sort(pairs.begin(), pairs.end(),
              [](const InputPair& x, const InputPair& y) { return x.name < y.name; });
    Report report = compare_pairs(pairs, a.out + "/reference", a.out + "/candidate", options);
    // A reference whose files hold no benchmark of the candidate's leaves nothing to compare
    // against, as a reference that cannot run does (exit 4, --help): it was "0 compared, 1 new:
    // PASS", exit 0 (the thirty-second adversarial pass, c8-ab-empty-reference-passes).
    if (report.summary().compared == 0 && report.summary().missing == 0)
      throw MachineStateError(
          "nothing to compare: the reference's memrel_bench wrote no "
          "benchmark the candidate ran (its results in " +
          a.out + "/rounds); is --reference-bench a memrel_bench of these backends?");
    remember_regressions(report, look + 1, looks[look], regressions);
    keep_earlier_regressions(report, regressions);
    const std::vector<std::string> open = undecided_subjects(report);
    // More rounds while a latency is undecided, up to the last look; a benchmark gone missing
    // will not come back with more rounds.
    if (open.empty() || look + 1 == looks.size() || report.summary().missing > 0) {
      if (looks.size() > 1 && !quiet)
        std::cerr << "memrel ab: decided at look " << look + 1 << " of " << looks.size() << ", "
                  << looks[look] << " rounds, alpha " << alphas[look] << " at this look"
                  << (open.empty() ? "" : " (still undecided: " + join(open) + ")") << "\n";
      return print_and_write(report, options, {a.markdown, a.junit, a.summary, a.json});
    }
    if (!quiet)
      std::cerr << "memrel ab: look " << look + 1 << " of " << looks.size() << " (" << looks[look]
                << " rounds, alpha " << alphas[look] << "): undecided " << join(open) << "; "
                << looks[look + 1] - looks[look] << " more rounds\n";
  }
  return exit_code::kInternalError;  // not reached: the last look returns
}

}  // namespace

RunSubcommand attach_ab(CLI::App& sub, const GlobalOptions& global) {
  auto args = std::make_shared<AbArgs>();
  AbArgs& a = *args;
  sub.footer(kAbExitCodes);
  sub.add_option("--backend,-b", a.backends,
                 "Backend to benchmark on both sides (repeat or comma-separate): a built-in name, "
                 "a configuration NAME:KEY=VALUE,... (as memrel run -b), the name of a backend "
                 "file in --backends-dir, or a backend file's path")
      ->required();
  sub.add_option("--candidate-backend", a.candidate.backend,
                 "The candidate runs this backend instead (e.g. another backend file); its "
                 "benchmarks are compared under --backend's name");
  sub.add_option("--reference-bench", a.reference.bench,
                 "The reference's memrel_bench (another build); default: this build's");
  sub.add_option("--candidate-bench", a.candidate.bench,
                 "The candidate's memrel_bench (another build); default: this build's");
  sub.add_option("--reference-env", a.reference.environment,
                 "NAME=VALUE set for the reference only (repeatable): a configuration, "
                 "LD_LIBRARY_PATH, MEMREL_TORCH_PLUGIN...");
  sub.add_option("--candidate-env", a.candidate.environment,
                 "NAME=VALUE set for the candidate only (repeatable)");
  sub.add_option("--rounds", a.rounds,
                 "Processes per side, interleaved; each gives one sample (its median) to the "
                 "rank test, which needs 5 a side; the paired family test needs 6")
      ->capture_default_str()
      ->check(CLI::Range(static_cast<int>(kMinRepetitions), 1000));
  sub.add_option("--looks", a.looks,
                 "At most this many looks of --rounds rounds each: after a look with a slowdown "
                 "beyond the minimum change that is suggestive but not significant, run --rounds "
                 "more (alpha spent over the looks, Pocock type); 1: no further look")
      ->capture_default_str()
      ->check(CLI::Range(1, 10));
  sub.add_option("--cpus", a.cpus,
                 "Run both sides on these CPUs only (e.g. 8 or 8-11): the scheduler then cannot "
                 "put one side's processes on faster cores than the other's; on a GPU, take CPUs "
                 "of its NUMA node (docs/ab.md)");
  sub.add_flag("--no-aslr", a.no_aslr,
               "Start every memrel_bench without address-space randomisation (as setarch -R): "
               "less noise from process to process; for one binary with two settings, not two "
               "builds, whose fixed layouts would differ in every round alike (docs/ab.md)");
  sub.add_flag("--quick", a.quick, "memrel_bench --quick on both sides");
  sub.add_option("--filter", a.filter,
                 "Only the benchmarks whose names match this regular expression "
                 "(--benchmark_filter), e.g. '^pair/'")
      ->check(no_control_characters());
  sub.add_option("--min-time", a.min_time,
                 "Google Benchmark's minimum time per repetition, in seconds (default: "
                 "memrel_bench's, docs/benchmarks.md)")
      ->check(CLI::Range(1e-6, 86400.0))
      ->check(exact_bounds(1e-6, 86400.0));
  sub.add_option("--bench-arg", a.bench_args,
                 "An argument for memrel_bench on both sides (repeatable; only those of "
                 "docs/inputs.md), e.g. --bench-arg=--benchmark_repetitions=9")
      ->check(CLI::Validator([](std::string& argument) { return bench_arg_problem(argument); }, "",
                             "bench-arg"));
  sub.add_option("--out", a.out,
                 "Folder for the rounds (rounds/) and the merged files (reference/, candidate/); "
                 "default: runs/ab-<UTC time>-<process id> in memrel's outputs folder (results/ of "
                 "a build tree; "
                 "$XDG_DATA_HOME/memrel installed)")
      ->check(no_control_characters());
  sub.add_option("--markdown", a.markdown, "Also write the table to this file (atomically)");
  sub.add_option("--junit", a.junit, "Also write JUnit XML (as memrel compare --junit)");
  sub.add_option("--summary", a.summary, "Also write a one-screen Markdown summary");
  sub.add_option("--json", a.json, "Also write the verdicts as data (as memrel compare --json)");
  sub.add_option("--latency-min-change", a.options.latency_min_change,
                 "Smallest relative change of the median latency that can fail")
      ->capture_default_str()
      ->check(latency_min_change_range());
  sub.add_option("--alpha", a.options.alpha, "Significance level of the Mann-Whitney U test")
      ->capture_default_str()
      ->check(alpha_range());
  return [args, &global] {
    try {
      return run_ab(*args, global);
    } catch (const std::invalid_argument&) {
      // A bad option found in the first round (a --filter that matches nothing): exit
      // 2 leaves no folder of its own behind (the third adversarial pass found `rounds/` left).
      args->made->remove_with_contents();
      throw;
    } catch (...) {
      // Any other failure (the machine's: out of descriptors before the first round, exit 4)
      // leaves no empty folder of its own; rounds already written stay with theirs (the
      // forty-sixth adversarial pass, c8-ab-emfile-leaves-skeleton).
      args->made->remove_empty();
      throw;
    }
  };
}

}  // namespace memrel::cli
