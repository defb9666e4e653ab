#include "cli/backend_library_check.hpp"

#include <iostream>
#include <stdexcept>

#include "allocators/availability.hpp"
#include "platform/executable_path.hpp"
#include "platform/loader_preload.hpp"

namespace memrel::cli {

RunOptions library_check_options(const std::string& backends_dir, std::uint64_t timeout_s) {
  RunOptions options;
  options.memrel_executable = executable_path().empty() ? "memrel" : executable_path();
  options.backends_dir = backends_dir;
  options.cell_timeout_s = timeout_s;
  return options;
}

void refuse_backend_whose_library_fails(const RunOptions& options, const std::string& given,
                                        const BackendInfo& backend, const LibraryCheck& check) {
  // A compiled backend loads no library of a file, but its side's settings may preload one (`ab
  // --candidate-env LD_PRELOAD=...`, comparing malloc with another): asked of the loader as the
  // check of a backend file asks it (the seventy-second adversarial pass,
  // c8-ab-candidate-env-ld-preload-missing-passes).
  if (!backend.check_loadable) {
    std::map<std::string, std::string> environment = backend.cell_environment;
    for (const auto& [name, value] : check.environment) environment[name] = value;
    if (std::string skipped = preload_skipped_under(environment); !skipped.empty())
      throw std::invalid_argument(check.whose + "backend " + given + ": " + kLoaderSkipsPreload +
                                  skipped);
    return;
  }
  if (!machine_runs_space(backend.space)) return;
  const std::string error =
      check_backend_process(options, given, check.quiet ? nullptr : &std::cerr, check.environment);
  if (!error.empty()) throw std::invalid_argument(check.whose + error);
}

}  // namespace memrel::cli
