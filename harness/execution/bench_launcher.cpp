#include "harness/execution/bench_launcher.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <thread>
#include <vector>

#include "harness/results/results.hpp"
#include "platform/atomic_file.hpp"
#include "platform/child_process.hpp"
#include "platform/cpu_time_limit.hpp"
#include "platform/cut_json.hpp"
#include "platform/decimal_text.hpp"
#include "platform/error_text.hpp"
#include "platform/executable_path.hpp"
#include "platform/file_kind.hpp"
#include "platform/input_rules.hpp"
#include "platform/interrupt.hpp"
#include "platform/machine_state_error.hpp"
#include "platform/one_line_text.hpp"
#include "platform/owned_fd.hpp"
#include "platform/process_state.hpp"
#include "platform/program_question.hpp"

namespace memrel {
namespace {

using Clock = std::chrono::steady_clock;

// How often the launcher looks at its children, their deadlines and the signals it was sent: the
// runner's interval (harness/execution/runner.cpp).
constexpr auto kPollInterval = std::chrono::milliseconds(5);

// memrel_bench's exit code for a bad option or an unknown backend (docs/benchmarks.md).
constexpr int kBenchUsageExit = 2;

// memrel_bench's own word for a usage error (benchmarks/main.cpp: "memrel_bench: ..."; Google
// Benchmark's "ARGV0: error: unrecognized command-line flag: ..."). An exit 2 without it is not
// memrel_bench refusing its input: a backend's library that ends the process while loading exits
// with any code (the fortieth adversarial pass, c8-bench-library-exit2-read-as-bad-input).
bool says_usage_error(const std::string& line) {
  const std::string own = "memrel_bench: ";
  return (line.compare(0, own.size(), own) == 0 &&
          line.compare(own.size(), 15, "internal error:") != 0) ||
         line.find(": error: unrecognized command-line flag") != std::string::npos;
}

struct Running {
  std::size_t index = 0;
  pid_t pid = 0;
  OwnedFd output;  // its stdout and stderr
  Clock::time_point start, deadline;
};

// JOB.log_path + ".tmp-PID": the log as memrel_bench writes it, renamed over log_path once it has
// ended (finish_log), so that a hard link at log_path keeps its bytes (the fifth pass: a link of
// another file at bench-null.log was written through).
std::string log_temporary_path(const BenchJob& job) {
  return job.log_path + ".tmp-" + std::to_string(getpid());
}

// An anonymous file for the child's stdout and stderr (close-on-exec: the child gets it as
// those only). memrel writes the log from it itself (write_log_temporary): the child's own writes
// fail without a word, and on a full disk a bench wrote an empty log and said "ok" (the
// thirteenth adversarial pass, c8-disk-full-bench-logs).
OwnedFd open_output() { return OwnedFd(anonymous_file()); }

// The job's log, what its process wrote (`output`), in its temporary file beside log_path;
// MachineStateError (the temporary removed) where it cannot be written whole.
void write_log_temporary(const BenchJob& job, int output) {
  if (job.log_path.empty()) return;
  // This process's name, cleared (or refused, an input's) before the job started.
  const std::string tmp = log_temporary_path(job);
  OwnedFd fd(open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644));
  int err = fd.get() < 0 ? errno : 0;
  // Copied a piece at a time: a memrel_bench that printed gigabytes was held whole in memory
  // (the forty-ninth adversarial pass, c8-bench-output-held-whole-in-memory).
  std::vector<char> piece(1 << 20);
  for (off_t offset = 0; err == 0;) {
    const ssize_t got = pread(output, piece.data(), piece.size(), offset);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) err = errno;
    if (got <= 0) break;
    offset += got;
    for (ssize_t done = 0; err == 0 && done < got;) {
      const ssize_t n = write(fd.get(), piece.data() + done, static_cast<std::size_t>(got - done));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0)
        err = n < 0 ? errno : EIO;
      else
        done += n;
    }
  }
  if (err == 0 && fsync(fd.get()) != 0) err = errno;
  if (err != 0) {
    std::remove(tmp.c_str());
    throw MachineStateError(job.log_path + ": cannot write the log of " + job.name + " (" +
                            std::strerror(err) + "); not kept");
  }
}

// The log put in place once its process has ended, by the output rule checked again at the
// rename (docs/inputs.md, "Outputs").
void finish_log(const BenchJob& job) {
  if (job.log_path.empty()) return;
  const std::string tmp = log_temporary_path(job);
  try {
    check_output_file(job.log_path);
  } catch (...) {
    std::remove(tmp.c_str());
    throw;
  }
  if (std::rename(tmp.c_str(), job.log_path.c_str()) != 0) {
    const int err = errno;
    std::remove(tmp.c_str());
    throw MachineStateError(job.log_path + ": cannot put the log in place (" + error_text(err) +
                            ")");
  }
}

// The log of a job whose outcome could not be had, put in place where it can be, else removed;
// never an error of its own.
void keep_log_if_it_can_be(const BenchJob& job, int output) {
  if (job.log_path.empty()) return;
  try {
    write_log_temporary(job, output);
    finish_log(job);
  } catch (const std::exception&) {
    std::remove(log_temporary_path(job).c_str());
  }
}

