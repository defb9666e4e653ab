#include "cli/backend_library_check.hpp"

#include <iostream>
#include <stdexcept>

#include "allocators/availability.hpp"
#include "platform/executable_path.hpp"

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
  if (!backend.check_loadable || !machine_runs_space(backend.space)) return;
  const std::string error =
      check_backend_process(options, given, check.quiet ? nullptr : &std::cerr, check.environment);
  if (!error.empty()) throw std::invalid_argument(check.whose + error);
}

}  // namespace memrel::cli
