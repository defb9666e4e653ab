// Where and with what a figure was measured: the machine (GPU model and UUID, driver, CUDA, CPU,
// host) and the software under test (memrel's commit, the versions of the runtimes the backends
// loaded, such as a framework's). Bytes are the same on
// every machine of one GPU model; latencies are not (a warm pool allocation took 2.0-2.2 us on
// one lent H200 and 1.26 us on another), so the gate judges a latency only against a baseline
// from the same machine, and the history keeps one series per machine (docs/gate.md, "Machine
// fingerprints"). The software fields are recorded and shown, but a change in them is what a
// regression gate exists to judge, so they are not part of the machine's identity.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace memrel {

struct MachineFingerprint {
  std::optional<std::string> gpu_model;       // NVML's name, e.g. "NVIDIA H200"; none without a GPU
  std::optional<std::string> gpu_uuid;        // "GPU-...": one physical device
  std::optional<std::string> driver_version;  // e.g. "580.159.04"
  std::optional<int> cuda_driver_version;     // what the driver supports, e.g. 13000
  std::optional<int> cuda_runtime_version;    // what memrel was linked with; none without CUDA
  std::string cpu_model;                      // /proc/cpuinfo's first "model name"
  std::string host;                           // gethostname(): tells CPU-only machines apart
  std::string memrel_commit;                  // `git describe` when memrel was configured
  // Runtime name -> version, as the cells that loaded them reported (allocators' families).
  std::map<std::string, std::string> runtime_versions;
};

// Every field, in the order differences are listed.
const std::vector<std::string>& fingerprint_fields();
// The machine's identity: every field but memrel_commit and runtime_versions.
const std::vector<std::string>& machine_fields();

// The fingerprint of this machine for GPU `device_index` (NVML's order, nvidia-smi's index;
// with CUDA_VISIBLE_DEVICES set, its device_index-th entry, an index or a GPU UUID, names the
// device, as CUDA would number it). No GPU, no NVML or no such device: the GPU fields are empty.
// runtime_versions is left empty: only a process that has loaded a runtime can tell its version.
MachineFingerprint machine_fingerprint(int device_index);

nlohmann::json to_json(const MachineFingerprint& f);  // every field; empty ones as null
// Reads what to_json wrote; fields it lacks stay empty. Throws std::invalid_argument naming the
// field when one has the wrong type.
MachineFingerprint fingerprint_from_json(const nlohmann::json& j);

// A short stable name for the machine (16 hex digits of FNV-1a over machine_fields()), for
// tables and the history database: the same machine has the same id whatever code it ran.
std::string machine_id(const MachineFingerprint& f);

// The fields in which two fingerprints differ, in fingerprint_fields() order; empty when equal.
std::vector<std::string> fingerprint_differences(const MachineFingerprint& a,
                                                 const MachineFingerprint& b);

}  // namespace memrel