std::string last_line(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  std::size_t nl = text.rfind('\n');
  return nl == std::string::npos ? text : text.substr(nl + 1);
}

// The last line of what a process printed into `fd` (a file), read from its last 64 KiB only:
// the whole output of a memrel_bench that printed gigabytes took memrel's memory with it, and
// under `ulimit -v` the backend's failure became memrel's own (the forty-ninth adversarial pass,
// c8-bench-output-held-whole-in-memory).
std::string last_line_of(int fd) {
  constexpr off_t kTail = 64 * 1024;
  struct stat st {};
  const off_t from = fstat(fd, &st) == 0 && st.st_size > kTail ? st.st_size - kTail : 0;
  std::string tail(static_cast<std::size_t>(kTail), '\0');
  std::size_t have = 0;
  while (have < tail.size()) {
    const ssize_t n =
        pread(fd, tail.data() + have, tail.size() - have, from + static_cast<off_t>(have));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    have += static_cast<std::size_t>(n);
  }
  tail.resize(have);
  return last_line(tail);
}

// The wait status once the child has exited; empty while it runs. What it started and left in its
// group ends with it, as a cell's does.
std::optional<int> exited(const Running& r) {
  int status = 0;
  pid_t done = waitpid(r.pid, &status, WNOHANG);
  if (done == r.pid) {
    kill(-r.pid, SIGKILL);
    return status;
  }
  if (done < 0 && errno != EINTR) return 0;  // not ours any more: nothing to wait for
  return std::nullopt;
}

// Once the process has exited by itself: its temporary file put in place whole, when it wrote
// one with something in it (a benchmark that failed, exit 3, still leaves the others' figures).
// Returns the file's size, -1 when there is none. Google Benchmark writes an empty file when its
// filter matched nothing (the second adversarial pass: an empty bench-null.json reported "ok").
// kCutOffByItsExit: a file cut off by a memrel_bench that exited other than 0 (an allocator
// that gave up with exit(1) mid-benchmark), not kept.
// kNotResults: whole JSON that is not Google Benchmark's results as the gate reads them
// (command.results_problem says why), not kept.
// kFailureNotRecorded: whole results of a process that exited otherwise than 0, recording no
// benchmark that failed (command.records_a_failure), not kept.
constexpr long long kCutOffByItsExit = -2;
constexpr long long kNotResults = -3;
constexpr long long kFailureNotRecorded = -4;
long long finish_file(const BenchCommand& command, const BenchJob& job, int exit_code,
                      std::string& why_not_results) {
  const std::string tmp = bench_temporary_path(job);
  struct stat st {};
  if (lstat(tmp.c_str(), &st) != 0) return -1;
  // What Google Benchmark writes is a regular file. A FIFO, a folder or a link left there by the
  // process is its failure, not "no benchmark matched" (a FIFO's size 0) or a full disk (the
  // forty-ninth adversarial pass, c8-bench-fifo-output-blamed-on-filter).
  if (!S_ISREG(st.st_mode)) {
    why_not_results = "it left " + std::string(file_kind_name(st.st_mode)) + " there";
    return kNotResults;
  }
  if (st.st_size == 0) return 0;
  // Past what compare, history and the report read, it is not read here either (memrel's own
  // memory): a 200 MiB file of NUL bytes was read whole to be refused.
  if (static_cast<std::uint64_t>(st.st_size) > kMaxResultsFileBytes) {
    why_not_results = std::to_string(st.st_size) + " bytes, more than the " +
                      describe_cap(kMaxResultsFileBytes) + " a results file may be";
    return kNotResults;
  }
  int fd = open(tmp.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) throw MachineStateError(tmp + ": cannot read back (" + error_text(errno) + ")");
  std::string content = read_whole_fd(fd);
  close(fd);
  // Google Benchmark does not check its writes: past `ulimit -f` (SIGXFSZ is ignored, and stays
  // so across exec) or on a full disk it exits 0 with the file cut off (the fifth pass put half a
  // bench-null.json in place and said "ok"). A file that is not whole JSON is the machine's
  // failure, not a result.
  // Cut off by a process that failed, it is that process's failure, not the disk's: an
  // allocator's exit(1) was "a full disk?", exit 4, and the backends after it never ran (the
  // twenty-second adversarial pass, c8-bench-allocator-exit1-blamed-on-disk).
  const JsonTextKind shape = json_text_kind(content);
  if (exit_code != 0 && shape != JsonTextKind::kWhole) return kCutOffByItsExit;
  // Cut off is JSON that ends too soon; text that goes wrong before its end (`notjson`, NUL
  // bytes) was never JSON: the process wrote something else, its failure, not the disk's (the
  // forty-ninth adversarial pass, c8-bench-non-json-output-said-full-disk).
  if (shape == JsonTextKind::kNotJson) {
    why_not_results = "not JSON";
    return kNotResults;
  }
  if (shape == JsonTextKind::kCutShort)
    throw MachineStateError(job.json_path + ": memrel_bench's output is cut off at byte " +
                            std::to_string(content.size()) +
                            ", not whole JSON (a full disk or a file size limit?); not kept");
  // Whole JSON that compare, history and the report would then refuse is not a result: a
  // memrel_bench (or a wrapper given as --bench) that wrote `{}` and exited 0 was "ok" and its
  // file kept (the forty-eighth adversarial pass, c8-bench-keeps-non-benchmark-json).
  if (command.results_problem) {
    why_not_results = command.results_problem(content, job.json_path);
    if (!why_not_results.empty()) return kNotResults;
  }
  // A process that failed keeps the others' figures only where its file says which benchmark
  // did not run: whole results recording no failure, from a process that then exited 3, were
  // kept as a good run for the gate to read (the sixty-first adversarial pass,
  // c8-bench-nonzero-exit-file-kept).
  if (exit_code != 0 &&
      !(command.records_a_failure && command.records_a_failure(content, job.json_path)))
    return kFailureNotRecorded;
  write_file_atomically(job.json_path, content);
  return st.st_size;
}

