// Every backend memrel can run, gathered from the backend families (allocators/backend_families):
// what each is called, what it wraps, what release does for it, where its memory lives, the
// environment its process needs, whether it can run here and how to make one. `memrel list`
// prints these rows, and docs/backends.md is their Markdown rendering (a test keeps the two equal).
//
// Adding a backend to a family: a factory in the family's folder and a row in its family file.
// Or, without touching memrel's source, a backend file (memrel.backend/1, allocators/pluggable/,
// docs/pluggable-backends.md) naming a shared library: in the backends folder
// (benchmarks/backends/) it is found by its name, elsewhere by its path.
#pragma once

#include <string>
#include <vector>

#include "allocators/availability.hpp"
#include "allocators/backend_family.hpp"

namespace memrel {

// The compiled backends of every family, in the families' order (never the backend files).
const std::vector<BackendInfo>& all_backends();

// Every backend file of the folder that a family reads, valid or not, sorted by file name.
std::vector<BackendFileEntry> folder_backend_entries(const std::string& dir);

// The valid backends of the folder. Throws (one line naming the file) for the first invalid
// file, and when two files share a name.
std::vector<BackendInfo> folder_backends(const std::string& dir);

// What `memrel run -b X` and `memrel cell --backend X` accept: a compiled backend's name; a
// configuration of one, `NAME:KEY=VALUE,...` (allocators/backend_settings.hpp: its settings
// checked against the family's, named canonically, an alias's name where one has them); else
// what a family resolves (the name of a backend file in `backends_dir`, or a backend file's path).
// Throws std::invalid_argument (unknown name, naming the valid ones) or the family's error (a bad
// file).
BackendInfo resolve_backend(const std::string& name_or_file, const std::string& backends_dir);

std::string backend_names_joined();

// The table as Markdown (name, family, space, description, release): docs/backends.md.
std::string backend_table_markdown();

}  // namespace memrel
