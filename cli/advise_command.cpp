// `memrel advise TRACE|SNAPSHOT|RMM_LOG`: the allocator settings for a program, predicted by
// replay (docs/advise.md). The program's trace is replayed, as `memrel run -w` replays it, on a
// sweep: every backend that can run here (or those of -b) and the configurations of a grid
// (data: benchmarks/advise/grid.json by default, --grid FILE). From the cells it prints the
// Pareto frontier over peak reserved, what is held at the end before and after a release and
// allocator time per event, then one recommendation against the configuration the program was
// recorded under. Writes the run's results, the frontier (memrel.advise/1) and a report page.
// The sweep is a run: its finished cells are journaled in the --out folder as they end, so an
// interrupted advise continues with --resume (docs/run-journal.md).
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <utility>

#include "allocators/availability.hpp"
#include "allocators/backend_families.hpp"
#include "allocators/backend_table.hpp"
#include "cli/advise_grid.hpp"
#include "cli/backend_library_check.hpp"
#include "cli/exit_codes.hpp"
#include "cli/host_capacity.hpp"
#include "cli/python_module.hpp"
#include "cli/read_folders.hpp"
#include "cli/subcommand.hpp"
#include "cli/trace_import.hpp"
#include "harness/execution/results_size.hpp"
#include "harness/execution/run_journal.hpp"
#include "harness/execution/runner.hpp"
#include "harness/results/allocator_frontier.hpp"
#include "harness/results/report_page_name.hpp"
#include "harness/workload/trace_file.hpp"
#include "harness/workload/trace_plan.hpp"
#include "harness/workload/workload.hpp"
#include "harness/workload/workload_files.hpp"
#include "platform/atomic_file.hpp"
#include "platform/byte_size.hpp"
#include "platform/executable_path.hpp"
#include "platform/file_version.hpp"
#include "platform/folders_made_here.hpp"
#include "platform/input_rules.hpp"
#include "platform/install_layout.hpp"
#include "platform/interrupt.hpp"
#include "platform/machine_state_error.hpp"
#include "platform/one_line_text.hpp"
#include "platform/own_descriptor_path.hpp"
#include "platform/temporary_folder.hpp"

namespace fs = std::filesystem;