// bench-*.tmp-PID files beside the job's output whose memrel is gone: a launch killed outright
// (SIGKILL runs no cleanup) left them; the next launch into the same folder removes them. A PID
// that lives (reused or not) keeps its file: it is never removed from under a live writer.
// Every backend's, not only the job's: a bench killed while it ran one backend left its files,
// and a later bench of other backends into the folder kept them for good (the twelfth
// adversarial pass, c9-sigKILL-bench). Only the launchers' own names: bench-*, reference-* and
// candidate-* (.json.tmp-PID, .log.tmp-PID). Never a file that is one of the jobs' backend files
// (`-b bo/bench-x.json.tmp-4000000 -o bo` removed its own input: the seventeenth adversarial pass,
// c1-bench-removes-stale-tmp-that-is-its-input).
// Nor memrel_bench itself or a library a backend file names (`--bench bo/bench-x.json.tmp-N` and
// a library there were removed, exit 4 and "unavailable here", exit 0: the twenty-seventh
// adversarial pass, c1-bench-removes-its-bench-binary, c1-bench-removes-backend-library).
bool is_an_input(const std::filesystem::path& file, const BenchCommand& command,
                 const std::vector<BenchJob>& jobs) {
  struct stat at {};
  if (lstat(file.c_str(), &at) != 0) return false;
  if (!S_ISREG(at.st_mode)) return true;  // only a file of memrel_bench's is ever removed
  auto same = [&at](const std::string& path) {
    struct stat st {};
    return stat(path.c_str(), &st) == 0 && st.st_dev == at.st_dev && st.st_ino == at.st_ino;
  };
  for (const BenchJob& job : jobs)
    if (same(job.backend)) return true;
  for (const std::string& input : command.inputs)
    if (same(input)) return true;
  return same(command.bench);
}

// Removes a temporary file of this process's own name left by an earlier job of ours, unless it
// is an input (then its name cannot be used: said, nothing run).
void remove_own_temporary(const std::string& tmp, const BenchCommand& command,
                          const std::vector<BenchJob>& jobs) {
  if (is_an_input(tmp, command, jobs))
    throw std::invalid_argument(tmp +
                                ": an input of this bench (memrel_bench, a backend file or "
                                "its library) has the name of memrel_bench's temporary "
                                "file; rename it");
  std::remove(tmp.c_str());
}

void remove_stale_temporary_files(const std::string& path, const BenchCommand& command,
                                  const std::vector<BenchJob>& jobs) {
  const std::filesystem::path out(path);
  std::error_code ec;
  const std::filesystem::path folder = out.has_parent_path() ? out.parent_path() : ".";
  for (const auto& entry : std::filesystem::directory_iterator(folder, ec)) {
    const std::string name = entry.path().filename().string();
    // bench's bench-NAME, ab's rounds/reference-NAME-K and candidate-NAME-K (a SIGKILLed ab left
    // candidate-host-malloc-1.json.tmp-PID for good: the seventeenth adversarial pass,
    // c9-sigkill-ab-next-ab-no-leftovers).
    if (name.rfind("bench-", 0) != 0 && name.rfind("reference-", 0) != 0 &&
        name.rfind("candidate-", 0) != 0)
      continue;
    std::size_t at = name.rfind(".tmp-");
    if (at == std::string::npos) continue;
    const std::string kept = name.substr(0, at);
    if (kept.size() < 5 || (kept.compare(kept.size() - 5, 5, ".json") != 0 &&
                            kept.compare(kept.size() - 4, 4, ".log") != 0))
      continue;
    const std::string stem = kept + ".tmp-";
    if (name.size() == stem.size() || name.size() > stem.size() + 9) continue;
    const std::string digits = name.substr(stem.size());
    if (digits.find_first_not_of("0123456789") != std::string::npos) continue;
    const pid_t pid = static_cast<pid_t>(std::stol(digits));
    if (pid > 0 && kill(pid, 0) != 0 && errno == ESRCH && !is_an_input(entry.path(), command, jobs))
      std::filesystem::remove(entry.path(), ec);
  }
}

