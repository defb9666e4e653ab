// `memrel run -w snapshot.pickle` and `-w rmm-log.csv`: a PyTorch snapshot or an RMM log given
// as a workload is imported (scripts/memrel_trace, in a child process) into a temporary trace
// for the run, and the temporary file is removed when the run is over, whatever happened.
#pragma once

#include <map>
#include <string>

namespace memrel::cli {

// By extension: .pickle, .pkl (PyTorch snapshots), .csv (RMM logs).
bool needs_trace_import(const std::string& path);

class ImportedTraces {
 public:
  ImportedTraces() = default;
  ImportedTraces(const ImportedTraces&) = delete;
  ImportedTraces& operator=(const ImportedTraces&) = delete;
  ~ImportedTraces();  // removes every temporary trace

  // The path a cell should run: `path` itself, or a temporary .memtrace imported from it.
  // Throws std::invalid_argument with the importer's one line for unusable input.
  std::string prepare(const std::string& path);

 private:
  std::map<std::string, std::string> originals_;  // temporary trace -> the file given
};

}  // namespace memrel::cli
