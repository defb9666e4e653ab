// `memrel ab`: a reference and a candidate benchmarked on one machine, interleaved (for each
// backend: reference, candidate, reference, candidate, ...), and gated with `memrel compare`'s
// rules: latency by the rank test over the rounds, bytes exactly as ever (docs/ab.md). The way
// to gate latency on a fleet where every night may get another machine: both sides meet the same
// machine, the same hour and the same drift.
#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <utility>

#include "cli/comparison_outputs.hpp"
#include "cli/exit_codes.hpp"
#include "cli/subcommand.hpp"
#include "gate/compare.hpp"
#include "gate/read/interleaved_rounds.hpp"
#include "gate/rules/tolerances.hpp"
#include "platform/atomic_file.hpp"
#include "platform/install_layout.hpp"
#include "platform/run_context.hpp"

namespace memrel::cli {
namespace {

namespace fs = std::filesystem;

constexpr const char* kAbExitCodes =
    "Exit codes: 0 no regression of the candidate; 1 a regression (latency by the rank test over "
    "the rounds, bytes exactly), a benchmark missing from the candidate, or a side that failed to "
    "run; 2 unusable input (bad option, no memrel_bench, every backend unavailable here).";

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
  int rounds = 5;
  bool quick = false;
  std::vector<std::string> bench_args;
  std::string out, markdown, junit, summary;
  CompareOptions options;
};

std::string executable_dir() {
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? "." : exe.parent_path().string();
}

// memrel_bench where the build puts it (build/benchmarks/), else beside memrel.
std::string default_bench() {
  for (const std::string& candidate :
       {executable_dir() + "/benchmarks/memrel_bench", executable_dir() + "/memrel_bench"}) {
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return "";
}

void check_side(Side& side) {
  const std::string option = "--" + side.role + "-bench";
  if (side.bench.empty()) {
    side.bench = default_bench();
    if (side.bench.empty())
      throw std::invalid_argument(option + ": no memrel_bench beside " + executable_dir() +
                                  " (built without Google Benchmark?); name one");
  } else if (access(side.bench.c_str(), X_OK) != 0) {
    throw std::invalid_argument(option + " " + side.bench + ": not an executable file");
  }
  for (const std::string& setting : side.environment) {
    std::size_t eq = setting.find('=');
    if (eq == 0 || eq == std::string::npos)
      throw std::invalid_argument("--" + side.role + "-env '" + setting + "': not NAME=VALUE");
  }
}

struct BenchRun {
  int exit_code = 0;  // the process's, or 128 + signal
  std::string log;    // its stdout and stderr
};

// One memrel_bench process, its output into `log_path`. It dies with memrel (PDEATHSIG).
BenchRun run_bench(const Side& side, const std::string& backend, const AbArgs& a,
                   const std::string& json_path, const std::string& log_path) {
  std::vector<std::string> words = {side.bench, "--backend", backend};
  if (a.quick) words.push_back("--quick");
  words.push_back("--benchmark_out=" + json_path);
  words.push_back("--benchmark_out_format=json");
  words.insert(words.end(), a.bench_args.begin(), a.bench_args.end());
  std::cout.flush();
  std::cerr.flush();
  const pid_t parent = getpid();
  pid_t pid = fork();
  if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(exit_code::kInternalError);
    int log = open(log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (log >= 0) {
      dup2(log, STDOUT_FILENO);
      dup2(log, STDERR_FILENO);
    }
    for (const std::string& setting : side.environment) {
      std::size_t eq = setting.find('=');
      setenv(setting.substr(0, eq).c_str(), setting.substr(eq + 1).c_str(), 1);
    }
    std::vector<char*> argv;
    for (auto& w : words) argv.push_back(w.data());
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    dprintf(STDERR_FILENO, "cannot run %s: %s\n", argv[0], std::strerror(errno));
    _exit(exit_code::kInternalError);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  BenchRun r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  std::ifstream in(log_path);
  std::stringstream text;
  text << in.rdbuf();
  r.log = text.str();
  return r;
}

std::string last_line(std::string text) {
  while (!text.empty() && text.back() == '\n') text.pop_back();
  std::size_t nl = text.rfind('\n');
  return nl == std::string::npos ? text : text.substr(nl + 1);
}

nlohmann::json ab_context(const Side& side, const std::string& backend, const AbArgs& a) {
  return {{"role", side.role},
          {"backend", backend},
          {"bench", side.bench},
          {"environment", side.environment},
          {"rounds", a.rounds},
          {"order", "per backend: reference, candidate, reference, candidate, ..."},
          {"bench_args", a.bench_args}};
}

int run_ab(AbArgs& a) {
  check_side(a.reference);
  check_side(a.candidate);
  if (a.backends.empty()) throw std::invalid_argument("--backend: name at least one");
  if (!a.candidate.backend.empty() && a.backends.size() != 1)
    throw std::invalid_argument("--candidate-backend: compares against exactly one --backend");
  if (a.out.empty()) a.out = install_layout().output_dir + "/runs/ab-" + utc_now_iso8601();
  const std::string rounds_dir = a.out + "/rounds";
  std::error_code ec;
  fs::create_directories(rounds_dir, ec);
  if (ec) throw std::invalid_argument("--out " + a.out + ": " + ec.message());

  // Progress on stderr: stdout is the Markdown table, which CI pipes into its summary.
  std::cerr << "memrel ab: " << a.rounds << " rounds, interleaved, into " << a.out << "\n";
  std::vector<std::string> unavailable;
  std::size_t compared = 0;
  for (const std::string& backend : a.backends) {
    std::map<std::string, std::vector<BenchmarkRun>> runs;  // role -> one per round
    bool ran = true;
    for (int round = 1; round <= a.rounds && ran; ++round) {
      for (const Side* side : {&a.reference, &a.candidate}) {
        const std::string name = side->backend.empty() ? backend : side->backend;
        const std::string stem =
            rounds_dir + "/" + side->role + "-" + backend + "-" + std::to_string(round);
        std::remove((stem + ".json").c_str());
        BenchRun r = run_bench(*side, name, a, stem + ".json", stem + ".log");
        if (r.exit_code == 2)
          throw std::invalid_argument(side->bench + " --backend " + name + ": " + last_line(r.log));
        if (r.exit_code != 0) {
          std::cerr << "memrel ab: the " << side->role << " " << name << " failed in round "
                    << round << " (exit " << r.exit_code << "): " << last_line(r.log) << " ("
                    << stem << ".log)\n";
          return exit_code::kRegression;
        }
        if (!fs::exists(stem + ".json")) {  // unavailable: memrel_bench says why on stderr
          if (round > 1 || side != &a.reference) {
            // The reference ran here, so the candidate's side is what cannot run.
            std::cerr << "memrel ab: the " << side->role << " " << name
                      << " wrote no results in round " << round << ": " << last_line(r.log) << " ("
                      << stem << ".log)\n";
            return exit_code::kRegression;
          }
          unavailable.push_back(backend + ": " + last_line(r.log));
          ran = false;
          break;
        }
        runs[side->role].push_back(read_benchmark_file(stem + ".json"));
      }
      std::cerr << "  " << backend << ": round " << round << " of " << a.rounds << " done\n"
                << std::flush;
    }
    if (!ran) continue;
    const std::string rename_from = a.candidate.backend;
    for (const Side* side : {&a.reference, &a.candidate}) {
      nlohmann::json merged = merge_rounds(runs[side->role], ab_context(*side, backend, a),
                                           side == &a.candidate ? rename_from : "", backend);
      fs::create_directories(a.out + "/" + side->role);
      write_file_atomically(a.out + "/" + side->role + "/bench-" + backend + ".json",
                            merged.dump(1) + "\n");
    }
    ++compared;
  }
  for (const std::string& u : unavailable) std::cerr << "  unavailable here: " << u << "\n";
  if (compared == 0)
    throw std::invalid_argument("nothing to compare: every backend was unavailable here");

  CompareOptions options = a.options;
  options.interleaved = true;
  Report report = compare_paths(a.out + "/reference", a.out + "/candidate", options);
  return print_and_write(report, options, {a.markdown, a.junit, a.summary});
}

}  // namespace

RunSubcommand attach_ab(CLI::App& sub, const GlobalOptions&) {
  auto args = std::make_shared<AbArgs>();
  AbArgs& a = *args;
  sub.footer(kAbExitCodes);
  sub.add_option("--backend,-b", a.backends,
                 "Backend to benchmark on both sides (repeatable): a built-in name or a backend "
                 "file")
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
                 "rank test, which needs 5 a side")
      ->capture_default_str()
      ->check(CLI::Range(static_cast<int>(kMinRepetitions), 1000));
  sub.add_flag("--quick", a.quick, "memrel_bench --quick on both sides");
  sub.add_option("--bench-arg", a.bench_args,
                 "An argument for memrel_bench on both sides (repeatable), e.g. "
                 "--bench-arg=--benchmark_filter=pair/");
  sub.add_option(
      "--out", a.out,
      "Folder for the rounds (rounds/) and the merged files (reference/, candidate/); "
      "default: runs/ab-<UTC time> in memrel's outputs folder (results/ of a build tree; "
      "$XDG_DATA_HOME/memrel installed)");
  sub.add_option("--markdown", a.markdown, "Also write the table to this file (atomically)");
  sub.add_option("--junit", a.junit, "Also write JUnit XML (as memrel compare --junit)");
  sub.add_option("--summary", a.summary, "Also write a one-screen Markdown summary");
  sub.add_option("--latency-min-change", a.options.latency_min_change,
                 "Smallest relative change of the median latency that can fail")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  sub.add_option("--alpha", a.options.alpha, "Significance level of the Mann-Whitney U test")
      ->capture_default_str()
      ->check(CLI::Range(1e-9, 0.5));
  return [args] { return run_ab(*args); };
}

}  // namespace memrel::cli
