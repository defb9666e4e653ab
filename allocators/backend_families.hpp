// The backend families memrel is built with, in the order `memrel list` shows their backends.
#pragma once

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

}  // namespace memrel
