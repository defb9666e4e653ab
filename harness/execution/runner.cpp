#include "harness/execution/runner.hpp"

#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <thread>

#include "allocators/allocator_environment.hpp"
#include "allocators/backend_families.hpp"
#include "allocators/backend_table.hpp"
#include "harness/execution/cell_exit.hpp"
#include "harness/execution/cell_protocol.hpp"
#include "harness/execution/run_journal.hpp"
#include "harness/execution/run_summary.hpp"
#include "harness/execution/shard.hpp"
#include "harness/workload/trace_plan.hpp"
#include "harness/workload/workload.hpp"
#include "platform/address_space_limit.hpp"
#include "platform/child_process.hpp"
#include "platform/cpu_time_limit.hpp"
#include "platform/durable_append.hpp"
#include "platform/file_size_limit.hpp"
#include "platform/files_unchanged.hpp"
#include "platform/input_rules.hpp"
#include "platform/interrupt.hpp"
#include "platform/loader_preload.hpp"
#include "platform/machine_fingerprint.hpp"
#include "platform/machine_state_error.hpp"
#include "platform/memory_limits.hpp"
#include "platform/one_line_text.hpp"
#include "platform/owned_fd.hpp"
#include "platform/path_for_json.hpp"
#include "platform/process_state.hpp"
#include "platform/run_context.hpp"
#include "platform/temporary_folder.hpp"
#include "platform/zygote.hpp"

namespace memrel {
namespace {

// What keeps a cell's result from being written, as far as memrel can tell: a write cut by the
// file size limit is the limit's doing, which "is TMPDIR full or unwritable?" hid (the
// fifty-second adversarial pass, c8-ulimit-f-cell-result-blames-tmpdir).
std::string why_a_result_cannot_be_written(const std::string& cell_said) {
  if (const std::optional<std::uint64_t> limit = file_size_limit_bytes();
      limit && cell_said.find("File too large") != std::string::npos)
    return "the file size limit (ulimit -f) is " + std::to_string(*limit) +
           " bytes, less than the result: raise it.";
  return "is TMPDIR full or unwritable?";
}

using Clock = std::chrono::steady_clock;

// How often the runner looks at its children, its deadlines and the signals it was sent.
constexpr auto kPollInterval = std::chrono::milliseconds(5);

// How long a backend library's check runs before it is said to be waiting (a library links
// whatever it needs: a cold libtorch takes a second or two).
constexpr auto kSayCheckWaitingAfter = std::chrono::seconds(3);

std::string tail_of(std::string s, std::size_t max_bytes) {
  if (s.size() > max_bytes) s = "..." + s.substr(s.size() - max_bytes);
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

CellResult failed_cell(const std::string& backend, const std::string& workload,
                       const std::string& source, const std::string& status,
                       const std::string& reason) {
  CellResult c;
  c.backend = backend;
  c.workload = workload;
  c.workload_source = source;
  c.status = status;
  c.reason = path_for_json(reason);  // quotes the child's stderr, or a path: not always UTF-8
  return c;
}

std::map<std::string, std::string> child_environment(const RunOptions& options,
                                                     const BackendInfo& backend) {
  std::map<std::string, std::string> env = backend.cell_environment;
  if (!options.module_loading.empty()) env["CUDA_MODULE_LOADING"] = options.module_loading;
  return env;
}

CellRequest cell_request(const RunOptions& options, const std::string& backend) {
  CellRequest request;
  request.backend = backend;
  request.backends_dir = options.backends_dir;
  return request;
}

[[noreturn]] void throw_interrupted(int signal, const std::string& what) {
  throw Interrupted(signal, "interrupted by " + signal_name(signal) + ": " + what);
}

// A child at work: its stderr and result are anonymous files, so that nothing of it is left in
// a folder whatever happens to the runner. Forked by a zygote (`via`), or by us with exec.
struct RunningChild {
  pid_t pid = 0;
  OwnedFd result{-1}, stderr_file{-1};
  Clock::time_point start, deadline;
  ZygoteClient* via = nullptr;
  // When its result was first seen whole (the process still exiting), if it was.
  std::optional<Clock::time_point> result_in;
};

// Whether the cell has written its whole result: the cell writes it in one go, as JSON indented
// by one space and a newline (serve_cell), so it ends in "\n}\n", and only the end does: every
// other closing brace is indented, and a newline inside a string is escaped.
bool result_is_in(const RunningChild& child) {
  struct stat st {};
  if (child.result.get() < 0 || fstat(child.result.get(), &st) != 0 || st.st_size < 3) return false;
  char tail[3];
  if (pread(child.result.get(), tail, 3, st.st_size - 3) != 3) return false;
  return tail[0] == '\n' && tail[1] == '}' && tail[2] == '\n';
}

RunningChild start(const ChildSpec& base, std::uint64_t timeout_s, bool with_result,
                   ZygoteClient* zygote = nullptr) {
  RunningChild child;
  child.stderr_file = OwnedFd(anonymous_file());
  if (with_result) child.result = OwnedFd(anonymous_file());
  ChildSpec spec = base;
  spec.stderr_fd = child.stderr_file.get();
  spec.fd3 = child.result.get();
  child.start = Clock::now();
  child.deadline = child.start + std::chrono::seconds(timeout_s);
  if (zygote != nullptr) {
    child.pid = zygote->start_child(spec);  // throws when the zygote cannot: the caller execs
    child.via = zygote;
  } else {
    child.pid = start_child(spec);
  }
  return child;
}

// SIGKILL to the child's group and its wait status.
int kill_running(const RunningChild& child) {
  return child.via ? child.via->kill_child(child.pid) : kill_child_group(child.pid);
}

// The wait status once the child has exited; empty while it runs. What the child started and
// left behind in its group ends with it (the group's id stays taken while it has members).
std::optional<int> exited(const RunningChild& child) {
  if (child.via) {
    std::optional<int> status = child.via->exited(child.pid);
    if (status) kill(-child.pid, SIGKILL);
    return status;
  }
  int status = 0;
  pid_t done = waitpid(child.pid, &status, WNOHANG);
  if (done == child.pid) {
    kill(-child.pid, SIGKILL);
    return status;
  }
  if (done < 0 && errno != EINTR) return 0;  // not ours any more: nothing to wait for
  return std::nullopt;
}

std::uint64_t content_digest(const std::string& path) {
  // FNV-1a, 64 bits: stable across builds and machines, enough to tell an edited file.
  std::ifstream in(path, std::ios::binary);
  std::uint64_t h = 14695981039346656037ull;
  char c;
  while (in.get(c)) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ull;
  }
  return h;
}

// "fnv1a64:HEX" of the file at `path`, as a journal's first line holds it.
std::string content_digest_text(const std::string& path) {
  char digest[32];
  std::snprintf(digest, sizeof digest, "fnv1a64:%016llx",
                static_cast<unsigned long long>(content_digest(path)));
  return digest;
}

struct MatrixCell {
  std::string backend_arg;
  BackendInfo backend;
  std::string path, name;  // the workload file to run, and its name
  Availability availability;
  // A framework program of the workload that another family than the backend's runs (a torch
  // program over cuda-malloc): the cell's zygote loads its libraries too. Empty: none.
  std::string preload_program;
};

// The first of `programs` that a family other than `backend`'s runs; empty if none. A program no
// family knows is the cell's to report.
std::string foreign_program(const BackendInfo& backend, const std::vector<std::string>& programs) {
  for (const std::string& program : programs) {
    try {
      if (program_family(program).name() != backend.family) return program;
    } catch (const std::invalid_argument&) {
    }
  }
  return "";
}

class Scheduler {
 public:
  // `inputs`: the files the cells read again (workloads, backend files), as the run read them.
  Scheduler(const RunOptions& options, std::vector<MatrixCell> matrix, FilesUnchanged inputs,
            std::ostream& progress)
      : options_(options),
        matrix_(std::move(matrix)),
        inputs_(std::move(inputs)),
        progress_(progress) {}

