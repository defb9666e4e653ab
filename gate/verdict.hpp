// What the gate says about each figure, and the report that gathers those rows.
//
// The rules (gate/rules/) produce rows; the printers (gate/print/) render them; nothing else
// decides a verdict. One model, several renderings, as nvbench's printers do.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace memrel {

enum class Verdict { kOk, kImproved, kRegression, kInfo, kMissing, kNew, kSkipped };

// "ok", "improved", "REGRESSION", "info", "missing", "new", "skipped": the table's words.
const char* verdict_name(Verdict v);

// The words of every verdict, in the order of the enum: the verdict JSON's enum
// (docs/schemas/gate-verdicts.schema.json) lists the same, and a test holds the two together.
const std::vector<const char*>& verdict_names();

struct Row {
  std::string subject;  // "backend/workload", a benchmark name, or a file name
  std::string metric;
  std::string baseline, current;
  std::string change;  // the difference itself ("+4096 (+1.1%)", "+12.5%"); empty when none
  // Latency figures that went through the rank test: its p-value (before the false discovery
  // rate); every other row has none.
  std::optional<double> p_value;
  // Why the verdict is what it is where the figures alone do not say ("within 2.0 MiB", "not
  // gated (...)", "stopped running"); empty otherwise.
  std::string reason;
  Verdict verdict = Verdict::kOk;
  // A latency that moved slower by at least half the minimum change, whose test was not
  // significant but suggestive (gate/rules/latency_rules.cpp): more rounds could decide it, and
  // `memrel ab --looks` runs them (docs/ab.md).
  bool undecided = false;
};

// Rows are only ever appended through this, so every rule builds them the same way.
void add_row(std::vector<Row>& rows, const std::string& subject, const std::string& metric,
             std::string baseline, std::string current, std::string change, Verdict verdict,
             std::string reason = "", std::optional<double> p_value = std::nullopt);

// One baseline file against its current counterpart (or against nothing, when one is absent).
struct FileComparison {
  std::string title;
  std::string baseline_path, current_path;
  std::vector<Row> rows;
};

struct Summary {
  std::size_t compared = 0;  // figures present on both sides (ok, improved, REGRESSION, info)
  std::size_t regressions = 0, improved = 0, info = 0, missing = 0, added = 0, skipped = 0;
};

struct Report {
  std::string baseline_path, current_path;
  std::vector<FileComparison> files;
  std::optional<double> machine_drift;  // with --normalize-drift: the factor divided out
  std::optional<double> drift_spread;   // and the spread of the drift over the benchmarks (log)

  Summary summary() const;
  // 0 when nothing regressed and nothing went missing, else 1. (Unusable input never gets this
  // far: it throws, and the CLI exits 2.)
  int exit_code() const;
};

}  // namespace memrel
