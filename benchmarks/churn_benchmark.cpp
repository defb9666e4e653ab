// churn: a long sequence of random allocations and frees (RMM's random_allocations), for the
// cost per operation and the peak an allocator reserves while fragmenting.
//
// One iteration replays the whole seeded sequence (churn_plan.hpp), with no synchronisation
// between steps (a stream-ordered allocator may overlap them, as in real use) and one at the
// end, before the clock stops. Two modes, because they answer different questions:
// - cold: every iteration starts from an emptied cache (release first): what a program pays
//   when its allocator has given everything back, e.g. after empty_cache();
// - warm: one untimed replay first, then every iteration replays on the cache the previous one
//   left, as RMM's random_allocations keeps its resource across iterations. RMM's published
//   churn figures are this mode; on a pool, cold is many times warm (the pool's growth is paid
//   in every iteration). Counters: ns_per_op (timed time / steps), steps,
// bytes (the largest request), peak_requested (the most the sequence holds live) and
// peak_reserved (the most the allocator reserved at any step). peak_reserved comes from one
// untimed replay that reads usage() after every step, done once per process: reading it inside
// the timed replay would cost more than the steps themselves.
#include <algorithm>
#include <exception>
#include <memory>
#include <optional>

#include "benchmarks/benchmark_families.hpp"
#include "benchmarks/churn_plan.hpp"
#include "benchmarks/timing.hpp"

namespace memrel::bench {
namespace {

struct LiveBlock {
  void* pointer;
  std::uint64_t bytes;
};

// `after_step` is an empty lambda in timed replays, which the compiler removes entirely.
template <typename AfterStep>
void replay(Allocator& allocator, const ChurnPlan& plan, std::vector<LiveBlock>& live,
            AfterStep&& after_step) {
  for (const ChurnStep& step : plan.steps) {
    if (step.kind == ChurnStep::Kind::kAllocate) {
      live.push_back({allocator.allocate(step.bytes), step.bytes});
    } else {
      const LiveBlock block = live[step.live_index];
      live[step.live_index] = live.back();
      live.pop_back();
      allocator.deallocate(block.pointer, block.bytes);
    }
    after_step(step);
  }
}

// After a failed step (out of memory), so the benchmarks that follow start from a clean slate.
void free_all(Allocator& allocator, std::vector<LiveBlock>& live) noexcept {
  for (const LiveBlock& block : live) {
    try {
      allocator.deallocate(block.pointer, block.bytes);
    } catch (const std::exception&) {
      // The allocator is already failing; the benchmark reports the first error, not this one.
    }
  }
  live.clear();
}

class ChurnBenchmark {
 public:
  ChurnBenchmark(const BenchmarkTarget& target, std::uint64_t seed, CacheState cache)
      : target_(target), seed_(seed), cache_(cache) {}

  void run(benchmark::State& state) {
    Allocator& allocator = target_.allocator;
    PeakReservedMemoryManager& memory = target_.memory;
    std::vector<LiveBlock> live;
    try {
      const ChurnPlan& plan = this->plan();
      live.reserve(plan.peak_live_blocks);
      if (!peak_reserved_observed_) {
        peak_reserved_ = observe_peak_reserved(plan, live);
        peak_reserved_observed_ = true;
      }
      auto replay_unobserved = [&] { replay(allocator, plan, live, [](const ChurnStep&) {}); };
      auto replay_noting_steps = [&] {
        replay(allocator, plan, live, [&](const ChurnStep& step) {
          if (step.kind == ChurnStep::Kind::kAllocate) {
            memory.note_allocation(step.bytes);
          } else {
            memory.note_free_or_release();
          }
        });
      };
      const bool recording = memory.recording();
      const bool warm = cache_ == CacheState::kWarm;
      if (warm) {
        start_from_empty_cache(allocator);
        replay_unobserved();  // untimed: leaves the cache as the sequence needs it
        allocator.synchronize();
      }
      double timed_total_seconds = 0;
      for (auto _ : state) {
        if (!warm) start_from_empty_cache(allocator);
        const double seconds = recording ? timed_seconds(allocator, replay_noting_steps)
                                         : timed_seconds(allocator, replay_unobserved);
        timed_total_seconds += seconds;
        state.SetIterationTime(seconds);
      }
      set_counters(state, plan, timed_total_seconds);
    } catch (const std::exception& e) {
      free_all(allocator, live);
      report_failure(state, e.what());
    }
  }

 private:
  // Drawn on first use, so a benchmark left out by --benchmark_filter costs nothing.
  const ChurnPlan& plan() {
    if (!plan_) plan_ = make_churn_plan(seed_, target_.plan.churn);
    return *plan_;
  }

  std::optional<std::uint64_t> observe_peak_reserved(const ChurnPlan& plan,
                                                     std::vector<LiveBlock>& live) {
    Allocator& allocator = target_.allocator;
    std::optional<std::uint64_t> peak;
    auto sample = [&] {
      if (auto reserved = allocator.usage().reserved) peak = std::max(peak.value_or(0), *reserved);
    };
    start_from_empty_cache(allocator);
    if (cache_ == CacheState::kWarm) {
      // The peak of a replay on a warm cache: one replay to warm it, then the sampled one.
      replay(allocator, plan, live, [](const ChurnStep&) {});
      allocator.synchronize();
    }
    replay(allocator, plan, live, [&](const ChurnStep&) { sample(); });
    allocator.synchronize();
    sample();
    return peak;
  }

  void set_counters(benchmark::State& state, const ChurnPlan& plan, double timed_seconds) const {
    const auto steps = static_cast<double>(plan.steps.size());
    const auto iterations = static_cast<double>(state.iterations());
    state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(plan.steps.size()));
    state.counters["steps"] = benchmark::Counter(steps);
    // A plain value rather than an inverted rate counter, which the console would print as
    // seconds.
    state.counters["ns_per_op"] = benchmark::Counter(timed_seconds * 1e9 / (iterations * steps));
    state.counters["bytes"] = byte_counter(static_cast<double>(target_.plan.churn.max_block_bytes));
    state.counters["peak_requested"] = byte_counter(static_cast<double>(plan.peak_live_bytes));
    if (peak_reserved_) {
      state.counters["peak_reserved"] = byte_counter(static_cast<double>(*peak_reserved_));
    }
  }

  const BenchmarkTarget& target_;
  const std::uint64_t seed_;
  const CacheState cache_;
  std::optional<ChurnPlan> plan_;
  bool peak_reserved_observed_ = false;
  std::optional<std::uint64_t> peak_reserved_;
};

}  // namespace

void register_churn_benchmarks(const BenchmarkTarget& target) {
  for (std::uint64_t seed : kChurnSeeds) {
    for (CacheState cache : {CacheState::kCold, CacheState::kWarm}) {
      auto churn = std::make_shared<ChurnBenchmark>(target, seed, cache);
      // churn/<backend>/cold/<bytes>: the mode is the cache state, as for pair/alloc/free; a
      // second seed would add "-seed<N>" to it.
      std::string mode = cache_state_name(cache);
      if (seed != kChurnSeeds.front()) mode += "-seed" + std::to_string(seed);
      register_manually_timed(
          benchmark_name("churn", target.backend, mode, target.plan.churn.max_block_bytes),
          [churn](benchmark::State& state) { churn->run(state); });
    }
  }
}

}  // namespace memrel::bench
