// The table of torch programs and what they share: arguments, marks, release.
#include "allocators/torch/programs.hpp"

#include <algorithm>
#include <iterator>
#include <stdexcept>

#include "allocators/torch/program_names.hpp"

namespace memrel::torch_programs {
namespace {

struct Program {
  const char* name;
  void (*run)(ProgramRun&);
};

constexpr Program kPrograms[] = {
    {"linear-stack", run_linear_stack},
    {"temp-then-delete", run_temp_then_delete},
    {"to-host-then-delete", run_to_host_then_delete},
    {"seed-000", run_seed_000},
};

// The family announces kTorchProgramNames without loading the plugin: the two lists are one.
constexpr bool names_match() {
  if (std::size(kPrograms) != std::size(kTorchProgramNames)) return false;
  for (std::size_t i = 0; i < std::size(kPrograms); ++i) {
    const char* a = kPrograms[i].name;
    const char* b = kTorchProgramNames[i];
    while (*a != '\0' && *a == *b) ++a, ++b;
    if (*a != *b) return false;
  }
  return true;
}
static_assert(names_match(), "kPrograms and program_names.hpp must list the same programs");

std::string program_names() {
  std::string names;
  for (const Program& p : kPrograms) names += (names.empty() ? "" : ", ") + std::string(p.name);
  return names;
}

}  // namespace

ProgramRun::ProgramRun(std::string name, const std::string& args_json, ProgramAllocator& allocator,
                       ProgramContext& context)
    : name_(std::move(name)), allocator_(allocator), context_(context) {
  args_ = nlohmann::json::parse(args_json.empty() ? "{}" : args_json);
  if (!args_.is_object()) fail("", "'args' must be an object");
}

void ProgramRun::fail(const std::string& key, const std::string& why) const {
  throw std::invalid_argument("program " + name_ + (key.empty() ? "" : ", argument '" + key + "'") +
                              ": " + why);
}

std::int64_t ProgramRun::integer(const std::string& key, std::int64_t fallback, std::int64_t min,
                                 std::int64_t max) {
  known_.push_back(key);
  if (!args_.contains(key)) return fallback;
  const auto& v = args_[key];
  if (!v.is_number_integer()) fail(key, "must be an integer");
  std::int64_t i = v.get<std::int64_t>();
  if (i < min || i > max) {
    fail(key, "must be between " + std::to_string(min) + " and " + std::to_string(max));
  }
  return i;
}

bool ProgramRun::boolean(const std::string& key, bool fallback) {
  known_.push_back(key);
  if (!args_.contains(key)) return fallback;
  if (!args_[key].is_boolean()) fail(key, "must be true or false");
  return args_[key].get<bool>();
}

std::vector<std::int64_t> ProgramRun::shape(const std::string& key,
                                            std::vector<std::int64_t> fallback) {
  known_.push_back(key);
  if (!args_.contains(key)) return fallback;
  const auto& v = args_[key];
  if (!v.is_array() || v.empty()) fail(key, "must be a non-empty array of positive integers");
  std::vector<std::int64_t> out;
  for (const auto& d : v) {
    if (!d.is_number_integer() || d.get<std::int64_t>() <= 0) {
      fail(key, "must be a non-empty array of positive integers");
    }
    out.push_back(d.get<std::int64_t>());
  }
  return out;
}

std::vector<std::string> ProgramRun::choices(const std::string& key,
                                             std::vector<std::string> fallback,
                                             const std::vector<std::string>& allowed) {
  known_.push_back(key);
  if (!args_.contains(key)) return fallback;
  std::string list;
  for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
  const auto& v = args_[key];
  if (!v.is_array() || v.empty()) fail(key, "must be a non-empty array of: " + list);
  std::vector<std::string> out;
  for (const auto& c : v) {
    if (!c.is_string() ||
        std::find(allowed.begin(), allowed.end(), c.get<std::string>()) == allowed.end()) {
      fail(key, "unknown value " + c.dump() + " (known: " + list + ")");
    }
    out.push_back(c.get<std::string>());
  }
  return out;
}

void ProgramRun::finish_arguments() const {
  for (auto it = args_.begin(); it != args_.end(); ++it) {
    if (std::find(known_.begin(), known_.end(), it.key()) == known_.end()) {
      std::string list;
      for (const auto& k : known_) list += (list.empty() ? "" : ", ") + k;
      fail(it.key(), "unknown argument (known: " + (list.empty() ? "none" : list) + ")");
    }
  }
}

void ProgramRun::mark(const std::string& label, std::uint64_t live_bytes) {
  synchronize();
  context_.mark(label, live_bytes);
}

void ProgramRun::mark_peak(const std::string& label, std::uint64_t peak_live_bytes) {
  synchronize();
  context_.mark_peaks(label, peak_live_bytes, allocator_.peaks());
}

void ProgramRun::reset_peaks() {
  synchronize();
  allocator_.reset_peaks();
}

void ProgramRun::empty_cache() {
  allocator_.empty_cache();
  synchronize();
}

void ProgramRun::synchronize() { allocator_.wait_for_device(); }

void run(const std::string& name, const std::string& args_json, ProgramAllocator& allocator,
         ProgramContext& context) {
  for (const Program& p : kPrograms) {
    if (name == p.name) {
      ProgramRun run(name, args_json, allocator, context);
      p.run(run);
      return;
    }
  }
  throw std::invalid_argument("unknown torch program '" + name + "' (known: " + program_names() +
                              ")");
}

}  // namespace memrel::torch_programs
