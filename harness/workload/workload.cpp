#include "harness/workload/workload.hpp"

#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "harness/workload/trace_file.hpp"
#include "platform/input_rules.hpp"
#include "platform/name_characters.hpp"
#include "platform/nul_escaped.hpp"

namespace memrel {

namespace {
// The largest device a workload's fractions are checked against: 1 PiB.
constexpr double kLargestDeviceBytes = 1125899906842624.0;
}  // namespace
namespace {

using nlohmann::json;

constexpr const char* kSchema = "memrel.workload/1";
// Validation resolves fractions against this capacity, so that id errors are found before a
// device is touched; the cell resolves again against the real capacity.
constexpr std::uint64_t kNominalCapacityBytes = std::uint64_t{64} << 30;
constexpr std::uint64_t kValidationGroupMembers = 1024;

std::uint64_t dtype_bytes(const std::string& dtype) {
  static const std::map<std::string, std::uint64_t> sizes = {
      {"float64", 8}, {"float32", 4}, {"float16", 2}, {"bfloat16", 2}, {"int64", 8},
      {"int32", 4},   {"int16", 2},   {"int8", 1},    {"uint8", 1},    {"bool", 1}};
  auto it = sizes.find(dtype);
  return it == sizes.end() ? 0 : it->second;
}

class Parser {
 public:
  explicit Parser(std::string source) : source_(std::move(source)) {}

  [[noreturn]] void fail(const std::string& location, const std::string& message) const {
    throw WorkloadError(source_, location, message);
  }

  std::uint64_t positive_integer(const json& value, const std::string& location,
                                 const std::string& field, std::uint64_t max) const {
    if (!value.is_number_integer() &&
        !(value.is_number_float() && value.get<double>() == std::floor(value.get<double>()))) {
      fail(location, "'" + field + "' must be a positive integer, got " + value.dump());
    }
    if (value.is_number_float() ? value.get<double>() <= 0
                                : (value.is_number_unsigned() ? value.get<std::uint64_t>() == 0
                                                              : value.get<std::int64_t>() <= 0)) {
      fail(location, "'" + field + "' must be positive, got " + value.dump());
    }
    if (value.is_number_float() ? value.get<double>() > static_cast<double>(max)
                                : value.get<std::uint64_t>() > max) {
      fail(location, "'" + field + "' = " + value.dump() + " is impossible (more than " +
                         std::to_string(max) + ")");
    }
    return value.is_number_float() ? static_cast<std::uint64_t>(value.get<double>())
                                   : value.get<std::uint64_t>();
  }

  double fraction(const json& value, const std::string& location, const std::string& field) const {
    if (!value.is_number()) fail(location, "'" + field + "' must be a number in (0, 1]");
    double f = value.get<double>();
    if (!(f > 0.0 && f <= 1.0)) {
      fail(location, "'" + field + "' must be in (0, 1], got " + value.dump());
    }
    return f;
  }

  std::string name(const json& value, const std::string& location, const std::string& field) const {
    if (!value.is_string() || value.get<std::string>().empty()) {
      fail(location, "'" + field + "' must be a non-empty string, got " + value.dump());
    }
    std::string s = value.get<std::string>();
    if (s.find_first_of("[]") != std::string::npos) {
      fail(location, "'" + field + "' may not contain '[' or ']' (used for group members)");
    }
    // Names go raw into results, tables and pages (platform/name_characters.hpp says why).
    if (std::string c = forbidden_name_character(s); !c.empty()) {
      fail(location, "'" + field + "' holds " + c +
                         ", a control, invisible, text-direction or noncharacter code point: a "
                         "name holds none");
    }
    return s;
  }

  void expect_only(const json& step, const std::set<std::string>& allowed,
                   const std::string& location) const {
    for (auto it = step.begin(); it != step.end(); ++it) {
      if (allowed.count(it.key()) == 0) {
        std::string list;
        for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
        fail(location, "unexpected field '" + it.key() + "' (this step takes: " + list + ")");
      }
    }
  }