  // Runs every cell that `done` lacks, adding them to it (and to the journal) as they end.
  void run(std::map<std::size_t, CellResult>& done, RunJournal* journal) {
    // The device slots (one, or one per GPU), then the host lane's slot when it is on.
    const std::size_t device_slots = options_.gpus.empty() ? 1 : options_.gpus.size();
    const std::size_t slots = device_slots + (host_lane_on() ? 1 : 0);
    std::vector<std::optional<Running>> running(slots);
    // Per slot, the cell whose result is in and whose process is still exiting while the next
    // one starts (RunOptions::exit_overlap); reaped and finished as it ends.
    std::vector<std::optional<Running>> exiting(slots);
    // Each lane takes the matrix's cells in order, its own ones only.
    std::size_t next_device = 0, next_host = 0, finished = done.size();
    for (const auto& [index, cell] : done) count_for_backend_line(cell);
    for (std::size_t i = 0; i < matrix_.size(); ++i) {
      if (forks_from_zygote(matrix_[i]) && !done.count(i) && matrix_[i].availability.available)
        ++zygotes_[zygote_key(matrix_[i])].cells_to_start;
    }
    // Ends every cell at work: the run stops.
    auto end_all = [&]() {
      std::size_t ended = 0;
      for (auto& r : running) {
        if (!r) continue;
        kill_running(r->child);
        ++ended;
      }
      for (auto& r : exiting) {
        if (r) kill_running(r->child);
      }
      return ended;
    };
    auto finished_kept = [&](std::size_t ended) {
      return std::to_string(ended) + " running cell(s) ended; " + std::to_string(done.size()) +
             " of " + std::to_string(matrix_.size()) + " cells finished" +
             (journal ? ", kept in " + options_.journal_path : std::string());
    };
    auto finish = [&](std::size_t index, CellResult cell) {
      // A cell that ended with its inputs as the run read them read those (it read them after
      // the run did); one that ended after an input changed may have read either content.
      if (std::string changed = inputs_.first_changed(); !changed.empty()) {
        std::string kept = finished_kept(end_all());
        // Gone (moved away, removed): the machine's state, as a backend file that vanished
        // under a cell is (outcome below); there again as it was, a --resume goes on.
        if (struct stat st{}; stat(changed.c_str(), &st) != 0)
          throw MachineStateError(changed +
                                  " disappeared during the run; not the allocator's failure. The "
                                  "run stopped, " +
                                  kept + " (put the file back and continue with --resume)");
        throw InputError(changed, "",
                         "changed while the run read it (each cell reads it again): the run "
                         "stopped, " +
                             kept + " (a --resume needs the file as it was; or run again)");
      }
      cell.workload_source = original(cell.workload_source);
      if (cell.trace) cell.trace->file = original(cell.trace->file);
      if (journal) journal->record(index, cell);
      print_progress(++finished, cell);
      done.emplace(index, std::move(cell));
    };
    while (true) {
      if (int signal = InterruptRequests::received()) {
        throw_interrupted(signal,
                          finished_kept(end_all()) +
                              (journal ? " (continue with the same options and --resume)" : ""));
      }
      for (std::size_t slot = 0; slot < slots; ++slot) {
        const bool host_slot = slot >= device_slots;
        std::size_t& next = host_slot ? next_host : next_device;
        while (!running[slot] && next < matrix_.size()) {
          std::size_t index = next++;
          if (in_host_lane(matrix_[index]) != host_slot) continue;
          if (done.count(index)) continue;
          const MatrixCell& m = matrix_[index];
          if (!m.availability.available) {
            finish(index, failed_cell(m.backend.name, m.name, m.path, "unavailable",
                                      m.availability.reason));
            continue;
          }
          Running* previous = exiting[slot] ? &*exiting[slot] : nullptr;
          try {
            running[slot] = start_cell(index, slot, previous ? previous->child.pid : 0);
          } catch (const MachineStateError& e) {
            // A cell that cannot start (out of descriptors under `ulimit -n`): the machine's,
            // said with what the run keeps, as every other stop of the machine's says it (the
            // fifty-ninth adversarial pass, c8-fd-limit-midrun-journal-not-said).
            if (!journal) throw;
            if (done.empty()) {
              // Before any cell finished, the line says nothing is kept: a fresh run's journal,
              // of no cell and this run's own, goes (it was left beside -o under `ulimit -n 9`:
              // the seventy-ninth adversarial pass, c8-ulimit-n9-run-leaves-journal). A
              // resumed run's is kept as it was.
              if (!options_.resume) remove_if_same_file(options_.journal_path, journal->identity());
              throw;
            }
            throw MachineStateError(std::string(e.what()) + "; the run stopped, " +
                                    finished_kept(end_all()) +
                                    " (continue with the same options and --resume)");
          }
          if (previous) previous->overlapped = true;
        }
      }
      bool any = false;
      for (std::size_t slot = 0; slot < slots; ++slot) {
        // The exiting cell first: it ended before the running one could have.
        for (auto* r : {&exiting[slot], &running[slot]}) {
          if (!*r) continue;
          any = true;
          RunningChild& child = (*r)->child;
          std::optional<int> status = exited(child);
          bool timed_out = !status && Clock::now() > child.deadline;
          // Out of time while stopped from outside (SIGSTOP, a debugger), the cell or the
          // zygote that was to fork it: not the allocator's time (the thirty-fourth adversarial
          // pass, c8-cell-sigstop-recorded-as-timeout, c8-zygote-stopped-recorded-as-cell-
          // timeout). The machine's state: the run stops, the cell unrecorded.
          if (timed_out) {
            const bool cell_stopped = process_is_stopped(child.pid);
            if (cell_stopped || (child.via && process_is_stopped(child.via->pid()))) {
              const MatrixCell& m = matrix_[(*r)->index];
              const std::string who =
                  cell_stopped ? "its process " + std::to_string(child.pid)
                               : "its backend's zygote " + std::to_string(child.via->pid());
              throw MachineStateError(
                  m.backend.name + " x " + m.name + ": " + who + kStoppedFromOutside +
                  " when the cell timeout of " + std::to_string(options_.cell_timeout_s) +
                  " s ran out; not the allocator's failure. The run stopped, " +
                  finished_kept(end_all()) +
                  (journal ? " (continue with the same options and --resume)" : ""));
            }
            status = kill_running(child);
          }
          if (!status) {
            if (!child.result_in && result_is_in(child)) child.result_in = Clock::now();
            // Its result is in: the slot is free for the next cell while this one exits.
            if (r == &running[slot] && child.result_in && options_.exit_overlap && !exiting[slot]) {
              exiting[slot] = std::move(*r);
              r->reset();
            }
            continue;
          }
          CellResult cell = end_of(**r, slot, *status, timed_out);
          std::size_t index = (*r)->index;
          r->reset();
          finish(index, std::move(cell));
        }
      }
      if (!any && next_device >= matrix_.size() && (!host_lane_on() || next_host >= matrix_.size()))
        return;
      std::this_thread::sleep_for(kPollInterval);
    }
  }

