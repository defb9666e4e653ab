#include "harness/execution/cell.hpp"

#include <fcntl.h>
#include <malloc.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <new>
#include <thread>

#include "allocators/allocator_environment.hpp"
#include "allocators/backend_families.hpp"
#include "harness/execution/elapsed.hpp"
#include "harness/execution/trace_replay.hpp"
#include "harness/results/metrics.hpp"
#include "harness/workload/trace_file.hpp"
#include "harness/workload/trace_plan.hpp"
#include "platform/address_space_limit.hpp"
#include "platform/device_probe.hpp"
#include "platform/host_probe.hpp"
#include "platform/memory_limits.hpp"
#include "platform/path_for_json.hpp"
#include "platform/process_exit.hpp"

namespace memrel {
namespace {

class CellRun : public ProgramContext {
 public:
  CellRun(const BackendInfo& backend, const Workload& workload, const CellOptions& options)
      : backend_(backend), workload_(workload), options_(options) {}

  CellResult run() {
    Clock::time_point start = Clock::now();
    result_.backend = backend_.name;
    result_.workload = workload_.name;
    result_.workload_source = path_for_json(workload_.source);
    result_.setup.memory_space = backend_.space == MemorySpace::kDevice ? "device" : "host";
    // Made before the workload, as every record of the harness (execute() says why).
    CellTiming& timing = result_.timing.emplace();
    const std::uint64_t libraries_at_start = library_load_ns();
    try {
      set_up();
      const std::uint64_t libraries_before_work = library_load_ns();
      Clock::time_point work = Clock::now();
      struct WorkTime {  // charged however the workload ends, an OOM or an error included
        CellTiming& timing;
        std::uint64_t probes_before, libraries_before;
        Clock::time_point start;
        ~WorkTime() {
          std::uint64_t spent = elapsed_ns(start);
          std::uint64_t others =
              (timing.probe_ns - probes_before) + (library_load_ns() - libraries_before);
          timing.work_ns = spent > others ? spent - others : 0;
        }
      } work_time{timing, timing.probe_ns, libraries_before_work, work};
      if (replayer_) {
        replayer_->run(
            *allocator_,
            [this](std::uint64_t requested, bool with_process) {
              requested_live_ = requested;
              return probe(with_process);
            },
            result_);
      } else {
        execute(resolve_steps(workload_, result_.setup.capacity_bytes));
      }
      if (result_.status.empty()) result_.status = "ok";
    } catch (const Unavailable& e) {
      result_.status = "unavailable";
      result_.reason = e.what();
    } catch (const OutOfMemory& e) {
      // Outside a step (backend init): the cell could not start.
      result_.status = "oom";
      result_.reason = e.what();
    } catch (const std::bad_alloc&) {
      // memrel's own bookkeeping ran out (the cell's records, a trace's events), not the
      // allocator under test: said as the machine's memory, with the limit where one is set.
      result_.status = "error";
      result_.reason = "memrel ran out of memory in the cell";
      if (const std::optional<std::uint64_t> limit = address_space_limit_bytes())
        result_.reason += " under an address-space limit of " + std::to_string(*limit >> 20) +
                          " MiB (ulimit -v): the machine's limit, not the allocator's; raise or "
                          "lift it";
    } catch (const std::exception& e) {
      result_.status = "error";
      result_.reason = e.what();
    }
    blame_a_memory_limit();
    // After the workload: the record lives in the heap a host backend's probes count, and its
    // size must not depend on the environment (a cell pinned to a GPU by CUDA_VISIBLE_DEVICES
    // measures the same bytes as one that is not).
    result_.setup.environment = allocator_environment();
    // And the variables the backend asks for (a backend file's "environment"), as this process
    // really has them.
    for (const auto& entry : backend_.cell_environment) {
      if (const char* v = std::getenv(entry.first.c_str()))
        result_.setup.environment[entry.first] = v;
    }
    result_.setup.settings = backend_.settings;
    result_.metrics = compute_metrics(result_);
    timing.library_load_ns = library_load_ns() - libraries_at_start;
    timing.context_ns = result_.setup.context_create_ns.value_or(0);
    result_.wall_ns = elapsed_ns(start);
    return result_;
  }

