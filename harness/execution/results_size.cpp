#include "harness/execution/results_size.hpp"

#include <stdexcept>

#include "harness/results/results.hpp"
#include "harness/workload/trace_file.hpp"

namespace memrel {

namespace {

// Measured on memrel's own results as run writes them: a cell's fixed part, a recorded step, a
// mark as the cell records it (its bytes at that moment), and a trace's mark as the cell's
// `trace.marks` lists it (each header mark, whether or not the replay marked it).
constexpr std::uint64_t kCellBytes = 2048, kStepBytes = 330, kMarkBytes = 250, kTraceMarkBytes = 90;
constexpr std::uint64_t kReplayMarks = 4;  // trace-start, -peak-requested, -end, -end-after-release

}  // namespace

std::uint64_t cell_results_bytes(const Trace& trace) {
  return kCellBytes + kTraceMarkBytes * trace.marks.size() + kMarkBytes * kReplayMarks;
}

std::uint64_t cell_results_bytes(const Workload& w) {
  if (w.trace) return cell_results_bytes(*w.trace);
  std::uint64_t marks = 0;
  for (const Step& s : w.steps) marks += s.kind == StepKind::kMark;
  return kCellBytes + kStepBytes * w.steps.size() + kMarkBytes * marks;
}

std::string results_too_large(std::uint64_t bytes) {
  if (bytes <= kMaxResultsFileBytes) return "";
  return "the results would take at least " + std::to_string(bytes >> 20) + " MiB, more than the " +
         std::to_string(kMaxResultsFileBytes >> 20) +
         " MiB compare, history, report and merge read: run fewer backends or workloads (a "
         "trace's marks take about 90 bytes each in every cell)";
}

void refuse_results_past_the_cap(const std::string& option, const std::string& path,
                                 const std::string& text, const std::string& kept) {
  if (text.size() <= kMaxResultsFileBytes) return;
  throw std::invalid_argument(
      option + " " + path + ": the results are " + std::to_string(text.size() >> 20) +
      " MiB, more than the " + std::to_string(kMaxResultsFileBytes >> 20) +
      " MiB compare, history, report and merge read; not written" +
      (kept.empty() ? std::string() : " (" + kept + ")") + ": fewer backends or workloads");
}

}  // namespace memrel
