// The results history: an SQLite database that every run can be added to, so that a slow drift
// over weeks can be seen (docs/history.md). One row per added file (a run of the suite or one
// backend's benchmarks) with its machine fingerprint, one row per figure. The schema is
// versioned with SQLite's user_version; its application_id marks the file as memrel's.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "gate/read/input_file.hpp"

struct sqlite3;

namespace memrel {

constexpr int kHistorySchemaVersion = 1;

struct HistoryPoint {
  long long run_id = 0;
  std::string started;     // when the run started (the file's context), else when it was added
  std::string source;      // the file as it was added
  std::string machine_id;  // empty: the file recorded no fingerprint
  std::string gpu_model, memrel_commit;
  double value = 0;
};

struct HistoryAdded {
  std::string path;
  long long run_id = 0;  // 0: already there (a file of the same content), not added again
  std::size_t figures = 0;
};

// A history whose rollback journal is hot (PATH-journal: a `history add` killed in its
// transaction) is rolled back by SQLite only where it opens the database to write, as `history
// list` and `show` do: the Python readers open it read-only, and `report --history` and `history
// changes` said "attempt to write a readonly database", exit 2 (the seventy-fourth adversarial
// pass, c9-hot-journal-readers). Opened here as `history list` opens it, before a Python reader
// runs: the journal is rolled back. Nothing when there is no journal; a database that cannot be
// opened is left for the reader to say what it is. ResultsError when an attribute (chattr +i,
// +a) of its folder, the history or the journal keeps the journal from being rolled back.
void roll_back_hot_journal(const std::string& path);

class HistoryDb {
 public:
  // Opens PATH, creating it (and its schema) when `create` is true and it does not exist.
  // Throws ResultsError ("PATH: what") for a file that is not a memrel history, one written by a
  // newer memrel, or one that does not exist when !create.
  HistoryDb(const std::string& path, bool create);
  ~HistoryDb();
  HistoryDb(const HistoryDb&) = delete;
  HistoryDb& operator=(const HistoryDb&) = delete;

  // Every file in one transaction: all are added or none.
  std::vector<HistoryAdded> add(const std::vector<InputFile>& files,
                                const std::vector<std::string>& contents);

  // Whether this object made the file (a new history linked into place by it, not by another
  // `history add` at the same moment), and whether it holds no run: such a history, left by an
  // add that was stopped or failed, goes again (the thirty-first adversarial pass,
  // c9-history-add-interrupted-leaves-empty-db: an empty database stayed where there was none).
  bool made_here() const { return made_here_; }
  bool holds_no_run();

  // One metric over time (ordered by start, then by when it was added), every machine's points.
  std::vector<HistoryPoint> series(const std::string& metric);
  // Metric names containing `part` (every one when empty), with how many runs have each.
  std::vector<std::pair<std::string, long long>> metrics(const std::string& part);

 private:
  struct NewFile {};
  HistoryDb(const std::string& path, NewFile);        // creates PATH and its schema, in place
  static bool create_whole(const std::string& path);  // true: linked into place here
  void open(int flags);
  void exec(const std::string& sql);
  // Refuses a run cell whose workload is a trace where the history's is a JSON workload of that
  // name, or the other way round (cell_kinds); records the new ones.
  void check_cell_kinds(const InputFile& f, long long run_id);
  std::string path_;
  sqlite3* db_ = nullptr;
  bool made_here_ = false;
};

}  // namespace memrel
