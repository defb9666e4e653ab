// The value of an option among the words memrel passes on to one of its Python parts unparsed
// (`report --history DB`, `history changes --db DB`): memrel looks at it before the part runs
// (gate/history's roll_back_hot_journal), the part still reads it.
#pragma once

#include <string>
#include <vector>

namespace memrel::cli {

// The last value `option` is given in `words` ("--history DB" or "--history=DB"), as argparse
// takes the last; "" when it is not given. Words after "--" are operands.
inline std::string passed_through_option(const std::vector<std::string>& words,
                                         const std::string& option) {
  std::string value;
  for (std::size_t i = 0; i < words.size() && words[i] != "--"; ++i) {
    if (words[i] == option && i + 1 < words.size())
      value = words[++i];
    else if (words[i].rfind(option + "=", 0) == 0)
      value = words[i].substr(option.size() + 1);
  }
  return value;
}

}  // namespace memrel::cli