// memrel_bench's line for a backend that cannot run here: "memrel_bench: backend NAME
// unavailable: WHY" (benchmarks/main.cpp; NAME as it names the backend, a configuration's
// included).
bool says_unavailable(const std::string& line) {
  const std::string start = "memrel_bench: backend ";
  return line.compare(0, start.size(), start) == 0 &&
         line.find(" unavailable: ", start.size()) != std::string::npos;
}

// The job's memrel_bench and what it runs: the program, its backends folder, the backend and
// --quick. The run adds its output and then the caller's arguments; a listing asks with the
// caller's arguments too.
std::vector<std::string> bench_job_arguments(const BenchCommand& command, const BenchJob& job) {
  std::vector<std::string> args = {command.bench};
  if (!command.backends_dir.empty())
    args.insert(args.end(), {"--backends-dir", command.backends_dir});
  args.insert(args.end(), {"--backend", job.backend});
  if (command.quick) args.push_back("--quick");
  return args;
}

// How many benchmarks the job's memrel_bench names when asked to list them as it was run (its
// backend, filter and settings): 0 where it lists none or does not answer as a listing does.
std::size_t benchmarks_listed(const BenchCommand& command, const BenchJob& job) {
  std::vector<std::string> args = bench_job_arguments(command, job);
  args.insert(args.end(), command.bench_args.begin(), command.bench_args.end());
  args.push_back("--benchmark_list_tests=true");
  const ProgramAnswer a = ask_program(args, false, std::chrono::seconds(10), {}, job.environment);
  if (!a.ended || !WIFEXITED(a.status) || WEXITSTATUS(a.status) != 0) return 0;
  std::size_t names = 0;
  for (std::size_t start = 0; start < a.printed.size();) {
    const std::size_t end = std::min(a.printed.find('\n', start), a.printed.size());
    names += end > start;
    start = end + 1;
  }
  return names;
}

// The outcome of a process that has ended; the JSON file put in place when it is whole.
BenchOutcome outcome_of_ended(const BenchCommand& command, const BenchJob& job, const Running& r,
                              int status, bool timed_out) {
  const std::uint64_t timeout_s = command.timeout_s;
  BenchOutcome o;
  o.seconds = std::chrono::duration<double>(Clock::now() - r.start).count();
  o.last_line = last_line_of(r.output.get());
  if (timed_out) {
    o.status = BenchStatus::kTimeout;
    o.last_line = "killed after the timeout of " + std::to_string(timeout_s) + " s";
  } else if (WIFSIGNALED(status) && WTERMSIG(status) == SIGXFSZ) {
    // Past the file size limit: the machine's state, not the backend's crash.
    throw std::runtime_error(job.json_path + ": memrel_bench of " + job.name +
                             " was killed by SIGXFSZ (the file size limit); not kept");
  } else if (WIFSIGNALED(status) && (WTERMSIG(status) == SIGTERM || WTERMSIG(status) == SIGINT ||
                                     WTERMSIG(status) == SIGHUP)) {
    // A request to stop, not the backend's crash: memrel ends its memrel_bench with SIGKILL, so
    // this came from outside (an operator, a job manager), and the command stops as if asked
    // itself. It was the backend's benchmarks failing, exit 3 (bench), or the candidate's
    // regression, exit 1 (ab: the thirty-first adversarial pass,
    // c8-ab-candidate-sigterm-from-outside-exit-1, c8-bench-sigterm-from-outside-exit-3).
    const int signal = WTERMSIG(status);
    throw Interrupted(signal, "memrel_bench of " + job.name + " was stopped by " +
                                  signal_name(signal) + " from outside; not the backend's failure");
  } else if (WIFSIGNALED(status)) {
    o.status = BenchStatus::kCrashed;
    o.exit_code = WTERMSIG(status);
  } else {
    o.exit_code = WEXITSTATUS(status);
    std::string why_not_results;
    const long long size = finish_file(command, job, o.exit_code, why_not_results);
    o.file_written = size > 0;
    if (size == kCutOffByItsExit)
      o.last_line = "exited " + std::to_string(o.exit_code) +
                    " before its results file was whole (not kept)" +
                    (o.last_line.empty() ? std::string() : "; its last line: " + o.last_line);
    if (size == kFailureNotRecorded)
      o.last_line = "exited " + std::to_string(o.exit_code) +
                    " with a results file that records no failed benchmark (not kept)" +
                    (o.last_line.empty() ? std::string() : "; its last line: " + o.last_line);
    if (size == kNotResults)
      o.last_line = "exited " + std::to_string(o.exit_code) + " with a results file that is not " +
                    "Google Benchmark's JSON (not kept): " + why_not_results;
    // Nothing run is "no benchmark matched" only where a filter was given: without one, a
    // memrel_bench that wrote an empty file blamed a filter nobody gave, exit 2 (the fiftieth
    // adversarial pass, c8-bench-empty-output-blamed-on-filter).
    const bool filtered = std::any_of(
        command.bench_args.begin(), command.bench_args.end(),
        [](const std::string& arg) { return arg.rfind("--benchmark_filter=", 0) == 0; });
    if (size == 0 && o.exit_code == 0 && !filtered)
      o.last_line = "exited 0 and ran no benchmark, though no filter was given" +
                    (o.last_line.empty() ? std::string() : "; its last line: " + o.last_line);
    // Nor where it lists benchmarks of the filter when asked: a program that lists them and then
    // writes an empty file has failed, and bench blamed the filter, exit 2, as ab did for its
    // reference (the sixty-ninth adversarial pass, c8-bench-empty-output-blamed-on-filter,
    // c8-ab-reference-empty-output-blamed-on-filter).
    const std::size_t listed =
        size == 0 && o.exit_code == 0 && filtered ? benchmarks_listed(command, job) : 0;
    if (listed > 0)
      o.last_line = "exited 0 and ran no benchmark, though it lists " + std::to_string(listed) +
                    " of the filter when asked" +
                    (o.last_line.empty() ? std::string() : "; its last line: " + o.last_line);
    o.status = o.exit_code != 0 || size == kNotResults || (size == 0 && !filtered) || listed > 0
                   ? BenchStatus::kFailed
               : size < 0  ? BenchStatus::kUnavailable
               : size == 0 ? BenchStatus::kNoneMatched
                           : BenchStatus::kOk;
    // "Unavailable" is what memrel_bench says it is (benchmarks/main.cpp, unavailable()), not
    // any exit 0 without a file: a broken memrel_bench that wrote nothing was "unavailable
    // here: " with no reason, exit 0, for host-malloc (the twentieth adversarial pass,
    // c8-bench-broken-bench-exit0-is-unavailable).
    if (o.status == BenchStatus::kUnavailable && !says_unavailable(o.last_line)) {
      o.status = BenchStatus::kFailed;
      o.last_line =
          "exited 0 and wrote no results file, without saying the backend is "
          "unavailable" +
          (o.last_line.empty() ? std::string() : "; its last line: " + o.last_line);
    }
  }
  std::remove(bench_temporary_path(job).c_str());  // whatever is left of it: never kept
  return o;
}

