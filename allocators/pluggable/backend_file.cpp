// Parsing and validating backend description files (memrel.backend/1): every error is one line
// that names the file and the key, like a workload's (harness/workload/workload.cpp), because a
// user's file is input and a typo must cost nothing. See backend_file.hpp and
// docs/pluggable-backends.md.
#include "allocators/pluggable/backend_file.hpp"

#include <unistd.h>

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <vector>

#include "allocators/backend_table.hpp"
#include "platform/child_process.hpp"
#include "platform/executable_path.hpp"
#include "platform/input_rules.hpp"
#include "platform/install_layout.hpp"
#include "platform/nul_escaped.hpp"

namespace fs = std::filesystem;

namespace memrel {
namespace {

using nlohmann::json;

const std::set<std::string> kSymbolKeys = {"alloc",     "free",     "release",
                                           "allocated", "reserved", "synchronize"};
const std::set<std::string> kKnownKeys = {
    "schema",  "name",      "description", "library",     "alloc",       "free",        "space",
    "release", "allocated", "reserved",    "synchronize", "environment", "release_note"};

bool is_identifier(const std::string& s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return true;
}

bool is_backend_name(const std::string& s) {
  if (s.empty() || !std::isalnum(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.')
      return false;
  }
  return true;
}

bool is_file(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec);
}

class Parser {
 public:
  explicit Parser(std::string file) : file_(std::move(file)) {}

  [[noreturn]] void fail(const std::string& place, const std::string& message) const {
    throw BackendFileError(file_, place, message);
  }

  std::string text(const json& doc, const std::string& key, bool required) const {
    if (!doc.contains(key)) {
      if (required) fail(key, "missing (a required key)");
      return "";
    }
    const json& v = doc[key];
    if (!v.is_string() || v.get<std::string>().empty())
      fail(key, "must be a non-empty string, got " + v.dump());
    std::string s = v.get<std::string>();
    if (s.find('\0') != std::string::npos) fail(key, kHoldsNul);
    if (s.find('\n') != std::string::npos) fail(key, "must be one line");
    return s;
  }

  // JSON's \u0000 is a byte the C strings these become end at: a library path, a setting and a
  // name were cut there (dlopen loaded another file, setenv set another value, exit 0; an error
  // message ended mid-name: the twenty-ninth adversarial pass, c3-backend-library-nul-truncated,
  // c4-backend-env-nul-truncated, c7-nul-in-backend-name-cuts-message).
  static constexpr const char* kHoldsNul =
      "holds a NUL byte (\\u0000), where the C string it becomes would end: refused";

  std::string symbol(const json& doc, const std::string& key, bool required) const {
    std::string s = text(doc, key, required);
    if (!s.empty() && !is_identifier(s))
      fail(key, "\"" + s + "\" is not a symbol name (letters, digits and '_')");
    return s;
  }

  BackendFile parse(const std::string& source_text) const {
    if (std::string kind = other_memrel_kind(source_text, "backend file"); !kind.empty())
      fail("", kind);
    json doc;
    try {
      doc = parse_input_json(source_text, file_);  // malformed, ambiguous (a key twice), 1e400
    } catch (const InputError& e) {
      fail(e.place().empty() ? "json" : e.place(), e.message());
    }
    if (!doc.is_object()) fail("json", "a backend file is a JSON object, got " + doc.dump());
    if (!doc.contains("schema"))
      fail("schema", std::string("missing (expected \"") + kBackendSchema + "\")");
    if (doc["schema"] != kBackendSchema)
      fail("schema", doc["schema"].dump() + " is not \"" + kBackendSchema + "\"");
    for (auto it = doc.begin(); it != doc.end(); ++it) {
      if (kKnownKeys.count(it.key()) == 0) {
        std::string known;
        for (const auto& k : kKnownKeys) known += (known.empty() ? "" : ", ") + k;
        fail(it.key(), "unknown key (known: " + known + ")");
      }
    }
    BackendFile b;
    b.file = file_;
    b.name = text(doc, "name", true);
    if (!is_backend_name(b.name))
      fail("name", "\"" + b.name + "\" is not a backend name (letters, digits, '-', '_', '.')");
    for (const auto& builtin : all_backends()) {
      if (builtin.name == b.name)
        fail("name", "\"" + b.name + "\" is the name of a built-in backend (" + builtin.family +
                         "): choose another");
    }
    b.description = text(doc, "description", true);
    b.library = text(doc, "library", true);
    b.library_path = library_path(b.library);
    std::string space = text(doc, "space", true);
    if (space != "device" && space != "host")
      fail("space", "must be \"device\" or \"host\", got \"" + space + "\"");
    b.space = space == "device" ? MemorySpace::kDevice : MemorySpace::kHost;
    b.alloc = symbol(doc, "alloc", true);
    b.free = symbol(doc, "free", true);
    b.release = symbol(doc, "release", false);
    b.allocated = symbol(doc, "allocated", false);
    b.reserved = symbol(doc, "reserved", false);
    b.synchronize = symbol(doc, "synchronize", false);
    b.release_note = text(doc, "release_note", false);
    if (!b.release_note.empty() && b.release.empty())
      fail("release_note", "given, but there is no \"release\" symbol: release is a no-op");
    if (doc.contains("environment")) {
      const json& env = doc["environment"];
      if (!env.is_object())
        fail("environment", "must be an object of \"NAME\": \"value\" strings, got " + env.dump());
      for (auto it = env.begin(); it != env.end(); ++it) {
        if (!is_identifier(it.key()))
          fail("environment", "\"" + it.key() + "\" is not a variable name");
        if (!it.value().is_string())
          fail("environment." + it.key(), "must be a string, got " + it.value().dump());
        if (it.value().get<std::string>().find('\0') != std::string::npos)
          fail("environment." + it.key(), kHoldsNul);
        b.environment[it.key()] = it.value().get<std::string>();
        if (std::string problem = loader_path_problem(it.key(), b.environment[it.key()]);
            !problem.empty())
          fail("environment." + it.key(), problem);
      }
    }
    return b;
  }

