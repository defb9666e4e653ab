// Which baseline file is compared with which current file. The one place that decides it: the
// comparison and the machine-drift estimate both walk these pairs.
#pragma once

#include <string>
#include <vector>

namespace memrel {

// A file name and its path on each side; a side's path is empty when that side lacks the file.
struct InputPair {
  std::string name;
  std::string baseline_path, current_path;
};

// Whether a file directly in a compared folder is read as one of its results files: a *.json.
// The one rule, for the reader and for the outputs, which must not add one (a `--markdown
// c/x.json` was read as a result by the next `compare b c`).
bool is_results_file_name(const std::string& path);

// Two files: one pair (named after the file, or "A vs B" when the names differ). Two folders:
// every *.json of either, by file name, sorted. Throws ResultsError ("PATH: what") when a path
// does not exist, a file faces a folder, or the baseline folder holds no *.json.
std::vector<InputPair> pair_inputs(const std::string& baseline, const std::string& current);

}  // namespace memrel