 private:
  // A host allocator that runs out under an address-space limit (`ulimit -v`) ran out of the
  // machine's limit, not of what it does: recorded as its "oom", exit 0, with no word of the
  // limit, the cell stood for an allocator's result in a nightly and in every --resume (the
  // tenth adversarial pass, c8-run-ulimit-v-recorded-as-oom). An error of the cell instead
  // (exit 3), saying the limit. Only when the failed request came within reach of it: under a
  // generous limit an allocator's own refusal was blamed on it, and a data-segment limit
  // (`ulimit -d`, which bounds malloc's mappings too) was not looked at (the twenty-second
  // adversarial pass, c8-allocator-oom-blamed-on-ulimit-v, c8-ulimit-d-recorded-as-allocator-oom).
  // A device allocator's memory is not the process's address space.
  void blame_a_memory_limit() {
    if (result_.status != "oom" || backend_.space != MemorySpace::kHost) return;
    const std::string limit =
        replayer_ ? replayer_->limit_at_first_oom() : memory_limit_reached(failed_request_bytes_);
    if (limit.empty()) return;
    result_.status = "error";
    result_.reason +=
        "; under " + limit + ": the machine's limit, not the allocator's; raise or lift it";
  }

  void set_up() {
    CellSetup& s = result_.setup;
    if (backend_.space == MemorySpace::kDevice) {
      Clock::time_point t = Clock::now();
      device_ = DeviceProbe::create();
      s.context_create_ns = elapsed_ns(t);
      wait_for_previous_cell();
      s.device_used_after_context = device_->used_bytes();
      s.process_used_after_context = device_->process_bytes(&s.process_probe_note);
      const DeviceDescription& d = device_->description();
      s.device = {{"name", d.name},
                  {"pci_bus_id", d.pci_bus_id},
                  {"total_bytes", d.total_bytes},
                  {"compute_capability", std::to_string(d.compute_capability_major) + "." +
                                             std::to_string(d.compute_capability_minor)},
                  {"cuda_runtime_version", d.cuda_runtime_version},
                  {"cuda_driver_version", d.cuda_driver_version}};
      s.capacity_bytes = d.total_bytes;
    } else {
      wait_for_previous_cell();
      s.capacity_bytes = options_.host_capacity_bytes;
    }
    if (workload_.trace) {
      // Before the baseline and before the backend's settings (host-malloc-retain turns mmap
      // off): the replay's tables are the harness's memory, not the workload's.
      const Trace& trace = *workload_.trace;
      std::uint64_t divisor = options_.trace_scale_divisor;
      if (divisor == 0)
        divisor =
            backend_.space == MemorySpace::kHost ? auto_trace_divisor(trace, s.capacity_bytes) : 1;
      replayer_ =
          std::make_unique<TraceReplayer>(trace, make_trace_plan(trace, divisor), backend_.space);
    }
    // A host allocator starts from a heap with none of the harness's freed chunks in its bins
    // and its top trimmed: otherwise where the replay's blocks fit depended on the harness's own
    // allocations before it (a longer workload path moved host-malloc's reserved bytes at a
    // trace's peak by 27.7 MiB, 3.2 %, and an H200 gate called it a regression).
    if (backend_.space == MemorySpace::kHost) malloc_trim(0);
    std::uint64_t used_before_init = raw_used();
    const std::uint64_t libraries_before_init = library_load_ns();
    Clock::time_point t = Clock::now();
    allocator_ = backend_.make();
    allocator_->synchronize();
    s.backend_init_ns = elapsed_ns(t);
    const std::uint64_t loading = library_load_ns() - libraries_before_init;
    result_.timing->backend_init_ns = s.backend_init_ns > loading ? s.backend_init_ns - loading : 0;
    // A backend may have loaded a runtime whose version only this process can tell: the runner
    // puts it in the run's machine fingerprint (the parent loads no backend's library).
    if (auto versions = loaded_runtime_versions(); !versions.empty() && s.device.is_object())
      s.device["runtime_versions"] = versions;
    s.baseline_device_used = raw_used();
    s.baseline_host_rss = host_rss_bytes();
    s.backend_init_device_bytes = static_cast<std::int64_t>(s.baseline_device_used) -
                                  static_cast<std::int64_t>(used_before_init);
    if (device_ && s.process_used_after_context) {
      std::string ignored;
      if (auto p = device_->process_bytes(&ignored)) {
        s.backend_init_process_bytes = static_cast<std::int64_t>(*p) -
                                       static_cast<std::int64_t>(*s.process_used_after_context);
      }
    }
    inject_fault_if_asked();
  }