// outcome_of_ended with the log put in place after it; the temporary JSON never kept. The log of
// a backend that measured nothing (unavailable here, no benchmark matched) waits, pending
// (keep_pending_log, drop_pending_log): a bench refused at the end because the filter matched
// nothing anywhere wrote its logs over the last run's (the twelfth adversarial pass,
// c10-bench-logs-failure-deletes-previous-log).
BenchOutcome outcome_of(const BenchCommand& command, const BenchJob& job, const Running& r,
                        int status, bool timed_out) {
  BenchOutcome o;
  try {
    o = outcome_of_ended(command, job, r, status, timed_out);
  } catch (const Interrupted&) {
    // Stopped from outside: as memrel stopped itself, its temporaries go.
    std::remove(bench_temporary_path(job).c_str());
    throw;
  } catch (...) {
    // Its results cut off (exit 4): the log is what says why, and is always put in place
    // (docs/inputs.md, "Outputs"); it was removed with them (the seventy-seventh adversarial
    // pass, c8-bench-cut-json-loses-log, c8-ab-cut-json-loses-round-log). A log that cannot be
    // written or put in place either is not kept: the first error is the one said.
    std::remove(bench_temporary_path(job).c_str());
    keep_log_if_it_can_be(job, r.output.get());
    throw;
  }
  try {
    write_log_temporary(job, r.output.get());
    o.log_pending = !job.log_path.empty() && (o.status == BenchStatus::kUnavailable ||
                                              o.status == BenchStatus::kNoneMatched);
    if (!o.log_pending) finish_log(job);
    return o;
  } catch (...) {  // the log's own failure, said as it is (write_log_temporary, finish_log)
    if (!job.log_path.empty()) std::remove(log_temporary_path(job).c_str());
    throw;
  }
}

