// The subcommands that live in files of their own. Each adds itself to the CLI and, when parsed,
// returns its exit code. Adding one (e.g. `report`) is its own file defining an add and a run
// function, and one line in kExtraSubcommands.
#include <stdexcept>

#include "harness/cli_support.hpp"

namespace memrel {

// harness/compare_command.cpp
void add_compare_subcommand(CLI::App& sub);
int run_compare_subcommand();
// harness/report_command.cpp
void add_report_subcommand(CLI::App& sub);
int run_report_subcommand();

namespace {

struct ExtraSubcommand {
  const char* name;
  const char* description;
  void (*add)(CLI::App& sub);  // adds its options and arguments to its own CLI::App
  int (*run)();                // runs it once parsed; returns the exit code
};

const ExtraSubcommand kExtraSubcommands[] = {
    {"compare", "Compare a run with a baseline: the regression gate (exit 1 on a regression)",
     add_compare_subcommand, run_compare_subcommand},
    {"report", "Plots and a report folder (index.html, report.md) from results files",
     add_report_subcommand, run_report_subcommand},
};

}  // namespace

void register_extra_subcommands(CLI::App& app) {
  for (const auto& s : kExtraSubcommands) s.add(*app.add_subcommand(s.name, s.description));
}

int run_extra_subcommand(CLI::App& app) {
  for (const auto& s : kExtraSubcommands) {
    if (app.got_subcommand(s.name)) return s.run();
  }
  throw std::logic_error("a subcommand was parsed that nothing handles");
}

}  // namespace memrel
