// A backend's settings (allocators/backend_settings.hpp): parsed for every family alike, each
// value checked against its family's declaration, named canonically, aliases found.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "allocators/backend_table.hpp"

namespace memrel {
namespace {

std::string error_of(const std::string& spec) {
  try {
    resolve_backend(spec, "");
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(BackendSettings, OneConfigurationHasOneNameWhateverTheOrderAndSpelling) {
  BackendInfo a = resolve_backend("host-malloc:trim_threshold=0,mmap_threshold=1048576", "");
  BackendInfo b = resolve_backend("host-malloc:mmap_threshold=1MiB,trim_threshold=0", "");
  EXPECT_EQ(a.name, "host-malloc:mmap_threshold=1MiB,trim_threshold=0");
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.settings, (BackendSettings{{"mmap_threshold", "1MiB"}, {"trim_threshold", "0"}}));
  EXPECT_EQ(a.settings_root, "host-malloc");
  EXPECT_EQ(a.apply_line,
            "GLIBC_TUNABLES=glibc.malloc.mmap_threshold=1048576:glibc.malloc.trim_threshold=0");
}

TEST(BackendSettings, AnAliasIsTheConfigurationOfItsSettings) {
  EXPECT_EQ(resolve_backend("host-malloc:trim_threshold=2147483647,mmap_max=0,top_pad=0", "").name,
            "host-malloc-retain");
  EXPECT_EQ(resolve_backend("torch-native:expandable_segments=true", "").name, "torch-expandable");
  EXPECT_EQ(resolve_backend("torch-native:backend=cudaMallocAsync", "").name, "torch-async");
  EXPECT_EQ(resolve_backend("torch-native:per_process_memory_fraction=0.90,"
                            "garbage_collection_threshold=0.6,max_split_size_mb=128",
                            "")
                .name,
            "torch-gc");
  // Settings over an alias's: the alias's first, the given ones over them.
  EXPECT_EQ(resolve_backend("torch-expandable:max_split_size_mb=256", "").name,
            "torch-native:expandable_segments=True,max_split_size_mb=256");
  // A default is no setting.
  EXPECT_EQ(resolve_backend("torch-native:expandable_segments=False", "").name, "torch-native");
}

TEST(BackendSettings, TorchConfigurationsCarryTheirAllocConfInTheCellsEnvironment) {
  BackendInfo b = resolve_backend("torch-native:max_split_size_mb=256,expandable_segments=1", "");
  EXPECT_EQ(b.name, "torch-native:expandable_segments=True,max_split_size_mb=256");
  EXPECT_EQ(b.cell_environment.at("PYTORCH_CUDA_ALLOC_CONF"),
            "expandable_segments:True,max_split_size_mb:256");
  EXPECT_EQ(b.cell_environment.at("PYTORCH_ALLOC_CONF"),
            "expandable_segments:True,max_split_size_mb:256");
  EXPECT_EQ(b.apply_line, "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True,max_split_size_mb:256");
  EXPECT_EQ(
      resolve_backend("torch-gc", "").cell_environment.at("PYTORCH_ALLOC_CONF"),
      "garbage_collection_threshold:0.6,max_split_size_mb:128,per_process_memory_fraction:0.9");
}

TEST(BackendSettings, RmmPoolSizes) {
  BackendInfo b = resolve_backend("rmm-pool:initial=8GiB,maximum=16GiB", "");
  EXPECT_EQ(b.name, "rmm-pool:initial=8GiB,maximum=16GiB");
  EXPECT_EQ(resolve_backend("rmm-pool:initial=0", "").name, "rmm-pool");
  EXPECT_NE(error_of("rmm-pool:initial=8GiB,maximum=4GiB").find("maximum is below initial"),
            std::string::npos);
}

TEST(BackendSettings, EveryBadSettingIsOneLineNamingIt) {
  EXPECT_EQ(error_of("host-malloc:trim_treshold=0"),
            "backend 'host-malloc:trim_treshold=0': unknown setting 'trim_treshold'; did you mean "
            "trim_threshold? (host-malloc takes: arena_max, mmap_max, mmap_threshold, top_pad, "
            "trim_threshold)");
  EXPECT_NE(error_of("host-malloc:mmap_threshold=64MiB").find("mmap_threshold=64MiB"),
            std::string::npos);
  EXPECT_NE(error_of("torch-native:expandable_segments=yes").find("expected True or False"),
            std::string::npos);
  EXPECT_NE(error_of("torch-native:max_split_size_mb=20").find("from 21"), std::string::npos);
  EXPECT_NE(error_of("torch-native:roundup_power2_divisions=3").find("a power of two"),
            std::string::npos);
  EXPECT_NE(error_of("torch-native:garbage_collection_threshold=1").find("at most"),
            std::string::npos);
  EXPECT_NE(error_of("torch-native:backend=async").find("one of native, cudaMallocAsync"),
            std::string::npos);
  EXPECT_NE(error_of("torch-native:backend=cudaMallocAsync,max_split_size_mb=64")
                .find("ignores max_split_size_mb"),
            std::string::npos);
  EXPECT_NE(error_of("torch-native:garbage_collection_threshold=0.6")
                .find("without per_process_memory_fraction"),
            std::string::npos);
  EXPECT_NE(error_of("null:x=1").find("null takes no settings"), std::string::npos);
  EXPECT_NE(error_of("host-malloc:").find("nothing after ':'"), std::string::npos);
  EXPECT_NE(error_of("host-malloc:trim_threshold").find("is not KEY=VALUE"), std::string::npos);
  EXPECT_NE(error_of("host-malloc:trim_threshold=0,trim_threshold=1").find("given twice"),
            std::string::npos);
  for (const char* spec : {"host-malloc:trim_treshold=0", "torch-native:backend=async"})
    EXPECT_EQ(error_of(spec).find('\n'), std::string::npos) << spec;
}

// Numbers are read as every number memrel reads (docs/inputs.md): bounds compared as written, not
// as the double the text rounds to; no leading zero; no spelling strtod alone takes.
TEST(BackendSettings, NumbersAreComparedWithTheirBoundsAsWritten) {
  EXPECT_NE(
      error_of("torch-native:per_process_memory_fraction=1.00000000000000000001").find("at most 1"),
      std::string::npos);
  EXPECT_NE(error_of("torch-native:per_process_memory_fraction=0.9,"
                     "garbage_collection_threshold=0.9999990000000000000001")
                .find("at most 0.999999"),
            std::string::npos);
  for (const char* spelling : {"0x0.8", "+0.5", " 0.5", "0.5 ", "inf", "1e-400"}) {
    EXPECT_NE(error_of(std::string("torch-native:per_process_memory_fraction=") + spelling)
                  .find("expected a number above 0"),
              std::string::npos)
        << spelling;
  }
  EXPECT_NE(error_of("host-malloc:arena_max=007").find("a whole number from 1 to 1024"),
            std::string::npos);
  EXPECT_NE(error_of("host-malloc:mmap_max=00").find("a whole number"), std::string::npos);
  // The bounds themselves, and other spellings of a number within them, are taken.
  EXPECT_EQ(error_of("torch-native:per_process_memory_fraction=1.000000000000000000000"), "");
  EXPECT_EQ(error_of("torch-native:per_process_memory_fraction=.5"), "");
  EXPECT_EQ(error_of("torch-native:per_process_memory_fraction=5e-1"), "");
  EXPECT_EQ(error_of("host-malloc:arena_max=1024"), "");
  EXPECT_EQ(error_of("host-malloc:mmap_max=0"), "");
  EXPECT_NE(error_of("host-malloc:arena_max=1025").find("from 1 to 1024"), std::string::npos);
}

TEST(BackendSettings, ABackendListSplitsBetweenBackendsNotBetweenSettings) {
  EXPECT_EQ(split_backend_list({"torch-native:a=1,b=2,host-malloc", "null"}),
            (std::vector<std::string>{"torch-native:a=1,b=2", "host-malloc", "null"}));
  EXPECT_EQ(split_backend_list({"host-malloc,host-malloc:trim_threshold=0,top_pad=0"}),
            (std::vector<std::string>{"host-malloc", "host-malloc:trim_threshold=0,top_pad=0"}));
}

}  // namespace
}  // namespace memrel
