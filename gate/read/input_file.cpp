#include "gate/read/input_file.hpp"

#include <algorithm>
#include <map>

#include "platform/input_rules.hpp"

namespace memrel {
namespace {

// context.gpu (results) or context.memrel_gpu (memrel_bench), or empty when it records none.
std::optional<std::string> recorded_gpu(const nlohmann::json& context, const char* key) {
  if (context.is_object() && context.contains(key) && context[key].is_string() &&
      !context[key].get<std::string>().empty()) {
    return context[key].get<std::string>();
  }
  return std::nullopt;
}

// The fingerprint as memrel writes it: an object in a results file, the same object as a JSON
// string in a Google Benchmark context (AddCustomContext takes strings).
std::optional<MachineFingerprint> recorded_fingerprint(const nlohmann::json& context,
                                                       const char* key) {
  if (!context.is_object() || !context.contains(key) || context[key].is_null()) return std::nullopt;
  nlohmann::json j = context[key];
  if (j.is_string()) {
    // A NUL ends nlohmann's input: what followed it was not read (parse_input_json says why).
    const std::string text = j.get<std::string>();
    j = nlohmann::json::parse(text, nullptr, false);
    if (j.is_discarded() || text.find('\0') != std::string::npos)
      // The string is JSON; what it holds is not ("x" was said as "not JSON": the fifty-eighth
      // adversarial pass, c10-context-fingerprint-started-two-readings).
      throw ResultsError(std::string("context.") + key +
                         ": a string that holds no JSON text of a machine fingerprint");
  }
  try {
    return fingerprint_from_json(j);
  } catch (const std::invalid_argument& e) {
    throw ResultsError(std::string("context.") + key + ": " + e.what());
  }
}

// The gate matches cells by backend/workload; a cell there twice (one ok, one crashed) has two
// answers, and judging either would let the other pass unseen.
void check_cells_unique(const RunResults& run) {
  std::map<std::string, std::size_t> first;
  for (std::size_t i = 0; i < run.cells.size(); ++i) {
    const std::string key = run.cells[i].backend + "/" + run.cells[i].workload;
    auto [it, inserted] = first.emplace(key, i);
    if (!inserted)
      throw ResultsError("cells[" + std::to_string(i) + "]: cell " + key + " is also cells[" +
                         std::to_string(it->second) +
                         "]: a cell twice in one file cannot be judged");
  }
}

}  // namespace

const char* input_kind_name(InputKind kind) {
  return kind == InputKind::kResults ? "a memrel results file" : "a Google Benchmark file";
}

InputFile read_input_file(const std::string& path) {
  return input_file_from_json(read_json_file(path), path);
}

InputFile input_file_from_json(const nlohmann::json& j, const std::string& path) {
  InputFile f;
  f.path = path;
  try {
    if (j.is_object() && j.contains("schema") && j.contains("benchmarks")) {
      // Both kinds at once: judging it as either would be a guess.
      throw ResultsError(
          "has both \"schema\" (a memrel results file) and \"benchmarks\" (Google Benchmark "
          "JSON): ambiguous, refused");
    } else if (j.is_object() && j.contains("schema")) {
      f.kind = InputKind::kResults;
      f.results = run_from_json(j);
      check_cells_unique(f.results);
      f.gpu = recorded_gpu(f.results.context, "gpu");
      f.fingerprint = recorded_fingerprint(f.results.context, "fingerprint");
    } else if (j.is_object() && j.contains("benchmarks")) {
      f.kind = InputKind::kBenchmark;
      f.benchmarks = benchmark_run_from_json(j);
      f.gpu = recorded_gpu(f.benchmarks.context, "memrel_gpu");
      f.fingerprint = recorded_fingerprint(f.benchmarks.context, "memrel_fingerprint");
    } else {
      throw ResultsError(std::string("neither a memrel results file (\"schema\": \"") +
                         kResultsSchema +
                         "\") nor Google Benchmark JSON (\"context\" and \"benchmarks\")");
    }
  } catch (const ResultsError& e) {
    throw ResultsError(path + ": " + e.what());
  }
  return f;
}

std::string benchmark_results_problem(const std::string& content, const std::string& path) {
  try {
    const InputFile f = input_file_from_json(parse_input_json(content, path), path);
    if (f.kind != InputKind::kBenchmark)
      return path + ": " + input_kind_name(f.kind) + ", not Google Benchmark JSON";
    if (f.benchmarks.series.empty()) return path + ": holds no benchmark";
    return "";
  } catch (const ResultsError& e) {
    return e.what();
  } catch (const InputError& e) {
    return e.what();
  } catch (const nlohmann::json::exception& e) {
    return path + ": " + e.what();
  }
}

bool benchmark_results_record_a_failure(const std::string& content, const std::string& path) {
  try {
    const InputFile f = input_file_from_json(parse_input_json(content, path), path);
    return std::any_of(f.benchmarks.series.begin(), f.benchmarks.series.end(),
                       [](const auto& series) { return !series.skipped.empty(); });
  } catch (const std::exception&) {
    return false;  // benchmark_results_problem says why
  }
}

}  // namespace memrel
