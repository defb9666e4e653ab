#include "platform/input_rules.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <set>
#include <utility>
#include <vector>

#include "platform/file_kind.hpp"
#include "platform/journal_header.hpp"
#include "platform/nul_escaped.hpp"

namespace memrel {
namespace {

std::string place_prefix(const std::string& file, const std::string& place) {
  return file + ": " + (place.empty() ? "" : place + ": ");
}

// Where the parser is, as a JSON pointer: one frame per open object or array. The parser
// callback sees every key and every finished value, which is enough to name the place of a
// duplicate key or of a number that does not fit, without a second pass over the text.
class PointerTracker {
 public:
  explicit PointerTracker(std::string file) : file_(std::move(file)) {}

  // Throws InputError at a key given twice in one object, naming the object.
  bool event(nlohmann::json::parse_event_t event, const nlohmann::json& parsed) {
    using E = nlohmann::json::parse_event_t;
    switch (event) {
      case E::object_start:
      case E::array_start:
        frames_.push_back({event == E::object_start, "", 0, {}});
        return true;
      case E::key: {
        Frame& f = frames_.back();
        f.key = parsed.get<std::string>();
        if (!f.keys.insert(f.key).second) {
          std::string object = place();
          object = object.substr(0, object.rfind('/'));
          throw InputError(file_, object.empty() ? "/" : object,
                           "key \"" + f.key + "\" appears twice in one object: ambiguous, refused");
        }
        return true;
      }
      case E::object_end:
      case E::array_end:
        frames_.pop_back();
        finish_element();
        return true;
      case E::value:
        finish_element();
        return true;
    }
    return true;
  }

  // The pointer of the value being read now: "/cells/3/metrics/peak_reserved"; "" at the top.
  std::string place() const {
    std::string out;
    for (const Frame& f : frames_) out += "/" + (f.object ? escape(f.key) : std::to_string(f.done));
    return out;
  }

 private:
  struct Frame {
    bool object;
    std::string key;             // objects: the key being read
    std::uint64_t done;          // arrays: elements finished, the index of the one being read
    std::set<std::string> keys;  // objects: every key seen
  };

  void finish_element() {
    if (!frames_.empty() && !frames_.back().object) ++frames_.back().done;
  }

  // RFC 6901: '~' is "~0", '/' is "~1".
  static std::string escape(const std::string& key) {
    std::string out;
    for (char c : key) out += c == '~' ? "~0" : c == '/' ? "~1" : std::string(1, c);
    return out;
  }

  std::string file_;
  std::vector<Frame> frames_;
};

}  // namespace

InputError::InputError(const std::string& file, const std::string& place,
                       const std::string& message)
    : std::invalid_argument(nul_escaped(place_prefix(file, place) + message)),
      file_(file),
      place_(place),
      message_(message) {}

InputFd::InputFd(const std::string& path, std::uint64_t max_bytes, const std::string& what)
    : path_(path) {
  // O_NONBLOCK: opening a FIFO with no writer would otherwise wait for one forever. It changes
  // nothing for a regular file, the only kind read past fstat.
  fd_ = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd_ < 0) {
    const int err = errno;
    // A socket takes no open (ENXIO): named as what it is, as a FIFO or a device is below, not
    // "cannot open (No such device or address)" (the sixty-second adversarial pass,
    // c2-socket-input-not-named).
    if (struct stat st{};
        ::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
      throw InputError(path, "",
                       std::string(file_kind_name(st.st_mode)) + ", not a regular file: a " + what +
                           " must be a regular file");
    throw InputError(path, "", "cannot open " + what + " (" + std::strerror(err) + ")");
  }
  struct stat st {};
  if (::fstat(fd_, &st) != 0) {
    int err = errno;
    ::close(fd_);
    throw InputError(path, "", "cannot stat " + what + " (" + std::strerror(err) + ")");
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd_);
    throw InputError(path, "",
                     std::string(file_kind_name(st.st_mode)) + ", not a regular file: a " + what +
                         " must be a regular file");
  }
  size_ = static_cast<std::uint64_t>(st.st_size);
  if (size_ > max_bytes) {
    ::close(fd_);
    throw InputError(path, "",
                     std::to_string(size_) + " bytes, more than the " + describe_cap(max_bytes) +
                         " a " + what + " may have (docs/inputs.md)");
  }
}

std::string read_input_head(const std::string& path, std::size_t bytes) {
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) return "";
  struct stat st {};
  std::string head;
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
    head.resize(bytes);
    ssize_t n = ::read(fd, head.data(), bytes);
    head.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
  }
  ::close(fd);
  return head;
}

bool path_names_something(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0 || errno != ENOENT;
}

InputFd::~InputFd() {
  if (fd_ >= 0) ::close(fd_);
}

