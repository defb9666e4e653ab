#include "cli/comparison_outputs.hpp"

#include <filesystem>
#include <iostream>
#include <stdexcept>
#include <utility>

#include "cli/read_folders.hpp"
#include "gate/print/json.hpp"
#include "gate/print/junit.hpp"
#include "gate/print/markdown.hpp"
#include "gate/print/summary.hpp"
#include "gate/read/pairing.hpp"
#include "platform/atomic_file.hpp"

namespace memrel::cli {
namespace {

namespace fs = std::filesystem;

// An output that the next comparison of the same folders would read as an input: a new *.json
// directly in a compared folder (the sixth pass, o-cmp-dirin: `compare b c --markdown c/x.json`
// was taken, and the next `compare b c` compared x.json). Told by the folder's identity.
void check_not_read_back(const std::string& path, const std::vector<std::string>& inputs,
                         const char* option) {
  if (!is_results_file_name(path)) return;
  if (std::string input = folder_holding_output(path, inputs); !input.empty())
    throw OutputError(std::string(option) + " " + path + ": a *.json in the input folder " + input +
                      ", read as one of its results next time; write it elsewhere");
}

// Not in a folder the command fills: `ab --json OUT/reference/bench-NAME.json` replaced the
// benchmarks the comparison is of (the thirteenth adversarial pass, c1-ab-*-onto-own-out-file).
// Nor anywhere below one: `ab --summary OUT/rounds/reference-null-1.log/x.md` ran every round,
// then could not make its folder where a round's log was, and the rounds were removed (the
// fifty-sixth adversarial pass, c2-ab-output-under-own-round-file).
void check_not_in_filled_folder(const std::string& path, const std::vector<std::string>& folders,
                                const char* option) {
  for (const std::string& filled : folders) {
    // Or the folder itself, made later (`--json OUT/reference` was refused only once every round
    // had run: the sixteenth adversarial pass, c1-ab-*-own-*-folder).
    if (same_output_path(path, filled))
      throw OutputError(std::string(option) + " " + path + ": is " + filled +
                        ", a folder this command fills with its own files; write it elsewhere");
    if (output_path_under(path, filled))
      throw OutputError(std::string(option) + " " + path + ": is in " + filled +
                        ", a folder this command fills with its own files; write it elsewhere");
  }
}

void check_output_file_option(const std::string& path, const std::vector<std::string>& inputs,
                              const char* option, const GlobalOptions& global,
                              const std::vector<std::string>& filled_folders) {
  if (path.empty()) return;
  check_output_file(path, inputs, option);
  check_not_read_back(path, inputs, option);
  check_not_in_filled_folder(path, filled_folders, option);
  refuse_output_in_read_folders(path, option, global);
  check_output_writable(path, option);
}

}  // namespace

void check_comparison_outputs(const ComparisonOutputs& outputs,
                              const std::vector<std::string>& inputs, const GlobalOptions& global,
                              const std::vector<std::string>& filled_folders) {
  const std::pair<const std::string*, const char*> files[] = {{&outputs.markdown, "--markdown"},
                                                              {&outputs.junit, "--junit"},
                                                              {&outputs.summary, "--summary"},
                                                              {&outputs.json, "--json"}};
  for (const auto& [path, option] : files)
    check_output_file_option(*path, inputs, option, global, filled_folders);
  // Two outputs onto one file: the second would replace the first (`--markdown x --json x` left
  // the JSON only). By the path as the system resolves it, since neither need exist yet.
  for (std::size_t i = 0; i < std::size(files); ++i) {
    for (std::size_t j = i + 1; j < std::size(files); ++j) {
      if (files[i].first->empty() || files[j].first->empty()) continue;
      if (same_output_path(*files[i].first, *files[j].first))
        throw OutputError(std::string(files[j].second) + " " + *files[j].first +
                          ": the same file as " + files[i].second);
      // One under the other: the first written, the second then failed with one output written.
      for (const auto& [inner, outer] :
           {std::pair{files[i], files[j]}, std::pair{files[j], files[i]}})
        if (output_path_under(*inner.first, *outer.first))
          throw OutputError(std::string(inner.second) + " " + *inner.first + ": lies under " +
                            outer.second + " " + *outer.first +
                            ", a file this command writes; write them apart");
    }
  }
}

int print_and_write(const Report& report, const CompareOptions& options,
                    const ComparisonOutputs& outputs) {
  std::string markdown = to_markdown(report, options);
  std::cout << markdown << std::flush;
  const std::pair<const std::string*, std::string> files[] = {{&outputs.markdown, "--markdown"},
                                                              {&outputs.junit, "--junit"},
                                                              {&outputs.summary, "--summary"},
                                                              {&outputs.json, "--json"}};
  for (const auto& [path, option] : files) {
    if (path->empty()) continue;
    std::string content = option == "--markdown" ? markdown
                          : option == "--junit"  ? to_junit_xml(report)
                          : option == "--json"   ? to_verdict_json_text(report, options)
                                                 : to_summary_markdown(report);
    // Its failure goes up as it is: the path passed its checks before any work, so a write that
    // fails now is the machine's state (a full disk, `ulimit -f`), exit 4 as every other
    // writer's ("cannot write m.md: File too large" names the file). Turned into a bad option
    // here it was exit 2, seen as 4 only when stdout failed too (the fifth pass, f18).
    write_file_atomically(*path, content);
  }
  return report.exit_code();
}

}  // namespace memrel::cli
