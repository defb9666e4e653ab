// The dynamic loader's warning for a preload it skipped, read back (platform/loader_preload.hpp).
// preload_skipped_under starts this program with --version, which is memrel's and not a test
// binary's: it is tested through memrel (tests/python/test_hostile_inputs_seventy_second_pass.py).
#include "platform/loader_preload.hpp"

#include <gtest/gtest.h>

namespace memrel {
namespace {

TEST(LoaderPreload, TheLoadersWordsForASkippedLibraryAreReadBack) {
  EXPECT_EQ(skipped_preload("memrel 0.1.0\n"), "");
  EXPECT_EQ(skipped_preload("ERROR: ld.so: object '/x/no.so' from LD_PRELOAD cannot be preloaded "
                            "(cannot open shared object file): ignored.\nmemrel 0.1.0\n"),
            "object '/x/no.so' from LD_PRELOAD cannot be preloaded (cannot open shared object "
            "file)");
  EXPECT_EQ(skipped_preload("ERROR: ld.so: object '/a.so' cannot be loaded as audit interface: "
                            "cannot open shared object file; ignored.\n"),
            "object '/a.so' cannot be loaded as audit interface: cannot open shared object file");
}

TEST(LoaderPreload, OnlyAPreloadOrAnAuditLibraryIsAsked) {
  EXPECT_FALSE(sets_preload({}));
  EXPECT_FALSE(sets_preload({{"LD_PRELOAD", ""}, {"LD_LIBRARY_PATH", "/opt/lib"}}));
  EXPECT_TRUE(sets_preload({{"LD_PRELOAD", "libjemalloc.so.2"}}));
  EXPECT_TRUE(sets_preload({{"LD_AUDIT", "/a.so"}}));
}

}  // namespace
}  // namespace memrel
