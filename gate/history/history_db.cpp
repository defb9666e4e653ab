#include "gate/history/history_db.hpp"

#include <fcntl.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "gate/history/history_figures.hpp"
#include "platform/file_kind.hpp"
#include "platform/file_size_limit.hpp"
#include "platform/input_rules.hpp"
#include "platform/interrupt.hpp"
#include "platform/iso8601_time.hpp"
#include "platform/machine_state_error.hpp"
#include "platform/name_characters.hpp"
#include "platform/one_line_text.hpp"
#include "platform/path_for_json.hpp"
#include "platform/replace_barrier.hpp"
#include "platform/run_context.hpp"
#include "platform/stop_signals_held.hpp"

namespace memrel {

namespace fs = std::filesystem;
namespace {

constexpr int kApplicationId = 0x6d656d72;  // "memr": the file is a memrel history

// Schema version N is made by the first N steps, in order; a database at version K < N gets
// steps K+1..N. Append a step to change the schema; never edit one.
const char* const kSchemaSteps[] = {
    // 1: runs and their figures.
    "CREATE TABLE runs ("
    "  id INTEGER PRIMARY KEY,"
    "  added TEXT NOT NULL,"          // when it was added (UTC, ISO 8601)
    "  started TEXT NOT NULL,"        // when the run started, from the file; else `added`
    "  source TEXT NOT NULL,"         // the file's path as given to `history add`
    "  kind TEXT NOT NULL,"           // 'results' or 'benchmark'
    "  digest TEXT NOT NULL UNIQUE,"  // of the file's content: a file is added once
    "  machine_id TEXT,"              // machine_id() of the fingerprint; NULL without one
    "  fingerprint TEXT,"             // the fingerprint as JSON; NULL without one
    "  gpu_model TEXT,"
    "  memrel_commit TEXT);"
    "CREATE TABLE figures ("
    "  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
    "  metric TEXT NOT NULL,"  // '<subject>:<figure>'
    "  value REAL NOT NULL,"
    "  PRIMARY KEY (run_id, metric));"
    "CREATE INDEX figures_by_metric ON figures(metric);",
};
static_assert(sizeof kSchemaSteps / sizeof kSchemaSteps[0] == kHistorySchemaVersion);

std::string digest(const std::string& content) {
  std::uint64_t hash = 1469598103934665603ULL;  // FNV-1a, 64 bits, and the length
  for (unsigned char c : content) {
    hash ^= c;
    hash *= 1099511628211ULL;
  }
  char text[40];
  std::snprintf(text, sizeof text, "%016llx-%zu", static_cast<unsigned long long>(hash),
                content.size());
  return text;
}

// Whether this process is out of file descriptors, or all but out: SQLite opens the database
// and its journal, and said "unable to open database file" with errno 0 under `ulimit -n 4`.
bool descriptors_run_short() {
  int fds[4];
  int opened = 0;
  bool short_of = false;
  for (int& fd : fds) {
    fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      short_of = errno == EMFILE || errno == ENFILE;
      break;
    }
    ++opened;
  }
  for (int i = 0; i < opened; ++i) close(fds[i]);
  return short_of;
}

// How long a write waits for another process's (two nightly steps adding at once wait for each
// other).
constexpr int kBusyWaitMs = 10000;

// The failure of the last SQLite call on DB, thrown. A write that fails for the machine's state
// (SQLite's "disk I/O error" for EFBIG past `ulimit -f` or EIO, "database or disk is full", out of
// memory) is exit 4, as every memrel writer says it (docs/inputs.md, "Failures that are not the
// allocator's"): a MachineStateError. Anything else (not a database, read-only, a schema it does
// not hold) is the database's, exit 2: a ResultsError. `history add` said exit 2 past `ulimit -f`
// (the fifth adversarial pass, f22). The system's error beside SQLite's: past `ulimit -f` it said
// only "disk I/O error". A database another process holds for longer than memrel waits is the
// machine's state too, exit 4, not an unusable file (the twenty-second adversarial pass,
// c8-ulimit-f16-hadd, c8-history-add-db-locked-exit2).
[[noreturn]] void sqlite_failed(int code, const std::string& path, std::string why,
                                int system_errno) {
  code &= 0xff;  // the primary code of an extended one
  // Out of descriptors (`ulimit -n`): the machine's state, not the file's; it was "unable to open
  // database file", exit 2 (the twenty-third adversarial pass, c8-ulimit-n-history-add-new-db).
  if (code == SQLITE_CANTOPEN &&
      (system_errno == EMFILE || system_errno == ENFILE || descriptors_run_short()))
    throw MachineStateError(path + ": cannot open (" + why +
                            "): too few file descriptors left (ulimit -n); nothing added");
  if (code == SQLITE_BUSY || code == SQLITE_LOCKED)
    throw MachineStateError(path + ": in use by another process for more than " +
                            std::to_string(kBusyWaitMs / 1000) + " s (" + why +
                            "); nothing added: run it again once that process is done");
  if (code == SQLITE_IOERR || code == SQLITE_FULL || code == SQLITE_NOMEM) {
    // SQLite keeps errno as it was when it noticed the failure, which need not be the write's.
    const std::optional<std::uint64_t> size_limit = file_size_limit_bytes();
    if (system_errno == EFBIG)
      why += ": " + std::string(std::strerror(EFBIG)) + ", past the file size limit (ulimit -f)";
    else if (code != SQLITE_NOMEM && size_limit)
      why +=
          ", under a file size limit of " + std::to_string(*size_limit >> 10) + " KiB (ulimit -f)";
    else if (system_errno != 0 && code != SQLITE_NOMEM)
      why += ": " + std::string(std::strerror(system_errno));
    throw MachineStateError(path + ": cannot write (" + why + "); nothing added");
  }
  throw ResultsError(path + ": " + why);
}

[[noreturn]] void sqlite_failed(sqlite3* db, const std::string& path) {
  sqlite_failed(sqlite3_errcode(db), path, sqlite3_errmsg(db), sqlite3_system_errno(db));
}

// A prepared statement, finalized however the scope is left.
class Statement {
 public:
  Statement(sqlite3* db, const std::string& sql, const std::string& path) {
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &s_, nullptr) != SQLITE_OK) sqlite_failed(db, path);
  }
  ~Statement() { sqlite3_finalize(s_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  sqlite3_stmt* get() { return s_; }
  void bind(int i, const std::string& v) {
    sqlite3_bind_text(s_, i, v.c_str(), -1, SQLITE_TRANSIENT);
  }
  void bind_or_null(int i, const std::optional<std::string>& v) {
    if (v)
      bind(i, *v);
    else
      sqlite3_bind_null(s_, i);
  }
  std::string text(int column) {
    const unsigned char* t = sqlite3_column_text(s_, column);
    return t == nullptr ? "" : reinterpret_cast<const char*>(t);
  }

 private:
  sqlite3_stmt* s_ = nullptr;
};

// The text a memrel history holds is what memrel wrote there: UTF-8 without a control or
// text-direction character (every name is checked before it goes in, docs/inputs.md). Other text
// was put there by something else (a byte that is not UTF-8 aside: an older memrel wrote a file
// name's bytes as they were; they read as memrel writes them now), and `history list` printed it
// raw: an escape sequence from a metric name went to the terminal. Refused at its place; NULL reads
// as "".
std::string history_text(Statement& q, int column, const std::string& path,
                         const std::string& place) {
  const int type = sqlite3_column_type(q.get(), column);
  if (type == SQLITE_NULL) return "";
  std::string text = q.text(column);
  std::string problem;
  if (type != SQLITE_TEXT)
    problem = type == SQLITE_BLOB ? "a blob, not text" : "a number, not text";
  else if (text.size() != static_cast<std::size_t>(sqlite3_column_bytes(q.get(), column)))
    problem = "text holding \\u0000, a control character";
  else if (std::string c = forbidden_name_character(text); !c.empty())
    problem =
        "text holding " + c + ", a control, invisible, text-direction or noncharacter code point";
  // A file name memrel wrote before it wrote names as JSON text (a byte 0xff as `\xff`).
  if (problem.empty()) return path_for_json(text);
  throw ResultsError(path + ": " + place + ": " + problem + "; not a memrel history");
}

// SQLite keeps any type in any column: a text, a blob or a NULL read as a double is 0, and a
// literal no double holds (9e999) is inf. A figure that is not a finite number is refused at its
// row (docs/inputs.md, "Numbers that switch a rule off"), as `history changes` refuses it.
// At most 40 characters, control characters as '?': the message stays one line.
std::string printable(std::string text) {
  if (text.size() > 40) text = text.substr(0, 40) + "...";
  for (char& c : text)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  return text;
}

// A figure as %g writes it, 17 significant digits: std::to_string wrote 1.7e308 as 309 digits
// and ".000000", a line of 465 characters (the fifty-ninth adversarial pass,
// c4-history-show-huge-figure-300-digits).
std::string shortest_text(double value) {
  char text[40];
  std::snprintf(text, sizeof text, "%.17g", value);
  return text;
}

// 2^53: the largest figure memrel records.
constexpr double kMostFigure = 9007199254740992.0;

double figure_value(Statement& q, int column, int rowid_column, const std::string& metric,
                    const std::string& path) {
  const int type = sqlite3_column_type(q.get(), column);
  const double value = sqlite3_column_double(q.get(), column);
  // Every figure memrel records is within 2^53 (results integers, benchmark times and bytes:
  // docs/results-schema.md, docs/benchmark-json.md): a hand-set 1.7e308 overflowed Otava's
  // arithmetic, and the shift to it was no change point (the forty-first adversarial pass,
  // c4-history-changes-huge-figure-no-change).
  if ((type == SQLITE_INTEGER || type == SQLITE_FLOAT) && std::isfinite(value) &&
      std::fabs(value) > kMostFigure)
    throw ResultsError(path + ": figures row " +
                       std::to_string(sqlite3_column_int64(q.get(), rowid_column)) + " (" + metric +
                       "), column value: " + shortest_text(value) +
                       " is out of range (-2^53 to 2^53); not a memrel history");
  if ((type == SQLITE_INTEGER || type == SQLITE_FLOAT) && std::isfinite(value)) return value;
  std::string shown = type == SQLITE_NULL   ? "NULL"
                      : type == SQLITE_BLOB ? "a blob"
                      : type == SQLITE_TEXT ? "the text '" + printable(q.text(column)) + "'"
                                            : shortest_text(value);
  throw ResultsError(path + ": figures row " +
                     std::to_string(sqlite3_column_int64(q.get(), rowid_column)) + " (" + metric +
                     "), column value: " + shown + " is not a finite number; not a memrel history");
}

// When the file's run started: its context's "started" (results), "memrel_started" (memrel's
// benchmark files) or Google Benchmark's own "date"; "" when it has none. One that is no date
// was stored as it was, and from then on `report --history` refused the whole history, every
// later night too (the twentieth adversarial pass, c6-history-add-bad-started-poisons-db).
std::string started_of(const InputFile& f) {
  const nlohmann::json& c =
      f.kind == InputKind::kResults ? f.results.context : f.benchmarks.context;
  for (const char* key : {"started", "memrel_started", "date"}) {
    if (!c.is_object() || !c.contains(key) || !c[key].is_string()) continue;
    const std::string started = c[key].get<std::string>();
    // Checked field by field and kept in UTC where it says its offset: February 30 and hour 25
    // were taken, and a run started at 10:00+09:00 (01:00 UTC) was ordered after one of 05:00Z,
    // its text compared as it was (the twenty-seventh adversarial pass,
    // c4-history-started-offset-misorders).
    try {
      return history_time_text(started);
    } catch (const std::invalid_argument& e) {
      throw ResultsError(f.path + ": context." + key + " '" + one_line_text(started) +
                         "' is not an ISO 8601 time (" + e.what() +
                         "): a history orders its runs by it");
    }
  }
  return "";
}

}  // namespace