 private:
  struct Running {
    std::size_t index;
    RunningChild child;
    std::string started_by;   // "zygote" or "exec"
    bool overlapped = false;  // the slot's next cell started while this one was exiting
  };

  // The cell's result once its process has ended (or was killed).
  CellResult end_of(const Running& r, std::size_t slot, int status, bool timed_out) {
    CellResult cell = outcome(matrix_[r.index], r.child, status, timed_out, r.started_by);
    if (r.child.result_in && cell.status != "timeout") {
      cell.timing->exit_ns = static_cast<std::uint64_t>(
          std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - *r.child.result_in)
              .count());
      cell.timing->exit_overlapped = r.overlapped;
    }
    end_zygote_if_done(zygote_key(matrix_[r.index]), r.child.via);
    if (slot < options_.gpus.size()) {
      const GpuSlot& gpu = options_.gpus[slot];
      cell.gpu = CellGpu{gpu.index,
                         gpu.uuid.empty() ? std::nullopt : std::optional<std::string>(gpu.uuid)};
    }
    return cell;
  }

  // A backend's zygote, started at its first cell; `refused` says why its cells exec instead.
  struct Zygote {
    std::unique_ptr<ZygoteClient> client;
    std::string refused;
    std::size_t cells_to_start = 0;
  };

  bool zygotes_on() const {
    return options_.zygote != ZygoteUse::kNone && options_.module_loading != "EAGER";
  }
  // With --gpus every cell already has a slot of its own GPU's, host cells included, as
  // before the lane: it serves the one-device case, where they waited their turn.
  bool host_lane_on() const { return options_.host_lane && options_.gpus.empty(); }
  bool in_host_lane(const MatrixCell& m) const {
    return host_lane_on() && m.backend.space == MemorySpace::kHost;
  }

  // A backend's cells share a zygote; those of a program of another family share one that has
  // loaded that program's libraries too (the others' stay as they were without it).
  static std::string zygote_key(const MatrixCell& m) {
    return m.preload_program.empty() ? m.backend_arg : m.backend_arg + "\n" + m.preload_program;
  }

  bool forks_from_zygote(const MatrixCell& m) const {
    return zygotes_on() &&
           (options_.zygote == ZygoteUse::kAll || m.backend.space == MemorySpace::kDevice);
  }

