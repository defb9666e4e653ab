#include "gate/rules/fingerprint_rules.hpp"

namespace memrel {
namespace {

std::string joined(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : ", ") + w;
  return out;
}

std::string described(const std::optional<MachineFingerprint>& f) {
  if (!f) return "none recorded";
  std::string out = "machine " + machine_id(*f) + " (" + f->gpu_model.value_or("no GPU") +
                    "), memrel " + f->memrel_commit;
  for (const auto& [runtime, version] : f->runtime_versions) out += ", " + runtime + " " + version;
  return out;
}

bool is_machine_field(const std::string& field) {
  for (const auto& m : machine_fields()) {
    if (m == field) return true;
  }
  return false;
}

}  // namespace

LatencyStanding latency_standing(const std::optional<MachineFingerprint>& baseline,
                                 const std::optional<MachineFingerprint>& current,
                                 bool interleaved) {
  LatencyStanding s;
  std::vector<Row> rows;
  if (interleaved) {
    // Two builds or configurations alternating on one machine: their fingerprints may differ in
    // the commit or torch version (that is what is compared), never in the machine.
    s.may_gate = true;
    return s;
  }
  if (!baseline || !current) {
    s.why_not = std::string(!baseline ? "the baseline" : "this run") +
                " records no machine fingerprint: latency is information only";
    add_row(rows, "file", "machine fingerprint", described(baseline), described(current), "",
            Verdict::kInfo, s.why_not);
  } else {
    std::vector<std::string> machine, software;
    for (const auto& field : fingerprint_differences(*baseline, *current))
      (is_machine_field(field) ? machine : software).push_back(field);
    if (!machine.empty()) {
      s.why_not = "another machine (" + joined(machine) +
                  "): latency is information only; gate it with memrel ab";
      add_row(rows, "file", "machine fingerprint", described(baseline), described(current), "",
              Verdict::kInfo,
              "another machine (" + joined(machine) + "): latency reported, not gated");
    } else {
      s.may_gate = true;
      if (!software.empty())
        add_row(rows, "file", "machine fingerprint", described(baseline), described(current), "",
                Verdict::kInfo,
                "same machine, other " + joined(software) +
                    ": latency comparable (gated as ab halves or with --normalize-drift)");
    }
  }
  if (!rows.empty()) s.row = rows.front();
  return s;
}

}  // namespace memrel
