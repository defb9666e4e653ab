// A shard of the run matrix: `memrel run --shard K/N` runs 1/N of the cells, so that N machines
// (a Slurm job array, docs/slurm.md) share one suite, and `memrel merge` joins their results.
//
// The rule ("sorted-round-robin/1"): a cell's key is "backend/workload", the names the gate
// matches cells by. Sort the matrix's keys by byte value; the cell at sorted position i (from 0)
// belongs to shard (i mod N) + 1. Hence:
//   - the order of -b and -w moves no cell to another shard (the sort forgets it);
//   - every cell is in exactly one shard, and shard sizes differ by at most one;
//   - a backend's cells are spread over the shards rather than piled on one (they sort next to
//     each other), so a slow backend does not make one slow shard.
// Shards are numbered 1/N to N/N, like Slurm arrays submitted as --array=1-N.
#pragma once

#include <cstddef>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

namespace memrel {

constexpr const char* kShardRule = "sorted-round-robin/1";

struct Shard {
  std::size_t index = 1;  // K, 1 <= K <= N
  std::size_t count = 1;  // N
};

// "K/N" as given to --shard; throws std::invalid_argument ("--shard '0/4': ...") otherwise.
Shard parse_shard(const std::string& text);
std::string shard_text(const Shard& shard);  // "K/N"

std::string cell_key(const std::string& backend, const std::string& workload);

// The matrix in run order (backend-major, as the runner runs it): every backend with every
// workload, as cell keys.
std::vector<std::string> cell_matrix(const std::vector<std::string>& backend_names,
                                     const std::vector<std::string>& workload_names);

// Every key of `matrix` with the shard (1 to count) it belongs to by the rule above. Throws
// std::invalid_argument when a key appears twice: shards and merge could not tell those cells
// apart.
std::map<std::string, std::size_t> shard_assignment(const std::vector<std::string>& matrix,
                                                    std::size_t count);

// The keys of `matrix` that belong to `shard` (shard_assignment's throws included).
std::set<std::string> shard_cells(const std::vector<std::string>& matrix, const Shard& shard);

// What a shard's results record as context.shard, so that `memrel merge` can check that its
// files are the shards of one matrix: {"index", "count", "rule", "matrix": keys in run order}.
nlohmann::json shard_record(const std::vector<std::string>& matrix, const Shard& shard);

}  // namespace memrel
