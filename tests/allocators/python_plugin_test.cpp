// The embedded-Python mechanism of the xla and cupy families (allocators/embedded_python/), end
// to end without a GPU: the plugin is loaded, the build's Python started, and a stand-in
// framework module (host memory from ctypes) driven through the same protocol as
// xla_backend.py and cupy_backend.py. What only a GPU can show (the frameworks themselves) is in
// the conformance suite's xla-* and cupy-* rows and docs/frameworks.md.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>

#include "allocators/embedded_python/python_plugin_loader.hpp"
#include "test_support.hpp"

namespace memrel {
namespace {

// The protocol of allocators/embedded_python/python_allocator.hpp, over ctypes buffers.
constexpr const char* kStandIn = R"(
import ctypes

class StandIn:
    def __init__(self, name):
        if name == "missing-framework":
            import memrel_no_such_framework
        if name == "broken":
            raise RuntimeError("broken on purpose\nsecond line")
        self.live = 0
        self.releases = 0
        self.free = self._free

    def allocate(self, n):
        if n > (1 << 40):
            raise MemoryError(f"cannot allocate {n} bytes")
        if n == 3:
            raise ValueError("three bytes are refused")
        block = ctypes.create_string_buffer(n)
        self.live += n
        return block, ctypes.addressof(block)

    def _free(self, block):
        self.live -= len(block)

    def release(self):
        self.releases += 1

    def synchronize(self):
        pass

    def fill(self, block, pointer, n):
        ctypes.memset(pointer, 0x5A, n)

    def usage(self):
        return self.live, None if self.releases == 0 else self.releases

    def is_out_of_memory(self, exception):
        return isinstance(exception, MemoryError)

    def versions(self):
        return {"standin": "1.2.3"}

def make_backend(name):
    return StandIn(name)
)";

class PythonPlugin : public ::testing::Test {
 protected:
  void SetUp() override {
    if (MEMREL_UNDER_ASAN)
      GTEST_SKIP() << "an embedded interpreter under AddressSanitizer reports Python's own "
                      "allocations as leaks";
    if (python_plugin_path().empty())
      GTEST_SKIP() << "libmemrel_python.so was not built (no Python embedding files)";
  }

  std::unique_ptr<Allocator> make(const std::string& backend) {
    return make_python_allocator("memrel_test_standin", kStandIn, backend);
  }
};

TEST_F(PythonPlugin, BlocksComeFromTheFrameworkAndGoBackToIt) {
  auto a = make("standin");
  void* p = a->allocate(100);
  void* q = a->allocate(200);
  ASSERT_NE(p, nullptr);
  ASSERT_NE(q, nullptr);
  EXPECT_NE(p, q);
  a->fill(p, 100);
  EXPECT_EQ(static_cast<unsigned char*>(p)[99], 0x5A);
  EXPECT_EQ(a->usage().allocated, std::optional<std::uint64_t>(300));
  EXPECT_FALSE(a->usage().reserved.has_value());
  a->deallocate(p, 100);
  EXPECT_EQ(a->usage().allocated, std::optional<std::uint64_t>(200));
  a->release();
  EXPECT_EQ(a->usage().reserved, std::optional<std::uint64_t>(1));
  a->deallocate(q, 200);
  EXPECT_EQ(a->usage().allocated, std::optional<std::uint64_t>(0));
  EXPECT_EQ(a->space(), MemorySpace::kDevice);
}

TEST_F(PythonPlugin, ZeroBytesAreNullAndNullIsFreedAsNothing) {
  auto a = make("standin");
  EXPECT_EQ(a->allocate(0), nullptr);
  a->deallocate(nullptr, 0);
  EXPECT_EQ(a->usage().allocated, std::optional<std::uint64_t>(0));
}

TEST_F(PythonPlugin, TheFrameworksOutOfMemoryIsOutOfMemoryWithTheRequestsSize) {
  auto a = make("standin");
  const std::size_t huge = std::size_t{1} << 50;
  try {
    a->allocate(huge);
    FAIL() << "no exception";
  } catch (const OutOfMemory& e) {
    EXPECT_EQ(e.bytes(), huge);
    EXPECT_NE(std::string(e.what()).find("MemoryError: cannot allocate"), std::string::npos)
        << e.what();
  }
  EXPECT_NE(a->allocate(8), nullptr) << "usable after the failure";
}

TEST_F(PythonPlugin, AnyOtherPythonErrorIsOneLineNamingIt) {
  auto a = make("standin");
  try {
    a->allocate(3);
    FAIL() << "no exception";
  } catch (const OutOfMemory&) {
    FAIL() << "a ValueError is not out of memory";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("ValueError: three bytes are refused"), std::string::npos)
        << e.what();
  }
  int here = 0;
  EXPECT_THROW(a->deallocate(&here, 1), std::invalid_argument);
}

TEST_F(PythonPlugin, AFrameworkThatCannotBeImportedMakesTheBackendUnavailable) {
  try {
    make("missing-framework");
    FAIL() << "no exception";
  } catch (const BackendUnavailable& e) {
    EXPECT_NE(std::string(e.what()).find("memrel_no_such_framework"), std::string::npos)
        << e.what();
  }
}

TEST_F(PythonPlugin, AFrameworkThatFailsToStartIsAnErrorOfOneLine) {
  try {
    make("broken");
    FAIL() << "no exception";
  } catch (const BackendUnavailable& e) {
    FAIL() << "a RuntimeError is not unavailability: " << e.what();
  } catch (const std::runtime_error& e) {
    std::string what = e.what();
    EXPECT_NE(what.find("RuntimeError: broken on purpose"), std::string::npos) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
  }
}

TEST_F(PythonPlugin, TheFrameworksVersionsAreReportedOnceLoaded) {
  auto a = make("standin");
  auto versions = loaded_python_framework_versions();
  EXPECT_EQ(versions["standin"], "1.2.3");
}

}  // namespace
}  // namespace memrel
