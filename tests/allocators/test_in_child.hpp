// Running one test of this test executable in a child process, with an environment of its own.
//
// Why: some backends read their settings once, when their library loads (PyTorch's allocator:
// PYTORCH_ALLOC_CONF, BackendInfo::cell_environment), and LibTorch cannot be unloaded, so two
// such backends cannot share a process. In production each cell is a process of its own started
// with that environment; the conformance suite does the same for those instances: the test
// re-runs itself, filtered to its own name, in a child whose environment carries the backend's
// variables and kInChildVariable, and takes the child's verdict.
#pragma once

#include <map>
#include <string>

namespace memrel::testing {

// Set in the child's environment: there, the instance runs in-process instead of starting a
// child again.
inline constexpr const char* kInChildVariable = "MEMREL_CONFORMANCE_IN_CHILD";

bool running_in_child();

struct ChildVerdict {
  enum class Status { kPassed, kFailed, kSkipped };
  Status status = Status::kFailed;
  std::string why;     // kFailed: what went wrong; kSkipped: the child's reason
  std::string output;  // the child's stdout and stderr, for the parent's failure message
};

// Runs the test `full_name` ("Suite.Name", as --gtest_filter takes it) of this executable in a
// child with `environment` added to ours (and kInChildVariable=1). Passed only when exactly that
// one test ran, the child exited 0 and GoogleTest reported it passed; skipped when it reported it
// skipped. `also_run_disabled` lets a DISABLED_ test run (the tests of this mechanism).
ChildVerdict run_test_in_child(const std::string& full_name,
                               const std::map<std::string, std::string>& environment,
                               bool also_run_disabled = false);

}  // namespace memrel::testing