// run_bench_jobs' loop: starts jobs into free slots, collects the ended ones, until all are done.
std::vector<BenchOutcome> schedule(
    const BenchCommand& command, const std::vector<BenchJob>& jobs,
    const std::vector<GpuSlot>& gpus,
    const std::function<void(const BenchJob&, const BenchOutcome&)>& on_done,
    std::vector<std::optional<Running>>& running) {
  std::vector<BenchOutcome> outcomes(jobs.size());
  const std::size_t slots = running.size();
  std::size_t next = 0;
  while (true) {
    if (int signal = InterruptRequests::received()) {
      std::size_t ended = 0;
      for (const auto& r : running) ended += r.has_value();
      // run_bench_jobs ends them as this leaves.
      throw Interrupted(signal, "interrupted by " + signal_name(signal) + ": " +
                                    std::to_string(ended) + " running memrel_bench ended");
    }
    for (std::size_t slot = 0; slot < slots; ++slot) {
      if (running[slot] || next >= jobs.size()) continue;
      const BenchJob& job = jobs[next];
      // A file left from before stays until this run's replaces it whole: a backend that fails,
      // times out or is stopped leaves the last run's figures as they were (the twelfth
      // adversarial pass, c10-bench-timeout-deletes-previous); the line that says it failed says
      // so (bench_command).
      remove_own_temporary(bench_temporary_path(job), command, jobs);
      if (!job.log_path.empty()) remove_own_temporary(log_temporary_path(job), command, jobs);
      remove_stale_temporary_files(job.json_path, command, jobs);
      if (!job.log_path.empty()) remove_stale_temporary_files(job.log_path, command, jobs);
      Running r;
      r.index = next++;
      r.output = open_output();
      ChildSpec spec;
      spec.args = bench_arguments(command, job);
      spec.environment = job.environment;
      if (!gpus.empty()) {
        for (const auto& [k, v] : gpu_environment(gpus[slot])) spec.environment[k] = v;
      }
      spec.stdout_fd = r.output.get();
      spec.stderr_fd = r.output.get();
      r.start = Clock::now();
      r.deadline = r.start + std::chrono::seconds(command.timeout_s);
      r.pid = start_child(spec);
      running[slot] = std::move(r);
    }
    bool any = false;
    for (std::size_t slot = 0; slot < slots; ++slot) {
      if (!running[slot]) continue;
      any = true;
      Running& r = *running[slot];
      std::optional<int> status = exited(r);
      const bool timed_out = !status && Clock::now() > r.deadline;
      // Out of time while stopped from outside (SIGSTOP, a debugger): not the backend's time (the
      // thirty-fourth adversarial pass, c8-bench-sigstop-recorded-as-timeout). The machine's
      // state, said as such; the process ends with the others, as for any refusal here.
      if (timed_out && process_is_stopped(r.pid)) {
        const pid_t stopped = r.pid;
        const BenchJob& job = jobs[r.index];
        const std::string backend = job.backend;
        kill_child_group(stopped);
        // Its temporary results go and its log stays, as for any process that ended: out of the
        // slot, it was no longer one of those removed as this leaves, and its half-written
        // bench-NAME.json.tmp-PID stayed (the fiftieth adversarial pass,
        // c8-bench-stopped-leaves-tmp).
        std::remove(bench_temporary_path(job).c_str());
        keep_log_if_it_can_be(job, r.output.get());
        running[slot].reset();
        throw MachineStateError(command.bench + " --backend " + backend + " (process " +
                                std::to_string(stopped) + ")" + kStoppedFromOutside +
                                " when its timeout of " + std::to_string(command.timeout_s) +
                                " s ran out; not the backend's failure");
      }
      if (timed_out) status = kill_child_group(r.pid);
      if (!status) continue;
      // Out of the slot before its outcome, which may throw: an ended process is not killed again.
      const Running ended = std::move(r);
      running[slot].reset();
      const BenchJob& job = jobs[ended.index];
      BenchOutcome o = outcome_of(command, job, ended, *status, timed_out);
      if (!gpus.empty()) o.gpu = gpus[slot].index;
      const std::size_t index = ended.index;
      if (o.status == BenchStatus::kFailed && o.exit_code == kBenchUsageExit) {
        // Its usage error says what was wrong. Without memrel_bench's word for it the exit is
        // the backend's run failing (bench checked every input memrel_bench reads before
        // starting any), said as such: read as bad input, it stopped bench with exit 2 after
        // the backends before it had run and written their files, and the ones after never ran.
        // One that said nothing is named so (the line ended at the colon: the twentieth
        // adversarial pass, c8-bench-exit2-empty-reason).
        if (says_usage_error(o.last_line))
          throw std::invalid_argument(command.bench + " --backend " + job.backend + ": " +
                                      o.last_line);
        o.last_line =
            "exited 2 without memrel_bench's word for a usage error (something in its "
            "process, such as the backend's library, ended it)" +
            (o.last_line.empty() ? std::string("; it said nothing")
                                 : "; its last line: " + o.last_line);
      }
      outcomes[index] = o;
      if (on_done) on_done(job, o);
    }
    if (!any && next >= jobs.size()) return outcomes;
    std::this_thread::sleep_for(kPollInterval);
  }
}

}  // namespace

std::string file_name_piece(const std::string& backend_name) {
  std::string piece = backend_name.empty() ? "_" : backend_name;
  for (char& c : piece) {
    const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                       c == '-' || c == '_' || c == '.';
    if (!plain) c = '_';
  }
  return piece;
}

