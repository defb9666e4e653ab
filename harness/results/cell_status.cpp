#include "harness/results/cell_status.hpp"

namespace memrel {

const std::vector<std::string>& cell_statuses() {
  static const std::vector<std::string> statuses = {"ok",      "oom",     "unavailable",
                                                    "crashed", "timeout", "error"};
  return statuses;
}

}  // namespace memrel