void InputFd::read_exact(void* into, std::uint64_t bytes) {
  char* p = static_cast<char*>(into);
  while (bytes > 0) {
    ssize_t n = ::read(fd_, p, bytes);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0)
      throw InputError(path_, "", std::string("read failed (") + std::strerror(errno) + ")");
    if (n == 0) throw InputError(path_, "", "truncated while reading (the file shrank?)");
    p += n;
    bytes -= static_cast<std::uint64_t>(n);
  }
}

std::string read_input_text(const std::string& path, std::uint64_t max_bytes,
                            const std::string& what) {
  InputFd in(path, max_bytes, what);
  if (in.size() == 0) throw InputError(path, "", "empty file");
  std::string text(in.size(), '\0');
  in.read_exact(text.data(), in.size());
  return text;
}

// The checks of a first pass over the text, event by event (nlohmann's SAX interface), before
// the document is built by a plain parse: nesting depth, duplicate keys and numbers no double
// holds, each named at its place. Not nlohmann's parser callback, which does the same in one
// pass but, after every object or array inside an array, walks that array's elements looking for
// a discarded one: a 3 MB results file of 1,000,000 `{}` kept compare busy for minutes, deaf to
// SIGTERM (the twenty-seventh adversarial pass, c7-json-objects-in-array-quadratic-ignores-
// sigterm).
namespace {

// The quoted literal of nlohmann's "number overflow parsing '...'" cut to its first digits and
// its length: a number of 300,000 digits was echoed whole, a one-line refusal of 300 KB (the
// sixty-eighth adversarial pass, c4-cpp-reader-echoes-huge-number). The report's twin:
// scripts/memrel_report/input_rules.py, _number_overflow.
constexpr std::size_t kShownLiteralChars = 24;

std::string literal_cut(const std::string& message) {
  const std::size_t open = message.find('\'');
  const std::size_t close = message.rfind('\'');
  if (open == std::string::npos || close <= open + 1 + kShownLiteralChars) return message;
  return message.substr(0, open + 1 + kShownLiteralChars) + "...' (" +
         std::to_string(close - open - 1) + " characters)" + message.substr(close + 1);
}

class CheckingSax {
 public:
  CheckingSax(PointerTracker& tracker, const std::string& file) : tracker_(tracker), file_(file) {}

  bool null() { return value(); }
  bool boolean(bool) { return value(); }
  bool number_integer(nlohmann::json::number_integer_t) { return value(); }
  bool number_unsigned(nlohmann::json::number_unsigned_t) { return value(); }
  bool number_float(nlohmann::json::number_float_t, const std::string&) { return value(); }
  bool string(nlohmann::json::string_t&) { return value(); }
  bool binary(nlohmann::json::binary_t&) { return value(); }
  bool start_object(std::size_t) { return open(nlohmann::json::parse_event_t::object_start); }
  bool start_array(std::size_t) { return open(nlohmann::json::parse_event_t::array_start); }
  bool end_object() { return close(nlohmann::json::parse_event_t::object_end); }
  bool end_array() { return close(nlohmann::json::parse_event_t::array_end); }
  bool key(nlohmann::json::string_t& name) {
    return tracker_.event(nlohmann::json::parse_event_t::key, nlohmann::json(name));
  }
  bool parse_error(std::size_t byte, const std::string&, const nlohmann::json::exception& e) {
    std::string what = e.what();
    if (e.id == 406) {
      // out_of_range 406: a number literal no double holds ("1e400"), at its place.
      const auto bracket = what.find("] ");
      throw InputError(file_, tracker_.place(),
                       literal_cut(bracket == std::string::npos ? what : what.substr(bracket + 2)));
    }
    // The byte locates the error; nlohmann's message already says what it expected.
    const auto colon = what.find("]: ");
    throw InputError(file_, "",
                     "malformed JSON at byte " + std::to_string(byte) + ": " +
                         (colon == std::string::npos ? what : what.substr(colon + 3)));
  }

 private:
  bool value() { return tracker_.event(nlohmann::json::parse_event_t::value, empty_); }
  bool open(nlohmann::json::parse_event_t event) {
    // What reads the value afterwards walks it recursively: 100,000 levels overflowed the stack
    // (SIGSEGV, the fifth adversarial pass, t27). No input of memrel nests beyond a few levels.
    if (++depth_ > kMaxJsonDepth)
      throw InputError(file_, "",
                       "nested deeper than " + std::to_string(kMaxJsonDepth) + " levels");
    return tracker_.event(event, empty_);
  }
  bool close(nlohmann::json::parse_event_t event) {
    --depth_;
    return tracker_.event(event, empty_);
  }

  PointerTracker& tracker_;
  const std::string& file_;
  const nlohmann::json empty_;
  int depth_ = 0;
};

}  // namespace