std::string bench_arg_problem(const std::string& argument) {
  // An allow-list, not a deny-list: memrel sets memrel_bench's output, its format, the filter,
  // the minimum time and the context it reads back, and a Google Benchmark option it does not
  // know of (a newer build's) could change any of them. The sixth pass wrote through
  // --benchmark_out=LINK, hung on a FIFO there, and read --help's exit 0 as "unavailable".
  const std::size_t eq = argument.find('=');
  const std::string name = argument.substr(0, eq);
  const std::optional<std::string> value =
      eq == std::string::npos ? std::nullopt : std::optional<std::string>(argument.substr(eq + 1));
  // What memrel sets or reads itself, and the memrel option that does it.
  static const std::map<std::string, std::string> kMemrels = {
      {"--benchmark_out", "memrel's own output (-o, --out)"},
      {"--benchmark_out_format", "memrel's own output (-o, --out)"},
      {"--benchmark_format", "memrel's own output (-o, --out)"},
      {"--benchmark_filter", "--filter"},
      {"--benchmark_min_time", "--min-time"},
      {"--min-time", "--min-time"},
      {"--benchmark_list_tests", "memrel list"},
      {"--list-backends", "memrel list --backends"},
      {"--help", "memrel's own --help"},
      {"-h", "memrel's own --help"},
      {"--backend", "-b"},
      {"--backends-dir", "memrel --backends-dir"},
      {"--quick", "--quick"},
      {"--benchmark_context", "nothing: memrel writes the context it reads back"},
      {"--benchmark_report_aggregates_only",
       "nothing: memrel reads every repetition, not only their aggregates"},
  };
  if (auto it = kMemrels.find(name); it != kMemrels.end())
    return argument + ": memrel sets this itself; use " + it->second;
  // Google Benchmark's options that change only how it measures or prints to the log, each
  // with what its value may be.
  static const char* const kBooleans[] = {"--benchmark_enable_random_interleaving",
                                          "--benchmark_display_aggregates_only",
                                          "--benchmark_counters_tabular"};
  for (const char* option : kBooleans) {
    if (name != option) continue;
    if (!value || *value == "true" || *value == "false") return "";
    return argument + ": expected " + name + ", " + name + "=true or " + name + "=false";
  }
  if (name == "--benchmark_color") {
    if (value && (*value == "auto" || *value == "true" || *value == "false")) return "";
    return argument + ": expected --benchmark_color=auto, true or false";
  }
  if (name == "--benchmark_time_unit") {
    if (value && (*value == "ns" || *value == "us" || *value == "ms" || *value == "s")) return "";
    return argument + ": expected --benchmark_time_unit=ns, us, ms or s";
  }
  if (name == "--benchmark_repetitions") {
    // At most 1000: memrel_bench's default is 5, and ab's --rounds stops at 1000 as well; Google
    // Benchmark's own parser took 99999999999 (past an int) without a word.
    const std::string digits = value.value_or("");
    // No leading zero, as in every whole number memrel reads (the sixty-third adversarial pass,
    // c4-bench-arg-repetitions-leading-zero-taken).
    const bool whole = !digits.empty() && digits.size() <= 4 && digits[0] != '0' &&
                       digits.find_first_not_of("0123456789") == std::string::npos;
    if (!whole || std::stoi(digits) < 1 || std::stoi(digits) > kMaxBenchRepetitions)
      return argument + ": expected a whole number from 1 to " +
             std::to_string(kMaxBenchRepetitions) + " (ASCII digits, no leading zero)";
    return "";
  }
  if (name == "--benchmark_min_warmup_time") {
    // Seconds, as Google Benchmark reads them: a double, no unit (its "3s" is
    // --benchmark_min_time's alone; this flag's "3s" was passed on, then refused by memrel_bench
    // in its own words, or as BENCHMARK_MIN_WARMUP_TIME ignored, no warm-up: the fifty-fifth
    // adversarial pass, c4-bench-arg-warmup-s-suffix). Finite and positive (`nan` ran for ever).
    const std::string number = value.value_or("");
    char* end = nullptr;
    const double seconds = number.empty() ? 0 : std::strtod(number.c_str(), &end);
    // Plain decimal digits: strtod also reads "0x1p-3", "+0.01" and " 0.01" (the eighteenth
    // adversarial pass, c4-bench-arg-warmup-hex), none a spelling of seconds memrel takes.
    // A leading point too, as --min-time takes `.5` (the seventieth, c4-warmup-time-leading-point).
    const bool plain =
        !number.empty() &&
        ((number.front() >= '0' && number.front() <= '9') ||
         (number.front() == '.' && number.size() > 1 && number[1] >= '0' && number[1] <= '9')) &&
        number.find_first_not_of("0123456789.eE-") == std::string::npos;
    const bool whole = plain && end == number.c_str() + number.size();
    // The bound compared with the text as written: 86400.000000000000000001 reads as the double
    // 86400 and was taken (the eighty-second adversarial pass, c4-warmup-time-exact-bound), as
    // every other bound is compared (platform/decimal_text.hpp).
    const bool past_bound =
        !whole || !is_decimal_text(number) || !decimal_text_within(number, 0, kMaxBenchSeconds);
    if (past_bound || !std::isfinite(seconds) || seconds <= 0 || seconds > kMaxBenchSeconds)
      return argument + ": expected a finite number of seconds above 0 (at most " +
             std::to_string(static_cast<int>(kMaxBenchSeconds)) + "), in digits without a unit";
    return "";
  }
  return argument +
         ": not an argument memrel passes on to memrel_bench (allowed: "
         "--benchmark_repetitions, --benchmark_min_warmup_time, "
         "--benchmark_enable_random_interleaving, --benchmark_display_aggregates_only, "
         "--benchmark_counters_tabular, --benchmark_color, --benchmark_time_unit)";
}

