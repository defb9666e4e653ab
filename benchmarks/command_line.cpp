#include "benchmarks/command_line.hpp"

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "platform/install_layout.hpp"

namespace memrel::bench {
namespace {

bool starts_with(const std::string& text, const std::string& prefix) {
  return text.compare(0, prefix.size(), prefix) == 0;
}

// Google Benchmark reads each flag's default from the upper-cased variable of the same name.
std::string environment_variable_of(const std::string& flag) {
  std::string name = flag;
  for (char& c : name) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return name;
}

bool user_chose(const BenchCommandLine& command_line, const std::string& flag) {
  if (std::getenv(environment_variable_of(flag).c_str()) != nullptr) return true;
  for (const std::string& argument : command_line.benchmark_arguments) {
    if (argument == "--" + flag || starts_with(argument, "--" + flag + "=")) return true;
  }
  return false;
}

// 1.8 made --benchmark_min_time a string with a unit and warns, once per benchmark, about a
// bare number; 1.7.1 parses a double and refuses the unit (benchmarks/CMakeLists.txt decides).
std::string min_time_flag(double seconds) {
  char value[32];
  std::snprintf(value, sizeof value, "%g", seconds);
#ifdef MEMREL_BENCHMARK_MIN_TIME_HAS_UNIT
  return std::string("--benchmark_min_time=") + value + "s";
#else
  return std::string("--benchmark_min_time=") + value;
#endif
}

// A whole day of timed work per repetition is a typo, not a plan.
constexpr double kMaxMinTimeSeconds = 86400;

double parse_min_time(const std::string& text) {
  const std::string usage = "--min-time: '" + text +
                            "' is not a number of seconds above 0 and up to " +
                            std::to_string(static_cast<int>(kMaxMinTimeSeconds));
  if (text.empty() || text.find_first_not_of("0123456789.eE-+") != std::string::npos)
    throw UsageError(usage);
  char* end = nullptr;
  const double seconds = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size() || !(seconds > 0) || seconds > kMaxMinTimeSeconds)
    throw UsageError(usage);
  return seconds;
}

}  // namespace

// As `memrel` finds them: the build tree's source or an installed prefix (platform/install_layout).
std::string default_backends_dir() { return install_layout().data_dir + "/backends"; }

BenchCommandLine parse_command_line(int argc, char** argv) {
  BenchCommandLine command_line;
  for (int i = 1; i < argc; ++i) {
    const std::string argument = argv[i];
    if (argument == "--backend") {
      if (i + 1 == argc) throw UsageError("--backend needs a backend name");
      command_line.backend = argv[++i];
    } else if (starts_with(argument, "--backend=")) {
      command_line.backend = argument.substr(std::string("--backend=").size());
    } else if (argument == "--backends-dir") {
      if (i + 1 == argc) throw UsageError("--backends-dir needs a folder");
      command_line.backends_dir = argv[++i];
    } else if (starts_with(argument, "--backends-dir=")) {
      command_line.backends_dir = argument.substr(std::string("--backends-dir=").size());
    } else if (argument == "--min-time") {
      if (i + 1 == argc) throw UsageError("--min-time needs a number of seconds");
      command_line.min_time_seconds = parse_min_time(argv[++i]);
    } else if (starts_with(argument, "--min-time=")) {
      command_line.min_time_seconds =
          parse_min_time(argument.substr(std::string("--min-time=").size()));
    } else if (argument == "--quick") {
      command_line.quick = true;
    } else if (argument == "--list-backends") {
      command_line.list_backends = true;
    } else if (argument == "--help" || argument == "-h") {
      command_line.help = true;
    } else {
      command_line.benchmark_arguments.push_back(argument);
    }
  }
  return command_line;
}

std::vector<std::string> google_benchmark_arguments(const std::string& program,
                                                    const BenchCommandLine& command_line,
                                                    const MeasurementPlan& plan) {
  std::vector<std::string> arguments = {program};
  if (command_line.min_time_seconds > 0) {
    arguments.push_back(min_time_flag(command_line.min_time_seconds));
  } else if (!user_chose(command_line, "benchmark_min_time")) {
    arguments.push_back(min_time_flag(plan.min_time_seconds));
  }
  if (!user_chose(command_line, "benchmark_repetitions")) {
    arguments.push_back("--benchmark_repetitions=" + std::to_string(plan.repetitions));
  }
  arguments.insert(arguments.end(), command_line.benchmark_arguments.begin(),
                   command_line.benchmark_arguments.end());
  return arguments;
}

std::string google_benchmark_flag(const BenchCommandLine& command_line, const std::string& flag,
                                  const std::string& fallback) {
  const std::string prefix = "--" + flag + "=";
  for (auto a = command_line.benchmark_arguments.rbegin();
       a != command_line.benchmark_arguments.rend(); ++a) {
    if (starts_with(*a, prefix)) return a->substr(prefix.size());
  }
  if (const char* value = std::getenv(environment_variable_of(flag).c_str())) return value;
  return fallback;
}

}  // namespace memrel::bench
