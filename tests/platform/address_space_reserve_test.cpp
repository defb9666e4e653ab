// A child that runs out of address space and retries for ever, as CPython does when it runs out
// while it unwinds an exception (platform/address_space_reserve.hpp), ends once memrel gives the
// reserve back; without that it spins.
#include "platform/address_space_reserve.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include <chrono>
#include <fstream>
#include <optional>
#include <string>

#include "platform/address_sanitizer.hpp"
#include "platform/child_process.hpp"

namespace memrel {
namespace {

// Maps address space (never touched: no memory used) until it is refused, then retries a 4 MiB
// map until one is granted: CPython's loop, in a few lines.
constexpr const char* kRunsOutAndRetries = R"(
import mmap
held = []
try:
    while True:
        held.append(mmap.mmap(-1, 1 << 20))
except (OSError, MemoryError):
    pass
while True:
    try:
        mmap.mmap(-1, 4 << 20)
        break
    except (OSError, MemoryError):
        pass
)";

// Maps address space until 9 to 10 MiB are left under its limit, then retries a 20 MiB map for
// ever: a large request refused far from the limit (numpy's OpenBLAS retried its buffers so).
constexpr const char* kRetriesALargeRequest = R"(
import mmap, resource
soft = resource.getrlimit(resource.RLIMIT_AS)[0]
def mapped():
    with open("/proc/self/status") as status:
        return int(next(l for l in status if l.startswith("VmSize:")).split()[1]) << 10
held = []
while soft - mapped() > (10 << 20):
    held.append(mmap.mmap(-1, 1 << 20))
while True:
    try:
        mmap.mmap(-1, REQUEST << 20)
        break
    except (OSError, MemoryError):
        pass
)";

// kRetriesALargeRequest asking for `mib` MiB.
std::string retrying(int mib) {
  std::string script = kRetriesALargeRequest;
  script.replace(script.find("REQUEST"), 7, std::to_string(mib));
  return script;
}

std::uint64_t own_mapped_bytes() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("VmSize:", 0) == 0) return std::stoull(line.substr(7)) << 10;
  return 0;
}

// This process under a soft address-space limit for the test's time, as under `ulimit -v`.
class SoftLimit {
 public:
  explicit SoftLimit(std::uint64_t bytes) {
    getrlimit(RLIMIT_AS, &saved_);
    struct rlimit lowered = saved_;
    lowered.rlim_cur = bytes;
    setrlimit(RLIMIT_AS, &lowered);
  }
  ~SoftLimit() { setrlimit(RLIMIT_AS, &saved_); }

 private:
  struct rlimit saved_ {};
};

struct Ended {
  bool ended = false;
  int status = 0;
  int rescued = 0;
  bool gave_up = false;
};

// Runs the child and waits up to `seconds`, giving the reserve back while it waits or not.
Ended run_child(bool rescue, int seconds, const std::string& script = kRunsOutAndRetries) {
  const std::optional<std::uint64_t> reserved = reserved_address_space_limit();
  EXPECT_TRUE(reserved.has_value());
  ChildSpec spec;
  spec.args = {"python3", "-I", "-c", script};
  spec.search_path = true;
  spec.address_space_soft_limit = *reserved;
  const pid_t pid = start_child(spec);
  AddressSpaceRescue watch(pid, *reserved, *reserved + kAddressSpaceReserveBytes);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  Ended result;
  int stopped_by = 0;
  bool killed = false;
  result.status = wait_child_or_stop(pid, true, &stopped_by, &killed, [&] {
    if (rescue) watch.check();
    if (std::chrono::steady_clock::now() > deadline) kill(pid, SIGKILL);
  });
  result.ended = !(WIFSIGNALED(result.status) && WTERMSIG(result.status) == SIGKILL);
  result.rescued = watch.rescued();
  result.gave_up = watch.gave_up();
  return result;
}

TEST(AddressSpaceReserve, NoneWithoutALimitOrUnderFourReserves) {
  bool without_limit = true, under_four = true, over_four = false;
  {
    SoftLimit none(RLIM_INFINITY);
    without_limit = reserved_address_space_limit().has_value();
  }
  {
    // Below what this process maps already: nothing in the scope maps more (getrlimit only).
    SoftLimit small(3 * kAddressSpaceReserveBytes);
    under_four = reserved_address_space_limit().has_value();
  }
  {
    SoftLimit large(std::uint64_t{1} << 40);
    over_four =
        reserved_address_space_limit() == (std::uint64_t{1} << 40) - kAddressSpaceReserveBytes;
  }
  EXPECT_FALSE(without_limit);
  EXPECT_FALSE(under_four);
  EXPECT_TRUE(over_four);
}

TEST(AddressSpaceReserve, AChildThatRetriesAtItsLimitEndsOnceTheReserveIsGivenBack) {
  if (kUnderAddressSanitizer) GTEST_SKIP() << "AddressSanitizer maps terabytes of shadow memory";
  SoftLimit limit(own_mapped_bytes() + (std::uint64_t{256} << 20));
  Ended spun;
  try {
    spun = run_child(false, 3);
  } catch (const ChildStartError&) {
    GTEST_SKIP() << "no python3 on PATH to play CPython's loop";
  }
  EXPECT_FALSE(spun.ended) << "the child should have spun at its limit";
  const Ended rescued = run_child(true, 60);
  ASSERT_TRUE(rescued.ended) << "still spinning after 60 s";
  EXPECT_TRUE(WIFEXITED(rescued.status) && WEXITSTATUS(rescued.status) == 0);
  EXPECT_GE(rescued.rescued, 1);
}

TEST(AddressSpaceReserve, AChildThatRetriesALargeRequestFarBelowItsLimitEndsToo) {
  if (kUnderAddressSanitizer) GTEST_SKIP() << "AddressSanitizer maps terabytes of shadow memory";
  SoftLimit limit(own_mapped_bytes() + (std::uint64_t{256} << 20));
  Ended spun;
  try {
    spun = run_child(false, 3, retrying(20));
  } catch (const ChildStartError&) {
    GTEST_SKIP() << "no python3 on PATH to play OpenBLAS's loop";
  }
  EXPECT_FALSE(spun.ended) << "the child should have spun below its limit";
  const Ended rescued = run_child(true, 60, retrying(20));
  ASSERT_TRUE(rescued.ended) << "still spinning after 60 s";
  EXPECT_TRUE(WIFEXITED(rescued.status) && WEXITSTATUS(rescued.status) == 0);
  EXPECT_GE(rescued.rescued, 1);
}

// 40 MiB with 10 left: the reserve's 16 do not make it fit. Ended, not waited for for ever.
TEST(AddressSpaceReserve, AChildStillStuckWithItsReserveBackIsEnded) {
  if (kUnderAddressSanitizer) GTEST_SKIP() << "AddressSanitizer maps terabytes of shadow memory";
  SoftLimit limit(own_mapped_bytes() + (std::uint64_t{256} << 20));
  Ended ended;
  try {
    ended = run_child(true, 60, retrying(40));
  } catch (const ChildStartError&) {
    GTEST_SKIP() << "no python3 on PATH to play OpenBLAS's loop";
  }
  EXPECT_TRUE(ended.gave_up);
  EXPECT_GE(ended.rescued, 1);
  EXPECT_TRUE(WIFSIGNALED(ended.status) && WTERMSIG(ended.status) == SIGKILL);
}

}  // namespace
}  // namespace memrel
