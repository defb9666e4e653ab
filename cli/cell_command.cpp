// `memrel cell`: one cell in this process. The runner execs it for every cell; by hand, it is for
// debugging. The protocol, both ends, is harness/execution/cell_protocol.hpp: this file only maps
// its options onto the command line parser.
#include <fcntl.h>
#include <sys/stat.h>

#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "allocators/backend_table.hpp"
#include "cli/exit_codes.hpp"
#include "cli/read_folders.hpp"
#include "cli/subcommand.hpp"
#include "cli/subcommands.hpp"
#include "harness/execution/cell_protocol.hpp"
#include "platform/adopted_processes.hpp"
#include "platform/atomic_file.hpp"
#include "platform/file_kind.hpp"
#include "platform/process_exit.hpp"

namespace memrel::cli {

RunSubcommand attach_cell(CLI::App& app, const GlobalOptions& global) {
  namespace p = cell_protocol;
  auto r = std::make_shared<CellRequest>();
  // Its own: 5 is the cell's, for the runner (the twenty-seventh adversarial pass,
  // c8-cell-result-fd-full-exit-5: an exit the help did not list).
  app.footer(
      "Exit codes (read by memrel run, which starts every cell; docs/design.md): 0 the cell ran "
      "and its result was written (its status says how the allocator did); 2 unusable input "
      "(backend, workload, option, output); 4 internal error; 5 the cell ran but could not write "
      "its result (--out's or --result-fd's file system full or unwritable): not the "
      "allocator's failure; killed by a signal: the allocator (or what killed it) ended it.");
  app.add_option(p::kBackend, r->backend, "Backend name or backend file")->required();
  app.add_option(p::kWorkload, r->workload, "Workload file (required unless --check)");
  app.add_option(p::kOut, r->out, "Cell result file (--out or --result-fd, unless --check)");
  app.add_option(p::kResultFd, r->result_fd,
                 "Write the result to this open file descriptor instead (the runner's way)")
      ->check(CLI::Range(3, 1023))
      ->excludes(p::kOut);
  app.add_option(p::kHostCapacity, r->host_capacity)->capture_default_str();
  app.add_option(p::kTraceScale, r->trace_scale,
                 "Traces: divide every size by N (1/N), or auto (docs/traces.md)")
      ->capture_default_str();
  auto after_pid = std::make_shared<std::string>();
  app.add_option(p::kAfterPid, *after_pid,
                 "Wait for this process (the previous cell, exiting) to end before reading the "
                 "device's memory; 0: none (the runner's way)");
  app.add_flag(p::kCheck, r->check,
               "Only load the backend's library and resolve its symbols (backend files); run "
               "nothing");
  app.add_flag(p::kZygote, r->zygote,
               "Serve as the zygote of this backend's cells on descriptor 3 (the runner's way: "
               "docs/design.md, \"Cells start warm\"); run nothing itself")
      ->excludes(p::kCheck);
  app.add_option(p::kPreloadProgram, r->preload_program,
                 "With --zygote: also load the libraries this framework program needs")
      ->needs(p::kZygote);
  return [r, after_pid, &global] {
    r->backends_dir = global.backends_dir;
    if (!after_pid->empty()) r->after_pid = p::parse_after_pid(*after_pid);
    if (!runs_this_program_or_has_ended(r->after_pid))
      throw std::invalid_argument(std::string(p::kAfterPid) + " " + *after_pid +
                                  ": not a memrel process (a cell waits only for the cell before "
                                  "it in its slot)");
    // An open descriptor, checked before the cell runs: a closed one was found only at the end,
    // "the result could not be written", exit 5, which the runner reads as a full TMPDIR (the
    // eighth adversarial pass, c8-cell-result-fd-closed).
    if (r->result_fd >= 0 && fcntl(r->result_fd, F_GETFD) < 0)
      throw std::invalid_argument(std::string(p::kResultFd) + " " + std::to_string(r->result_fd) +
                                  ": not an open file descriptor");
    // Nor one open for reading only (or a folder): the cell ran, then "write failed", exit 5 (the
    // twenty-second adversarial pass, c10-cell-result-fd-readonly-exit5).
    if (const int mode = r->result_fd >= 0 ? fcntl(r->result_fd, F_GETFL) & O_ACCMODE : O_WRONLY;
        mode != O_WRONLY && mode != O_RDWR)
      throw std::invalid_argument(std::string(p::kResultFd) + " " + std::to_string(r->result_fd) +
                                  ": not open for writing");
    // Nor anything but a regular file, as --out takes none: a FIFO no one read blocked a result
    // larger than a pipe holds for ever (the sixty-seventh adversarial pass,
    // c2-cell-result-fd-fifo-hangs). The runner's own is an unnamed regular file.
    if (struct stat target{};
        r->result_fd >= 0 && fstat(r->result_fd, &target) == 0 && !S_ISREG(target.st_mode))
      throw std::invalid_argument(std::string(p::kResultFd) + " " + std::to_string(r->result_fd) +
                                  ": " + file_kind_name(target.st_mode) +
                                  ", not a regular file; a result is written to a regular file, "
                                  "as --out's");
    // Nor one of the cell's own inputs, by identity, as --out is refused (`--result-fd 5
    // 5<>w.json` wrote the result into the workload: the eighteenth adversarial pass,
    // c1-cell-result-fd-onto-*).
    // The backend file's library and memrel's own files too, as --out refuses them (`3>>lib.so`
    // appended the result to the backend's library, `3>>build/ci/libmemrel_torch.so` to a
    // plugin: the forty-second adversarial pass, c1-cell-result-fd-backend-library,
    // c1-cell-result-fd-own-files).
    if (r->result_fd >= 0) {
      struct stat result {};
      std::vector<std::string> inputs = {r->workload, r->backend};
      try {
        const BackendInfo backend = resolve_backend(r->backend, global.backends_dir);
        inputs.insert(inputs.end(), backend.input_files.begin(), backend.input_files.end());
      } catch (const std::exception&) {  // an unknown backend is said by the cell itself
      }
      // A file with a name: the runner's anonymous result file (O_TMPFILE) has none, and is
      // nobody's (the identities are not gathered for every cell).
      const bool named =
          fstat(r->result_fd, &result) == 0 && S_ISREG(result.st_mode) && result.st_nlink > 0;
      if (named && (" " + program_identities() + " ")
                           .find(" " + std::to_string(result.st_dev) + ":" +
                                 std::to_string(result.st_ino) + " ") != std::string::npos)
        throw std::invalid_argument(std::string(p::kResultFd) + " " + std::to_string(r->result_fd) +
                                    ": is one of memrel's own files (its programs, code or data); "
                                    "a result is written to none of them");
      if (named)
        for (const std::string& input : inputs) {
          struct stat st {};
          if (stat(input.c_str(), &st) == 0 && st.st_dev == result.st_dev &&
              st.st_ino == result.st_ino)
            throw std::invalid_argument(std::string(p::kResultFd) + " " +
                                        std::to_string(r->result_fd) + ": is the input " + input +
                                        " (the same file); a result is written to none of the "
                                        "cell's inputs");
        }
    }
    // Nor a file the workloads or backends folder would read (c1-cell-out-into-workloads-dir).
    refuse_output_in_read_folders(r->out, p::kOut, global);
    // And its folder takes a file, before the cell runs: a read-only one was found at the end,
    // exit 4, where every other writer says it before any work, exit 2 (the twenty-seventh
    // adversarial pass, c2-readonly-folder-exit-codes).
    if (!r->out.empty()) check_output_writable(r->out, p::kOut);
    // Run by hand (--out; the runner passes --result-fd and ends what its cells leave), what the
    // cell starts ends with it too: a child its allocator left (MEMREL_INJECT_FAULT=leave-child)
    // outlived `memrel cell`, reparented to init (the forty-fifth adversarial pass,
    // c9-inject-fault-cell-child-outlives).
    std::optional<AdoptedProcesses> adopted;
    if (!r->out.empty()) adopted.emplace();
    if (!r->zygote) return serve_cell(*r);
    // Each forked cell runs its command line as an exec'd `memrel cell` would.
    return serve_cell_zygote(*r, [](const std::vector<std::string>& args) {
      std::vector<char*> argv;
      for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
      argv.push_back(nullptr);
      return run_command_line(static_cast<int>(args.size()), argv.data());
    });
  };
}

}  // namespace memrel::cli