// A journal: a header line naming "memrel.journal/1" (harness/execution/run_journal.hpp), then
// a line per finished cell. Given where a JSON document goes, it was "malformed JSON at byte
// 1669: [json.exception...]" (the forty-ninth adversarial pass, c10-journal-as-results; the
// fiftieth, c10-validate-run-journal-as-malformed-json, for workloads).
// A header line naming memrel.journal/1, then a line per finished cell; after a byte order mark
// too, as nlohmann passes one over and the Python readers' twin (memrel_kinds.is_journal) does.
static bool is_a_journal(const std::string& text) {
  const std::size_t start = text.rfind("\xef\xbb\xbf", 0) == 0 ? 3 : 0;
  const std::size_t end = text.find('\n', start);
  return text.compare(start, 1, "{") == 0 && end != std::string::npos &&
         is_a_journal_header(text.substr(start, end - start));
}

static std::string journal_words(const std::string& what) {
  return std::string("a memrel journal (") + kJournalSchema +
         ": the cells an interrupted run finished), not a " + what +
         ": finish that run with --resume";
}

nlohmann::json parse_input_json(const std::string& text, const std::string& file) {
  if (is_a_journal(text)) throw InputError(file, "", journal_words("JSON document"));
  // nlohmann's reader ends its input at a NUL byte: whatever followed one, garbage or a second
  // record on a journal's line, was not read and the file passed (the forty-sixth adversarial
  // pass, c7-json-nul-then-garbage-accepted). JSON text holds none (in a string it is \u0000).
  if (const std::size_t nul = text.find('\0'); nul != std::string::npos)
    throw InputError(file, "",
                     "malformed JSON at byte " + std::to_string(nul + 1) +
                         ": a NUL byte (JSON text holds none; in a string it is written \\u0000)");
  PointerTracker tracker(file);
  CheckingSax checks(tracker, file);
  nlohmann::json::sax_parse(text, &checks);
  // Checked whole: the plain parse below finds nothing the pass above did not.
  return nlohmann::json::parse(text);
}

std::string other_memrel_kind(const std::string& text, const std::string& what) {
  // A file of memrel's own other kind, named so: a trace where a JSON document goes was
  // "malformed JSON at byte 1 ... last read: 'M'" (the thirty-first adversarial pass,
  // c10-other-kind-said-malformed-or-old), and as a backend file "malformed JSON at byte 11: a
  // NUL byte" (the fifty-first, c10-trace-as-backend-file).
  if (text.rfind("MEMTRACE", 0) == 0)
    return "a memrel trace (it begins with MEMTRACE), not a " + what +
           ": a trace is a workload (-w)";
  if (is_a_journal(text)) return journal_words(what);
  // A history: "malformed JSON at byte 16: a NUL byte" (the seventy-first adversarial pass,
  // c10-history-db-not-told-by-content).
  if (text.rfind(kSqliteMagic, 0) == 0)
    return "an SQLite database (it begins with \"SQLite format 3\"), not a " + what +
           ": a history is read with `memrel history --db` or `report --history`";
  // A pickle (protocol 2 or later: PROTO and its number), as the importer tells one
  // (cli/trace_import.cpp): compare and merge said "malformed JSON at byte 5: a NUL byte" (the
  // seventy-seventh adversarial pass, noted by a tester).
  if (text.size() >= 2 && text[0] == '\x80' && text[1] >= 2 && text[1] <= 5)
    return "a Python pickle (it begins with PROTO " + std::to_string(text[1]) + "), not a " + what +
           ": a PyTorch snapshot is imported with `memrel trace import`, or run as -w";
  return "";
}

bool begins_as_json_document(const std::string& head) {
  const std::size_t first = head.find_first_not_of(" \t\r\n");
  return first != std::string::npos && head[first] == '{';
}

nlohmann::json read_input_json(const std::string& path, std::uint64_t max_bytes,
                               const std::string& what) {
  std::string text = read_input_text(path, max_bytes, what);
  if (std::string kind = other_memrel_kind(text, what); !kind.empty())
    throw InputError(path, "", kind);
  return parse_input_json(text, path);
}

std::string describe_cap(std::uint64_t bytes) {
  if (bytes >= (std::uint64_t{1} << 30) && bytes % (std::uint64_t{1} << 30) == 0)
    return std::to_string(bytes >> 30) + " GiB";
  if (bytes >= (std::uint64_t{1} << 20) && bytes % (std::uint64_t{1} << 20) == 0)
    return std::to_string(bytes >> 20) + " MiB";
  if (bytes >= 1024 && bytes % 1024 == 0) return std::to_string(bytes >> 10) + " KiB";
  return std::to_string(bytes) + " bytes";
}

}  // namespace memrel