  ZygoteClient* zygote_for(const MatrixCell& m) {
    if (!forks_from_zygote(m)) return nullptr;
    Zygote& z = zygotes_[zygote_key(m)];
    if (z.client) return z.client.get();
    if (!z.refused.empty()) return nullptr;
    ChildSpec spec;
    CellRequest request = cell_request(options_, m.backend_arg);
    request.zygote = true;
    request.preload_program = m.preload_program;
    spec.args = cell_command_line(options_.memrel_executable, request);
    spec.environment = child_environment(options_, m.backend);
    // `memrel cell` answers SIGTERM at once, in C, by SIGKILLing its own group (serve_cell, the
    // zygote's on_terminate): so the kernel's signal ends what a cell started too.
    spec.parent_death_signal = SIGTERM;
    // Loading a framework takes seconds, not minutes; never longer than a cell may take.
    auto ready_within =
        std::chrono::milliseconds(1000 * std::min<std::uint64_t>(options_.cell_timeout_s, 120));
    std::string why;
    z.client = ZygoteClient::start(spec, ready_within, &why);
    if (!z.client) refuse(m, z, why);
    return z.client.get();
  }

  void refuse(const MatrixCell& m, Zygote& z, const std::string& why) {
    z.client.reset();
    z.refused = why.empty() ? "unknown" : why;
    progress_ << "memrel: " << m.backend.name
              << (m.preload_program.empty() ? ": its cells"
                                            : ": its cells of program " + m.preload_program)
              << " start by exec (no zygote: " << z.refused << ")" << std::endl;
  }

  Running start_cell(std::size_t index, std::size_t slot, pid_t after_pid) {
    const MatrixCell& m = matrix_[index];
    ChildSpec spec = spec_for(m, slot, after_pid);
    if (forks_from_zygote(m)) --zygotes_[zygote_key(m)].cells_to_start;
    if (ZygoteClient* zygote = zygote_for(m)) {
      try {
        return Running{index, start(spec, options_.cell_timeout_s, true, zygote), "zygote"};
      } catch (const MachineStateError&) {
        // The zygote stopped from outside, or the machine cannot make the cell's files, pipes
        // or process: no cell of the run's can be judged now.
        throw;
      } catch (const std::runtime_error& e) {
        refuse(m, zygotes_[zygote_key(m)], e.what());
      }
    }
    return Running{index, start(spec, options_.cell_timeout_s, true), "exec"};
  }

  // A zygote goes once its backend has no cell left to start and none running.
  void end_zygote_if_done(const std::string& backend_arg, ZygoteClient* via) {
    auto it = zygotes_.find(backend_arg);
    if (it == zygotes_.end() || !it->second.client || it->second.client.get() != via) return;
    if (it->second.cells_to_start == 0 && via->running() == 0) it->second.client.reset();
  }

  // The name the user gave for a workload file the cell read (as the cell wrote it into its
  // result, path_for_json, or as the runner knows it), as results record it.
  std::string original(const std::string& path) const {
    for (const RunWorkload& w : options_.workloads) {
      if (w.path == path || path_for_json(w.path) == path) return path_for_json(w.original);
    }
    return path_for_json(path);
  }

  ChildSpec spec_for(const MatrixCell& m, std::size_t slot, pid_t after_pid) const {
    ChildSpec spec;
    CellRequest request = cell_request(options_, m.backend_arg);
    request.workload = m.path;
    request.after_pid = after_pid;
    request.result_fd = cell_protocol::kResultDescriptor;
    request.host_capacity = std::to_string(options_.cell.host_capacity_bytes);
    request.trace_scale = trace_scale_text(options_.cell.trace_scale_divisor);
    spec.args = cell_command_line(options_.memrel_executable, request);
    spec.environment = child_environment(options_, m.backend);
    // `memrel cell` answers SIGTERM at once, in C, by SIGKILLing its own group (serve_cell, the
    // zygote's on_terminate): so the kernel's signal ends what a cell started too.
    spec.parent_death_signal = SIGTERM;
    if (slot < options_.gpus.size()) {  // the host lane's cells see the GPUs as they are
      for (const auto& [k, v] : gpu_environment(options_.gpus[slot])) spec.environment[k] = v;
    }
    return spec;
  }

  // Whether an exit of kCellResultNotWritten is the cell's own (it says so on stderr, or it could
  // not even write that and TMPDIR takes no file now). An allocator that gives up with exit(5)
  // was blamed on TMPDIR and stopped the run, exit 4, every --resume again (the twenty-second
  // adversarial pass, c8-allocator-exit5-blamed-on-tmpdir): its cell has crashed.
  static bool cell_could_not_hand_over(const std::string& stderr_tail) {
    if (stderr_tail.find(kCellResultNotWrittenLine) != std::string::npos) return true;
    return stderr_tail.empty() && !temporary_folder_problem().empty();
  }