namespace memrel::cli {
namespace {

// Whether two backends of one name are one: one family, the same backend file by identity (or
// none), the same settings. The grid may name a backend that -b names too; it is swept once.
bool same_definition(const BackendInfo& a, const BackendInfo& b) {
  if (a.family != b.family || a.settings != b.settings || a.file.empty() != b.file.empty())
    return false;
  if (a.file.empty()) return true;
  struct stat sa {
  }, sb{};
  return stat(a.file.c_str(), &sa) == 0 && stat(b.file.c_str(), &sb) == 0 &&
         sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

struct AdviseArgs {
  std::string input, grid, out, json, host_capacity = "1GiB", trace_scale = "auto";
  std::vector<std::string> backends;
  std::uint64_t timeout_s = 300;
  bool resume = false;
};

std::string default_grid() { return install_layout().data_dir + "/advise/grid.json"; }

// Whether PATH is the frontier advise writes (memrel.advise/1), told by its content, not its name:
// a user's notes named advise.json, or a results file so named, made a folder advise's, and advise
// replaced them and the results.json beside them (the eighty-third adversarial pass,
// c10-advise-out-told-by-name-replaces-results).
bool is_advice(const std::string& path) {
  try {
    const nlohmann::json doc = read_input_json(path, kMaxResultsFileBytes, "advise document");
    return doc.is_object() && doc.contains("schema") && doc["schema"] == kAdviseSchema;
  } catch (const MachineStateError&) {
    throw;  // the machine's (out of descriptors), said as such, not as a folder of the user's
  } catch (const std::exception&) {
    return false;  // not there, not a regular file, not JSON: not advise's
  }
}

// --out is a folder advise wrote (its advise.json, or the journal of a sweep it began), or one
// where advise would replace nothing: a user's folder holding a results.json or an advise.html
// of its own had them written over (the twelfth adversarial pass,
// c1-advise-out-existing-user-folder), where report refuses a folder without its marker. A
// journal there is judged as run judges one (journal_place_taken, the resume): a foreign file, a
// FIFO or one that cannot be continued in place is refused in its own words, and an empty one (a
// sweep killed before its header) or a cut header is a sweep's, replaced.
void refuse_folder_advise_did_not_write(const std::string& out_dir) {
  struct stat st {};
  auto exists = [&](const char* name) {
    return lstat((fs::path(out_dir) / name).c_str(), &st) == 0;
  };
  if (exists("results.json.journal")) return;
  if (exists("advise.json")) {
    if (is_advice((fs::path(out_dir) / "advise.json").string())) return;
    throw std::invalid_argument("--out " + out_dir +
                                ": holds an advise.json that is not advise's (" + kAdviseSchema +
                                "): not a folder advise wrote, and advise would write over it; "
                                "choose another --out");
  }
  for (const char* name :
       {"results.json", "advise.html", "advise-frontier.png", "advise-frontier.svg"})
    if (exists(name))
      throw std::invalid_argument("--out " + out_dir + ": holds a " + name +
                                  " but no advise.json: not a folder advise wrote, and advise "
                                  "would write over it; choose another --out");
}

int run_advise(AdviseArgs& a, const GlobalOptions& global) {
  InterruptRequests interrupts;
  const auto start = std::chrono::steady_clock::now();
  if (a.resume && a.out.empty())
    throw std::invalid_argument("--resume: give --out, the folder of the interrupted advise");
  // /dev/stdin and its kin by the file they name here: each cell opens the trace again.
  a.input = file_behind_own_descriptor(a.input);
  // A file that is not there is said as such: "nosuch.html: not a trace" misled (the twentieth
  // adversarial pass, c10-advise-missing-input-message).
  if (struct stat input{}; stat(a.input.c_str(), &input) != 0)
    throw std::invalid_argument(a.input + ": cannot read (" + std::strerror(errno) + ")");
  if (!needs_trace_import(a.input) && !is_trace_path(a.input)) {
    // memrel's other kinds named as such, as every reader names them (a history given to advise
    // was only "not a trace": the seventy-seventh adversarial pass, noted by a tester).
    const std::string head = read_input_head(a.input, kOtherKindHeadBytes);
    if (std::string kind = other_memrel_kind(head, "trace"); !kind.empty())
      throw std::invalid_argument(a.input + ": " + kind);
    // A JSON document named so, as the trace loader and the importer name one: advise said only
    // what it takes (the eighty-fifth adversarial pass, a1).
    const std::string kinds =
        "a trace (.memtrace), a PyTorch snapshot (.pickle) or an RMM log (.csv)";
    if (begins_as_json_document(head))
      throw std::invalid_argument(
          a.input + ": a JSON document (a workload or a results file?), not " + kinds +
          ": advise replays a program's trace; a workload runs as "
          "it is (run -w), a results file is read by compare and report");
    throw std::invalid_argument(a.input + ": not " + kinds);
  }
  // The sweep, every name checked before anything runs: -b's backends, or every compiled backend
  // that can run here; then the grid's configurations that can.
  // A backend file given by its path stays that path: by its name alone the runner found no such
  // backend, or ran the --backends-dir file of that name instead of the one given (the
  // twenty-fourth adversarial pass, c10-advise-b-backend-file-*).
  std::vector<std::string> sweep;
  std::vector<const BackendInfo*> sweep_info;  // sweep[i]'s backend
  std::map<std::string, BackendInfo> swept;    // by name, as the cells name them
  auto add = [&](const BackendInfo& b, const std::string& spec) {
    if (auto [at, added] = swept.emplace(b.name, b); added) {
      sweep.push_back(spec);
      sweep_info.push_back(&at->second);
    } else if (!same_definition(at->second, b)) {
      // One name, two backends: the cells would name one of them, and the grid's `./p.json`
      // beside the backends folder's file of its name was dropped, exit 0 (the thirty-sixth
      // adversarial pass, c6-advise-grid-two-files-one-name). Taken once only when it is one.
      const std::size_t first = static_cast<std::size_t>(
          std::find(sweep_info.begin(), sweep_info.end(), &at->second) - sweep_info.begin());
      throw std::invalid_argument("advise: two backends of the sweep are named '" + b.name + "' (" +
                                  sweep[first] + " and " + spec +
                                  "), and a cell names only one; rename one backend file");
    }
  };
  std::vector<BackendInfo> given;
  const std::vector<std::string> specs = split_backend_list(a.backends);
  for (const std::string& spec : specs) {
    given.push_back(resolve_backend(spec, global.backends_dir));
    // As run refuses it: one backend given twice was swept once without a word (the
    // eighteenth adversarial pass, c6-advise-backend-twice). The grid's configurations of a
    // backend given are still taken once.
    for (std::size_t i = 0; i + 1 < given.size(); ++i)
      if (given[i].name == given.back().name)
        throw std::invalid_argument("-b: the backend '" + given.back().name + "' is given twice (" +
                                    specs[i] + " and " + spec + ")");
  }
  const bool grid_given = !a.grid.empty();
  std::vector<std::string> grid =
      read_grid(grid_given ? a.grid : default_grid(), global.backends_dir);
  // Without -b: where a device backend can run, the program's memory is device memory, and
  // host backends (glibc) are no advice for it; on a machine without one they are the sweep.
  // Each with the words that name it: a grid's entry may be a backend file's path too.
  std::vector<std::pair<BackendInfo, std::string>> candidates;
  if (given.empty()) {
    for (const BackendInfo& b : all_backends()) {
      if (b.name != "null") candidates.emplace_back(b, b.name);
    }
  }
  if (given.empty() || grid_given) {
    for (const std::string& entry : grid)
      candidates.emplace_back(resolve_backend(entry, global.backends_dir), entry);
  }
  bool device_here = false;
  std::vector<std::pair<BackendInfo, std::string>> available;
  for (const auto& candidate : candidates) {
    if (!candidate.first.availability().available) continue;
    available.push_back(candidate);
    device_here = device_here || candidate.first.space == MemorySpace::kDevice;
  }
  for (std::size_t i = 0; i < given.size(); ++i) add(given[i], specs[i]);
  for (const auto& [b, entry] : available) {
    if (!given.empty() || !device_here || b.space == MemorySpace::kDevice) add(b, entry);
  }
  if (sweep.empty()) throw std::invalid_argument("advise: no backend of the sweep can run here");
  // Two names the report would give one page (`host-malloc` and a file `Host-Malloc`; a file
  // named as another's page name): run refuses them at the start, and advise swept them, exit 0,
  // into results the report then refused (the thirty-fourth adversarial pass,
  // c6-advise-case-only-backend-names, c6-advise-sanitised-page-name-collision).
  std::vector<std::string> swept_names;
  for (const BackendInfo* b : sweep_info) swept_names.push_back(b->name);
  if (auto pair = names_sharing_a_page(swept_names)) {
    const auto [j, i] = *pair;
    throw std::invalid_argument(
        "-b: the backends '" + swept_names[j] + "' (" + sweep[j] + ") and '" + swept_names[i] +
        "' (" + sweep[i] + ") would share one report page (" + report_page_name(swept_names[i]) +
        ", letters' case aside); rename one");
  }

  const std::string out_dir =
      a.out.empty() ? fs::path(default_run_path(install_layout().output_dir + "/runs"))
                              .replace_extension()
                              .string() +
                          "-advise"
                    : a.out;
  // Every input of the sweep, the grid and the backend files included (the fourth pass: `--grid
  // a/g.json --out a` was taken): none lies in --out, and --json is none of them.
  std::vector<std::string> inputs = {a.input};
  if (grid_given) inputs.push_back(a.grid);
  for (const auto& [name, b] : swept)
    inputs.insert(inputs.end(), b.input_files.begin(), b.input_files.end());
  check_output_folder(out_dir, inputs, "--out");
  refuse_folder_advise_did_not_write(out_dir);
  // Both outputs' folders take a file, before the sweep: a missing --json folder or a read-only
  // --out was said only after every cell had run, exit 4 (the sixth pass: n-advjs-nodir,
  // n-advjs-sys, n-advo-sys).
  check_output_folder_writable(out_dir, "--out");
  const std::string results_path = (fs::path(out_dir) / "results.json").string();
  const std::string advice_path = (fs::path(out_dir) / "advise.json").string();
  // The sweep's journal, in the folder it writes: a resume is of that folder.
  const std::string journal = journal_path_for(results_path);
  // Every file advise writes in --out, by the rule of every output, before any work: a hard link
  // of the trace, a symbolic link, a FIFO or a folder at advise.html was written through, blocked
  // or failed after the sweep (the fifth adversarial pass: o59, o61, n16, n103, n114, n115).
  for (const char* name :
       {"results.json", "advise.json", "advise.html", "advise-frontier.png", "advise-frontier.svg"})
    check_output_file((fs::path(out_dir) / name).string(), inputs, "--out");
  // No file the workloads or backends folder would read as one of its own (the tenth pass,
  // c1-advise-json-into-workloads-dir): `--out` is a folder of advise's own, its files too.
  for (const char* name : {"results.json", "advise.json"})
    refuse_output_in_read_folders((fs::path(out_dir) / name).string(), "--out", global);
  refuse_output_in_read_folders(a.json, "--json", global);
  if (!a.json.empty()) {
    check_output_file(a.json, inputs, "--json");
    // Two outputs of one command are two files: --json onto a file advise writes in --out
    // replaced it (the fourth pass: `--out a --json a/results.json` lost the cells' results).
    // Nor --out itself, made later (`--json adv --out adv` was refused only after the sweep: the
    // sixteenth adversarial pass, c1-advise-json-is-own-out-folder).
    if (same_output_path(a.json, out_dir))
      throw OutputError("--json " + a.json + ": the same path as --out, the folder advise fills");
    // Nor a folder on --out's way: the sweep ran, then --json could not be written beside its
    // results (the forty-seventh adversarial pass, c2-advise-json-is-out-parent,
    // c2-advise-out-under-json).
    if (output_path_under(out_dir, a.json))
      throw OutputError("--out " + out_dir + ": lies under --json " + a.json +
                        ", a file advise writes; write them apart");
    for (const char* name : {"results.json", "results.json.journal", "advise.json", "advise.html",
                             "advise-frontier.png", "advise-frontier.svg"}) {
      if (same_output_path(a.json, (fs::path(out_dir) / name).string()))
        throw OutputError("--json " + a.json + ": the same file as " + name +
                          ", which advise writes in --out " + out_dir);
      if (output_path_under(a.json, (fs::path(out_dir) / name).string()))
        throw OutputError("--json " + a.json + ": lies under " + name +
                          ", a file advise writes in --out " + out_dir + "; write them apart");
    }
    // In --out, which advise makes first, its folder is --out's, probed above.
    const std::string json_folder = fs::path(a.json).parent_path().string();
    if (!same_output_path(json_folder.empty() ? "." : json_folder, out_dir))
      check_output_writable(a.json, "--json");
  }
  struct stat st {};
  if (!a.resume)
    if (std::string taken = journal_place_taken(
            journal,
            "the journal of an interrupted advise is there: continue it with --resume (the same "
            "trace, grid, backends and options), or remove it");
        !taken.empty())
      throw std::invalid_argument(taken);
  if (a.resume && lstat(journal.c_str(), &st) != 0)
    throw std::invalid_argument(journal +
                                ": no journal to resume (the advise finished, or never started)");

  ImportedTraces imported;
  // Before the first read: the run stops if the trace is edited from here on.
  const std::optional<FileVersion> version = file_version(a.input);
  const std::string path = imported.prepare(a.input);
  const Trace trace = load_trace_file(path);

  RunOptions options;
  options.memrel_executable = executable_path().empty() ? "memrel" : executable_path();
  options.backends = sweep;
  options.backends_dir = global.backends_dir;
  options.workloads = {{path, a.input, trace.name, {}, version}};  // a trace: no programs
  if (std::string why = results_too_large(cell_results_bytes(trace) * sweep.size()); !why.empty())
    throw std::invalid_argument(a.input + ": " + why);
  options.cell_timeout_s = a.timeout_s;
  options.cell.host_capacity_bytes = host_capacity_bytes(a.host_capacity);
  options.cell.trace_scale_divisor = parse_trace_scale(a.trace_scale);
  options.progress_every_cell = global.verbosity > 0;
  options.journal_path = journal;
  options.resume = a.resume;
  // A backend file's library (given or in the grid) must load and export its symbols, checked as
  // run checks it (bad input, exit 2, before any cell): advise ran the sweep and called it a failed
  // configuration, exit 3 (the twenty-fourth adversarial pass,
  // c10-advise-backend-file-missing-symbol-exit3).
  LibraryCheck check;
  check.quiet = global.verbosity < 0;
  for (std::size_t i = 0; i < sweep.size(); ++i)
    refuse_backend_whose_library_fails(options, sweep[i], *sweep_info[i], check);
  if (int signal = InterruptRequests::received(); signal != 0)
    throw Interrupted(signal, "interrupted by " + signal_name(signal) + "; nothing run");
  // As run says it: a TMPDIR that cannot take a cell's files was found at the first cell, exit 4
  // "internal error", and left a journal of no cell in --out (the twenty-fourth adversarial pass).
  if (std::string problem = temporary_folder_problem(); !problem.empty())
    throw MachineStateError("cannot run a cell: " + problem +
                            "; set TMPDIR to a folder with room that memrel can write in");
  // A resume says so once its journal is taken (the runner's "resuming" line); until then a
  // refusal is the one line on stderr. Under -q only errors print (the fourth adversarial pass,
  // s07: this line was printed).
  if (!a.resume && global.verbosity >= 0)
    std::cerr << "memrel advise: " << trace.name << " on " << sweep.size() << " configurations\n";
  std::ostream no_progress(nullptr);
  // The journal's folder, from the first cell on; made here, it goes again if advise fails
  // before anything is in it (exit 2 left an empty --out: the twenty-fourth pass,
  // c9-advise-refused-backend-leaves-empty-out).
  FoldersMadeHere made_out_dir;
  made_out_dir.make("--out", out_dir);
  // The baseline: the configuration the program was recorded under (a family reads it from the
  // trace's provenance), else the first backend of the sweep that ran with its defaults. Read
  // before the sweep, and a recorded configuration memrel cannot express (PyTorch's list form of
  // roundup_power2_divisions, a setting that is not text) is said beside the defaults: it
  // stopped the advise after the whole sweep, exit 2 naming a backend the user never gave, or
  // exit 4 "internal error", its journal never to be finished (the twenty-second adversarial
  // pass, c10-advise-recorded-settings-*).
  std::string recorded, recorded_problem;
  for (const BackendFamily* family : backend_families()) {
    std::optional<std::string> r;
    try {
      r = family->recorded_backend(trace.source_format, trace.provenance);
      if (r) recorded = resolve_backend(*r, global.backends_dir).name;
    } catch (const std::exception& e) {
      recorded_problem = "recorded under a configuration memrel cannot run (" +
                         one_line_text(r ? *r : std::string("its settings")) + ": " +
                         one_line_text(e.what()) + ")";
    }
    if (r || !recorded_problem.empty()) break;
  }
  std::optional<RunJournal> journal_file;  // held until removed: no other advise takes it
  RunResults results = [&] {
    try {
      return run_suite(options, global.verbosity < 0 ? no_progress : std::cerr, &journal_file);
    } catch (const Interrupted& e) {
      // The runner says where the journal is; without --out the folder was made up here.
      if (!a.out.empty()) throw;
      throw Interrupted(e.signal(),
                        std::string(e.what()) + "; give --out " + out_dir + " with --resume");
    }
  }();

  Advice advice;
  advice.trace = a.input;
  advice.trace_name = trace.name;
  for (const CellResult& cell : results.cells) {
    advice.points.push_back(frontier_point(cell, swept.at(cell.backend).apply_line));
    advice.points.back().floor = cell.backend == "null";
  }
  mark_frontier(advice.points);
  advice.recommended = recommend(advice.points);
  for (std::size_t i = 0; i < advice.points.size() && !recorded.empty(); ++i) {
    if (advice.points[i].backend == recorded && advice.points[i].status == "ok") {
      advice.baseline = i;
      advice.baseline_reason = "recorded under it";
    }
  }
  for (std::size_t i = 0; i < advice.points.size() && !advice.baseline; ++i) {
    if (advice.points[i].status == "ok" && advice.points[i].settings.empty() &&
        !advice.points[i].floor) {
      advice.baseline = i;
      advice.baseline_reason = !recorded_problem.empty() ? "defaults; " + recorded_problem
                               : recorded.empty()
                                   ? "defaults"
                                   : "defaults; recorded under " + recorded + ", not run here";
    }
  }

  // The earlier advise's page goes before this one's data comes: stopped while the new page was
  // drawn, the folder held the new advise.json beside the old advise.html and frontier, a page
  // that contradicted its data (the thirty-first adversarial pass, c9-advise-sigterm-mixed-folder).
  // --out is advise's own folder (checked above), so these names are its files.
  for (const char* page_file : {"advise.html", "advise-frontier.png", "advise-frontier.svg"})
    std::remove((fs::path(out_dir) / page_file).c_str());
  const std::string results_text = to_json(results).dump(1) + "\n";
  refuse_results_past_the_cap("--out", results_path, results_text,
                              "the configurations' cells are in " + journal);
  write_file_atomically(results_path, results_text);
  const std::string advice_text = to_json(advice).dump(1) + "\n";
  write_file_atomically(advice_path, advice_text);
  if (!a.json.empty()) write_file_atomically(a.json, advice_text);
  // The page last, and the journal removed only after it: a stop while the page was drawn
  // (exit 143, "run it again with --resume") found no journal to resume (the tenth adversarial
  // pass, c10-advise-term-in-page-then-resume). A kill before the journal goes leaves it, and a
  // --resume then runs nothing and writes every output again.
  PythonResult page;
  try {
    // One word each way: a folder named `-adv` was read as an option (the twenty-third
    // adversarial pass, c10-advise-out-dash-folder).
    page = run_python_module("memrel_advise", {"--out=" + out_dir, "--", advice_path});
  } catch (const Interrupted& e) {
    throw Interrupted(e.signal(), std::string(e.what()) + "; every cell is in " + journal +
                                      ": run it again with --out " + out_dir + " and --resume");
  }
  if (journal_file)  // as `run` removes its own (run_command.cpp)
    remove_if_same_file(journal, journal_file->identity());
  if (page.exit_code != 0) {
    // A part that failed after the page was in place (a wrapper's exit 137 once Python had
    // ended) left it there while the line said "not written", with nothing after the colon
    // (the twentieth adversarial pass, c8-python-wrapper-exit137-advise): the page of a failed
    // part is not trusted, and the line is the part's last.
    std::remove((out_dir + "/advise.html").c_str());
    std::cerr << "memrel advise: the report page was not written: "
              << one_line_text(page.error_text.substr(page.error_text.rfind('\n') + 1)) << "\n";
  }

  std::cout << frontier_table(advice) << recommendation_text(advice);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (global.verbosity >= 0)
    std::cerr << "memrel advise: " << advice.points.size() << " configurations in " << seconds
              << " s; " << one_line_text(out_dir)
              << (page.exit_code == 0 ? " (results.json, advise.json, advise.html)\n"
                                      : " (results.json, advise.json; no advise.html)\n");
  // The page is one of the outputs asked for: without it the sweep is not whole, and exit 0
  // said it was (the fifteenth adversarial pass, c8-mempython-exit0-advise-memtrace).
  if (page.exit_code != 0) return exit_code::kInternalError;
  // As memrel run: a configuration whose cell crashed, timed out or failed is exit 3, named, so
  // that a script never takes a sweep with holes for a whole one.
  std::string failed;
  std::size_t failures = 0;
  for (const CellResult& c : results.cells) {
    if (c.status != "crashed" && c.status != "timeout" && c.status != "error") continue;
    failed += (failures++ ? ", " : "") + c.backend + " (" + c.status + ")";
  }
  if (failures) {
    std::cerr << "memrel advise: " << failures << " of " << results.cells.size()
              << " configurations failed: " << failed << "\n";
    return exit_code::kCellFailed;
  }
  return exit_code::kSuccess;
}

}  // namespace

RunSubcommand attach_advise(CLI::App& app, const GlobalOptions& global) {
  auto a = std::make_shared<AdviseArgs>();
  // Its own: the folder, not a results file, is what --resume continues.
  app.footer(
      "Exit codes: 0 every configuration of the sweep ran; 2 unusable input (bad trace, snapshot "
      "or log, grid file, backend or setting, option, or a --resume of another sweep); 3 the "
      "sweep ran but a configuration's cell crashed, timed out or failed (named on stderr; the "
      "frontier of the others is written); 4 internal error; 129, 130 or 143 interrupted by "
      "SIGHUP, SIGINT or SIGTERM (the finished cells are kept in the --out folder's journal: run "
      "it again with --out and --resume).");
  app.add_option("input", a->input,
                 "The program: a trace (.memtrace), a PyTorch snapshot (.pickle) or an RMM log "
                 "(.csv)")
      ->required();
  app.add_option("-b,--backend", a->backends,
                 "Sweep these backends (NAME or NAME:KEY=VALUE,...) instead of every available "
                 "one; the grid is added only with --grid");
  app.add_option("--grid", a->grid,
                 "Configurations to sweep, memrel.advise-grid/1 (default: " + default_grid() + ")");
  app.add_option(
      "--out", a->out,
      "Folder for results.json, advise.json and advise.html (default: a new folder under "
      "runs/)");
  app.add_option("--json", a->json, "Also write the frontier (memrel.advise/1) to this file");
  app.add_flag("--resume", a->resume,
               "Continue the interrupted advise whose folder is --out: its journal "
               "(results.json.journal) has the finished cells, and only the others run; the "
               "trace, grid, backends and options must be the same (docs/run-journal.md)");
  app.add_option("--timeout", a->timeout_s, "Seconds before a cell is killed")
      ->check(CLI::Range(1, 86400))
      ->capture_default_str();
  app.add_option("--host-capacity", a->host_capacity,
                 "What a host backend's replay is scaled to fit (as memrel run)")
      ->capture_default_str();
  app.add_option("--trace-scale", a->trace_scale, "As memrel run's --trace-scale")
      ->capture_default_str();
  return [a, &global] { return run_advise(*a, global); };
}

}  // namespace memrel::cli
