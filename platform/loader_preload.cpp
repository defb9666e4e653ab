#include "platform/loader_preload.hpp"

#include <chrono>
#include <vector>

#include "platform/executable_path.hpp"
#include "platform/program_question.hpp"

namespace memrel {

std::string skipped_preload(const std::string& standard_error) {
  static const std::string kLoader = "ERROR: ld.so: ";
  const std::size_t start = standard_error.find(kLoader);
  if (start == std::string::npos) return "";
  std::string line = standard_error.substr(start + kLoader.size());
  line = line.substr(0, line.find('\n'));
  // ": ignored." after a preload, "; ignored." after an audit library.
  for (const char* tail : {": ignored.", "; ignored."})
    if (const std::size_t at = line.rfind(tail); at != std::string::npos && at > 0)
      return line.substr(0, at);
  return line;
}

bool sets_preload(const std::map<std::string, std::string>& environment) {
  for (const char* name : {"LD_PRELOAD", "LD_AUDIT"})
    if (auto it = environment.find(name); it != environment.end() && !it->second.empty())
      return true;
  return false;
}

std::string preload_skipped_under(const std::map<std::string, std::string>& environment) {
  const std::string self = executable_path();
  if (self.empty() || !sets_preload(environment)) return "";
  const ProgramAnswer answer =
      ask_program({self, "--version"}, false, std::chrono::seconds(30), {}, environment);
  return skipped_preload(answer.complained);
}

}  // namespace memrel