  // The slot's previous cell may still be exiting (its CUDA context being torn down, which
  // frees device memory): every reading of the device's memory comes after it has ended, so the
  // bytes are those of a run where cells follow one another. A host cell waits too (its slot's
  // order stays that of the device cells'); its readings are its own process's, unaffected.
  void wait_for_previous_cell() {
    if (options_.after_pid > 0)
      result_.timing->previous_exit_wait_ns = wait_until_process_ends(options_.after_pid);
  }

  // Lets the runner's tests produce a misbehaving cell on demand: MEMREL_INJECT_FAULT is
  //   abort                  the cell crashes (SIGABRT);
  //   exit:N                 the cell exits N at once, as an allocator that gives up does;
  //   signal:N               the cell raises signal N (SIGKILL: as the OOM killer ends it);
  //   hang                   the cell never ends;
  //   hang-with-child:FILE   the cell starts a child that never ends, writes "CELL CHILD" (pids)
  //                          to FILE, and never ends (no process may outlive the runner);
  //   leave-child:FILE       the same, but the cell goes on and ends as usual;
  //   rendezvous:DIR:N       the cell waits until N cells are in DIR at once (cells really run
  //                          in parallel), and aborts if another cell holds its slot: its
  //                          CUDA_VISIBLE_DEVICES, else the device or the host lane (one cell
  //                          per GPU, and one in the host lane, at a time);
  //   slow-exit:MS           the cell's process takes MS milliseconds to exit once its result
  //                          is written, as a device cell's context teardown does (done by
  //                          serve_cell, which writes the result);
  // for every cell, or only for the cell MEMREL_INJECT_FAULT_CELL=BACKEND/WORKLOAD.
  void inject_fault_if_asked() const {
    const char* fault = std::getenv("MEMREL_INJECT_FAULT");
    if (fault == nullptr) return;
    const char* only = std::getenv("MEMREL_INJECT_FAULT_CELL");
    if (only != nullptr && std::string(only) != backend_.name + "/" + workload_.name) return;
    std::string f = fault;
    if (f == "abort") std::abort();
    if (f.rfind("exit:", 0) == 0) _exit(std::stoi(f.substr(5)));
    if (f.rfind("signal:", 0) == 0) {
      const int number = std::stoi(f.substr(7));
      std::signal(number, SIG_DFL);  // SIGXCPU and the others end the cell, whatever it set
      raise(number);
    }
    if (f == "hang") hang();
    if (f.rfind("hang-with-child:", 0) == 0) {
      start_endless_child(f.substr(16));
      hang();
    }
    if (f.rfind("leave-child:", 0) == 0) start_endless_child(f.substr(12));

    if (f.rfind("rendezvous:", 0) == 0) {
      // The slot the cell holds: its GPU, or without one the device (device cells) or the host
      // lane (host cells: they run beside the device cells, RunOptions::host_lane).
      const char* gpu = std::getenv("CUDA_VISIBLE_DEVICES");
      rendezvous(f.substr(11), gpu                                    ? std::string("gpu-") + gpu
                               : backend_.space == MemorySpace::kHost ? "host-lane"
                                                                      : "gpu-none");
    }
  }

  // A child that never ends, and "CELL CHILD" (pids) written to `pid_file` whole, only when no
  // file has that name (link(2) replaces nothing, a symbolic link included): the command that
  // started the cell checked the name (injected_fault_problem); a later cell of the run, or a
  // cell run by hand, leaves an existing file as it is.
  static void start_endless_child(const std::string& pid_file) {
    pid_t child = fork();
    if (child == 0) hang();
    std::string temporary = pid_file + ".XXXXXX";
    const int fd = mkstemp(temporary.data());
    if (fd < 0) return;
    const std::string pids = std::to_string(getpid()) + " " + std::to_string(child) + "\n";
    const bool written = write(fd, pids.data(), pids.size()) == static_cast<ssize_t>(pids.size());
    close(fd);
    if (written) link(temporary.c_str(), pid_file.c_str());
    unlink(temporary.c_str());
  }

