#include "harness/execution/injected_fault.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <string_view>

#include "platform/atomic_file.hpp"

namespace memrel {
namespace {

bool whole_number(std::string_view text) {
  return !text.empty() && text.size() <= 9 && text.find_first_not_of("0123456789") == text.npos;
}

bool starts(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

// What is wrong with writing the new file `path` (check_output_file's rules, and none there yet).
std::string new_file_problem(const std::string& path) {
  try {
    check_output_file(path);
  } catch (const OutputError& e) {
    return e.what();
  }
  struct stat st {};
  if (lstat(path.c_str(), &st) == 0) return path + ": exists; the test hook writes a new file only";
  return "";
}

std::string rendezvous_folder_problem(const std::string& folder) {
  struct stat st {};
  if (stat(folder.c_str(), &st) != 0)
    return folder + ": " + std::strerror(errno) + "; rendezvous: takes an existing folder";
  if (!S_ISDIR(st.st_mode)) return folder + ": not a folder; rendezvous: takes an existing folder";
  // Its files are made by name inside it: none of memrel's own folders.
  try {
    check_output_file(folder + "/arrived-0");
  } catch (const OutputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

std::string injected_fault_problem(const std::string& value, bool check_files) {
  const std::string_view v = value;
  if (v == "abort" || v == "hang") return "";
  for (std::string_view form : {"hang-with-child:", "leave-child:"}) {
    if (!starts(v, form)) continue;
    if (v.size() == form.size()) return "names no file after the colon";
    return check_files ? new_file_problem(std::string(v.substr(form.size()))) : "";
  }
  if (starts(v, "slow-exit:"))
    return whole_number(v.substr(10)) ? "" : "slow-exit: takes a whole number of milliseconds";
  if (starts(v, "exit:"))
    return whole_number(v.substr(5)) && std::stoi(std::string(v.substr(5))) <= 255
               ? ""
               : "exit: takes an exit code from 0 to 255";
  if (starts(v, "signal:"))
    return whole_number(v.substr(7)) && std::stoi(std::string(v.substr(7))) >= 1 &&
                   std::stoi(std::string(v.substr(7))) <= 31
               ? ""
               : "signal: takes a signal number from 1 to 31";
  if (starts(v, "rendezvous:")) {
    const std::size_t colon = v.rfind(':');
    if (colon <= 11 || !whole_number(v.substr(colon + 1)) || v.substr(colon + 1) == "0")
      return "rendezvous: takes a folder and a positive count (rendezvous:DIR:N)";
    return check_files ? rendezvous_folder_problem(std::string(v.substr(11, colon - 11))) : "";
  }
  return "is none of abort, exit:N, signal:N, hang, hang-with-child:FILE, leave-child:FILE, "
         "rendezvous:DIR:N, slow-exit:MS (a test hook)";
}

}  // namespace memrel
