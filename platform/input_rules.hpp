// The one set of rules for reading an input file, whatever its kind (workload, results, Google
// Benchmark JSON, backend file, trace): a regular file only, opened without blocking (a FIFO or a
// device is refused before a byte is read), under a size cap the caller names, and JSON that
// says one thing only (a key twice in one object is refused, not resolved). Every refusal is one
// line, "FILE: PLACE: what", where PLACE is a JSON pointer or empty. docs/inputs.md is the
// reference: the rules, and the cap of each kind.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

namespace memrel {

// An input that breaks the rules. An invalid_argument, so the command line exits 2 for it like
// for any other unusable input; readers of a kind rethrow it as their own error type with the
// same text.
class InputError : public std::invalid_argument {
 public:
  InputError(const std::string& file, const std::string& place, const std::string& message);
  const std::string& file() const { return file_; }
  const std::string& place() const { return place_; }
  const std::string& message() const { return message_; }

 private:
  std::string file_, place_, message_;
};

// An open input file that passed the rules (regular, at most the cap). Closes on destruction.
class InputFd {
 public:
  // `what` names the kind in errors ("workload", "results file"): "FILE: a FIFO, not a regular
  // file"; "FILE: 104857600 bytes, more than the 4 MiB a workload may have".
  InputFd(const std::string& path, std::uint64_t max_bytes, const std::string& what);
  ~InputFd();
  InputFd(const InputFd&) = delete;
  InputFd& operator=(const InputFd&) = delete;

  std::uint64_t size() const { return size_; }
  // Reads exactly `bytes` more bytes, or throws InputError ("truncated while reading").
  void read_exact(void* into, std::uint64_t bytes);

 private:
  std::string path_;
  int fd_ = -1;
  std::uint64_t size_ = 0;
};

// The whole file, by the rules above. An empty file is refused ("empty file").
std::string read_input_text(const std::string& path, std::uint64_t max_bytes,
                            const std::string& what);

// Parses JSON text: malformed text names the byte; a key given twice in one object, and a number
// no JSON value can hold (1e400), name the JSON pointer; nesting deeper than kMaxJsonDepth is
// refused. `file` names the source in errors.
inline constexpr int kMaxJsonDepth = 512;
nlohmann::json parse_input_json(const std::string& text, const std::string& file);

// Where `what` (a "backend file", a "grid file") was wanted, a file of memrel's own other kind,
// told by its first bytes: the words that name it ("a memrel trace (it begins with MEMTRACE),
// not a backend file: a trace is a workload (-w)"), a journal, an SQLite database (a
// history) or a pickle (a PyTorch snapshot); "" for any other text.
std::string other_memrel_kind(const std::string& text, const std::string& what);

// Whether a file's first bytes begin a JSON object (after blanks): a workload, a results file, a
// backend file. One test for every reader that names such a document given where it takes none
// (the trace loader, advise, the history, run's importer dispatch).
bool begins_as_json_document(const std::string& head);

// How much of a file to read for other_memrel_kind where only its head is read: a journal's
// first line holds its run's whole context (tens of KiB with many backends and workloads).
inline constexpr std::size_t kOtherKindHeadBytes = 1 << 20;

// The first 16 bytes of every SQLite database file, its header's "magic string": the history's
// format (gate/history). Told by it, a history given where another file goes is named.
inline const std::string kSqliteMagic("SQLite format 3\0", 16);

// read_input_text, then other_memrel_kind refused, then parse_input_json.
nlohmann::json read_input_json(const std::string& path, std::uint64_t max_bytes,
                               const std::string& what);

// The first `bytes` bytes of PATH (fewer if it is shorter), read without blocking, when it is a
// regular file; "" for anything else (absent, a FIFO, a device), which the reader of its kind
// then refuses by the rules above. For telling a file's kind by its content, not its name.
std::string read_input_head(const std::string& path, std::size_t bytes);

// Whether PATH names something, though perhaps no file: true where lstat finds anything (a
// folder, a link), or cannot look for a reason other than nothing being there (a link loop, a
// path through a regular file, a folder it may not search). Where a lookup by name would say
// "no such file" or "unknown", the reader of its kind then says what is there instead (the
// seventy-sixth adversarial pass, c7-run-w-folder-said-no-such-file).
bool path_names_something(const std::string& path);

// "4 MiB", "512 MiB": a cap for an error message.
std::string describe_cap(std::uint64_t bytes);

// The largest integer a double holds exactly: the bound of every integer figure memrel reads
// (bytes, nanoseconds, counts), so that no sum, difference or conversion of two of them can
// overflow 64 bits or lose a unit.
constexpr std::int64_t kMaxExactInteger = std::int64_t{1} << 53;

// A JSON integer beyond +-2^53, told from its exact value before any conversion to double: read
// as a double, 2^53 + 1 became 2^53 and passed the range check, where Python's reader (exact
// integers) refused it, so the gate and the report read the same file differently (the
// twenty-seventh adversarial pass, c4-results-float-field-2p53plus1, c4-bench-real-time-2p53plus1).
inline bool integer_beyond_exact(const nlohmann::json& j) {
  if (j.is_number_unsigned())
    return j.get<std::uint64_t>() > static_cast<std::uint64_t>(kMaxExactInteger);
  if (j.is_number_integer())
    return j.get<std::int64_t>() > kMaxExactInteger || j.get<std::int64_t>() < -kMaxExactInteger;
  return false;
}

}  // namespace memrel
