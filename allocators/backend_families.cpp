#include "allocators/backend_families.hpp"

#include <stdexcept>

#include "platform/unusable_input.hpp"

namespace memrel {

// Each family's folder defines its accessor (allocators/<family>/<family>_family.cpp).
const BackendFamily& cuda_family();
const BackendFamily& host_family();
const BackendFamily& rmm_family();
const BackendFamily& torch_family();
const BackendFamily& pluggable_family();
const BackendFamily& xla_family();
const BackendFamily& cupy_family();

const std::vector<const BackendFamily*>& backend_families() {
  // One entry per family, in the order `memrel list` shows their backends.
  static const std::vector<const BackendFamily*> families = {
      &cuda_family(), &host_family(), &rmm_family(),      &torch_family(),
      &xla_family(),  &cupy_family(), &pluggable_family()};
  return families;
}

ProgramPlacement BackendFamily::program_placement(const BackendInfo& backend,
                                                  const std::string& program) const {
  (void)backend;
  throw BackendUnavailable("the " + name() + " family runs no program '" + program + "'");
}

void BackendFamily::run_program(const BackendInfo& backend, Allocator& allocator,
                                const std::string& program, const std::string& args_json,
                                ProgramContext& context) const {
  (void)allocator;
  (void)args_json;
  (void)context;
  program_placement(backend, program);  // a family with programs overrides both
}

BackendInfo BackendFamily::configure(const BackendInfo& root, const BackendSettings&) const {
  throw UnusableInput("backend " + root.name + " takes no settings");
}

const BackendFamily& program_family(const std::string& program) {
  std::string known;
  for (const BackendFamily* family : backend_families()) {
    for (const std::string& p : family->programs()) {
      if (p == program) return *family;
      known += (known.empty() ? "" : ", ") + p;
    }
  }
  throw UnusableInput("no backend family runs program '" + program + "' (known: " + known + ")");
}

std::map<std::string, std::string> loaded_runtime_versions() {
  std::map<std::string, std::string> versions;
  for (const BackendFamily* family : backend_families())
    versions.merge(family->loaded_runtime_versions());
  return versions;
}

std::uint64_t library_load_ns() {
  std::uint64_t total = 0;
  for (const BackendFamily* family : backend_families()) total += family->library_load_ns();
  return total;
}

}  // namespace memrel
