#include "harness/execution/run_journal.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include "platform/cut_json.hpp"
#include "platform/file_kind.hpp"
#include "platform/input_rules.hpp"
#include "platform/iso8601_time.hpp"
#include "platform/replace_barrier.hpp"

namespace memrel {
namespace {

// A time as memrel writes it (utc_now_iso8601, "YYYY-MM-DDTHH:MM:SSZ"), read field by field as the
// history reads it: "2026-02-30T99:99:99Z" began with a date, was resumed into the results, and
// `history add` then refused them, "no day 30 in its month" (the forty-third adversarial pass,
// c5-journal-started-bad-date-resumed-history-refuses).
bool is_utc_time(const std::string& text) {
  try {
    return text.size() == 20 && text.back() == 'Z' && history_time_text(text) == text;
  } catch (const std::invalid_argument&) {
    return false;
  }
}

// Whether a journal's first line is memrel's: a header naming the journal's schema, or, cut before
// its end (`whole` false), the start of one (nlohmann writes its keys in order, "context" first)
// or of one naming the schema (an older memrel's, "schema" first), as JSON cut short: a user's
// line naming the schema, or beginning so and going on as text, was replaced (the eighty-fifth
// adversarial pass, J21); an empty file is the start of one too. Only such a file is replaced
// as a journal holding no cell, or read by --resume: a user's one-line file of that name was
// removed (the forty-eighth adversarial pass, c2-journal-foreign-file-deleted), and a trace or a
// pretty-printed results file there was "the journal of an interrupted run: continue it with
// --resume", which then said "malformed JSON" (the forty-ninth, c10-journal-trace-called-
// interrupted-run).
bool first_line_is_ours(const std::string& first_line, bool whole) {
  static const std::string start = "{\"context\":";
  if (!whole)
    return start.rfind(first_line, 0) == 0 ||
           ((first_line.rfind(start, 0) == 0 ||
             first_line.find(std::string("\"") + kJournalSchema + "\"") != std::string::npos) &&
            (is_a_journal_header(first_line) || is_cut_json(first_line)));
  return is_a_journal_header(first_line);
}

nlohmann::json writer_json(const ProcessIdentity& writer) {
  return {{"pid", writer.pid}, {"start_ticks", writer.start_ticks}, {"boot", writer.boot}};
}

// A writer as writer_json writes one; nullopt for anything else.
std::optional<ProcessIdentity> writer_from_json(const nlohmann::json& value) {
  if (!value.is_object() || value.size() != 3) return std::nullopt;
  for (const char* key : {"pid", "start_ticks"})
    if (!value.contains(key) || !value[key].is_number_unsigned()) return std::nullopt;
  if (!value.contains("boot") || !value["boot"].is_string()) return std::nullopt;
  const std::uint64_t pid = value["pid"].get<std::uint64_t>();
  const std::string boot = value["boot"].get<std::string>();
  if (pid == 0 || pid > 0x7fffffff || boot.size() > 64) return std::nullopt;
  return ProcessIdentity{static_cast<pid_t>(pid), value["start_ticks"].get<std::uint64_t>(), boot};
}

const char* const kWriterShape =
    "\"writer\" must be {\"pid\": N, \"start_ticks\": N, \"boot\": \"ID\"} (the process that wrote "
    "it)";

// Whether the journal was written last by a process other than this one that still runs: a run
// still going, though no lock is held on this file (a copy of its journal, put in its place).
bool written_by_a_live_run(const std::optional<ProcessIdentity>& writer) {
  return writer && writer->pid != getpid() && process_still_runs(*writer);
}

// Whether another open of the file holds its lock: the run writing it.
bool locked_by_another(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return false;
  const bool held = flock(fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK;
  close(fd);
  return held;
}

std::string not_ours(const std::string& path) {
  return path + ": is not a journal memrel wrote: move it away (it is where the journal goes)";
}

}  // namespace

std::string journal_path_for(const std::string& results_path) { return results_path + ".journal"; }

JournalContent read_journal(const std::string& path) {
  // By the input rules: a regular file under the cap, checked before a byte is read (a FIFO
  // given as the journal blocked `run --resume` for ever). It holds the same cells as the
  // results file, and its run record once.
  // A journal is appended to in place and removed at the end: through a symbolic link the cells
  // went into the file it names and the link alone was removed, a stale journal left (the sixth
  // pass, j-sym). Refused, not followed (lstat), before anything runs.
  struct stat st {};
  if (lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode))
    throw ResultsError(path +
                       ": is a symbolic link, not a regular file; a journal is continued only "
                       "in place (move the file it names there)");
  // Continued in place: cut to its last whole record, added to, removed at the end. An attribute
  // that forbids one of those stopped the resume at the cut, exit 4 "internal error" (the
  // fifty-second adversarial pass, c2-resume-journal-append-only): refused before anything runs.
  if (std::string barrier = replace_barrier(path); !barrier.empty())
    throw ResultsError(path + ": " + barrier +
                       ": a journal is continued in place (cut to its last whole record, added "
                       "to, removed at the end); clear the attribute (chattr -a -i) first");
  // Empty, or cut before its first line ended: the start of a run killed as it began, which holds
  // no cell. "--resume: empty file" and a fresh run's "continue it with --resume" sent the user
  // round in a circle (the twentieth adversarial pass, c5-empty-journal-file-blocks-both).
  const std::string no_cell = path +
                              ": holds no cell (a run killed as it began leaves this): run again "
                              "without --resume, which replaces it";
  std::string text;
  try {
    if (lstat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 0)
      throw ResultsError(no_cell);
    text = read_input_text(path, 2 * kMaxResultsFileBytes, "journal");
  } catch (const InputError& e) {
    throw ResultsError(e.what());
  }
  const std::size_t first_end = text.find('\n');
  if (!first_line_is_ours(text.substr(0, first_end), first_end != std::string::npos))
    throw ResultsError(not_ours(path));
  if (first_end == std::string::npos) throw ResultsError(no_cell);
  JournalContent content;
  std::size_t start = 0, line = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) break;  // cut short by a kill: not a record
    ++line;
    const std::string where = path + ": line " + std::to_string(line) + ": ";
    nlohmann::json j;
    try {
      // By the input rules: a key given twice in one record is refused, not "last one wins".
      j = parse_input_json(text.substr(start, end - start), path);
    } catch (const InputError& e) {
      // The place and what is wrong; not the parser's own diagnostics.
      std::string message = e.message();
      message = message.substr(0, message.find(": [json.exception"));
      throw ResultsError(where + (e.place().empty() ? "" : e.place() + ": ") + message);
    }
    if (line == 1) {
      // Each field of the header of its type: `"schema": 1` or `"context": [1]` reached the JSON
      // library's own type error, exit 4 (the tenth adversarial pass, c5-journal-schema-int,
      // c5-journal-ctx-context-not-object). What a resume reads of the context is checked too.
      if (!j.is_object() || !j.contains("schema") || !j["schema"].is_string() ||
          j["schema"] != kJournalSchema)
        throw ResultsError(where + "not a memrel journal (expected \"schema\": \"" +
                           kJournalSchema + "\")");
      if (!j.contains("run") || !j.contains("context"))
        throw ResultsError(where + "missing \"run\" or \"context\"");
      if (!j["run"].is_object() || !j["context"].is_object())
        throw ResultsError(where + "\"run\" and \"context\" must be objects");
      const nlohmann::json& context = j["context"];
      // A time: a resume wrote the results with it, and `history add` refuses one that is no
      // date (the twentieth adversarial pass, c5-journal-context-started-garbage).
      if (!context.contains("started") || !context["started"].is_string() ||
          !is_utc_time(context["started"].get<std::string>()))
        throw ResultsError(where +
                           "context: \"started\" must be a UTC time (YYYY-MM-DDTHH:MM:SSZ)");
      if (context.contains("resumed")) {
        bool strings = context["resumed"].is_array();
        for (const auto& r : strings ? context["resumed"] : nlohmann::json::array())
          strings = strings && r.is_string() && is_utc_time(r.get<std::string>());
        if (!strings)
          throw ResultsError(where + "context: \"resumed\" must be a list of strings (UTC times)");
      }
      if (j.contains("writer")) {
        content.writer = writer_from_json(j["writer"]);
        if (!content.writer) throw ResultsError(where + kWriterShape);
      }
      content.run = j["run"];
      content.context = j["context"];
    } else if (j.is_object() && j.size() == 1 && j.contains("writer")) {
      // A resume's own process (RunJournal::resume): from here on, the run writing it.
      content.writer = writer_from_json(j["writer"]);
      if (!content.writer) throw ResultsError(where + kWriterShape);
    } else if (j.is_object() && j.size() == 1 && j.contains("resumed")) {
      // A resumption (RunJournal::record_resumption): the results list every one. Only the last
      // reached them when a resumed run was stopped and resumed again (the forty-fifth
      // adversarial pass, c5-resumed-list-drops-interrupted-resumptions).
      if (!j["resumed"].is_string() || !is_utc_time(j["resumed"].get<std::string>()))
        throw ResultsError(where + "\"resumed\" must be a UTC time (YYYY-MM-DDTHH:MM:SSZ)");
      if (!content.context.contains("resumed"))
        content.context["resumed"] = nlohmann::json::array();
      content.context["resumed"].push_back(j["resumed"]);
    } else {
      if (!j.is_object() || !j.contains("index") || !j["index"].is_number_unsigned() ||
          !j.contains("cell") || !j["cell"].is_object())
        throw ResultsError(where + "not a cell record ({\"index\": N, \"cell\": {...}})");
      std::size_t index = j["index"].get<std::size_t>();
      // An `unavailable` cell is run again by a --resume (its tool may be there now), and the
      // later record stands for it; any other cell is recorded once.
      auto earlier = content.cells.find(index);
      if (earlier != content.cells.end() && earlier->second.status != "unavailable")
        throw ResultsError(where + "cell " + std::to_string(index) + " recorded twice");
      try {
        content.cells.insert_or_assign(index, cell_from_json(j["cell"]));
      } catch (const ResultsError& e) {
        throw ResultsError(where + e.what());
      }
    }
    start = end + 1;
    content.whole_bytes = start;
  }
  return content;
}

