// The backend families memrel is built with, in the order `memrel list` shows their backends.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "allocators/backend_family.hpp"

namespace memrel {

const std::vector<const BackendFamily*>& backend_families();

// The family that runs framework program `program`; throws std::invalid_argument naming the
// known programs when no family does.
const BackendFamily& program_family(const std::string& program);

// Every runtime version the families have loaded in this process (a cell's).
std::map<std::string, std::string> loaded_runtime_versions();

// The time this process has spent so far loading the families' libraries (a cell's share of
// its wall time that is library initialisation: docs/results-schema.md, "timing").
std::uint64_t library_load_ns();

}  // namespace memrel
