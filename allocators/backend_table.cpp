#include "allocators/backend_table.hpp"

#include <algorithm>
#include <stdexcept>

#include "allocators/backend_families.hpp"
#include "platform/did_you_mean.hpp"
#include "platform/unusable_input.hpp"

namespace memrel {

const std::vector<BackendInfo>& all_backends() {
  static const std::vector<BackendInfo> backends = [] {
    std::vector<BackendInfo> rows;
    for (const BackendFamily* family : backend_families()) {
      for (BackendInfo& b : family->backends()) rows.push_back(std::move(b));
    }
    return rows;
  }();
  return backends;
}

std::string backend_names_joined() {
  std::string names;
  for (const auto& b : all_backends()) names += (names.empty() ? "" : ", ") + b.name;
  return names;
}

std::vector<BackendFileEntry> folder_backend_entries(const std::string& dir) {
  std::vector<BackendFileEntry> entries;
  for (const BackendFamily* family : backend_families()) {
    for (BackendFileEntry& e : family->backend_files(dir)) entries.push_back(std::move(e));
  }
  std::stable_sort(entries.begin(), entries.end(),
                   [](const auto& a, const auto& b) { return a.file < b.file; });
  return entries;
}

std::vector<BackendInfo> folder_backends(const std::string& dir) {
  std::vector<BackendInfo> out;
  for (BackendFileEntry& e : folder_backend_entries(dir)) {
    if (!e.backend) throw UnusableInput(e.error);
    for (const auto& earlier : out) {
      if (earlier.name == e.backend->name)
        throw UnusableInput(e.file + ": name: \"" + e.backend->name + "\" is also the name of " +
                            earlier.file);
    }
    out.push_back(std::move(*e.backend));
  }
  return out;
}

namespace {

const BackendFamily& family_of(const BackendInfo& backend) {
  for (const BackendFamily* family : backend_families()) {
    if (family->name() == backend.family) return *family;
  }
  throw std::logic_error("backend " + backend.name + " names no family");
}

const BackendInfo* compiled_backend(const std::string& name) {
  for (const auto& b : all_backends()) {
    if (b.name == name) return &b;
  }
  return nullptr;
}

// "NAME:KEY=VALUE,...": NAME's own settings (an alias's), then the given ones over them, each
// checked against the family's declaration; the defaults dropped. One configuration, one name: a
// compiled backend of the same settings (an alias) is that backend.
BackendInfo configured_backend(const std::string& spec) {
  auto [name, given] = split_backend_spec(spec);
  const BackendInfo* base = compiled_backend(name);
  if (base == nullptr)
    throw UnusableInput("backend '" + spec + "': unknown backend '" + name +
                        "' (valid: " + backend_names_joined() + ")");
  const BackendFamily& family = family_of(*base);
  const std::string root_name = base->settings_root.empty() ? base->name : base->settings_root;
  const BackendInfo* root = compiled_backend(root_name);
  std::vector<BackendSetting> declared = family.settings(root_name);
  if (declared.empty() || root == nullptr)
    throw UnusableInput("backend '" + spec + "': " + name + " takes no settings");
  BackendSettings settings = base->settings;
  std::vector<std::string> keys;
  for (const BackendSetting& d : declared) keys.push_back(d.key);
  for (const auto& [key, value] : given) {
    const BackendSetting* setting = nullptr;
    for (const BackendSetting& d : declared) {
      if (d.key == key) setting = &d;
    }
    if (setting == nullptr) {
      std::string near = did_you_mean(key, keys);
      std::string known;
      for (const std::string& k : keys) known += (known.empty() ? "" : ", ") + k;
      throw UnusableInput("backend '" + spec + "': unknown setting '" + key + "'" +
                          (near.empty() ? "" : "; did you mean " + near + "?") + " (" + root_name +
                          " takes: " + known + ")");
    }
    try {
      settings[key] = canonical_setting_value(*setting, value);
    } catch (const std::invalid_argument& e) {
      throw UnusableInput("backend '" + spec + "': " + e.what());
    }
  }
  for (const BackendSetting& d : declared) {
    auto it = settings.find(d.key);
    if (it != settings.end() && it->second == d.default_value) settings.erase(it);
  }
  if (settings.empty()) return *root;
  for (const auto& b : all_backends()) {
    if (b.settings == settings && (b.settings_root == root_name)) return b;
  }
  try {
    return family.configure(*root, settings);
  } catch (const std::invalid_argument& e) {
    throw UnusableInput("backend '" + spec + "': " + e.what());
  }
}

// A name two files of the folder hold picks neither: which one ran would be the order of the
// folder's listing (the seventh adversarial pass, d10: `bench -b NAME` ran the first, exit 0).
void refuse_a_name_two_files_hold(const std::string& name, const std::string& backends_dir) {
  std::vector<std::string> files;
  for (const BackendFileEntry& e : folder_backend_entries(backends_dir)) {
    if (e.backend && e.backend->name == name) files.push_back(e.file);
  }
  if (files.size() > 1)
    throw UnusableInput("backend '" + name + "': two files of " + backends_dir +
                        " hold that name, " + files[0] + " and " + files[1] +
                        "; rename one, or give the file's path");
}

}  // namespace

BackendInfo resolve_backend(const std::string& name_or_file, const std::string& backends_dir) {
  if (const BackendInfo* b = compiled_backend(name_or_file)) return *b;
  // A configuration of a compiled backend; a backend file's path may hold a ':' too.
  if (std::size_t colon = name_or_file.find(':');
      colon != std::string::npos && compiled_backend(name_or_file.substr(0, colon)))
    return configured_backend(name_or_file);
  for (const BackendFamily* family : backend_families()) {
    if (auto b = family->resolve(name_or_file, backends_dir)) {
      if (b->name == name_or_file) refuse_a_name_two_files_hold(name_or_file, backends_dir);
      return *b;
    }
  }
  std::string folder_names;
  for (const BackendFileEntry& e : folder_backend_entries(backends_dir)) {
    // An invalid file is named by nobody here; `memrel list` shows it as invalid.
    if (e.backend) folder_names += ", " + e.backend->name;
  }
  // A configuration of a misspelt backend: name the backend, and the nearest one.
  const std::string name = name_or_file.substr(0, name_or_file.find(':'));
  std::vector<std::string> names;
  for (const auto& b : all_backends()) names.push_back(b.name);
  const std::string near = did_you_mean(name, names);
  throw UnusableInput("unknown backend '" + name + "'" +
                      (name != name_or_file ? " in '" + name_or_file + "'" : std::string()) +
                      (near.empty() ? "" : "; did you mean " + near + "?") +
                      " (valid: " + backend_names_joined() + folder_names +
                      "; or a backend file: docs/pluggable-backends.md)");
}

std::string backend_table_markdown() {
  std::string out = "| backend | family | memory | what it is | release |\n|---|---|---|---|---|\n";
  for (const auto& b : all_backends()) {
    out += "| `" + b.name + "` | " + b.family + " | " + memory_space_name(b.space) + " | " +
           b.description + " | " + b.release + " |\n";
  }
  return out;
}

}  // namespace memrel
