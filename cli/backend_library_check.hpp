// Before anything runs: a backend file's library must load here, checked as `memrel run` checks
// it (`memrel cell --check` in a child: memrel never loads a backend's library itself). bench and
// ab found a library that does not load, or that ends its process while loading (a constructor
// that exits, a setting it refuses such as MEMREL_EXAMPLE_SLOWDOWN_NS=nan), only inside
// memrel_bench, after other backends or rounds had run, and said it with the wrong exit code
// (the fortieth and forty-first adversarial passes).
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "allocators/backend_table.hpp"
#include "harness/execution/runner.hpp"

namespace memrel::cli {

// How a command without a RunOptions of its own (bench, ab) checks: this memrel's `cell`, the
// backends folder, the bound on one check.
RunOptions library_check_options(const std::string& backends_dir, std::uint64_t timeout_s);

struct LibraryCheck {
  // Settings the backend will run under besides memrel's own environment (ab's
  // --reference-env, --candidate-env).
  std::map<std::string, std::string> environment;
  bool quiet = false;  // -q: no line while a slow library is waited for
  std::string whose;   // said before the error ("the candidate (--candidate-env ...): "), or ""
};

// Throws std::invalid_argument with the check's one line (exit 2) when `backend` (given as
// `given`) is a backend file whose library does not load here under `options` (run's and
// advise's carry CUDA_MODULE_LOADING, which the cells get too); nothing for a compiled backend or
// one of a memory this machine does not run. One check for every command that runs a backend.
void refuse_backend_whose_library_fails(const RunOptions& options, const std::string& given,
                                        const BackendInfo& backend, const LibraryCheck& check);

}  // namespace memrel::cli