  // A crash, a timeout or a missing result becomes the cell's status.
  CellResult outcome(const MatrixCell& m, const RunningChild& child, int status, bool timed_out,
                     const std::string& started_by) const {
    std::uint64_t wall_ns = static_cast<std::uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - child.start).count());
    std::string stderr_tail = tail_of(read_whole_fd(child.stderr_file.get()), 2000);
    CellResult cell;
    if (timed_out) {
      cell = failed_cell(
          m.backend.name, m.name, m.path, "timeout",
          "killed after the cell timeout of " + std::to_string(options_.cell_timeout_s) + " s");
    } else if (WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL && child.via != nullptr &&
               child.via->gone()) {
      // Its zygote, memrel's own process, died (killed from outside), and the cell with it (its
      // parent-death signal): recorded as the allocator crashing, kept by --resume, exit 3 (the
      // twenty-seventh adversarial pass, c8-zygote-killed-cell-recorded-crashed). The run stops
      // instead, its finished cells kept, as for every failure of the machine's.
      throw MachineStateError(
          m.backend.name + " x " + m.name + ": memrel's zygote for the backend's cells (process " +
          std::to_string(child.via->pid()) +
          ") died while the cell ran, and the cell with it; not the allocator's failure. The run "
          "stopped" +
          (options_.journal_path.empty()
               ? std::string()
               : "; its finished cells are kept in " + options_.journal_path +
                     " (continue with --resume)"));
    } else if (const int stop = stopped_by_signal(stderr_tail);
               WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL && stop != 0) {
      // Asked to stop from outside (the cell is in a group of its own: no terminal's signal
      // reaches it), and said so before it ended its group: the run stops as if asked itself,
      // the cell not recorded, where it was "crashed: killed by signal 9", exit 3, kept by
      // --resume (the thirty-first adversarial pass,
      // c8-cell-sigterm-from-outside-said-sigkill-crash).
      throw Interrupted(stop, m.backend.name + " x " + m.name + ": the cell was stopped by " +
                                  signal_name(stop) +
                                  " from outside; not the allocator's failure. The run "
                                  "stopped" +
                                  (options_.journal_path.empty()
                                       ? std::string()
                                       : "; its finished cells are kept in " +
                                             options_.journal_path + " (continue with --resume)"));
    } else if (WIFSIGNALED(status)) {
      int sig = WTERMSIG(status);
      const std::string killed = "killed by signal " + std::to_string(sig) + " (" + strsignal(sig) +
                                 ")" + (stderr_tail.empty() ? "" : ": " + stderr_tail);
      // The machine's CPU-time limit, not the allocator's crash: SIGXCPU at the soft limit,
      // SIGKILL at the hard one (platform/cpu_time_limit.hpp).
      if (const std::optional<std::uint64_t> limit =
              cpu_limit_that_killed(sig, static_cast<double>(wall_ns) * 1e-9)) {
        const std::uint64_t seconds = *limit;
        cell = failed_cell(m.backend.name, m.name, m.path, "error",
                           killed + "; under a CPU-time limit of " + std::to_string(seconds) +
                               " s (ulimit -t): the machine's limit, not the allocator's; raise "
                               "or lift it");
      } else {
        cell = failed_cell(m.backend.name, m.name, m.path, "crashed", killed);
      }
    } else {
      std::string why;
      try {
        std::string text = read_whole_fd(child.result.get());
        if (text.empty()) throw ResultsError("no result written");
        nlohmann::json record = nlohmann::json::parse(text);
        // When the cell began, on our clock: its spawn time is the difference.
        std::optional<std::int64_t> entered;
        if (record.is_object() && record.contains(cell_protocol::kEnteredKey)) {
          if (record[cell_protocol::kEnteredKey].is_number_integer())
            entered = record[cell_protocol::kEnteredKey].get<std::int64_t>();
          record.erase(cell_protocol::kEnteredKey);
        }
        cell = cell_from_json(record);
        if (entered && cell.timing) {
          std::int64_t spawn = *entered - std::chrono::duration_cast<std::chrono::nanoseconds>(
                                              child.start.time_since_epoch())
                                              .count();
          cell.timing->spawn_ns = spawn > 0 ? static_cast<std::uint64_t>(spawn) : 0;
        }
      } catch (const nlohmann::json::exception& e) {
        why = std::string("its result is not JSON: ") + e.what();
      } catch (const ResultsError& e) {
        why = e.what();
      }
      if (!why.empty() && WEXITSTATUS(status) == kCellResultNotWritten &&
          cell_could_not_hand_over(stderr_tail))
        throw CellResultNotWritten(
            m.backend.name + " x " + m.name + ": the cell ran but could not write its result (" +
            (stderr_tail.empty() ? std::string("nor its stderr") : stderr_tail) +
            "); not the allocator's failure: " + why_a_result_cannot_be_written(stderr_tail) +
            " The run stopped" +
            (options_.journal_path.empty()
                 ? std::string()
                 : "; its finished cells are kept in " + options_.journal_path +
                       " (continue with --resume)"));
      if (!why.empty())
        cell = failed_cell(m.backend.name, m.name, m.path, "crashed",
                           "exited with code " + std::to_string(WEXITSTATUS(status)) +
                               " without a usable result (" + why + ")" +
                               (stderr_tail.empty() ? "" : ": " + stderr_tail));
    }
    // A failed cell whose backend file or library is gone now could not load it: the machine's
    // state, not the allocator's failure. Recorded as `error` or `crashed`, a --resume after the
    // file was put back kept it (the twenty-first adversarial pass,
    // c8-lib-vanishes-midrun-kept-by-resume, c8-backend-file-vanishes-midrun): the run stops
    // instead, and the finished cells stay in the journal.
    if (cell.status == "error" || cell.status == "crashed")
      for (const std::string& input : m.backend.input_files) {
        struct stat st {};
        const bool gone = stat(input.c_str(), &st) != 0;
        if (!gone && S_ISREG(st.st_mode)) continue;
        throw MachineStateError(
            m.backend.name + " x " + m.name + ": " + input + ", which the backend needs, " +
            (gone ? "disappeared" : "stopped being a regular file") +
            " during the run (the cell failed: " + one_line_text(cell.reason).substr(0, 300) +
            "); not the allocator's failure. The run stopped" +
            (options_.journal_path.empty()
                 ? std::string()
                 : "; its finished cells are kept in " + options_.journal_path +
                       " (put the file back and continue with --resume)"));
      }
    cell.wall_ns = wall_ns;
    if (!cell.timing) cell.timing.emplace();
    cell.timing->started_by = started_by;
    return cell;
  }

  // A line for a cell only when it is worth reading (harness/execution/run_summary.hpp), and a line
  // per backend once all its cells are done: with --gpus they finish out of order.
  void print_progress(std::size_t finished, const CellResult& cell) {
    // Every cell that ran; the unavailable ones (most of the matrix on a CPU machine) are
    // grouped by reason in the summary at the end.
    if ((options_.progress_every_cell && cell.status != "unavailable") || cell_worth_a_line(cell)) {
      progress_ << cell_line(cell, finished, matrix_.size());
      if (cell.gpu) progress_ << "  gpu " << cell.gpu->index;
      progress_ << std::endl;
    }
    count_for_backend_line(cell);
    std::vector<CellResult>& cells = by_backend_[cell.backend];
    std::size_t expected = 0;
    for (const MatrixCell& m : matrix_) expected += m.backend.name == cell.backend;
    if (cells.size() == expected) {
      std::string line = backend_line(cells);
      if (!line.empty())
        progress_ << "[" << finished << "/" << matrix_.size() << "] " << line << std::endl;
    }
  }

  // What backend_line reads; not the steps and series a cell may carry.
  void count_for_backend_line(const CellResult& cell) {
    CellResult summary;
    summary.backend = cell.backend;
    summary.status = cell.status;
    summary.wall_ns = cell.wall_ns;
    by_backend_[cell.backend].push_back(std::move(summary));
  }

  const RunOptions& options_;
  std::vector<MatrixCell> matrix_;
  FilesUnchanged inputs_;
  std::ostream& progress_;
  std::map<std::string, std::vector<CellResult>> by_backend_;
  std::map<std::string, Zygote> zygotes_;  // by backend argument; ended with the scheduler
};

}  // namespace

