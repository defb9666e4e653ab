// The subcommands that live in files of their own. Each adds itself to the CLI and, when parsed,
// returns its exit code.
#include "harness/cli_support.hpp"

namespace memrel {

void register_extra_subcommands(CLI::App&) {}

int run_extra_subcommand(CLI::App&) {
  throw std::logic_error("a subcommand was parsed that nothing handles");
}

}  // namespace memrel
