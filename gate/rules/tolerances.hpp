// How far each kind of figure may move before the gate calls it a change, with the reasons.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace memrel {

// How far a byte figure may move before it counts: max(absolute, relative * |baseline|).
struct ByteTolerance {
  std::uint64_t absolute = 0;
  double relative = 0;
};

// Allocated and reserved as a device allocator reports them: its own bookkeeping, the same
// bytes for the same workload every run, so any growth is a real change in the allocator.
constexpr ByteTolerance kAllocatorBytesTolerance{0, 0.0};

// What the driver (cudaMemGetInfo) or the kernel (RSS) observes: device_used_delta, residual.
// The driver maps device memory in 2 MiB pages, so one granule of movement is not a change; the
// driver's own bookkeeping (page tables, lazily loaded modules) grows with the mapping, which the
// 1% covers on large figures. The same rule covers every byte figure of a host cell, whose
// allocated/reserved come from mallinfo2 and so include memrel's own heap as well.
constexpr ByteTolerance kObservedBytesTolerance{2ull << 20, 0.01};

// Byte counters of host-backend benchmarks: Google Benchmark picks iteration counts by time, so
// two runs replay a seeded churn a different number of times and leave glibc's heap laid out
// differently (seen: churn peak_reserved +2.5% between two H200 runs of one binary).
constexpr ByteTolerance kHostBenchmarkBytesTolerance{2ull << 20, 0.05};

// Release effectiveness is a ratio of two observed figures; 0.02 is the 2% of the observed
// tolerance, and a real release regression (a backend that stops returning memory) moves it by
// far more. The ratio can be no more exact than the bytes it is made of: when the bytes released
// move within their own tolerance, the ratio moves by up to tolerance / releasable, so that is
// the allowance where it is larger (byte_rules.cpp). Seen on the H200: a host cell releasing
// 184 KiB moved from 0.913 to 0.890 when memrel's own heap in the cell grew by 87 KiB, every
// byte figure within its 2 MiB tolerance.
constexpr double kEffectivenessTolerance = 0.02;

// With 5 repetitions a side the exact two-sided p can fall to 2 / C(10, 5) = 0.008, well under
// the default alpha; with 4 it cannot go below 0.029 and with 3 below 0.1, so the test could
// never (or only just) pass judgement. Fewer than this is reported as info, not tested. Google
// Benchmark's compare.py warns below 9; more repetitions give the test more power.
constexpr std::size_t kMinRepetitions = 5;

constexpr double kDefaultLatencyMinChange = 0.10;  // relative change of the median
constexpr double kDefaultAlpha = 0.05;

// "0" (exact), "4096", "2MiB", "1%", "2MiB,1%"; throws std::invalid_argument naming the option.
ByteTolerance parse_byte_tolerance(const std::string& text);

}  // namespace memrel
