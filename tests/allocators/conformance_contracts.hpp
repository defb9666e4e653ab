// The contracts every backend's Allocator keeps, written once as plain functions over an
// Allocator, so that two kinds of test call them: the conformance suite (conformance_test.cpp,
// every backend of the table and of benchmarks/backends/) and the planted-fault test
// (conformance_catches_violations_test.cpp), which shows each check fails on an allocator that
// breaks its contract. A check returns what it found wrong, as sentences, rather than asserting,
// so that the second kind of test can look at the findings.
//
// The contracts are allocator.hpp's and docs/backends.md's, adapted where a backend documents
// less (blocks_are_real() false: null's blocks alias one buffer; glibc's usage is process-wide).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "allocators/allocator.hpp"

namespace memrel::conformance {

// What a backend's usage() figures can be held to. Not visible through the interface, so the
// suite's table says it per backend, citing where it is documented.
enum class UsageAccounting {
  // The allocator counts its own blocks: allocated rises by at least each request and returns
  // exactly after the free, for every size.
  kOwn,
  // glibc's mallinfo2 (host-malloc, host-malloc-retain; docs/benchmarks.md, docs/gate.md): the
  // whole process's heap. Chunks of up to kGlibcThreadCacheMaxBytes go to glibc's per-thread
  // cache at free, which mallinfo2 counts as in use, and a request may be served from that cache
  // without moving it: only larger requests are held to exact rises and returns.
  kProcessWide,
  // Nothing to compare: under AddressSanitizer the sanitizer's allocator replaces glibc's, and
  // mallinfo2 sees none of its memory (docs/testing.md).
  kNotComparable,
};

// glibc's default tcache_max_bytes on 64-bit: the largest chunk its thread cache keeps.
constexpr std::size_t kGlibcThreadCacheMaxBytes = 1032;

// 1 PiB: more than any machine's memory and more than x86-64's 128 TiB of user address space,
// so no allocator whose blocks are real can satisfy it, whatever the overcommit setting.
constexpr std::size_t kHugeRequest = std::size_t{1} << 50;

// The request sizes the contracts walk: 1 B, odd sizes around a small and a page boundary,
// 512 B (a typical rounding unit), 2 MiB (the driver's page) and 20 MiB + 1 (past PyTorch's
// 20 MiB large-segment size, and past glibc's mmap threshold).
const std::vector<std::size_t>& request_sizes();

struct Findings {
  std::vector<std::string> violations;  // empty: the contract holds
  std::string observed;                 // what the allocator did, where the contract allows choice
};

using Check = Findings (*)(Allocator&, UsageAccounting);

// Runs a check; an exception escaping it (no contract lets one through) becomes a violation
// naming its type, so a test reports it instead of aborting.
Findings run_check(Check check, Allocator& allocator, UsageAccounting usage);

// allocate returns a non-null block for every size; while they are all live, the blocks do not
// overlap (unless blocks_are_real() is false); fill() writes each whole block.
Findings blocks_are_non_null_distinct_and_fillable(Allocator& a, UsageAccounting usage);

// A freed block's memory can be asked for again: each size freed and requested at once, then
// all sizes freed together and requested again (the path through an allocator's cache).
Findings freed_memory_can_be_allocated_again(Allocator& a, UsageAccounting usage);

// Where allocated is reported, it rises by at least the request while the block is live and
// returns to its previous value after the free and synchronize(); where both figures are
// reported, reserved >= allocated at every point.
Findings usage_follows_each_block(Allocator& a, UsageAccounting usage);

// allocate(0) has a defined outcome: a block that deallocate takes back, leaving usage as it
// was, or OutOfMemory carrying 0. The block may be null for 0 bytes only (as C's malloc(0) may;
// RMM's resources and PyTorch's raw_alloc give null for 0). `observed` says which. The allocator
// is usable afterwards.
Findings zero_byte_request_has_a_defined_outcome(Allocator& a, UsageAccounting usage);

// allocate(kHugeRequest) throws OutOfMemory carrying the request's size, nothing else; usage is
// unchanged; the allocator is usable afterwards. Where blocks_are_real() is false the allocator
// touches no memory (null), so a block is an allowed outcome too, and `observed` says so.
Findings huge_request_throws_out_of_memory(Allocator& a, UsageAccounting usage);

// release() with nothing ever allocated is callable; twice in a row, the second changes no
// figure of usage(); with a block live, release keeps it (allocated unchanged, block fillable).
Findings release_is_idempotent(Allocator& a, UsageAccounting usage);

// After every block is freed, synchronize() and release(), allocated (where reported) is what it
// was when the allocator was new: 0 for an allocator that counts its own blocks.
Findings release_after_freeing_everything_leaves_nothing_allocated(Allocator& a,
                                                                   UsageAccounting usage);

// synchronize() may be called with nothing allocated, with blocks live, after frees and after a
// release, and twice in a row.
Findings synchronize_is_callable_at_any_time(Allocator& a, UsageAccounting usage);

}  // namespace memrel::conformance
