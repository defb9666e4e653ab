// Results files (memrel.results/1) as the gate reads them, then judged against themselves, so
// that the rules' arithmetic runs on every figure the reader let through: any bytes either read
// and compare, or throw ResultsError. A file compared with itself must pass.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "gate/read/input_file.hpp"
#include "gate/rules/cell_rules.hpp"
#include "gate/verdict.hpp"
#include "platform/input_rules.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  memrel::InputFile f;
  try {
    nlohmann::json j =
        memrel::parse_input_json(std::string(reinterpret_cast<const char*>(data), size), "f");
    if (!j.is_object() || !j.contains("schema")) return 0;  // fuzz_benchmark_json's
    f = memrel::input_file_from_json(j, "f");
  } catch (const memrel::InputError&) {
    return 0;
  } catch (const memrel::ResultsError&) {
    return 0;
  }
  memrel::FileComparison same = memrel::compare_runs(f.results, f.results, {});
  for (const auto& row : same.rows) {
    if (row.verdict == memrel::Verdict::kRegression || row.verdict == memrel::Verdict::kMissing)
      std::abort();  // a file that fails against itself: a rule is wrong
  }
  return 0;
}
