#include "cli/backend_library_check.hpp"

#include <iostream>
#include <stdexcept>

#include "allocators/availability.hpp"
#include "harness/execution/runner.hpp"
#include "platform/executable_path.hpp"

namespace memrel::cli {

void refuse_backend_whose_library_fails(const std::string& given, const BackendInfo& backend,
                                        const LibraryCheck& check) {
  if (!backend.check_loadable || !machine_runs_space(backend.space)) return;
  RunOptions options;
  options.memrel_executable = executable_path().empty() ? "memrel" : executable_path();
  options.backends_dir = check.backends_dir;
  options.cell_timeout_s = check.timeout_s;
  const std::string error =
      check_backend_process(options, given, check.quiet ? nullptr : &std::cerr, check.environment);
  if (!error.empty()) throw std::invalid_argument(check.whose + error);
}

}  // namespace memrel::cli
