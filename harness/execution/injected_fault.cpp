#include "harness/execution/injected_fault.hpp"

#include <string>
#include <string_view>

namespace memrel {
namespace {

bool whole_number(std::string_view text) {
  return !text.empty() && text.size() <= 9 && text.find_first_not_of("0123456789") == text.npos;
}

bool starts(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

}  // namespace

std::string injected_fault_problem(const std::string& value) {
  const std::string_view v = value;
  if (v == "abort" || v == "hang") return "";
  for (std::string_view form : {"hang-with-child:", "leave-child:"})
    if (starts(v, form)) return v.size() > form.size() ? "" : "names no file after the colon";
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
    return colon > 11 && whole_number(v.substr(colon + 1)) && v.substr(colon + 1) != "0"
               ? ""
               : "rendezvous: takes a folder and a positive count (rendezvous:DIR:N)";
  }
  return "is none of abort, exit:N, signal:N, hang, hang-with-child:FILE, leave-child:FILE, "
         "rendezvous:DIR:N, slow-exit:MS (a test hook)";
}

}  // namespace memrel