std::string journal_mismatch(const nlohmann::json& journal_run, const nlohmann::json& run) {
  if (journal_run == run) return "";
  for (const auto& [key, value] : run.items()) {
    if (!journal_run.contains(key)) return "\"" + key + "\" is not in the journal";
    if (journal_run[key] != value)
      return "\"" + key + "\" differs (journal " + journal_run[key].dump() + ", now " +
             value.dump() + ")";
  }
  // Named as the others are: resuming a `--shard 1/2` journal without --shard said only this
  // (the fiftieth adversarial pass, c5-resume-without-shard-unnamed-field).
  for (const auto& [key, value] : journal_run.items())
    if (!run.contains(key)) {
      std::string shown = value.dump();
      if (shown.size() > 200) shown = shown.substr(0, 200) + "...";
      return "\"" + key + "\" is in the journal (" + shown + ") and not in this run";
    }
  return "the journal has fields this run lacks";
}

std::string journal_place_taken(const std::string& path, const std::string& journal_is_there) {
  struct stat st {};
  if (lstat(path.c_str(), &st) != 0) return "";
  // A FIFO or a folder there was "the journal of an interrupted run: continue it with
  // --resume", which refused it (the twentieth adversarial pass, c5-journal-not-a-file-advice).
  if (!S_ISREG(st.st_mode))
    return path + ": is " + file_kind_name(st.st_mode) +
           ", not a journal memrel wrote: move it away (it is where the journal goes)";
  const int fd = open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return path + ": " + journal_is_there;
  char buffer[65536];
  // Whole lines, up to two (the header and a first record), and the first line's text.
  int whole_lines = 0;
  std::string first_line;
  for (std::uint64_t read_bytes = 0; whole_lines < 2 && read_bytes < 2 * kMaxResultsFileBytes;) {
    const ssize_t n = read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    for (const char* p = buffer; whole_lines < 2;) {
      const char* end =
          static_cast<const char*>(std::memchr(p, '\n', static_cast<std::size_t>(buffer + n - p)));
      if (whole_lines == 0) first_line.append(p, end ? end : buffer + n);
      if (end == nullptr) break;
      ++whole_lines;
      p = end + 1;
    }
    read_bytes += static_cast<std::uint64_t>(n);
  }
  // Held: a run still going (one that made its journal the plain way, a moment before writing
  // its first line).
  bool held = flock(fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK;
  // Or a copy of a live run's journal put in its place, which that run does not lock: its header
  // names the run's process. Removed as "holding no cell", a second run started beside the first.
  if (!held && whole_lines > 0) {
    const nlohmann::json header = nlohmann::json::parse(first_line, nullptr, false);
    held = header.is_object() && header.contains("writer") &&
           written_by_a_live_run(writer_from_json(header["writer"]));
  }
  if (!held && !first_line_is_ours(first_line, whole_lines > 0)) {
    close(fd);
    return not_ours(path);
  }
  if (whole_lines < 2 && !held) {
    // Killed as it began (SIGKILL between the file and its first line), or stopped before its
    // first cell finished (a run that failed at its first cell, under `ulimit -n 6`, left its
    // header, and the same run again was refused as "an interrupted run": the forty-sixth
    // adversarial pass, c8-run-emfile-leaves-journal): it holds no cell. Removed
    // under the lock, so that no run can be writing it meanwhile.
    std::remove(path.c_str());
    close(fd);
    return "";
  }
  close(fd);
  if (held) return path + ": in use by a run that is still going";
  return path + ": " + journal_is_there;
}

RunJournal RunJournal::start(const std::string& path, const nlohmann::json& run,
                             const nlohmann::json& context) {
  if (std::string taken = journal_place_taken(
          path,
          "the journal of an interrupted run is there: continue it with `memrel run --resume` "
          "(the same options), or remove it");
      !taken.empty())
    throw ResultsError(taken);
  nlohmann::json header = {{"schema", kJournalSchema}, {"run", run}, {"context", context}};
  if (std::optional<ProcessIdentity> writer = this_process_identity())
    header["writer"] = writer_json(*writer);
  try {
    return RunJournal(DurableAppendFile::create_new(path, header.dump() + "\n"));
  } catch (const FileInUse&) {
    throw ResultsError(path + ": in use by a run that is still going");
  }
}

RunJournal RunJournal::resume(const std::string& path, const JournalContent& content) {
  const std::string in_use = ": in use by a run that is still going";
  const std::string what_then =
      "a --resume of a live run would run its cells again): wait for it, or stop it first";
  // Named by a live run, though no lock may be held on this file: a copy put in place of that
  // run's journal. Asked before the file is opened to append, which cuts it.
  if (written_by_a_live_run(content.writer) && !locked_by_another(path))
    throw ResultsError(path + in_use + " (process " + std::to_string(content.writer->pid) +
                       ", whose journal was replaced by this file, which it does not hold; " +
                       what_then);
  try {
    RunJournal journal(DurableAppendFile::open_existing(path, content.whole_bytes));
    if (std::optional<ProcessIdentity> writer = this_process_identity())
      journal.file_.append(nlohmann::json({{"writer", writer_json(*writer)}}).dump() + "\n");
    return journal;
  } catch (const FileInUse&) {
    throw ResultsError(path + in_use + " (" + what_then);
  }
}

void check_journal_cells(const std::string& path, const std::map<std::size_t, CellResult>& cells,
                         const std::vector<std::pair<std::string, std::string>>& matrix) {
  for (const auto& [index, cell] : cells) {
    const std::string where = path + ": cell " + std::to_string(index) + ": ";
    if (index >= matrix.size())
      throw ResultsError(where + "outside the run's " + std::to_string(matrix.size()) + " cells");
    const auto& [backend, workload] = matrix[index];
    if (cell.backend != backend || cell.workload != workload)
      throw ResultsError(where + "recorded as " + cell.backend + " x " + cell.workload +
                         ", but the run's cell " + std::to_string(index) + " is " + backend +
                         " x " + workload + ": not this run's journal");
  }
}

void RunJournal::record_resumption(const std::string& utc_time) {
  pending_resumption_ = nlohmann::json({{"resumed", utc_time}}).dump() + "\n";
}

void RunJournal::record(std::size_t index, const CellResult& cell) {
  nlohmann::json line = {{"index", index}, {"cell", to_json(cell)}};
  // A cell's reason quotes its stderr, which need not be UTF-8.
  // The resumption goes with its first cell, in one write: a resume that stopped before any
  // cell finished (failed at its start, exit 4) was listed as one (the forty-sixth adversarial
  // pass, c8-resume-emfile-counted-as-resumption).
  file_.append(pending_resumption_ +
               line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
  pending_resumption_.clear();
}

}  // namespace memrel