namespace {
// SQLite opens the files beside a database by their names: a FIFO at PATH-journal made every
// history command hang in open() (a hot-journal check), a folder there made `history list` a
// "disk I/O error", exit 4, and a symbolic link there would have SQLite write through it (the
// tenth adversarial pass, c2-history-sqlite-journal-*). Each is absent or a regular file.
// And a regular file there is empty or begins as SQLite's journal of its kind
// (sqlite.org/fileformat): a user's file there (a results file named h.sqlite-journal) was taken
// for a stale journal and removed by `history list` and `show`, exit 0 (the twenty-seventh
// adversarial pass, c1-history-read-commands-delete-stray-journal).
// The shared-memory index (-shm) is no journal, but SQLite writes it in place through a mapping:
// a user's file there, or a hard link to one, was overwritten by `history add`, `list`, `show` and
// `report --history` of a history in WAL mode, exit 0 (the sixty-eighth adversarial pass,
// c2-history-shm-hardlink-overwritten, c2-history-readers-shm-overwritten). It begins with its
// header's version, 3007000 in the machine's byte order, or with zeros before that is written.
bool is_sqlite_journal(const std::string& companion, const std::string& suffix) {
  unsigned char head[8] = {};
  const int fd = open(companion.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return true;  // what cannot be read, SQLite cannot take either: its error follows
  const ssize_t n = read(fd, head, sizeof head);
  close(fd);
  if (n <= 0) return true;
  static const unsigned char kJournal[8] = {0xd9, 0xd5, 0x05, 0xf9, 0x20, 0xa1, 0x63, 0xd7};
  // A live journal's magic is written only as it is synced: until then it begins with zeros
  // (SQLite's pager), as does one a crash left before that (SQLite deletes it unread).
  static const unsigned char kUnsynced[8] = {};
  if (suffix == "-journal")
    return std::memcmp(head, kJournal, static_cast<std::size_t>(n)) == 0 ||
           std::memcmp(head, kUnsynced, static_cast<std::size_t>(n)) == 0;
  if (suffix == "-shm") {
    static const unsigned char kIndexLittle[4] = {0x18, 0xe2, 0x2d, 0x00};  // 3007000
    static const unsigned char kIndexBig[4] = {0x00, 0x2d, 0xe2, 0x18};
    const auto size = static_cast<std::size_t>(std::min<ssize_t>(n, 4));
    return std::memcmp(head, kIndexLittle, size) == 0 || std::memcmp(head, kIndexBig, size) == 0 ||
           std::memcmp(head, kUnsynced, size) == 0;
  }
  return n >= 4 && head[0] == 0x37 && head[1] == 0x7f && head[2] == 0x06 &&
         (head[3] == 0x82 || head[3] == 0x83);
}

// Where SQLite keeps PATH's journals: beside the file a symbolic link names, as SQLite resolves
// the link. Looked for beside the link, a user's h.sqlite-journal was taken by SQLite for a stale
// journal of `--db hlink` and removed, exit 0 (the fifty-ninth adversarial pass,
// c1-db-symlink-deletes-journal-file).
std::string sqlite_file_name(const std::string& path) {
  struct stat st {};
  if (lstat(path.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return path;
  std::error_code ec;
  const fs::path resolved = fs::canonical(path, ec);
  return ec ? path : resolved.string();
}

void check_sqlite_companions(const std::string& given) {
  const std::string path = sqlite_file_name(given);
  for (const char* suffix : {"-journal", "-wal", "-shm"}) {
    const std::string companion = path + suffix;
    struct stat st {};
    if (lstat(companion.c_str(), &st) != 0) continue;
    if (!S_ISREG(st.st_mode))
      throw ResultsError(companion + ": " + file_kind_name(st.st_mode) +
                         ", not a regular file: SQLite keeps the history " + path +
                         "'s journal there; move it away");
    // One name alone: SQLite writes its side files in place, and a hard link's other name would
    // change with it (c2-history-shm-hardlink-overwritten).
    if (st.st_nlink > 1)
      throw ResultsError(companion + ": has " + std::to_string(st.st_nlink) +
                         " names (hard links), where SQLite keeps the history " + path +
                         "'s journal: SQLite writes it in place, and every other name with it; "
                         "move it away");
    const bool sqlites = is_sqlite_journal(companion, suffix);
    if (!sqlites && suffix == std::string("-shm"))
      throw ResultsError(companion +
                         ": not SQLite's shared-memory index, where SQLite keeps the "
                         "history " +
                         path + "'s: SQLite would write over it; move it away");
    if (!sqlites)
      throw ResultsError(companion + ": not an SQLite journal, where SQLite keeps the history " +
                         path +
                         "'s: SQLite would take it for a stale one and remove it; move it "
                         "away");
  }
}
// A history in WAL mode is read through PATH-wal and PATH-shm, which SQLite makes beside it when
// they are not there: in a folder that takes no new file, every command said only SQLite's
// "unable to open database file" (the fifty-fourth adversarial pass, arguable). Said with what
// stops it and the two ways out. The twin of scripts/memrel_history/changes.py's.
void check_wal_companions_can_be_made(const std::string& given) {
  const std::string path = sqlite_file_name(given);
  unsigned char header[20] = {};
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return;
  const ssize_t n = read(fd, header, sizeof header);
  close(fd);
  // Bytes 18 and 19 of the header: the write and read versions, 2 in WAL mode
  // (sqlite.org/fileformat).
  if (n != static_cast<ssize_t>(sizeof header) || header[18] != 2 || header[19] != 2) return;
  struct stat st {};
  if (lstat((path + "-wal").c_str(), &st) == 0 && lstat((path + "-shm").c_str(), &st) == 0) return;
  std::string folder = fs::path(path).parent_path().string();
  if (folder.empty()) folder = ".";
  std::string why = replace_barrier(folder);
  if (why == "is append-only (chattr +a)") why.clear();  // takes new files
  if (why.empty() && access(folder.c_str(), W_OK | X_OK) != 0)
    why = std::string("takes no new file (") + std::strerror(errno) + ")";
  if (why.empty()) return;
  throw ResultsError(path + ": a history in WAL mode, read through " + path + "-wal and -shm, " +
                     "which SQLite cannot make: its folder " + folder + " " + why +
                     "; move the history to a folder that takes new files, or take it out of WAL " +
                     "mode there (sqlite3 PATH 'PRAGMA journal_mode=DELETE')");
}
}  // namespace

// Why the regular, non-empty file at PATH is no SQLite database ("" when it begins as one, or
// cannot be read: SQLite then says why). SQLite takes a file shorter than its header for a new
// database and writes its schema there: `history list` and `add` made a user's 1-byte file a
// history, exit 0 (the seventy-first adversarial pass, c10-one-byte-file-taken-as-history). A
// results file given as --db was SQLite's "file is not a database" (the same pass,
// c10-history-db-not-told-by-content).
static std::string not_an_sqlite_database(const std::string& path) {
  const std::string head = read_input_head(path, kOtherKindHeadBytes);
  if (head.empty() || head.rfind(kSqliteMagic, 0) == 0) return "";
  if (std::string kind = other_memrel_kind(head, "history database"); !kind.empty()) return kind;
  if (begins_as_json_document(head))
    return "a JSON document (a results file?), not a history database: add a results file to a "
           "history with `memrel history --db DB add FILE`";
  return "not an SQLite database (it does not begin with \"SQLite format 3\"), so not a history "
         "database (memrel history add makes one where no file is)";
}

// Why the hot journal beside PATH cannot be rolled back (its folder, the history or the journal
// immutable or append-only), said as a reader's refusal; "" when there is none, or nothing stops
// it. `history list` said "cannot write (disk I/O error ...); nothing added", exit 4, and `history
// changes` "attempt to write a readonly database", exit 2 (the seventy-fifth adversarial pass,
// c2-hot-journal-immutable-folder-reader).
// Whether PATH-journal is there and holds something: a write that was stopped, to roll back.
static bool has_hot_journal(const std::string& path) {
  struct stat st {};
  return lstat((path + "-journal").c_str(), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0;
}

static std::string hot_journal_stuck(const std::string& path) {
  const std::string journal = path + "-journal";
  if (!has_hot_journal(path)) return "";
  const std::string folder = std::filesystem::path(path).parent_path().string();
  const std::pair<const char*, std::string> places[] = {
      {"its folder", folder.empty() ? "." : folder},
      {"the history", path},
      {"the journal", journal}};
  for (const auto& [what, file] : places)
    if (std::string barrier = replace_barrier(file); !barrier.empty())
      return journal +
             ": the journal of a write that was stopped, which SQLite rolls back before "
             "the history is read, and " +
             what + " " + barrier + ": clear the attribute (chattr -i, -a) first";
  return "";
}

void roll_back_hot_journal(const std::string& path) {
  if (path.empty() || !has_hot_journal(path)) return;
  if (std::string stuck = hot_journal_stuck(path); !stuck.empty()) throw ResultsError(stuck);
  try {
    HistoryDb opened(path, false);  // its first read rolls the journal back
  } catch (const std::exception&) {
    // The reader says what is wrong with it, in the words it says every such history with.
  }
}

HistoryDb::HistoryDb(const std::string& path, bool create) : path_(path) {
  check_sqlite_companions(path);  // before a new database is linked into place beside them
  struct stat st {};
  bool exists = stat(path.c_str(), &st) == 0;
  // A device, a FIFO or a folder is no database: `history --db /dev/null show` was SQLite's
  // "disk I/O error", exit 4, and left a `-journal` beside the device (the fourteenth
  // adversarial pass, c2-history-*-chardev-journal).
  if (exists && !S_ISREG(st.st_mode))
    throw ResultsError(path + ": " + file_kind_name(st.st_mode) +
                       ", not a regular file: not a history database");
  if (!exists && !create)
    throw ResultsError(path + ": no history database here (memrel history add creates one)");
  // SQLite takes an empty file for a new database and writes its schema into it: `history list`
  // and `show` turned a user's 0-byte file into a history, exit 0, where `changes` and `report
  // --history` refuse it (the forty-sixth adversarial pass, c8-history-list-writes-empty-db).
  if (exists && st.st_size == 0)
    throw ResultsError(path +
                       ": an empty file, not a history database (memrel history add makes "
                       "one where no file is)");
  if (exists)
    if (std::string why = not_an_sqlite_database(path); !why.empty())
      throw ResultsError(path + ": " + why);
  if (exists)
    if (std::string stuck = hot_journal_stuck(path); !stuck.empty()) throw ResultsError(stuck);
  if (!exists) made_here_ = create_whole(path);
  check_wal_companions_can_be_made(path);
  open(SQLITE_OPEN_READWRITE);
}

HistoryDb::HistoryDb(const std::string& path, NewFile) : path_(path) {
  open(SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
}

// A new database is made whole under a temporary name beside PATH, then linked into place: made
// in place, a failure part way (`history add` past `ulimit -f`, a full disk) left an empty or
// half-made PATH that the next `history add` refused (the sixth adversarial pass, f-fsize-hadd).
// link() never replaces: two `history add` making PATH at once both link, one finds it made
// (EEXIST) and opens that one.
bool HistoryDb::create_whole(const std::string& path) {
  const StopSignalsHeld held;  // the temporary database made, linked in and removed, or not made
  const fs::path target(path);
  // Not PATH's name with a suffix: a name near the file system's limit then left no room for
  // SQLite's "-journal" (the twenty-sixth adversarial pass,
  // c10-history-db-name-within-limit-fails).
  // A name taken already, with or without its journal, is never ours: not even one that looks
  // like this process's (a user's file of that name, given to this very process, was removed as
  // "a leftover": the twenty-seventh adversarial pass, c1-tmp-name-is-input-deleted). The next
  // free name is taken instead.
  const std::string base =
      (target.parent_path() / (".memrel-new-history-" + std::to_string(getpid()))).string();
  auto taken = [](const std::string& name) {
    struct stat st {};
    return lstat(name.c_str(), &st) == 0 || lstat((name + "-journal").c_str(), &st) == 0;
  };
  std::string temporary = base;
  for (int attempt = 1; taken(temporary); ++attempt) {
    if (attempt == 100)
      throw MachineStateError(path + ": cannot create it (no free temporary name beside it)");
    temporary = base + "." + std::to_string(attempt);
  }
  auto remove_temporary = [&] {
    unlink(temporary.c_str());
    unlink((temporary + "-journal").c_str());
  };
  // Errors name PATH, the file the user named, not the temporary one.
  auto named = [&](const std::string& what) {
    return what.rfind(temporary, 0) == 0 ? path + what.substr(temporary.size()) : what;
  };
  try {
    HistoryDb fresh(temporary, NewFile{});
  } catch (const MachineStateError& e) {
    remove_temporary();
    throw MachineStateError(named(e.what()));
  } catch (const ResultsError& e) {
    remove_temporary();
    throw ResultsError(named(e.what()));
  } catch (...) {
    remove_temporary();
    throw;
  }
  const int linked = link(temporary.c_str(), path.c_str());
  const int error = errno;
  remove_temporary();
  if (linked != 0 && error != EEXIST)
    throw MachineStateError(path + ": cannot create it (" + std::strerror(error) + ")");
  return linked == 0;
}

bool HistoryDb::holds_no_run() {
  Statement any(db_, "SELECT 1 FROM runs LIMIT 1", path_);
  return sqlite3_step(any.get()) == SQLITE_DONE;
}

void HistoryDb::open(int flags) {
  const std::string& path = path_;
  check_sqlite_companions(path);
  // A relative name as a path SQLite cannot read otherwise: ":memory:" was its in-memory
  // database, every run added lost, exit 0 (the twenty-sixth adversarial pass,
  // c10-history-db-named-memory-loses-runs).
  const std::string file = path.empty() || path[0] == '/' ? path : "./" + path;
  if (sqlite3_open_v2(file.c_str(), &db_, flags, nullptr) != SQLITE_OK) {
    std::string why = db_ ? sqlite3_errmsg(db_) : "cannot open";
    const int system_errno = db_ ? sqlite3_system_errno(db_) : 0;
    sqlite3_close(db_);
    // Out of descriptors: as sqlite_failed says it.
    if (system_errno == EMFILE || system_errno == ENFILE || descriptors_run_short())
      throw MachineStateError(path + ": cannot open (" + why +
                              "): too few file descriptors left (ulimit -n); nothing added");
    throw ResultsError(path + ": " + why);
  }
  sqlite3_busy_timeout(db_, kBusyWaitMs);  // two nightly steps adding at once wait for each other
  try {
    exec("PRAGMA foreign_keys = ON");
    // The schema version, checked: a file of something else, or of a newer memrel, is refused.
    auto checked_version = [&] {
      int version = 0, application = 0;
      {
        Statement v(db_, "PRAGMA user_version", path_);
        if (sqlite3_step(v.get()) == SQLITE_ROW) version = sqlite3_column_int(v.get(), 0);
        Statement a(db_, "PRAGMA application_id", path_);
        if (sqlite3_step(a.get()) == SQLITE_ROW) application = sqlite3_column_int(a.get(), 0);
      }
      if (version == 0 && application == 0) {
        Statement tables(db_, "SELECT count(*) FROM sqlite_master", path_);
        sqlite3_step(tables.get());
        if (sqlite3_column_int(tables.get(), 0) != 0)
          throw ResultsError(path + ": an SQLite database, but not a memrel history");
      } else if (application != kApplicationId) {
        throw ResultsError(path + ": an SQLite database, but not a memrel history");
      }
      if (version > kHistorySchemaVersion)
        throw ResultsError(path + ": history schema " + std::to_string(version) +
                           ", written by a newer memrel (this one reads up to " +
                           std::to_string(kHistorySchemaVersion) + ")");
      return version;
    };
    // The first look in one read transaction: the version, then the tables, read apart, saw
    // another process's new schema half (version 0, tables there: "not a memrel history").
    exec("BEGIN");
    int version = 0;
    try {
      version = checked_version();
    } catch (...) {
      sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
      throw;
    }
    exec("COMMIT");
    if (version < kHistorySchemaVersion) {
      // Read again once the write lock is held: two `history add` making one new database at
      // once both saw version 0, and the second's CREATE TABLE failed ("table runs already
      // exists", s-hist-concurrent). The second now waits (busy timeout), then finds it made.
      exec("BEGIN IMMEDIATE");
      try {
        for (int step = checked_version(); step < kHistorySchemaVersion; ++step)
          exec(kSchemaSteps[step]);
        exec("PRAGMA application_id = " + std::to_string(kApplicationId));
        exec("PRAGMA user_version = " + std::to_string(kHistorySchemaVersion));
      } catch (...) {
        if (sqlite3_get_autocommit(db_) == 0)
          sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
        throw;
      }
      exec("COMMIT");
    }
  } catch (...) {
    sqlite3_close(db_);
    throw;
  }
}

HistoryDb::~HistoryDb() { sqlite3_close(db_); }

void HistoryDb::exec(const std::string& sql) {
  char* error = nullptr;
  if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &error) != SQLITE_OK) {
    std::string why = error ? error : sqlite3_errmsg(db_);
    sqlite3_free(error);
    const int code = sqlite3_errcode(db_);  // before the rollback sets its own
    const int system_errno = sqlite3_system_errno(db_);
    if (sqlite3_get_autocommit(db_) == 0) sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    sqlite_failed(code, path_, why, system_errno);
  }
}

namespace {
// What `history add` writes is what the history's readers accept (history_text): a name in a
// results file holding an escape sequence went in, exit 0, and then `history list`, `show` and
// `changes` refused the whole database (the tenth adversarial pass,
// c9-history-add-ctrl-name-poisons-db). memrel's names hold no such character, so the file is
// refused before anything is added.
const std::string& checked_text(const std::string& text, const InputFile& file,
                                const std::string& what) {
  if (std::string c = forbidden_name_character(text); !c.empty())
    throw ResultsError(
        file.path + ": " + what + " '" + one_line_text(text) + "' holds " + c +
        ", a control, invisible, text-direction or noncharacter code point: a history keeps none");
  return text;
}

std::optional<std::string> checked_text(const std::optional<std::string>& text,
                                        const InputFile& file, const std::string& what) {
  if (text) checked_text(*text, file, what);
  return text;
}
}  // namespace

void HistoryDb::check_cell_kinds(const InputFile& f, long long run_id) {
  Statement known(db_, "SELECT replays_trace, first_run FROM cell_kinds WHERE subject = ?", path_);
  Statement record(db_,
                   "INSERT OR IGNORE INTO cell_kinds (subject, replays_trace, first_run) "
                   "VALUES (?,?,?)",
                   path_);
  for (const CellResult& cell : f.results.cells) {
    if (cell.status != "ok") continue;  // an unavailable trace cell holds no replay to tell by
    const std::string subject = cell.backend + "/" + cell.workload;
    const int replays = cell.trace.has_value() ? 1 : 0;
    sqlite3_reset(known.get());
    known.bind(1, subject);
    if (sqlite3_step(known.get()) == SQLITE_ROW) {
      if (sqlite3_column_int(known.get(), 0) != replays)
        throw ResultsError(f.path + ": cell " + one_line_text(subject) + " " +
                           (replays ? "replays a trace" : "runs a JSON workload") +
                           ", and in run " + std::to_string(sqlite3_column_int64(known.get(), 1)) +
                           " of the history it " +
                           (replays ? "ran a JSON workload" : "replayed a trace") +
                           ": two workloads of one name; rename one");
      continue;
    }
    sqlite3_reset(record.get());
    record.bind(1, subject);
    sqlite3_bind_int(record.get(), 2, replays);
    sqlite3_bind_int64(record.get(), 3, run_id);
    if (sqlite3_step(record.get()) != SQLITE_DONE) sqlite_failed(db_, path_);
  }
}

std::vector<HistoryAdded> HistoryDb::add(const std::vector<InputFile>& files,
                                         const std::vector<std::string>& contents) {
  std::vector<HistoryAdded> out;
  const std::string added = utc_now_iso8601();
  // A request to stop (InterruptRequests, held by the caller) ends the transaction: rolled back,
  // its rollback journal removed. It killed `history add` outright, without a word, and left
  // DB-journal beside the history (the twenty-second adversarial pass, c9-sig*-history-add).
  auto stop_if_asked = [&] {
    if (const int signal = InterruptRequests::received(); signal != 0)
      throw Interrupted(signal,
                        "interrupted by " + signal_name(signal) + "; nothing added to " + path_);
  };
  exec("BEGIN IMMEDIATE");
  try {
    // What each run cell's workload was, a JSON workload or a replayed trace: one name for both
    // made one series of two workloads, and `history changes` found a +9227.8 % "change" between
    // them (compare and report refuse such a pair: the thirty-first adversarial pass,
    // c6-history-mixes-trace-and-workload-of-one-name). Made by the first add that needs it,
    // outside the versioned schema: the readers never read it, and an older memrel still opens
    // the file.
    exec(
        "CREATE TABLE IF NOT EXISTS cell_kinds ("
        "  subject TEXT PRIMARY KEY,"        // backend/workload
        "  replays_trace INTEGER NOT NULL,"  // 1: a trace cell, 0: a JSON workload's
        "  first_run INTEGER NOT NULL)");    // the run that first held it
    for (std::size_t i = 0; i < files.size(); ++i) {
      stop_if_asked();
      const InputFile& f = files[i];
      HistoryAdded a{f.path, 0, 0};
      const std::string d = digest(contents[i]);
      {
        Statement seen(db_, "SELECT id FROM runs WHERE digest = ?", path_);
        seen.bind(1, d);
        if (sqlite3_step(seen.get()) == SQLITE_ROW) {
          out.push_back(a);
          continue;
        }
      }
      std::optional<std::string> machine, fingerprint, gpu, commit;
      if (f.fingerprint) {
        machine = machine_id(*f.fingerprint);
        fingerprint = to_json(*f.fingerprint).dump();
        gpu = f.fingerprint->gpu_model;
        commit = f.fingerprint->memrel_commit;
      }
      if (!gpu) gpu = f.gpu;
      std::string started = checked_text(started_of(f), f, "its start time");
      checked_text(gpu, f, "its GPU model");
      checked_text(commit, f, "its memrel commit");
      Statement run(db_,
                    "INSERT INTO runs (added, started, source, kind, digest, machine_id, "
                    "fingerprint, gpu_model, memrel_commit) VALUES (?,?,?,?,?,?,?,?,?)",
                    path_);
      run.bind(1, added);
      run.bind(2, started.empty() ? added : started);
      // TEXT is UTF-8 without a control character, as the history's readers want it: the path
      // as an error line would say it (a newline in a file's name is `\n`).
      run.bind(3, one_line_text(f.path));
      run.bind(4, f.kind == InputKind::kResults ? "results" : "benchmark");
      run.bind(5, d);
      run.bind_or_null(6, machine);
      run.bind_or_null(7, fingerprint);
      run.bind_or_null(8, gpu);
      run.bind_or_null(9, commit);
      if (sqlite3_step(run.get()) != SQLITE_DONE) sqlite_failed(db_, path_);
      a.run_id = sqlite3_last_insert_rowid(db_);
      if (f.kind == InputKind::kResults) check_cell_kinds(f, a.run_id);
      Statement figure(db_, "INSERT INTO figures (run_id, metric, value) VALUES (?,?,?)", path_);
      // A series holds one kind of figure: a run cell "pair/host-malloc/warm/512/manual_time"
      // (backend `pair`, a workload of that name) and memrel_bench's benchmark of that name made
      // one series of two unrelated quantities, a -98% trend (the fifteenth adversarial pass,
      // c6-history-run-subject-equals-bench-subject).
      Statement other_kind(db_,
                           "SELECT r.id FROM figures f JOIN runs r ON r.id = f.run_id "
                           "WHERE f.metric = ? AND r.kind != ? LIMIT 1",
                           path_);
      const char* kind = f.kind == InputKind::kResults ? "results" : "benchmark";
      for (const auto& [metric, value] : history_figures(f)) {
        sqlite3_reset(other_kind.get());
        other_kind.bind(1, metric);
        other_kind.bind(2, kind);
        if (sqlite3_step(other_kind.get()) == SQLITE_ROW)
          throw ResultsError(
              f.path + ": figure '" + one_line_text(metric) + "' is already in the history as " +
              (f.kind == InputKind::kResults ? "a memrel_bench benchmark's" : "a run cell's") +
              " (run " + std::to_string(sqlite3_column_int64(other_kind.get(), 0)) +
              "): one name, two kinds of figure; rename the backend or the workload");
        sqlite3_reset(figure.get());
        sqlite3_bind_int64(figure.get(), 1, a.run_id);
        figure.bind(2, checked_text(metric, f, "figure"));
        sqlite3_bind_double(figure.get(), 3, value);
        if (sqlite3_step(figure.get()) != SQLITE_DONE) sqlite_failed(db_, path_);
        ++a.figures;
        if (a.figures % 256 == 0) stop_if_asked();
      }
      out.push_back(a);
    }
    stop_if_asked();
    // From here the signals wait: the commit is whole or not made, and then said.
    const StopSignalsHeld held;
    exec("COMMIT");
  } catch (const ResultsError& e) {
    if (sqlite3_get_autocommit(db_) == 0) sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    std::string what = e.what();
    throw ResultsError(what.rfind(path_, 0) == 0 ? what : path_ + ": " + what);
  } catch (...) {  // the machine's failure (sqlite_failed): exit 4, nothing added either
    if (sqlite3_get_autocommit(db_) == 0) sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
  return out;
}

std::vector<HistoryPoint> HistoryDb::series(const std::string& metric) {
  Statement q(db_,
              "SELECT r.id, r.started, r.source, ifnull(r.machine_id, ''), "
              "ifnull(r.gpu_model, ''), ifnull(r.memrel_commit, ''), f.value, f.rowid "
              "FROM figures f JOIN runs r ON r.id = f.run_id WHERE f.metric = ? "
              "ORDER BY r.started, r.id",
              path_);
  q.bind(1, metric);
  std::vector<HistoryPoint> out;
  static const char* const kColumns[] = {"id",         "started",   "source",
                                         "machine_id", "gpu_model", "memrel_commit"};
  while (sqlite3_step(q.get()) == SQLITE_ROW) {
    const long long run = sqlite3_column_int64(q.get(), 0);
    std::string texts[6];
    for (int c = 1; c < 6; ++c)
      texts[c] =
          history_text(q, c, path_, "runs row " + std::to_string(run) + ", column " + kColumns[c]);
    out.push_back({run, texts[1], texts[2], texts[3], texts[4], texts[5],
                   figure_value(q, 6, 7, metric, path_)});
  }
  return out;
}

std::vector<std::pair<std::string, long long>> HistoryDb::metrics(const std::string& part) {
  Statement q(db_,
              "SELECT metric, count(*) FROM figures WHERE instr(metric, ?) > 0 "
              "GROUP BY metric ORDER BY metric",
              path_);
  q.bind(1, part);
  std::vector<std::pair<std::string, long long>> out;
  while (sqlite3_step(q.get()) == SQLITE_ROW)
    out.emplace_back(history_text(q, 0, path_, "figures, column metric"),
                     sqlite3_column_int64(q.get(), 1));
  return out;
}

}  // namespace memrel
