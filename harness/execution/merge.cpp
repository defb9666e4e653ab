#include "harness/execution/merge.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>

#include "harness/execution/shard.hpp"
#include "platform/path_for_json.hpp"

namespace memrel {
namespace {

struct ShardFile {
  std::string path;
  RunResults run;
  Shard shard;
  std::vector<std::string> matrix;  // cell keys in run order
};

// context.shard, checked field by field; ResultsError (without the file name) when malformed.
ShardFile read_shard_record(const std::string& path, RunResults run) {
  const nlohmann::json& context = run.context;
  if (!context.contains("shard"))
    throw ResultsError(
        "no context.shard: not the results of a shard (memrel run --shard K/N writes one)");
  const nlohmann::json& record = context["shard"];
  auto unsigned_field = [&](const char* name) {
    if (!record.is_object() || !record.contains(name) || !record[name].is_number_unsigned())
      throw ResultsError(std::string("context.shard.") + name + ": missing or not a whole number");
    return record[name].get<std::size_t>();
  };
  ShardFile file{path, std::move(run), {unsigned_field("index"), unsigned_field("count")}, {}};
  if (file.shard.count == 0 || file.shard.index == 0 || file.shard.index > file.shard.count)
    throw ResultsError("context.shard: shard " + shard_text(file.shard) + " does not exist");
  if (!record.contains("rule") || record["rule"] != kShardRule)
    throw ResultsError("context.shard.rule: " +
                       (record.contains("rule") ? record["rule"].dump() : std::string("missing")) +
                       ", but this memrel shards by \"" + kShardRule + "\"");
  if (!record.contains("matrix") || !record["matrix"].is_array())
    throw ResultsError("context.shard.matrix: missing or not a list of cells");
  for (const auto& key : record["matrix"]) {
    if (!key.is_string()) throw ResultsError("context.shard.matrix: a cell that is not a string");
    file.matrix.push_back(key.get<std::string>());
  }
  // The matrix is every backend of the run on every workload (run_suite): one that lacks a cell,
  // with the cell gone from its shard too, merged into a run with a cell missing and exit 0 (the
  // forty-first adversarial pass, c5-merge-matrix-shrunk-drops-cell).
  const nlohmann::json options = file.run.context.value("options", nlohmann::json::object());
  if (options.contains("backends") && options["backends"].is_array() &&
      options.contains("workloads") && options["workloads"].is_array()) {
    const std::size_t backends = options["backends"].size(),
                      workloads = options["workloads"].size();
    if (file.matrix.size() != backends * workloads)
      throw ResultsError("context.shard.matrix: " + std::to_string(file.matrix.size()) +
                         " cells, but options name " + std::to_string(backends) +
                         " backend(s) and " + std::to_string(workloads) + " workload(s), " +
                         std::to_string(backends * workloads) + " cells");
  }
  return file;
}

std::string field_text(const nlohmann::json& context, const char* name) {
  return context.contains(name) ? context[name].dump() : "none";
}

// Why `file` cannot be merged with `first` (the first file given), or "" when it can.
std::string mismatch(const ShardFile& file, const ShardFile& first) {
  const nlohmann::json &a = file.run.context, &b = first.run.context;
  for (const char* name : {"memrel_version", "git_commit"}) {
    if (field_text(a, name) != field_text(b, name))
      return std::string("mixed memrel versions: ") + name + " " + field_text(a, name) + ", but " +
             first.path + " has " + field_text(b, name);
  }
  if (file.shard.count != first.shard.count)
    return "shard " + shard_text(file.shard) + ", but " + first.path + " is a shard of " +
           std::to_string(first.shard.count);
  if (file.matrix != first.matrix) {
    for (const auto& key : file.matrix) {
      if (std::find(first.matrix.begin(), first.matrix.end(), key) == first.matrix.end())
        return "another matrix: cell '" + key + "' is not in " + first.path + "'s";
    }
    for (const auto& key : first.matrix) {
      if (std::find(file.matrix.begin(), file.matrix.end(), key) == file.matrix.end())
        return "another matrix: cell '" + key + "' of " + first.path + " is not in it";
    }
    return "another matrix: the cells of " + first.path + " in another order";
  }
  const nlohmann::json options_a = a.value("options", nlohmann::json::object());
  const nlohmann::json options_b = b.value("options", nlohmann::json::object());
  if (options_a != options_b) {
    for (const auto& [name, value] : options_a.items()) {
      if (!options_b.contains(name) || options_b[name] != value)
        return "other run options: " + name + " " + value.dump() + ", but " + first.path + " has " +
               (options_b.contains(name) ? options_b[name].dump() : "none");
    }
    return "other run options than " + first.path + "'s";
  }
  if (field_text(a, "gpu") != field_text(b, "gpu"))
    return "GPU " + field_text(a, "gpu") + ", but " + first.path + " ran on " +
           field_text(b, "gpu") + ": a merged run must come from one GPU model";
  return "";
}

// The file's cells must be exactly those of its shard, once each.
void check_cells(const ShardFile& file, const std::map<std::string, std::size_t>& assignment) {
  std::map<std::string, int> seen;
  for (const auto& cell : file.run.cells) {
    const std::string key = cell_key(cell.backend, cell.workload);
    auto owner = assignment.find(key);
    if (owner == assignment.end())
      throw ResultsError("cell '" + key + "' is not in the matrix of context.shard");
    if (owner->second != file.shard.index)
      throw ResultsError("cell '" + key + "' belongs to shard " +
                         shard_text({owner->second, file.shard.count}) + ", not to this file's " +
                         shard_text(file.shard));
    if (++seen[key] > 1) throw ResultsError("cell '" + key + "' appears twice");
  }
  std::vector<std::string> lacking;
  for (const auto& [key, index] : assignment)
    if (index == file.shard.index && !seen.count(key)) lacking.push_back(key);
  if (!lacking.empty())
    throw ResultsError("shard " + shard_text(file.shard) + " lacks cell '" + lacking.front() + "'" +
                       (lacking.size() > 1 ? " and " + std::to_string(lacking.size() - 1) + " more"
                                           : std::string()));
}

std::string earliest_or_latest(const std::vector<ShardFile*>& files, const char* name,
                               bool latest) {
  std::string chosen;
  for (const ShardFile* f : files) {
    const nlohmann::json& c = f->run.context;
    if (!c.contains(name) || !c[name].is_string()) continue;
    const std::string t = c[name].get<std::string>();  // ISO 8601 UTC: text order is time order
    if (chosen.empty() || (latest ? t > chosen : t < chosen)) chosen = t;
  }
  return chosen;
}

}  // namespace

RunResults merge_shard_files(const std::vector<std::string>& paths) {
  if (paths.empty()) throw ResultsError("merge: no shard files given");
  std::vector<ShardFile> files;
  std::map<std::string, std::size_t> assignment;
  std::map<std::size_t, ShardFile*> by_index;
  files.reserve(paths.size());
  for (const auto& path : paths) {
    try {
      files.push_back(read_shard_record(path, read_run_file(path)));
      ShardFile& file = files.back();
      if (files.size() == 1) {
        try {
          assignment = shard_assignment(file.matrix, file.shard.count);
        } catch (const std::invalid_argument& e) {
          throw ResultsError(std::string("context.shard.matrix: ") + e.what());
        }
      } else if (std::string why = mismatch(file, files.front()); !why.empty()) {
        throw ResultsError(why);
      }
      auto [other, fresh] = by_index.emplace(file.shard.index, &file);
      if (!fresh)
        throw ResultsError("shard " + shard_text(file.shard) + " again (" + other->second->path +
                           " has it too): overlapping shards");
      check_cells(file, assignment);
    } catch (const ResultsError& e) {
      const std::string what = e.what();
      // read_run_file names the file already.
      throw ResultsError(what.rfind(path + ": ", 0) == 0 ? what : path + ": " + what);
    }
  }
  const std::size_t count = files.front().shard.count;
  // The first few missing ones named, the rest counted: work in proportion to the files given,
  // not to N (`--shard 1/100000000` then `merge` of that one file took 7.8 GB and never
  // answered: the twenty-seventh adversarial pass, c4-merge-huge-shard-count).
  const std::size_t missing_count = count - by_index.size();
  std::vector<std::string> missing;
  for (std::size_t k = 1; k <= count && missing.size() < 8 && missing.size() < missing_count; ++k)
    if (!by_index.count(k)) missing.push_back(shard_text({k, count}));
  if (missing_count > 0) {
    std::string list;
    for (std::size_t i = 0; i < missing.size(); ++i) list += (i ? ", " : "") + missing[i];
    if (missing_count > 8) list += " and " + std::to_string(missing_count - 8) + " more";
    throw ResultsError("a gap: shard" + std::string(missing_count > 1 ? "s " : " ") + list +
                       " missing; the " + std::to_string(files.size()) + " file" +
                       (files.size() > 1 ? "s" : "") + " given (" + files.front().path +
                       (files.size() > 1 ? ", ...) hold" : ") holds") + " no other shard");
  }

  std::vector<ShardFile*> in_order;
  for (auto& [index, file] : by_index) in_order.push_back(file);
  RunResults merged;
  merged.context = in_order.front()->run.context;
  merged.context.erase("shard");
  merged.context["started"] = earliest_or_latest(in_order, "started", false);
  merged.context["finished"] = earliest_or_latest(in_order, "finished", true);
  merged.context["merged_from"] = nlohmann::json::array();
  std::map<std::string, const CellResult*> cells;
  for (const ShardFile* f : in_order) {
    const nlohmann::json& c = f->run.context;
    merged.context["merged_from"].push_back({{"shard", shard_text(f->shard)},
                                             {"file", path_for_json(f->path)},
                                             {"host", c.value("host", nlohmann::json())},
                                             {"started", c.value("started", nlohmann::json())},
                                             {"finished", c.value("finished", nlohmann::json())},
                                             {"cells", f->run.cells.size()},
                                             {"gpus", c.value("gpus", nlohmann::json())}});
    for (const auto& cell : f->run.cells) cells[cell_key(cell.backend, cell.workload)] = &cell;
  }
  for (const auto& key : in_order.front()->matrix) merged.cells.push_back(*cells.at(key));
  return merged;
}

}  // namespace memrel
