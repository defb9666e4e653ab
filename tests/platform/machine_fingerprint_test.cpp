#include "platform/machine_fingerprint.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

namespace {

using memrel::MachineFingerprint;

MachineFingerprint h200(const std::string& uuid) {
  MachineFingerprint f;
  f.gpu_model = "NVIDIA H200";
  f.gpu_uuid = uuid;
  f.driver_version = "580.159.04";
  f.cuda_driver_version = 13000;
  f.cuda_runtime_version = 13000;
  f.cpu_model = "AMD EPYC 9654";
  f.host = "node-1";
  f.memrel_commit = "abc123";
  f.runtime_versions = {{"torch", "2.11.0"}};
  return f;
}

TEST(MachineFingerprint, ThisMachineNamesItsCpuAndTheCommitMemrelWasBuiltFrom) {
  MachineFingerprint f = memrel::machine_fingerprint(0);
  EXPECT_FALSE(f.cpu_model.empty());
  EXPECT_FALSE(f.host.empty());
  EXPECT_FALSE(f.memrel_commit.empty());
  EXPECT_TRUE(f.runtime_versions.empty()) << "only a process that loaded a runtime can tell it";
  if (!f.gpu_model) {
    EXPECT_FALSE(f.gpu_uuid) << "a UUID without a model";
  }
}

TEST(MachineFingerprint, JsonRoundTripKeepsTheIdentity) {
  MachineFingerprint f = h200("GPU-1");
  MachineFingerprint back = memrel::fingerprint_from_json(memrel::to_json(f));
  EXPECT_TRUE(memrel::fingerprint_differences(f, back).empty());
  EXPECT_EQ(memrel::machine_id(f), memrel::machine_id(back));
  EXPECT_EQ(memrel::machine_id(f).size(), 16u);
}

TEST(MachineFingerprint, AnotherGpuOfTheSameModelIsAnotherMachine) {
  MachineFingerprint a = h200("GPU-1"), b = h200("GPU-2");
  b.memrel_commit = "def456";
  EXPECT_NE(memrel::machine_id(a), memrel::machine_id(b));
  EXPECT_EQ(memrel::fingerprint_differences(a, b),
            (std::vector<std::string>{"gpu_uuid", "memrel_commit"}));
}

TEST(MachineFingerprint, OtherCodeOnTheSameMachineKeepsTheMachineId) {
  MachineFingerprint a = h200("GPU-1"), b = h200("GPU-1");
  b.memrel_commit = "def456";
  b.runtime_versions["torch"] = "2.12.0";
  EXPECT_EQ(memrel::machine_id(a), memrel::machine_id(b));
  b.driver_version = "590.1";
  EXPECT_NE(memrel::machine_id(a), memrel::machine_id(b));
}

TEST(MachineFingerprint, AnOlderFilesRuntimeVersionFieldIsReadAsARuntimeVersion) {
  nlohmann::json j = memrel::to_json(h200("GPU-1"));
  j.erase("runtime_versions");
  j["torch_version"] = "2.11.0";
  j["cuda_runtime_version"] = 13000;  // a field of the machine, not a runtime of a backend
  MachineFingerprint f = memrel::fingerprint_from_json(j);
  EXPECT_EQ(f.runtime_versions, (std::map<std::string, std::string>{{"torch", "2.11.0"}}));
  EXPECT_EQ(f.cuda_runtime_version, 13000);
}

TEST(MachineFingerprint, AFieldOfTheWrongTypeIsNamed) {
  nlohmann::json j = memrel::to_json(h200("GPU-1"));
  j["cuda_driver_version"] = "thirteen";
  try {
    memrel::fingerprint_from_json(j);
    FAIL() << "accepted a string for cuda_driver_version";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("cuda_driver_version"), std::string::npos) << e.what();
  }
  EXPECT_THROW(memrel::fingerprint_from_json(nlohmann::json::array()), std::invalid_argument);
}

}  // namespace
