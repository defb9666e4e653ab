#include "cli/trace_import.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include "cli/exit_codes.hpp"
#include "cli/python_module.hpp"
#include "platform/input_rules.hpp"

namespace memrel::cli {
namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() > suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string temporary_trace() {
  const char* dir = std::getenv("TMPDIR");
  std::string path = std::string(dir && *dir ? dir : "/tmp") + "/memrel-trace-XXXXXX.memtrace";
  int fd = mkstemps(path.data(), 9);  // 9: ".memtrace", kept so the cell sees a trace
  if (fd < 0)
    throw std::runtime_error("cannot create a temporary trace: " +
                             std::string(std::strerror(errno)));
  close(fd);
  return path;
}

}  // namespace

bool needs_trace_import(const std::string& path) {
  if (ends_with(path, ".pickle") || ends_with(path, ".pkl") || ends_with(path, ".csv")) return true;
  // Told by content too, as the importer tells them: a pickle of protocol 2 or later, or an RMM
  // log's header (after a UTF-8 byte order mark).
  std::string head = read_input_head(path, 64);
  if (head.size() >= 2 && head[0] == '\x80' && head[1] >= 2 && head[1] <= 5) return true;
  if (head.rfind("\xef\xbb\xbf", 0) == 0) head = head.substr(3);
  return head.rfind("Thread,Time,Action,Pointer,Size,Stream", 0) == 0;
}

ImportedTraces::~ImportedTraces() {
  for (const auto& entry : originals_) unlink(entry.first.c_str());
}

std::string ImportedTraces::prepare(const std::string& path) {
  if (!needs_trace_import(path)) return path;
  std::string trace = temporary_trace();
  originals_[trace] = path;
  PythonResult r = run_python_module("memrel_trace", {"import", path, "-o", trace});
  if (r.exit_code == exit_code::kSuccess) return trace;
  // The importer's line is "memrel trace: FILE: where: what"; memrel's dispatcher adds its own.
  std::string line = r.error_text.substr(r.error_text.rfind('\n') + 1);
  const std::string prefix = "memrel trace: ";
  if (line.compare(0, prefix.size(), prefix) == 0) line = line.substr(prefix.size());
  if (r.exit_code == exit_code::kUnusableInput) throw std::invalid_argument(line);
  throw std::runtime_error("importing " + path + ": " + (line.empty() ? "no message" : line));
}

}  // namespace memrel::cli