  std::uint64_t alloc_bytes(const json& step, const std::string& location) const {
    int forms = step.contains("bytes") + step.contains("shape") + step.contains("device_fraction");
    if (forms != 1) {
      fail(location,
           "alloc needs exactly one of 'bytes', 'shape' (+ 'dtype') or 'device_fraction'");
    }
    if (step.contains("bytes"))
      return positive_integer(step["bytes"], location, "bytes", kMaxRequestBytes);
    if (step.contains("device_fraction")) return 0;
    const json& shape = step["shape"];
    if (!shape.is_array() || shape.empty())
      fail(location, "'shape' must be a non-empty array of positive integers");
    if (!step.contains("dtype") || !step["dtype"].is_string())
      fail(location, "'shape' needs a 'dtype' such as \"float32\"");
    std::uint64_t element = dtype_bytes(step["dtype"].get<std::string>());
    if (element == 0)
      fail(location, "unknown dtype " + step["dtype"].dump() +
                         " (known: float64, float32, float16, bfloat16, int64, int32, int16, int8, "
                         "uint8, bool)");
    std::uint64_t total = element;
    for (const auto& dim : shape) {
      std::uint64_t d = positive_integer(dim, location, "shape", kMaxRequestBytes);
      if (total > kMaxRequestBytes / d) {
        fail(location, "shape " + shape.dump() + " is impossible (more than " +
                           std::to_string(kMaxRequestBytes) + " bytes)");
      }
      total *= d;
    }
    if (total > kMaxRequestBytes)
      fail(location, "shape " + shape.dump() + " is impossible (more than " +
                         std::to_string(kMaxRequestBytes) + " bytes)");
    return total;
  }