ZygoteUse parse_zygote_use(const std::string& text, const std::string& option) {
  if (text == "none") return ZygoteUse::kNone;
  if (text == "device") return ZygoteUse::kDevice;
  if (text == "all") return ZygoteUse::kAll;
  throw std::invalid_argument(option + " " + text + ": expected none, device or all");
}

std::string check_backend_process(const RunOptions& options, const std::string& backend_name,
                                  std::ostream* waiting,
                                  const std::map<std::string, std::string>& environment) {
  const BackendInfo backend = resolve_backend(backend_name, options.backends_dir);
  ChildSpec spec;
  CellRequest request = cell_request(options, backend_name);
  request.check = true;
  spec.args = cell_command_line(options.memrel_executable, request);
  spec.environment = child_environment(options, backend);
  for (const auto& [name, value] : environment) spec.environment[name] = value;
  // `memrel cell` answers SIGTERM at once, in C, by SIGKILLing its own group (serve_cell, the
  // zygote's on_terminate): so the kernel's signal ends what a cell started too.
  spec.parent_death_signal = SIGTERM;
  RunningChild child = start(spec, options.cell_timeout_s, false);
  std::optional<int> status;
  bool timed_out = false;
  bool said_waiting = false;
  while (!(status = exited(child))) {
    if (int signal = InterruptRequests::received()) {
      kill_child_group(child.pid);
      throw_interrupted(signal, "while checking " + backend.file);
    }
    // A library that takes long to load (or never returns) held `memrel list` silent for the
    // whole bound (the fortieth adversarial pass, c8-list-hangs-on-library-that-hangs-loading).
    if (waiting && !said_waiting && Clock::now() > child.start + kSayCheckWaitingAfter) {
      *waiting << "memrel: " << backend.file << ": its library is still loading after "
               << kSayCheckWaitingAfter.count() << " s; waiting up to " << options.cell_timeout_s
               << " s" << std::endl;
      said_waiting = true;
    }
    if (Clock::now() > child.deadline) {
      // Stopped from outside (SIGSTOP, a debugger): the machine's state, not a slow library.
      if (process_is_stopped(child.pid)) {
        kill_child_group(child.pid);
        throw MachineStateError(backend.file + ": the check that loads its library (process " +
                                std::to_string(child.pid) + ")" + kStoppedFromOutside +
                                " when the cell "
                                "timeout ran out; nothing run");
      }
      status = kill_child_group(child.pid);
      timed_out = true;
      break;
    }
    std::this_thread::sleep_for(kPollInterval);
  }
  std::string error = tail_of(read_whole_fd(child.stderr_file.get()), 2000);
  // Loaded, but without a library its environment preloads: the loader skips one it cannot load
  // with a warning alone (platform/loader_preload.hpp).
  if (std::string skipped = skipped_preload(error); !skipped.empty())
    return backend.file + ": " + kLoaderSkipsPreload + skipped;
  if (!timed_out && WIFEXITED(*status) && WEXITSTATUS(*status) == 0) return "";
  const std::string prefix = "memrel: ";
  if (error.compare(0, prefix.size(), prefix) == 0) error = error.substr(prefix.size());
  if (timed_out)
    return backend.file + ": loading its library took longer than " +
           std::to_string(options.cell_timeout_s) + " s";
  if (WIFSIGNALED(*status))
    return backend.file + ": loading its library killed the process with signal " +
           std::to_string(WTERMSIG(*status)) + (error.empty() ? "" : ": " + error);
  // memrel's check says what it found wrong; a silent exit is the library's own (a constructor
  // that calls exit).
  if (error.empty())
    return backend.file + ": loading its library ended the process with exit code " +
           std::to_string(WEXITSTATUS(*status)) + " and no message";
  // The library's own refusal need not name its file: a backend file's MEMREL_EXAMPLE_SLOWDOWN_NS
  // of 0x10 was said as if the user's shell held it (the seventy-second adversarial pass,
  // c4-backend-file-env-number-place-unnamed).
  return error.find(backend.file) == std::string::npos ? backend.file + ": " + error : error;
}