  [[noreturn]] static void hang() {
    while (true) std::this_thread::sleep_for(std::chrono::seconds(1));
  }

  static void rendezvous(const std::string& dir_and_count, const std::string& slot) {
    std::size_t colon = dir_and_count.rfind(':');
    std::filesystem::path dir = dir_and_count.substr(0, colon);
    std::size_t count = std::stoul(dir_and_count.substr(colon + 1));
    std::filesystem::path busy = dir / ("busy-" + slot);
    int fd = open(busy.c_str(), O_CREAT | O_EXCL | O_WRONLY, 0644);
    if (fd < 0) std::abort();  // another cell holds this slot
    close(fd);
    // Made new (a file of that name is not truncated): the folder is the user's.
    const int arrived_fd = open((dir / ("arrived-" + std::to_string(getpid()))).c_str(),
                                O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW, 0644);
    if (arrived_fd < 0) std::abort();
    close(arrived_fd);
    auto arrived = [&] {
      std::size_t n = 0;
      for (const auto& e : std::filesystem::directory_iterator(dir))
        n += e.path().filename().string().rfind("arrived-", 0) == 0;
      return n;
    };
    // Groups of `count`: the first cells meet when arrivals reach count, the next at 2 x count.
    std::size_t target = (arrived() + count - 1) / count * count;
    while (arrived() < target) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    std::filesystem::remove(busy);
  }

  // A program's probe: its own live bytes stand in for the workload's.
  void mark(const std::string& label, std::uint64_t requested_bytes) override {
    std::uint64_t saved = requested_live_;
    requested_live_ = requested_bytes;
    MarkRecord m;
    m.label = label;
    m.step = current_step_;
    m.at = probe(true);
    result_.marks.push_back(m);
    requested_live_ = saved;
  }

  void mark_peaks(const std::string& label, std::uint64_t peak_requested_bytes,
                  const Usage& peaks) override {
    mark(label, peak_requested_bytes);
    result_.marks.back().at.allocated = peaks.allocated;
    result_.marks.back().at.reserved = peaks.reserved;
  }

  // A program belongs to a family (its framework's), which decides how the framework's memory
  // reaches this cell's backend, or that it cannot.
  void run_program(const ConcreteStep& step) {
    const BackendFamily& family = program_family(step.program);
    result_.program_allocator = to_record(family.program_placement(backend_, step.program));
    family.run_program(backend_, *allocator_, step.program, step.args_json, *this);
  }

  static ProgramAllocatorRecord to_record(const ProgramPlacement& p) {
    return {p.framework, p.allocator, p.cache_layer};
  }

  std::uint64_t raw_used() const { return device_ ? device_->used_bytes() : host_rss_bytes(); }

  Snapshot probe(bool with_process) {
    struct ProbeTime {
      CellTiming& timing;
      Clock::time_point start = Clock::now();
      ~ProbeTime() { timing.probe_ns += elapsed_ns(start); }
    } probe_time{*result_.timing};
    allocator_->synchronize();
    Snapshot s;
    s.requested = requested_live_;
    Usage u = allocator_->usage();
    s.allocated = u.allocated;
    s.reserved = u.reserved;
    s.device_used = raw_used();
    s.device_used_delta = static_cast<std::int64_t>(s.device_used) -
                          static_cast<std::int64_t>(result_.setup.baseline_device_used);
    s.host_rss = host_rss_bytes();
    if (with_process && device_) {
      std::string ignored;
      s.process_used = device_->process_bytes(&ignored);
    }
    return s;
  }