  void parse_steps(const json& steps, const std::string& prefix, const std::string& repetition,
                   int depth, std::vector<Step>* out) const {
    if (!steps.is_array()) fail(prefix.empty() ? "steps" : prefix, "'steps' must be an array");
    for (std::size_t i = 0; i < steps.size(); ++i) {
      std::string location =
          (prefix.empty() ? "steps" : prefix + ".steps") + "[" + std::to_string(i) + "]";
      const json& s = steps[i];
      if (!s.is_object()) fail(location + repetition, "a step must be an object, got " + s.dump());
      std::string where = location + repetition;
      Step step;
      step.location = where;
      if (s.contains("alloc")) {
        expect_only(s, {"alloc", "bytes", "shape", "dtype", "device_fraction"}, where);
        step.kind = StepKind::kAlloc;
        step.id = name(s["alloc"], where, "alloc");
        step.bytes = alloc_bytes(s, where);
        if (s.contains("device_fraction"))
          step.device_fraction = fraction(s["device_fraction"], where, "device_fraction");
      } else if (s.contains("alloc_many")) {
        expect_only(s, {"alloc_many", "sizes", "until_device_fraction"}, where);
        step.kind = StepKind::kAllocMany;
        step.id = name(s["alloc_many"], where, "alloc_many");
        if (!s.contains("sizes") || !s["sizes"].is_array() || s["sizes"].empty())
          fail(where, "alloc_many needs 'sizes', a non-empty array of byte counts");
        for (const auto& b : s["sizes"])
          step.sizes.push_back(positive_integer(b, where, "sizes", kMaxRequestBytes));
        if (!s.contains("until_device_fraction"))
          fail(where, "alloc_many needs 'until_device_fraction'");
        step.until_device_fraction =
            fraction(s["until_device_fraction"], where, "until_device_fraction");
        // A fraction that leaves the group empty on any device (up to 1 PiB): its alloc_many and
        // free_many vanished from the run without a word, where device_fraction's 0 bytes is
        // refused (the fifteenth adversarial pass, c4-workload-until-fraction-tiny-vanishes).
        // On a smaller device (a small --host-capacity) a group may still come out empty.
        if (step.until_device_fraction * kLargestDeviceBytes < static_cast<double>(step.sizes[0]))
          fail(where, "until_device_fraction " + s["until_device_fraction"].dump() +
                          " leaves the group empty on any device (less than its first size, " +
                          std::to_string(step.sizes[0]) + " bytes, of 1 PiB)");
      } else if (s.contains("free")) {
        expect_only(s, {"free"}, where);
        step.kind = StepKind::kFree;
        step.id = name(s["free"], where, "free");
      } else if (s.contains("free_many")) {
        expect_only(s, {"free_many", "every", "offset"}, where);
        step.kind = StepKind::kFreeMany;
        step.id = name(s["free_many"], where, "free_many");
        step.every =
            s.contains("every") ? positive_integer(s["every"], where, "every", 1'000'000) : 1;
        if (s.contains("offset")) {
          if (!s["offset"].is_number_unsigned() &&
              !(s["offset"].is_number_integer() && s["offset"].get<std::int64_t>() >= 0))
            fail(where, "'offset' must be a non-negative integer");
          step.offset = s["offset"].get<std::uint64_t>();
        }
        if (step.offset >= step.every) fail(where, "'offset' must be less than 'every'");
      } else if (s.contains("release")) {
        expect_only(s, {"release"}, where);
        if (s["release"] != true) fail(where, "'release' must be true");
        step.kind = StepKind::kRelease;
      } else if (s.contains("mark")) {
        expect_only(s, {"mark"}, where);
        step.kind = StepKind::kMark;
        step.label = name(s["mark"], where, "mark");
        // '#' numbers a label's later marks in compare ("a#2"): a mark labelled "a#2" took the
        // second "a"'s rows, and a growth there passed the gate (the fifteenth adversarial
        // pass, c6-mark-label-dedupe-collision-*).
        if (step.label.find('#') != std::string::npos)
          fail(where, "'mark' may not contain '#' (compare numbers a repeated label's marks: a#2)");
        // '@' numbers the marks inside a repeat ("a@1"): a mark written "a@1" beside a repeat's
        // "a" made two marks of one label in a cell (the seventy-third adversarial pass,
        // c6-mark-at-suffix-collision).
        if (step.label.find('@') != std::string::npos)
          fail(where, "'mark' may not contain '@' (marks inside a repeat are numbered: a@1)");
        step.label += repetition_suffix(repetition);
      } else if (s.contains("sleep_ms")) {
        expect_only(s, {"sleep_ms"}, where);
        step.kind = StepKind::kSleep;
        step.sleep_ms = positive_integer(s["sleep_ms"], where, "sleep_ms", 600'000);
      } else if (s.contains("program")) {
        expect_only(s, {"program", "args"}, where);
        step.kind = StepKind::kProgram;
        step.program = name(s["program"], where, "program");
        if (s.contains("args") && !s["args"].is_object()) fail(where, "'args' must be an object");
        step.args_json = s.contains("args") ? s["args"].dump() : "{}";
      } else if (s.contains("repeat")) {
        expect_only(s, {"repeat", "steps"}, where);
        if (depth >= 4) fail(where, "repeat blocks nest at most 4 deep");
        std::uint64_t times = positive_integer(s["repeat"], where, "repeat", kMaxExpandedSteps);
        if (!s.contains("steps")) fail(where, "repeat needs 'steps'");
        for (std::uint64_t r = 0; r < times; ++r) {
          const std::size_t before = out->size();
          parse_steps(s["steps"], location, repetition + " (repetition " + std::to_string(r) + ")",
                      depth + 1, out);
          if (out->size() > kMaxExpandedSteps)
            fail(where, "expands to more than " + std::to_string(kMaxExpandedSteps) + " steps");
          // Every repetition adds what the first did: none, and so do the rest. Repeats of an
          // empty list nested a million deep each turned 10^12 times before any check (the
          // thirty-sixth adversarial pass, c4-nested-empty-repeat-*).
          if (out->size() == before) break;
        }
        continue;
      } else {
        std::string keys;
        for (auto it = s.begin(); it != s.end(); ++it)
          keys += (keys.empty() ? "" : ", ") + it.key();
        fail(where, "unknown step {" + keys +
                        "} (known: alloc, alloc_many, free, free_many, release, mark, sleep_ms, "
                        "repeat, program)");
      }
      out->push_back(step);
    }
  }

  static std::string repetition_suffix(const std::string& repetition) {
    // "(repetition 3)" nested as "(repetition 1) (repetition 3)" -> "@1.3"
    std::string suffix;
    std::size_t pos = 0;
    while ((pos = repetition.find("repetition ", pos)) != std::string::npos) {
      pos += 11;
      std::size_t end = repetition.find(')', pos);
      suffix += (suffix.empty() ? "@" : ".") + repetition.substr(pos, end - pos);
    }
    return suffix;
  }

 private:
  std::string source_;
};

}  // namespace

WorkloadError::WorkloadError(const std::string& source, const std::string& location,
                             const std::string& message)
    : std::runtime_error(
          nul_escaped(source + ": " + (location.empty() ? "" : location + ": ") + message)) {}

const char* step_kind_name(StepKind kind) {
  switch (kind) {
    case StepKind::kAlloc:
      return "alloc";
    case StepKind::kAllocMany:
      return "alloc_many";
    case StepKind::kFree:
      return "free";
    case StepKind::kFreeMany:
      return "free_many";
    case StepKind::kRelease:
      return "release";
    case StepKind::kMark:
      return "mark";
    case StepKind::kSleep:
      return "sleep";
    case StepKind::kProgram:
      return "program";
  }
  return "?";
}

Workload parse_workload_text(const std::string& text, const std::string& source) {
  Parser parser(source);
  json doc;
  try {
    // memrel's own other kinds named: a history was "malformed JSON at byte 16: a NUL byte"
    // (the seventy-fourth adversarial pass, c10-sqlite-as-workload).
    if (std::string kind = other_memrel_kind(text, "workload"); !kind.empty())
      throw InputError(source, "", kind);
    doc = parse_input_json(text, source);  // malformed, ambiguous (a key twice), 1e400
  } catch (const InputError& e) {
    parser.fail(e.place(), e.message());
  }
  if (!doc.is_object()) parser.fail("", "a workload must be a JSON object");
  if (!doc.contains("schema"))
    parser.fail("", std::string("missing \"schema\": \"") + kSchema + "\"");
  if (doc["schema"] != kSchema)
    parser.fail("schema", "unsupported schema " + doc["schema"].dump() + " (this memrel reads \"" +
                              kSchema + "\")");
  for (auto it = doc.begin(); it != doc.end(); ++it) {
    if (it.key() != "schema" && it.key() != "name" && it.key() != "description" &&
        it.key() != "steps") {
      parser.fail(it.key(), "unexpected field (a workload has: schema, name, description, steps)");
    }
  }
  Workload w;
  w.source = source;
  w.name = parser.name(doc.value("name", json()), "name", "name");
  if (doc.contains("description")) {
    if (!doc["description"].is_string()) parser.fail("description", "must be a string");
    w.description = doc["description"].get<std::string>();
  }
  if (!doc.contains("steps")) parser.fail("steps", "missing");
  parser.parse_steps(doc["steps"], "", "", 0, &w.steps);
  if (w.steps.empty()) parser.fail("steps", "a workload needs at least one step");
  resolve_steps(w, kNominalCapacityBytes, kValidationGroupMembers);  // id errors, double frees
  return w;
}

Workload parse_workload_file(const std::string& path) {
  if (is_trace_path(path)) {
    auto trace = std::make_shared<Trace>(load_trace_file(path));
    Workload w;
    w.name = trace->name;
    w.description = std::to_string(trace->records.size()) + " events from " + trace->source_file +
                    " (" + trace->source_format + ")";
    w.source = path;
    w.trace = std::move(trace);
    return w;
  }
  std::string text;
  try {
    text = read_input_text(path, kMaxWorkloadFileBytes, "workload");
  } catch (const InputError& e) {
    throw WorkloadError(path, e.place(), e.message());
  }
  return parse_workload_text(text, path);
}

namespace {
ConcreteStep concrete(StepKind kind, const std::string& location, const std::string& id = "",
                      std::uint64_t bytes = 0) {
  ConcreteStep c;
  c.kind = kind;
  c.location = location;
  c.id = id;
  c.bytes = bytes;
  return c;
}
// How many blocks an alloc_many group holds on a device of capacity_bytes, at most max_members:
// one rule for resolve_steps and check_resolvable.
std::uint64_t group_members(const Step& s, std::uint64_t capacity_bytes,
                            std::uint64_t max_members) {
  const std::uint64_t target = static_cast<std::uint64_t>(
      std::floor(s.until_device_fraction * static_cast<double>(capacity_bytes)));
  std::uint64_t total = 0, n = 0;
  while (n < max_members) {
    const std::uint64_t bytes = s.sizes[n % s.sizes.size()];
    if (total + bytes > target) break;
    total += bytes;
    ++n;
  }
  return n;
}
}  // namespace

void check_resolvable(const Workload& workload, std::uint64_t capacity_bytes) {
  resolve_steps(workload, capacity_bytes, 1);  // every rule but the groups' sizes
  // The steps the groups expand to, counted as resolve_steps counts them, without building
  // them (a million steps take some 200 MB): a group past kMaxExpandedSteps was found only in
  // the cell, exit 3 (the seventeenth adversarial pass, c4-alloc-many-expands-past-cap-exit3).
  std::uint64_t steps = 0;
  for (const Step& s : workload.steps) {
    if (s.kind != StepKind::kAllocMany) {
      ++steps;  // a free_many's frees are not counted against the limit, as in resolve_steps
      continue;
    }
    steps += group_members(s, capacity_bytes, kMaxExpandedSteps + 1);
    if (steps > kMaxExpandedSteps)
      throw WorkloadError(workload.source, s.location,
                          "expands to more than " + std::to_string(kMaxExpandedSteps) + " steps");
  }
}

std::vector<ConcreteStep> resolve_steps(const Workload& workload, std::uint64_t capacity_bytes,
                                        std::uint64_t max_group_members) {
  std::vector<ConcreteStep> out;
  std::map<std::string, std::string> live;      // id -> where allocated
  std::map<std::string, std::string> freed_at;  // id -> where last freed
  std::map<std::string, std::uint64_t> groups;  // group -> member count
  auto fail = [&](const Step& s, const std::string& message) -> void {
    throw WorkloadError(workload.source, s.location, message);
  };
  auto free_one = [&](const Step& s, const std::string& id) {
    if (live.count(id) == 0) {
      if (freed_at.count(id))
        fail(s, "double free of '" + id + "' (already freed at " + freed_at[id] + ")");
      fail(s, "free of unknown id '" + id + "' (never allocated)");
    }
    live.erase(id);
    freed_at[id] = s.location;
    ConcreteStep c = concrete(StepKind::kFree, s.location, id);
    out.push_back(c);
  };
  for (const Step& s : workload.steps) {
    switch (s.kind) {
      case StepKind::kAlloc: {
        if (live.count(s.id))
          fail(s, "alloc of '" + s.id + "', which is still live (allocated at " + live[s.id] + ")");
        if (groups.count(s.id))
          fail(s, "'" + s.id + "' is already the name of an alloc_many group");
        std::uint64_t bytes = s.bytes;
        if (s.device_fraction > 0) {
          bytes = static_cast<std::uint64_t>(
              std::floor(s.device_fraction * static_cast<double>(capacity_bytes)));
          if (bytes == 0) fail(s, "device_fraction resolves to 0 bytes");
        }
        live[s.id] = s.location;
        ConcreteStep c = concrete(StepKind::kAlloc, s.location, s.id, bytes);
        out.push_back(c);
        break;
      }
      case StepKind::kAllocMany: {
        if (groups.count(s.id)) fail(s, "alloc_many group '" + s.id + "' already exists");
        if (live.count(s.id)) fail(s, "'" + s.id + "' is already a live block");
        const std::uint64_t members = group_members(s, capacity_bytes, max_group_members);
        std::uint64_t n = 0;
        for (; n < members; ++n) {
          std::string id = s.id + "[" + std::to_string(n) + "]";
          live[id] = s.location;
          ConcreteStep c = concrete(StepKind::kAlloc, s.location, id, s.sizes[n % s.sizes.size()]);
          out.push_back(c);
          if (out.size() > kMaxExpandedSteps)
            fail(s, "expands to more than " + std::to_string(kMaxExpandedSteps) + " steps");
        }
        groups[s.id] = n;
        break;
      }
      case StepKind::kFree:
        if (groups.count(s.id)) fail(s, "'" + s.id + "' is a group: use free_many");
        free_one(s, s.id);
        break;
      case StepKind::kFreeMany: {
        auto it = groups.find(s.id);
        if (it == groups.end()) fail(s, "free_many of unknown group '" + s.id + "'");
        for (std::uint64_t i = s.offset; i < it->second; i += s.every) {
          free_one(s, s.id + "[" + std::to_string(i) + "]");
        }
        break;
      }
      case StepKind::kRelease: {
        ConcreteStep c = concrete(StepKind::kRelease, s.location);
        out.push_back(c);
        break;
      }
      case StepKind::kMark: {
        ConcreteStep c = concrete(StepKind::kMark, s.location);
        c.label = s.label;
        out.push_back(c);
        break;
      }
      case StepKind::kSleep: {
        ConcreteStep c = concrete(StepKind::kSleep, s.location);
        c.sleep_ms = s.sleep_ms;
        out.push_back(c);
        break;
      }
      case StepKind::kProgram: {
        ConcreteStep c = concrete(StepKind::kProgram, s.location, s.program);
        c.program = s.program;
        c.args_json = s.args_json;
        out.push_back(c);
        break;
      }
    }
  }
  return out;
}

}  // namespace memrel