std::string bench_environment_problem(const std::string& setting) {
  const std::size_t eq = setting.find('=');
  const std::string name = setting.substr(0, eq);
  static const std::string kPrefix = "BENCHMARK_";
  if (name.rfind(kPrefix, 0) != 0) return "";
  std::string flag = "--benchmark_" + name.substr(kPrefix.size());
  for (char& c : flag) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const std::string value = eq == std::string::npos ? "" : setting.substr(eq + 1);
  const std::string problem = bench_arg_problem(flag + "=" + value);
  if (problem.empty()) return "";
  // "FLAG=VALUE: why" -> "why": the setting is named instead.
  const std::size_t colon = problem.find(": ", flag.size());
  return setting + " (Google Benchmark reads it as " + flag + "=" + value +
         "): " + (colon == std::string::npos ? problem : problem.substr(colon + 2));
}

std::string inherited_bench_environment_problem() {
  for (char** setting = environ; setting != nullptr && *setting != nullptr; ++setting)
    if (std::string problem = bench_environment_problem(*setting); !problem.empty())
      return "the environment's " + problem + "; unset it";
  return "";
}

std::string bench_file_name(const std::string& backend_name) {
  return "bench-" + file_name_piece(backend_name) + ".json";
}

std::string bench_beside_executable() {
  const std::string dir = executable_dir();
  if (dir.empty()) return "";
  for (const std::string& candidate : {dir + "/benchmarks/memrel_bench", dir + "/memrel_bench"}) {
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return "";
}

std::string bench_temporary_path(const BenchJob& job) {
  return job.json_path + ".tmp-" + std::to_string(getpid());
}

std::vector<std::string> bench_arguments(const BenchCommand& command, const BenchJob& job) {
  std::vector<std::string> args = bench_job_arguments(command, job);
  args.push_back("--benchmark_out=" + bench_temporary_path(job));
  args.push_back("--benchmark_out_format=json");
  args.insert(args.end(), command.bench_args.begin(), command.bench_args.end());
  return args;
}

std::vector<BenchOutcome> run_bench_jobs(
    const BenchCommand& command, const std::vector<BenchJob>& jobs,
    const std::vector<GpuSlot>& gpus,
    const std::function<void(const BenchJob&, const BenchOutcome&)>& on_done) {
  std::vector<std::optional<Running>> running(gpus.empty() ? 1 : gpus.size());
  try {
    return schedule(command, jobs, gpus, on_done, running);
  } catch (...) {
    // No memrel_bench outlives a launch that failed or was interrupted, and nothing it was
    // writing stays (ended first: a running one could write again).
    for (auto& r : running) {
      if (!r) continue;
      kill_child_group(r->pid);
      std::remove(bench_temporary_path(jobs[r->index]).c_str());
      r.reset();
    }
    // The running ones' logs and the pending ones' of those that ended: the last run's stay.
    for (const BenchJob& job : jobs) drop_pending_log(job);
    throw;
  }
}

void keep_pending_log(const BenchJob& job) {
  struct stat st {};
  if (!job.log_path.empty() && lstat(log_temporary_path(job).c_str(), &st) == 0) finish_log(job);
}

void drop_pending_log(const BenchJob& job) {
  if (!job.log_path.empty()) std::remove(log_temporary_path(job).c_str());
}

BenchOutcome run_bench_job(const BenchCommand& command, const BenchJob& job) {
  BenchOutcome o = run_bench_jobs(command, {job}, {}, nullptr).front();
  if (o.log_pending) keep_pending_log(job);
  o.log_pending = false;
  return o;
}

std::string bench_end_text(const BenchOutcome& o) {
  const std::string why =
      o.last_line.empty() ? std::string("it printed nothing") : one_line_text(o.last_line);
  switch (o.status) {
    case BenchStatus::kCrashed:
      // Killed by the machine's CPU-time limit, said as a run's cell says it: it was the
      // backend's crash, the limit unnamed (the seventy-ninth adversarial pass,
      // c8-bench-cpu-limit-blamed-on-backend, c8-ab-cpu-limit-blamed-on-reference).
      if (const std::optional<std::uint64_t> limit = cpu_limit_that_killed(o.exit_code, o.seconds))
        return "rc " + std::to_string(128 + o.exit_code) + " (killed by " +
               signal_name(o.exit_code) + " under a CPU-time limit of " + std::to_string(*limit) +
               " s, ulimit -t: the machine's limit, not the backend's; raise or lift it): " + why;
      return "rc " + std::to_string(128 + o.exit_code) + " (killed by " + signal_name(o.exit_code) +
             "): " + why;
    case BenchStatus::kTimeout:
      return "rc timeout: " + why;
    default:
      return "rc " + std::to_string(o.exit_code) + ": " + why;
  }
}

}  // namespace memrel
