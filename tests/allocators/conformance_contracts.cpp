// The contracts of conformance_contracts.hpp. A note on the usage checks: for host-malloc,
// usage() is glibc's mallinfo2, which counts every heap user of the process, this code's
// included. So between a check's usage() readings nothing here may touch the heap: the figures
// go into locals first and are judged (strings made, findings pushed) only afterwards.
#include "allocators/conformance_contracts.hpp"

#include <cxxabi.h>

#include <cstdint>
#include <cstdlib>
#include <optional>
#include <sstream>
#include <typeinfo>
#include <utility>

namespace memrel::conformance {
namespace {

constexpr std::size_t MiB = std::size_t{1} << 20;

struct Block {
  void* p = nullptr;
  std::size_t bytes = 0;
};

std::string bytes_text(std::optional<std::uint64_t> v) {
  return v ? std::to_string(*v) : std::string("unreported");
}

std::string address(const void* p) {
  std::ostringstream s;
  s << p;
  return s.str();
}

// The sizes whose usage the accounting lets us compare exactly (UsageAccounting).
std::vector<std::size_t> sizes_with_exact_usage(UsageAccounting usage) {
  std::vector<std::size_t> sizes;
  if (usage == UsageAccounting::kNotComparable) return sizes;
  for (std::size_t s : request_sizes()) {
    if (usage == UsageAccounting::kOwn || s > kGlibcThreadCacheMaxBytes) sizes.push_back(s);
  }
  return sizes;
}

// reserved >= allocated where both are reported: an allocator cannot hand out more than it holds.
void expect_reserved_covers_allocated(const Usage& u, const std::string& when, Findings& f) {
  if (u.allocated && u.reserved && *u.reserved < *u.allocated) {
    f.violations.push_back(when + ": reserved " + bytes_text(u.reserved) + " < allocated " +
                           bytes_text(u.allocated));
  }
}

// An allocator reports allocated always or never: a figure that comes and goes cannot be
// compared by the harness either.
void expect_same_figures(const Usage& a, const Usage& b, const std::string& when, Findings& f) {
  if (a.allocated.has_value() != b.allocated.has_value() ||
      a.reserved.has_value() != b.reserved.has_value()) {
    f.violations.push_back(when +
                           ": usage() reported a figure at one reading and not at the other");
  }
}

void expect_allocated_unchanged(const Usage& before, const Usage& after, const std::string& when,
                                Findings& f) {
  if (before.allocated && after.allocated && *before.allocated != *after.allocated) {
    f.violations.push_back(when + ": allocated was " + bytes_text(before.allocated) + ", now " +
                           bytes_text(after.allocated));
  }
}

bool usage_equal(const Usage& a, const Usage& b) {
  return a.allocated == b.allocated && a.reserved == b.reserved;
}

std::string usage_text(const Usage& u) {
  return "allocated " + bytes_text(u.allocated) + ", reserved " + bytes_text(u.reserved);
}

// After an allocation failed or any other step: a small block still comes, fills and goes.
void expect_still_usable(Allocator& a, const std::string& after, Findings& f) {
  void* p = a.allocate(512);
  if (p == nullptr) {
    f.violations.push_back("after " + after + ", allocate(512) returned null");
    return;
  }
  a.fill(p, 512);
  a.deallocate(p, 512);
  a.synchronize();
}

// A block that the contracts after the first go on with; null (a violation for any size but 0)
// is reported and left out, so that no check writes through it.
void* allocate_non_null(Allocator& a, std::size_t bytes, const std::string& when, Findings& f) {
  void* p = a.allocate(bytes);
  if (p == nullptr)
    f.violations.push_back(when + ": allocate(" + std::to_string(bytes) + ") returned null");
  return p;
}

std::string type_name(const std::type_info& type) {
  int status = 0;
  char* demangled = abi::__cxa_demangle(type.name(), nullptr, nullptr, &status);
  std::string name = status == 0 && demangled != nullptr ? demangled : type.name();
  std::free(demangled);
  return name;
}

void free_all(Allocator& a, std::vector<Block>& blocks) {
  for (const Block& b : blocks) a.deallocate(b.p, b.bytes);
  blocks.clear();
  a.synchronize();
}

}  // namespace

const std::vector<std::size_t>& request_sizes() {
  static const std::vector<std::size_t> sizes = {1, 3, 511, 512, 4097, 2 * MiB, 20 * MiB + 1};
  return sizes;
}

Findings run_check(Check check, Allocator& allocator, UsageAccounting usage) {
  try {
    return check(allocator, usage);
  } catch (const OutOfMemory& e) {
    return {{std::string("threw OutOfMemory where no contract allows it: ") + e.what()}, ""};
  } catch (const std::exception& e) {
    return {{"threw " + type_name(typeid(e)) + ": " + e.what()}, ""};
  } catch (...) {
    return {{"threw something that is not a std::exception"}, ""};
  }
}

Findings blocks_are_non_null_distinct_and_fillable(Allocator& a, UsageAccounting) {
  Findings f;
  std::vector<Block> blocks;
  for (std::size_t s : request_sizes()) {
    void* p = a.allocate(s);
    if (p == nullptr) {
      f.violations.push_back("allocate(" + std::to_string(s) + ") returned null");
      continue;
    }
    a.fill(p, s);
    blocks.push_back({p, s});
  }
  // Filled again once all are live: a block that shares memory with a later one is written
  // through both (AddressSanitizer or a fault sees an overrun; the address check below says why).
  for (const Block& b : blocks) a.fill(b.p, b.bytes);
  if (a.blocks_are_real()) {
    for (std::size_t i = 0; i < blocks.size(); ++i) {
      for (std::size_t j = i + 1; j < blocks.size(); ++j) {
        auto lo = [](const Block& b) { return reinterpret_cast<std::uintptr_t>(b.p); };
        const Block &x = blocks[i], &y = blocks[j];
        if (lo(x) < lo(y) + y.bytes && lo(y) < lo(x) + x.bytes) {
          f.violations.push_back("live blocks overlap: " + std::to_string(x.bytes) + " B at " +
                                 address(x.p) + " and " + std::to_string(y.bytes) + " B at " +
                                 address(y.p));
        }
      }
    }
  }
  free_all(a, blocks);
  return f;
}

Findings freed_memory_can_be_allocated_again(Allocator& a, UsageAccounting) {
  Findings f;
  for (std::size_t s : request_sizes()) {
    for (int round = 0; round < 2; ++round) {
      void* p = a.allocate(s);
      if (p == nullptr) {
        f.violations.push_back("allocate(" + std::to_string(s) + ") returned null in round " +
                               std::to_string(round + 1));
        continue;
      }
      a.fill(p, s);
      a.deallocate(p, s);
      a.synchronize();
    }
  }
  for (int round = 0; round < 2; ++round) {
    std::vector<Block> blocks;
    for (std::size_t s : request_sizes()) {
      void* p = a.allocate(s);
      if (p == nullptr) {
        f.violations.push_back("with every size live, allocate(" + std::to_string(s) +
                               ") returned null in round " + std::to_string(round + 1));
        continue;
      }
      a.fill(p, s);
      blocks.push_back({p, s});
    }
    free_all(a, blocks);
  }
  return f;
}

Findings usage_follows_each_block(Allocator& a, UsageAccounting usage) {
  Findings f;
  for (std::size_t s : sizes_with_exact_usage(usage)) {
    // No heap use from here to `after` (see the top of the file).
    a.synchronize();
    const Usage before = a.usage();
    void* p = a.allocate(s);
    const Usage live = a.usage();
    if (p != nullptr) a.deallocate(p, s);
    a.synchronize();
    const Usage after = a.usage();

    const std::string request = "allocate(" + std::to_string(s) + ")";
    if (p == nullptr) f.violations.push_back(request + " returned null");
    expect_same_figures(before, live, request, f);
    expect_same_figures(before, after, request + " and its free", f);
    if (before.allocated && live.allocated &&
        (*live.allocated < *before.allocated || *live.allocated - *before.allocated < s)) {
      f.violations.push_back(request + ": allocated went from " + bytes_text(before.allocated) +
                             " to " + bytes_text(live.allocated) + ", not up by the request");
    }
    expect_allocated_unchanged(before, after, request + " then its free and synchronize()", f);
    expect_reserved_covers_allocated(before, "before " + request, f);
    expect_reserved_covers_allocated(live, "with " + request + "'s block live", f);
    expect_reserved_covers_allocated(after, "after " + request + "'s free", f);
  }
  return f;
}

Findings zero_byte_request_has_a_defined_outcome(Allocator& a, UsageAccounting usage) {
  Findings f;
  a.synchronize();
  const Usage before = a.usage();
  void* p = nullptr;
  try {
    p = a.allocate(0);
  } catch (const OutOfMemory& e) {
    f.observed = "OutOfMemory";
    if (e.bytes() != 0) {
      f.violations.push_back("allocate(0) threw OutOfMemory carrying " + std::to_string(e.bytes()) +
                             " bytes, not 0");
    }
    expect_still_usable(a, "allocate(0)", f);
    return f;
  }
  f.observed = p == nullptr ? "null, which deallocate takes back" : "a non-null block";
  a.deallocate(p, 0);
  a.synchronize();
  const Usage after = a.usage();
  // A process-wide figure also counts the chunk glibc's malloc(0) takes, which its thread cache
  // keeps at free: only an allocator's own count must be back where it was.
  if (usage == UsageAccounting::kOwn) {
    expect_allocated_unchanged(before, after, "allocate(0) then its free", f);
  }
  expect_still_usable(a, "allocate(0)", f);
  return f;
}

Findings huge_request_throws_out_of_memory(Allocator& a, UsageAccounting usage) {
  Findings f;
  a.synchronize();
  const Usage before = a.usage();
  try {
    void* p = a.allocate(kHugeRequest);
    if (a.blocks_are_real()) {
      f.violations.push_back("allocate(1 PiB) returned " + address(p) +
                             " instead of throwing OutOfMemory");
    } else {
      f.observed = "a block (blocks_are_real() is false: no memory is touched)";
    }
    a.deallocate(p, kHugeRequest);
    a.synchronize();
  } catch (const OutOfMemory& e) {
    f.observed = "OutOfMemory";
    if (e.bytes() != kHugeRequest) {
      f.violations.push_back("OutOfMemory carries " + std::to_string(e.bytes()) +
                             " bytes, not the request's " + std::to_string(kHugeRequest));
    }
  }
  // Any other exception leaves through run_check as a violation.
  const Usage after = a.usage();
  // A process-wide figure also counts the exception's own heap (its message), which glibc's
  // thread cache keeps after the catch: only an allocator's own count must be unchanged.
  if (usage == UsageAccounting::kOwn) {
    expect_allocated_unchanged(before, after, "after allocate(1 PiB)", f);
  }
  expect_still_usable(a, "allocate(1 PiB)", f);
  return f;
}

Findings release_is_idempotent(Allocator& a, UsageAccounting usage) {
  Findings f;
  // Nothing allocated yet: releasing an empty allocator is callable, and idempotent too.
  a.release();
  const Usage empty_once = a.usage();
  a.release();
  const Usage empty_twice = a.usage();
  if (usage != UsageAccounting::kNotComparable && !usage_equal(empty_once, empty_twice)) {
    f.violations.push_back("with nothing ever allocated, a second release() changed usage: " +
                           usage_text(empty_once) + ", then " + usage_text(empty_twice));
  }

  std::vector<Block> blocks;
  for (std::size_t s : request_sizes()) {
    if (void* p = allocate_non_null(a, s, "before release()", f)) blocks.push_back({p, s});
  }
  free_all(a, blocks);
  a.release();
  const Usage once = a.usage();
  a.release();
  const Usage twice = a.usage();
  if (usage != UsageAccounting::kNotComparable && !usage_equal(once, twice)) {
    f.violations.push_back("a second release() changed usage: after one, " + usage_text(once) +
                           "; after two, " + usage_text(twice));
  }

  // A live block survives a release: release gives back cached memory only.
  const std::size_t s = 2 * MiB;
  void* p = allocate_non_null(a, s, "a block to keep through release()", f);
  if (p == nullptr) return f;
  a.synchronize();
  const Usage live = a.usage();
  a.release();
  a.synchronize();
  const Usage released = a.usage();
  if (usage != UsageAccounting::kNotComparable) {
    expect_allocated_unchanged(live, released, "release() with a 2 MiB block live", f);
  }
  a.fill(p, s);
  a.deallocate(p, s);
  a.synchronize();
  return f;
}

Findings release_after_freeing_everything_leaves_nothing_allocated(Allocator& a,
                                                                   UsageAccounting usage) {
  Findings f;
  if (usage == UsageAccounting::kNotComparable) return f;
  const std::vector<std::size_t> sizes = sizes_with_exact_usage(usage);
  std::vector<Block> blocks;
  blocks.reserve(2 * sizes.size());
  // No heap use from here to `after` but the allocator's own (see the top of the file).
  a.synchronize();
  const Usage baseline = a.usage();
  for (int copy = 0; copy < 2; ++copy) {
    for (std::size_t s : sizes) blocks.push_back({a.allocate(s), s});
  }
  for (const Block& b : blocks) {
    if (b.p != nullptr) a.deallocate(b.p, b.bytes);
  }
  a.synchronize();
  a.release();
  a.synchronize();
  const Usage after = a.usage();

  if (!after.allocated) return f;
  // Counting its own blocks, an allocator with none live reports 0, whatever its history.
  const std::uint64_t expected =
      usage == UsageAccounting::kOwn ? 0 : baseline.allocated.value_or(0);
  if (*after.allocated != expected) {
    f.violations.push_back("every block freed and released, yet allocated is " +
                           bytes_text(after.allocated) + ", not " + std::to_string(expected) +
                           " (before the blocks: " + bytes_text(baseline.allocated) + ")");
  }
  expect_reserved_covers_allocated(after, "after freeing everything and release()", f);
  return f;
}

Findings synchronize_is_callable_at_any_time(Allocator& a, UsageAccounting) {
  Findings f;
  a.synchronize();
  a.synchronize();
  std::vector<Block> blocks;
  for (std::size_t s : request_sizes()) {
    void* p = allocate_non_null(a, s, "synchronize() between steps", f);
    if (p == nullptr) continue;
    a.synchronize();
    a.fill(p, s);
    a.synchronize();
    blocks.push_back({p, s});
  }
  for (const Block& b : blocks) {
    a.deallocate(b.p, b.bytes);
    a.synchronize();
  }
  blocks.clear();
  a.release();
  a.synchronize();
  a.synchronize();
  expect_still_usable(a, "synchronize() at every step", f);
  return f;
}

}  // namespace memrel::conformance
