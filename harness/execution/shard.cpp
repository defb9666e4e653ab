#include "harness/execution/shard.hpp"

#include <algorithm>
#include <charconv>
#include <stdexcept>

#include "platform/input_rules.hpp"

namespace memrel {
namespace {

// A positive decimal number and nothing else (no sign, no spaces, no leading zero, as every
// whole number memrel reads), or 0 when it is not one; past 2^53, 2^53 + 1 (said as too large,
// not as "not a whole number": the fiftieth adversarial pass, c4-shard-huge-n-wrong-words).
std::size_t positive_number(const std::string& text) {
  std::size_t value = 0;
  if (text.empty() || (text.size() > 1 && text[0] == '0') ||
      !std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error == std::errc::result_out_of_range || value > kMaxExactInteger)
    return static_cast<std::size_t>(kMaxExactInteger) + 1;
  if (error != std::errc() || end != text.data() + text.size()) return 0;
  return value;
}

}  // namespace

Shard parse_shard(const std::string& text) {
  const std::string where = "--shard '" + text + "': ";
  const auto slash = text.find('/');
  if (slash == std::string::npos)
    throw std::invalid_argument(where + "expected K/N, e.g. 2/8 (shard 2 of 8)");
  const std::size_t index = positive_number(text.substr(0, slash));
  const std::size_t count = positive_number(text.substr(slash + 1));
  for (const std::string& part : {text.substr(0, slash), text.substr(slash + 1)})
    if (part.size() > 1 && part[0] == '0')
      throw std::invalid_argument(where + "K and N are written without a leading zero");
  if (count == 0) throw std::invalid_argument(where + "N must be a whole number of at least 1");
  // Within the range of every integer of a results file, where the count is recorded (the
  // twenty-seventh adversarial pass, c4-shard-count-over-2p53).
  if (count > static_cast<std::size_t>(kMaxExactInteger))
    throw std::invalid_argument(where + "N must be at most 2^53");
  if (index == 0 || index > count)
    throw std::invalid_argument(where + "K must be a whole number from 1 to N (shards are 1/" +
                                std::to_string(count) + " to " + std::to_string(count) + "/" +
                                std::to_string(count) + ")");
  return {index, count};
}

std::string shard_text(const Shard& shard) {
  return std::to_string(shard.index) + "/" + std::to_string(shard.count);
}

std::string cell_key(const std::string& backend, const std::string& workload) {
  return backend + "/" + workload;
}

std::vector<std::string> cell_matrix(const std::vector<std::string>& backend_names,
                                     const std::vector<std::string>& workload_names) {
  std::vector<std::string> matrix;
  for (const auto& backend : backend_names)
    for (const auto& workload : workload_names) matrix.push_back(cell_key(backend, workload));
  return matrix;
}

std::map<std::string, std::size_t> shard_assignment(const std::vector<std::string>& matrix,
                                                    std::size_t count) {
  std::vector<std::string> sorted = matrix;
  std::sort(sorted.begin(), sorted.end());
  auto twice = std::adjacent_find(sorted.begin(), sorted.end());
  if (twice != sorted.end())
    throw std::invalid_argument("cell '" + *twice +
                                "' appears twice in the matrix (a backend or workload given "
                                "twice, or two workloads of one name): a shard could not tell "
                                "them apart");
  std::map<std::string, std::size_t> assignment;
  for (std::size_t i = 0; i < sorted.size(); ++i) assignment[sorted[i]] = i % count + 1;
  return assignment;
}

std::set<std::string> shard_cells(const std::vector<std::string>& matrix, const Shard& shard) {
  std::set<std::string> cells;
  for (const auto& [key, index] : shard_assignment(matrix, shard.count))
    if (index == shard.index) cells.insert(key);
  return cells;
}

nlohmann::json shard_record(const std::vector<std::string>& matrix, const Shard& shard) {
  return {{"index", shard.index}, {"count", shard.count}, {"rule", kShardRule}, {"matrix", matrix}};
}

}  // namespace memrel