namespace {

// The machine is part of the run: a journal whose cells ran on another host or GPU, resumed
// here, made one results file of two machines' cells under this one's context, exit 0 (the
// thirty-second adversarial pass, c5-resume-on-another-machine-mixes-cells). Told by the
// machine's identity (machine_fields: not memrel's commit, not the runtimes' versions); a
// journal without a fingerprint (an older memrel's) is not judged.
void refuse_journal_of_another_machine(const std::string& journal,
                                       const nlohmann::json& then_context,
                                       const nlohmann::json& now_context) {
  if (!then_context.contains("fingerprint") || !now_context.contains("fingerprint")) return;
  MachineFingerprint then, now;
  try {
    then = fingerprint_from_json(then_context["fingerprint"]);
    now = fingerprint_from_json(now_context["fingerprint"]);
  } catch (const std::invalid_argument& e) {
    throw ResultsError(journal + ": context: fingerprint: " + e.what());
  }
  if (machine_id(then) == machine_id(now)) return;
  std::string fields;
  for (const std::string& field : fingerprint_differences(then, now)) {
    const auto& identity = machine_fields();
    if (std::find(identity.begin(), identity.end(), field) != identity.end())
      fields += (fields.empty() ? "" : ", ") + field;
  }
  throw ResultsError(journal + ": the journal's cells ran on another machine (" + fields +
                     " differ): resume it there, or run again without --resume");
}

}  // namespace

