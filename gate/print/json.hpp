// The gate's report as data, schema "memrel.gate-verdicts/1"
// (docs/schemas/gate-verdicts.schema.json): the rules that applied, every row of every file with
// its change, p-value, verdict and reason apart, and the summary (counts per verdict, the exit code
// and what it means). What --json writes, for programs (the report) that would otherwise scrape the
// Markdown.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "gate/compare_options.hpp"
#include "gate/verdict.hpp"

namespace memrel {

constexpr const char* kGateVerdictsSchema = "memrel.gate-verdicts/1";

nlohmann::json to_verdict_json(const Report& report, const CompareOptions& options);

// The document as text: indented, one trailing newline; bytes that are not UTF-8 (a benchmark
// name can hold any) replaced rather than refused.
std::string to_verdict_json_text(const Report& report, const CompareOptions& options);

}  // namespace memrel
