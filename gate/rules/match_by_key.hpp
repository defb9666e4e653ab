// Walks two keyed lists so that a table lists every item of either side exactly once.
#pragma once

#include <functional>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace memrel {

// Calls `both(key, b, c)` in baseline order, then `only_base` / `only_cur` for the rest.
template <typename T>
void match_by_key(const std::vector<std::pair<std::string, T>>& base,
                  const std::vector<std::pair<std::string, T>>& cur,
                  const std::function<void(const std::string&, const T&, const T&)>& both,
                  const std::function<void(const std::string&, const T&)>& only_base,
                  const std::function<void(const std::string&, const T&)>& only_cur) {
  std::map<std::string, const T*> cur_index;
  for (const auto& [k, v] : cur) cur_index.emplace(k, &v);
  std::set<std::string> base_keys;
  for (const auto& [k, v] : base) {
    base_keys.insert(k);
    auto it = cur_index.find(k);
    if (it == cur_index.end())
      only_base(k, v);
    else
      both(k, v, *it->second);
  }
  for (const auto& [k, v] : cur) {
    if (!base_keys.count(k)) only_cur(k, v);
  }
}

}  // namespace memrel
