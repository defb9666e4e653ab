// `memrel run -w snapshot.pickle` and `-w rmm-log.csv`: a PyTorch snapshot or an RMM log given
// as a workload is imported (scripts/memrel_trace, in a child process) into a temporary trace
// for the run, in a folder of the run's own in TMPDIR (memrel-run-XXXXXX), removed when the run is
// over, whatever happened. SIGKILL runs no code, so a run killed outright cannot remove it: the
// run holds an flock on its folder for its life, and the next run that imports removes every
// such folder whose lock it can take (the kernel drops a lock when its holder dies, PID reuse or
// not), so at most one run's traces outlive it, and only until the next (docs/inputs.md).
#pragma once

#include <map>
#include <string>

namespace memrel::cli {

// Whether PATH is a source the importer reads, told by content first (a pickle's protocol byte,
// an RMM log's header); a memtrace or a JSON document is not, whatever its name. Only where the
// content says nothing does the name decide: .pickle, .pkl (PyTorch snapshots), .csv (RMM logs).
bool needs_trace_import(const std::string& path);

// Why PATH, a snapshot or a log in the workloads folder, is none of a plain run's workloads: run
// refuses it with this line, `list` lists it INVALID with it.
std::string not_imported_from_workloads_folder(const std::string& path);

class ImportedTraces {
 public:
  // Removes what runs killed outright left in TMPDIR (their folders of imported traces, told by
  // their lock): every run, not only one that imports, so that a SIGKILLed run's traces of the
  // full size do not wait for the next import (the thirty-first adversarial pass,
  // c9-run-import-sigkill-leaves-tmp-folder).
  ImportedTraces();
  ImportedTraces(const ImportedTraces&) = delete;
  ImportedTraces& operator=(const ImportedTraces&) = delete;
  ~ImportedTraces();  // removes the run's folder and every temporary trace in it

  // The path a cell should run: `path` itself, or a temporary .memtrace imported from it.
  // Throws std::invalid_argument with the importer's one line for unusable input.
  std::string prepare(const std::string& path);

 private:
  // The path of the next temporary trace, in the run's folder, made (and locked) at the first.
  std::string next_trace();

  std::map<std::string, std::string> originals_;  // temporary trace -> the file given
  std::string folder_;                            // TMPDIR/memrel-run-XXXXXX; "" until needed
  int lock_fd_ = -1;                              // the folder, flocked while the run lives
};

}  // namespace memrel::cli