RunResults run_suite(const RunOptions& options, std::ostream& progress,
                     std::optional<RunJournal>* journal_out) {
  nlohmann::json context = run_context();
  // A stop asked for while git said the commit (the run's context) ended git, not the run.
  if (int signal = InterruptRequests::received())
    throw_interrupted(signal, "while reading the run's context");
  // What makes two runs the same run: a journal is continued only by its own.
  nlohmann::json run = {
      {"backends", nlohmann::json::array()},
      {"backends_dir", path_for_json(options.backends_dir)},
      {"workloads", nlohmann::json::array()},
      {"cell_timeout_s", options.cell_timeout_s},
      {"host_capacity_bytes", options.cell.host_capacity_bytes},
      {"trace_scale", trace_scale_text(options.cell.trace_scale_divisor)},
      {"cuda_module_loading",
       options.module_loading.empty() ? "default (unset)" : options.module_loading}};
  // A -b may be a backend file's path.
  for (const std::string& b : options.backends) run["backends"].push_back(path_for_json(b));
  // The files cells read again, as they are before their digests are taken.
  FilesUnchanged inputs;
  for (const RunWorkload& w : options.workloads) inputs.watch(w.original, w.version);
  for (const RunWorkload& w : options.workloads)
    run["workloads"].push_back(
        {{"file", path_for_json(w.original)}, {"digest", content_digest_text(w.original)}});
  context["options"] = run;
  context["options"]["workloads"] = nlohmann::json::array();
  for (const RunWorkload& w : options.workloads)
    context["options"]["workloads"].push_back(path_for_json(w.original));
  if (!options.gpus.empty()) {
    context["options"]["gpus"] = nlohmann::json::array();
    for (const auto& g : options.gpus) context["options"]["gpus"].push_back(g.index);
  }
  // What each backend is and what its release does, so that a results file says it even for
  // backends that are not in memrel's table (backend files).
  context["backends"] = nlohmann::json::array();
  std::vector<BackendInfo> backends;
  for (const auto& backend_arg : options.backends)
    backends.push_back(resolve_backend(backend_arg, options.backends_dir));
  // A backend file, or the library it names, edited between a run and its --resume would put
  // cells of two allocators under one name (the eighth adversarial pass: a resume after a backend
  // file's name, description or release function changed went on, exit 0): their contents are
  // part of what makes two runs the same run, as the workloads' are.
  run["backend_files"] = nlohmann::json::array();
  for (const BackendInfo& b : backends) {
    for (const std::string& f : b.input_files) {
      inputs.watch(f);
      run["backend_files"].push_back(
          {{"file", path_for_json(f)}, {"digest", content_digest_text(f)}});
    }
  }
  // And the environment variables that change what an allocator does (MALLOC_ARENA_MAX,
  // PYTORCH_CUDA_ALLOC_CONF, ...): each cell records them, and a --resume under others put cells
  // of two settings into one results file (the tenth adversarial pass,
  // c5-resume-allocator-env-changed).
  run["allocator_environment"] = allocator_environment();
  // And the address-space limit: a host cell out of memory under one is an error of the machine
  // (cell.cpp), which a --resume after the limit was lifted kept (the eleventh adversarial pass,
  // c8-resume-keeps-ulimit-v-errors). Under another limit it is another run.
  const std::optional<std::uint64_t> address_space = address_space_limit_bytes();
  run["address_space_limit_bytes"] =
      address_space ? nlohmann::json(*address_space) : nlohmann::json(nullptr);
  // And the data-segment limit (`ulimit -d`), which a cell blames the same way; only where one
  // is set, so that a journal of an older memrel, made without one, is still this run's.
  if (const std::optional<std::uint64_t> data = data_limit_bytes()) run["data_limit_bytes"] = *data;
  // And the CPU-time limit, for the same reason (c8-ulimit-cpu-resume-keeps-crash).
  const CpuTimeLimit cpu = cpu_time_limit();
  run["cpu_time_limit_seconds"] =
      cpu.soft_seconds ? nlohmann::json(*cpu.soft_seconds) : nlohmann::json(nullptr);
  // And how cells start: forked from a warm zygote or exec'd, which moves a host backend's figures
  // (peak_reserved 208101376 one way, 208244736 the other); a --resume or a merge across the two
  // mixed them under one mode no file recorded (the fifteenth adversarial pass, c5-zygote-*).
  run["zygote"] = options.zygote == ZygoteUse::kNone  ? "none"
                  : options.zygote == ZygoteUse::kAll ? "all"
                                                      : "device";
  // What merge compares of its shards (harness/execution/merge.cpp: every context.options field):
  // the same as a --resume, but the machine's own limit. Shards of one matrix that ran other
  // contents of a workload file were joined under one name
  // (c6-merge-shards-workload-edited-between).
  context["options"]["zygote"] = run["zygote"];
  context["options"]["workload_digests"] = nlohmann::json::array();
  for (const auto& w : run["workloads"])
    context["options"]["workload_digests"].push_back(w["digest"]);
  context["options"]["backend_files"] = run["backend_files"];
  context["options"]["allocator_environment"] = run["allocator_environment"];
  // The whole matrix once, as cell keys: a shard's cells are chosen from it, and its results
  // record it so that `memrel merge` can check its files are the shards of one matrix.
  std::vector<std::string> backend_names, workload_names;
  for (const BackendInfo& b : backends) backend_names.push_back(b.name);
  for (const RunWorkload& w : options.workloads) workload_names.push_back(w.name);
  const std::vector<std::string> keys = cell_matrix(backend_names, workload_names);
  std::optional<std::set<std::string>> only_cells;
  if (options.shard) only_cells = shard_cells(keys, *options.shard);
  std::vector<MatrixCell> matrix;
  for (std::size_t i = 0; i < backends.size(); ++i) {
    const BackendInfo& backend = backends[i];
    nlohmann::json described = {{"name", backend.name},
                                {"kind", backend.family},
                                {"space", memory_space_name(backend.space)},
                                {"description", backend.description},
                                {"release", backend.release}};
    if (!backend.file.empty()) described["file"] = path_for_json(backend.file);
    if (!backend.settings.empty()) described["settings"] = backend.settings;
    context["backends"].push_back(described);
    Availability availability = backend.availability();
    for (const RunWorkload& w : options.workloads) {
      if (only_cells && !only_cells->count(cell_key(backend.name, w.name))) continue;
      matrix.push_back({options.backends[i], backend, w.path, w.name, availability,
                        foreign_program(backend, w.programs)});
    }
  }
  // A shard's journal is of that shard: resuming it with another shard's cells is refused.
  if (only_cells) {
    run["only_cells"] = nlohmann::json::array();
    for (const auto& m : matrix) run["only_cells"].push_back(cell_key(m.backend.name, m.name));
  }

  // Changed since the run read it and before the digests (and before a journal is made): the
  // journal would record another content than the one the run checked.
  if (std::string changed = inputs.first_changed(); !changed.empty())
    throw InputError(changed, "", "changed while the run read it: run again");

  std::map<std::size_t, CellResult> done;
  std::optional<RunJournal> journal;
  if (!options.journal_path.empty() && options.resume) {
    // A symbolic link there (dangling or not) is said as one, as a fresh run says it: followed,
    // a dangling one was "no journal to resume" (the forty-sixth adversarial pass,
    // c2-resume-dangling-journal).
    if (struct stat st{}; lstat(options.journal_path.c_str(), &st) == 0 && S_ISLNK(st.st_mode))
      throw ResultsError(options.journal_path +
                         ": is a symbolic link, not a journal memrel wrote: move it away (it is "
                         "where the journal goes)");
    if (access(options.journal_path.c_str(), F_OK) != 0)
      throw ResultsError(options.journal_path +
                         ": no journal to resume (the run finished, or never started)");
    JournalContent content = read_journal(options.journal_path);
    std::string mismatch = journal_mismatch(content.run, run);
    if (!mismatch.empty())
      throw ResultsError(options.journal_path + ": the journal is of another run: " + mismatch);
    refuse_journal_of_another_machine(options.journal_path, content.context, context);
    std::vector<std::pair<std::string, std::string>> keys;
    for (const auto& m : matrix) keys.emplace_back(m.backend.name, m.name);
    check_journal_cells(options.journal_path, content.cells, keys);      // index, backend, workload
    journal.emplace(RunJournal::resume(options.journal_path, content));  // locked, or refused
    // A cell that was `unavailable` is run again: that was the machine's state (a framework not
    // installed, no device), not a result, and a --resume after the tool was installed kept it
    // (arguable in the twentieth adversarial pass; issue 23, class 8: never kept by --resume).
    std::size_t tried_again = 0;
    for (auto& [index, cell] : content.cells) {
      if (cell.status == "unavailable")
        ++tried_again;
      else
        done.emplace(index, std::move(cell));
    }
    // The run is the journal's: it started then, and continues now.
    nlohmann::json resumed = content.context.value("resumed", nlohmann::json::array());
    resumed.push_back(context["started"]);
    journal->record_resumption(context["started"].get<std::string>());
    context["started"] = content.context["started"];
    context["resumed"] = resumed;
    progress << "resuming " << options.journal_path << ": " << done.size() << " of "
             << matrix.size() << " cells already finished";
    if (tried_again > 0) progress << " (" << tried_again << " unavailable then, tried again)";
    progress << std::endl;
  } else if (!options.journal_path.empty()) {
    journal.emplace(RunJournal::start(options.journal_path, run, context));
  }

  Scheduler(options, matrix, std::move(inputs), progress).run(done, journal ? &*journal : nullptr);
  if (journal && journal_out) journal_out->emplace(std::move(*journal));

  RunResults results;
  results.context = context;
  for (auto& [index, cell] : done) results.cells.push_back(std::move(cell));
  results.context["finished"] = utc_now_iso8601();
  if (options.shard) results.context["shard"] = shard_record(keys, *options.shard);
  // The runtimes' versions, as the cells that loaded them found them (harness/execution/cell.cpp):
  // for the fingerprint.
  for (const CellResult& cell : results.cells) {
    const nlohmann::json& device = cell.setup.device;
    if (!device.is_object() || !device.contains("runtime_versions") ||
        !results.context.contains("fingerprint"))
      continue;
    for (const auto& [runtime, version] : device["runtime_versions"].items()) {
      nlohmann::json& versions = results.context["fingerprint"]["runtime_versions"];
      if (!versions.is_object()) versions = nlohmann::json::object();
      if (!versions.contains(runtime)) versions[runtime] = version;
    }
  }
  return results;
}

}  // namespace memrel
