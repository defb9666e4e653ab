// One input of the gate, read once: a memrel results document or a Google Benchmark file, told
// apart by content, not by name (a memrel document says its schema; Google Benchmark's has a
// "benchmarks" array and no schema).
#pragma once

#include <optional>
#include <string>

#include "gate/read/benchmark_json.hpp"
#include "harness/results/results.hpp"
#include "platform/machine_fingerprint.hpp"

namespace memrel {

enum class InputKind { kResults, kBenchmark };

// "a memrel results file", "a Google Benchmark file": for error messages.
const char* input_kind_name(InputKind kind);

struct InputFile {
  std::string path;
  InputKind kind = InputKind::kResults;
  RunResults results;              // when kind is kResults
  BenchmarkRun benchmarks;         // when kind is kBenchmark
  std::optional<std::string> gpu;  // the GPU the file says it ran on, if it records one
  // context.fingerprint (results) or context.memrel_fingerprint (memrel_bench, a JSON string);
  // empty for files written before fingerprints, and for other programs' files.
  std::optional<MachineFingerprint> fingerprint;
};

// Throws ResultsError ("FILE: what") for a missing, empty, malformed or unknown file, or one
// the gate cannot judge (a cell twice, a file of both kinds: docs/gate.md, "Refused").
InputFile read_input_file(const std::string& path);

// The same for a document already parsed; `path` names it in errors. (The fuzz targets, which
// have no file, call this.)
InputFile input_file_from_json(const nlohmann::json& j, const std::string& path);

// Why CONTENT, a memrel_bench's results file about to be kept as `path`, is not one the gate
// reads as a Google Benchmark file of at least one benchmark; "" when it is. `memrel bench` and
// `memrel ab` check each file with it before keeping it (BenchCommand::results_problem).
std::string benchmark_results_problem(const std::string& content, const std::string& path);

// Whether CONTENT, a results file benchmark_results_problem takes, records a benchmark that did
// not run (SkipWithError: its error_message). A memrel_bench that exited 3 keeps the others'
// figures only then (BenchCommand::records_a_failure).
bool benchmark_results_record_a_failure(const std::string& content, const std::string& path);

}  // namespace memrel