  // The dynamic loader's search variables name code: an entry it would look for in the working
  // folder (a relative path, or LD_LIBRARY_PATH's empty entry) ran whatever `evil.so` was where
  // memrel was started, where the file's own "library" is found from the file's folder (the
  // twenty-seventh adversarial pass, c3-backend-file-env-relative-preload-from-cwd). A bare
  // library name is the loader's own search, never the working folder's.
  static std::string loader_path_problem(const std::string& name, const std::string& value) {
    const bool preload = name == "LD_PRELOAD" || name == "LD_AUDIT";
    if (!preload && name != "LD_LIBRARY_PATH") return "";
    const std::string separators = preload ? " :" : ":;";
    for (std::size_t start = 0; start <= value.size();) {
      std::size_t end = value.find_first_of(separators, start);
      if (end == std::string::npos) end = value.size();
      const std::string entry = value.substr(start, end - start);
      const bool from_working_folder =
          preload ? !entry.empty() && entry[0] != '/' && entry.find('/') != std::string::npos
                  : entry.empty() || entry[0] != '/';
      if (from_working_folder)
        return "'" + entry + "' would be looked for from the working folder; give absolute paths";
      start = end + 1;
    }
    return "";
  }

 private:
  // A value with '/' is a path, relative to the description's folder; a bare name is looked for
  // next to the running executable, then in the build folder beside memrel (where the build
  // writes the examples: memrel_bench runs from build/benchmarks/), else left to dlopen's search.
  // Joined, never normalised: `link/../lib.so` is what the system finds going up from the link's
  // target, and a lexical reading looked beside the link (the twelfth adversarial pass,
  // c10-backend-library-symlink-dotdot-lexical).
  std::string library_path(const std::string& library) const {
    if (library.find('/') != std::string::npos) {
      fs::path p(library);
      if (p.is_relative()) p = fs::absolute(fs::path(file_).parent_path()) / p;
      return p.string();
    }
    for (const std::string& dir : memrel_dirs()) {
      if (is_file(fs::path(dir) / library)) return (fs::path(dir) / library).string();
    }
    return library;
  }

  std::string file_;
};

// True if the dynamic linker's cache (/etc/ld.so.cache) lists a library of this file name: its
// strings are NUL-terminated names and paths.
bool in_linker_cache(const std::string& name) {
  std::ifstream in("/etc/ld.so.cache", std::ios::binary);
  if (!in) return false;
  std::stringstream buffer;
  buffer << in.rdbuf();
  const std::string cache = buffer.str();
  return cache.find(std::string(1, '\0') + name + '\0') != std::string::npos ||
         cache.find("/" + name + '\0') != std::string::npos;
}

}  // namespace

BackendFileError::BackendFileError(const std::string& file, const std::string& place,
                                   const std::string& message)
    : std::invalid_argument(
          nul_escaped(file + ": " + (place.empty() ? "" : place + ": ") + message)) {}

BackendFile parse_backend_text(const std::string& text, const std::string& file) {
  return Parser(file).parse(text);
}

BackendFile parse_backend_file(const std::string& file) {
  std::string text;
  try {
    text = read_input_text(file, kMaxBackendFileBytes, "backend file");
  } catch (const InputError& e) {
    throw BackendFileError(file, e.place(), e.message());
  }
  return parse_backend_text(text, file);
}

std::vector<std::string> memrel_dirs() {
  std::vector<std::string> dirs;
  if (std::string dir = executable_dir(); !dir.empty()) dirs.push_back(dir);
  // Where the examples are built or installed (platform/install_layout).
  const std::string libraries = install_layout().library_dir;
  if (!libraries.empty() && (dirs.empty() || dirs.front() != libraries)) dirs.push_back(libraries);
  return dirs;
}

std::string memrel_dirs_joined() {
  std::string out;
  for (const auto& d : memrel_dirs()) out += (out.empty() ? "" : " or ") + d;
  return out;
}

std::string library_file_found(const BackendFile& b) {
  if (b.library_path.find('/') != std::string::npos)
    return is_file(b.library_path) ? b.library_path : "";
  std::vector<std::string> dirs = memrel_dirs();
  // As the cell's dynamic linker will search them: not the working folder (an empty or relative
  // entry), which a child does not get (platform/child_process.hpp).
  for (const std::string& d : child_library_folders()) dirs.push_back(d);
  for (const char* d : {"/lib", "/usr/lib", "/lib64", "/usr/lib64", "/usr/local/lib"})
    dirs.emplace_back(d);
  for (const auto& d : dirs) {
    if (is_file(fs::path(d) / b.library)) return (fs::path(d) / b.library).string();
  }
  return "";
}

std::string library_not_found_reason(const BackendFile& b) {
  if (b.library_path.find('/') != std::string::npos) {
    if (is_file(b.library_path)) return "";
    return "library " + b.library_path + " not found (" + b.file + ")";
  }
  if (!library_file_found(b).empty() || in_linker_cache(b.library)) return "";
  return "library " + b.library + " not found (not next to memrel in " + memrel_dirs_joined() +
         ", not in LD_LIBRARY_PATH, the linker cache or the system library folders; " + b.file +
         ")";
}

}  // namespace memrel