  // Everything the harness keeps is allocated before the first step: with the host backends its
  // own records would otherwise land in the very heap being measured, above the blocks a trim
  // should return (seen: host-malloc-retain's arena stayed at 720 MiB after malloc_trim).
  void execute(const std::vector<ConcreteStep>& steps) {
    std::vector<std::size_t> slot(steps.size(), 0);
    std::map<std::string, std::size_t> slot_of;
    std::size_t slots = 0, releases = 0;
    std::vector<MarkRecord> pending_marks;
    result_.steps.resize(steps.size());
    for (std::size_t i = 0; i < steps.size(); ++i) {
      const ConcreteStep& step = steps[i];
      StepRecord& record = result_.steps[i];
      record.op = step_kind_name(step.kind);
      record.id = step.kind == StepKind::kMark ? step.label : step.id;
      record.location = step.location;
      record.bytes = step.bytes;
      if (step.kind == StepKind::kAlloc) slot_of[step.id] = slot[i] = slots++;
      if (step.kind == StepKind::kFree) slot[i] = slot_of.at(step.id);
      if (step.kind == StepKind::kRelease) ++releases;
      if (step.kind == StepKind::kMark) {
        MarkRecord m;
        m.label = step.label;
        m.step = i;
        pending_marks.push_back(std::move(m));
      }
    }
    std::vector<std::pair<void*, std::uint64_t>> blocks(slots, {nullptr, 0});
    result_.marks.reserve(pending_marks.size());
    result_.releases.reserve(releases);
    std::size_t next_mark = 0;

    for (std::size_t i = 0; i < steps.size(); ++i) {
      const ConcreteStep& step = steps[i];
      StepRecord& record = result_.steps[i];
      current_step_ = i;
      switch (step.kind) {
        case StepKind::kAlloc: {
          void* p = nullptr;
          Clock::time_point t = Clock::now();
          try {
            p = allocator_->allocate(step.bytes);
            allocator_->synchronize();
          } catch (const OutOfMemory& e) {
            record.latency_ns = elapsed_ns(t);
            record.outcome = "oom";
            record.after = probe(false);
            result_.steps.resize(i + 1);
            result_.status = "oom";
            result_.reason = step.location + ": " + e.what();
            failed_request_bytes_ = step.bytes;
            return;
          }
          record.latency_ns = elapsed_ns(t);
          allocator_->fill(p, step.bytes);
          blocks[slot[i]] = {p, step.bytes};
          requested_live_ += step.bytes;
          break;
        }
        case StepKind::kFree: {
          auto block = blocks[slot[i]];
          record.bytes = block.second;
          Clock::time_point t = Clock::now();
          allocator_->deallocate(block.first, block.second);
          allocator_->synchronize();
          record.latency_ns = elapsed_ns(t);
          blocks[slot[i]] = {nullptr, 0};
          requested_live_ -= block.second;
          break;
        }
        case StepKind::kRelease: {
          ReleaseRecord r;
          r.step = i;
          r.before = probe(true);
          Clock::time_point t = Clock::now();
          allocator_->release();
          allocator_->synchronize();
          record.latency_ns = r.latency_ns = elapsed_ns(t);
          r.after = probe(true);
          result_.releases.push_back(r);
          break;
        }
        case StepKind::kMark: {
          MarkRecord& m = pending_marks[next_mark++];
          m.at = probe(true);
          result_.marks.push_back(std::move(m));
          break;
        }
        case StepKind::kSleep:
          std::this_thread::sleep_for(std::chrono::milliseconds(step.sleep_ms));
          break;
        case StepKind::kProgram: {
          Clock::time_point t = Clock::now();
          run_program(step);
          allocator_->synchronize();
          record.latency_ns = elapsed_ns(t);
          break;
        }
        default:
          break;
      }
      record.after = probe(false);
    }
  }

  const BackendInfo& backend_;
  const Workload& workload_;
  CellOptions options_;
  CellResult result_;
  std::unique_ptr<DeviceProbe> device_;
  std::unique_ptr<Allocator> allocator_;
  std::unique_ptr<TraceReplayer> replayer_;  // trace workloads only
  std::uint64_t requested_live_ = 0;
  std::size_t current_step_ = 0;
  // The size of the request that ran out, when a step did (0: the backend ran out as it began).
  std::uint64_t failed_request_bytes_ = 0;
};

}  // namespace

CellResult run_cell(const BackendInfo& backend, const Workload& workload,
                    const CellOptions& options) {
  return CellRun(backend, workload, options).run();
}

}  // namespace memrel
