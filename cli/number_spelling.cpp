#include "cli/number_spelling.hpp"

#include <regex>

namespace memrel::cli {
namespace {

// The patterns of scripts/memrel_help.py (_INT, _FLOAT); tests/python/test_hostile_inputs.py
// keeps the two in agreement.
// The longest spelling of a number memrel reads (scripts/memrel_help.py, LONGEST_NUMBER).
constexpr std::size_t kLongestNumber = 1000;

const std::regex& whole_number_spelling() {
  // No leading zero: CLI11 reads `010` as octal (8 rounds of ab, an 8 s advise timeout: the
  // thirty-second adversarial pass, c4-leading-zero-read-as-octal), Python's int() as 10.
  static const std::regex pattern{"-?(0|[1-9][0-9]*)"};
  return pattern;
}
const std::regex& decimal_number_spelling() {
  static const std::regex pattern{"-?([0-9]+\\.?[0-9]*|\\.[0-9]+)([eE][-+]?[0-9]+)?"};
  return pattern;
}

// CLI11's name for the option's type: "INT", "UINT", "FLOAT", then ":" and its validators'
// descriptions (get_type_name), or a name the option was given ("SIZE", "K/N").
std::string cli11_type_name(const CLI::Option* opt) {
  std::string name = opt->get_type_name();
  return name.substr(0, name.find(':'));
}

}  // namespace

std::string misspelled_number(const CLI::App* app, bool whole_only) {
  for (const CLI::Option* opt : app->get_options()) {
    if (opt->count() == 0 || opt->get_expected_max() == 0) continue;  // absent, or a flag
    std::string type = cli11_type_name(opt);
    const std::regex* pattern = nullptr;
    if (type == "INT" || type == "UINT") pattern = &whole_number_spelling();
    if (type == "FLOAT" && !whole_only) pattern = &decimal_number_spelling();
    if (pattern == nullptr) continue;
    for (const std::string& value : opt->results()) {
      // std::regex matches by recursion, a frame per character: a 100,000-digit value overflowed
      // the stack, exit 139 (the forty-second adversarial pass). No number memrel reads needs
      // more than a few dozen characters; Python's rule is the same (memrel_help.py).
      if (value.size() > kLongestNumber)
        return opt->get_name() + ": '" + value.substr(0, 40) + "...' (" +
               std::to_string(value.size()) + " characters) is longer than any number memrel " +
               "reads (" + std::to_string(kLongestNumber) + " characters at most)";
      if (!std::regex_match(value, *pattern))
        return opt->get_name() + ": '" + value + "' is not a " +
               (pattern == &whole_number_spelling()
                    ? "whole number (ASCII digits, no leading zero)"
                    : "decimal number (ASCII digits, '.', an exponent)");
    }
  }
  for (const CLI::App* sub : app->get_subcommands())
    if (std::string found = misspelled_number(sub, whole_only); !found.empty()) return found;
  return "";
}

}  // namespace memrel::cli
