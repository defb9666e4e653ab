// `memrel merge -o OUT SHARD...`: the results of `memrel run --shard K/N` for every K joined into
// the one document the unsharded run would have written (harness/execution/merge.hpp,
// docs/slurm.md). Nothing is written unless every file is a shard of one matrix and together they
// hold each cell once.
#include <filesystem>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <vector>

#include "cli/exit_codes.hpp"
#include "cli/read_folders.hpp"
#include "cli/subcommand.hpp"
#include "harness/execution/merge.hpp"
#include "harness/execution/results_size.hpp"
#include "platform/atomic_file.hpp"
#include "platform/interrupt.hpp"
#include "platform/one_line_text.hpp"

namespace fs = std::filesystem;

namespace memrel::cli {
namespace {

struct MergeArgs {
  std::vector<std::string> shards;
  std::string out;
};

int run_merge(const MergeArgs& a, const GlobalOptions& global) {
  // A stop asked for before the write writes nothing; once the write began it finishes, as
  // compare's: a SIGTERM during it replaced the earlier -o file and then ended merge by the signal
  // without a word, as if nothing had been written (the forty-second adversarial pass,
  // c9-merge-sigterm-writes-then-dies).
  InterruptRequests requests;
  // The output must not replace one of its own inputs (a failed rerun would lose that shard),
  // nor write through a link or into a device (docs/inputs.md, "Outputs").
  check_output_file(a.out, a.shards, "-o");
  refuse_output_in_read_folders(a.out, "-o", global);
  // -o's folder (made when absent) takes a file before any work: `-o /sys/x.out` failed at the
  // write, exit 4 (the sixth pass: n-merge-sys).
  check_output_folder_writable(fs::path(a.out).parent_path().string(), "-o", a.out);
  RunResults merged = merge_shard_files(a.shards);
  if (int signal = InterruptRequests::received(); signal != 0)
    throw Interrupted(signal, "interrupted by " + signal_name(signal) + "; nothing written");
  fs::path out_dir = fs::path(a.out).parent_path();
  if (!out_dir.empty()) fs::create_directories(out_dir);
  const std::string text = to_json(merged).dump(1) + "\n";
  refuse_results_past_the_cap("-o", a.out, text, "");
  if (int signal = InterruptRequests::received(); signal != 0)
    throw Interrupted(signal, "interrupted by " + signal_name(signal) + "; nothing written");
  write_file_atomically(a.out, text);
  int failed = 0;
  for (const auto& c : merged.cells)
    failed += (c.status == "crashed" || c.status == "timeout" || c.status == "error");
  std::cout << one_line_text(a.out) << "\n";
  // The summary, as run's, is not for -q (the twenty-fourth adversarial pass, c10-merge-quiet).
  if (global.verbosity >= 0) {
    std::cerr << "memrel: " << merged.cells.size() << " cells of " << a.shards.size()
              << " shard files merged into " << one_line_text(a.out);
    if (failed) std::cerr << "; " << failed << " crashed, timed out or failed";
    std::cerr << "\n";
  }
  // As `memrel run` would have exited on the same cells.
  return failed ? exit_code::kCellFailed : exit_code::kSuccess;
}

}  // namespace

RunSubcommand attach_merge(CLI::App& app, const GlobalOptions& global) {
  auto a = std::make_shared<MergeArgs>();
  app.add_option("shards", a->shards,
                 "Results of memrel run --shard K/N, one file per K from 1 to N, in any order")
      ->required();
  app.add_option("-o,--out", a->out, "The merged results file")->required();
  return [a, &global] { return run_merge(*a, global); };
}

}  // namespace memrel::cli
