// The rules for byte figures: growth beyond the tolerance fails, a fall beyond it is an
// improvement, a figure that disappears is missing and one that appears is new.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gate/compare_options.hpp"
#include "gate/verdict.hpp"

namespace memrel {

// Where a byte figure comes from decides how exact it must be (gate/rules/tolerances.hpp).
enum class ByteSource { kAllocator, kObserved };

// The tolerance for a figure: --byte-tolerance when given; else exact for a device allocator's
// own bookkeeping, the observed tolerance for driver/RSS figures and for every host figure
// (mallinfo and RSS are both process-wide).
ByteTolerance byte_tolerance_for(ByteSource source, bool host, const CompareOptions& options);

void compare_bytes(std::vector<Row>& rows, const std::string& subject, const std::string& metric,
                   std::optional<std::int64_t> base, std::optional<std::int64_t> cur,
                   const ByteTolerance& tolerance);

// A byte figure shown beside its baseline and not judged, `why` saying why (an info row).
void show_bytes_not_judged(std::vector<Row>& rows, const std::string& subject,
                           const std::string& metric, std::optional<std::int64_t> base,
                           std::optional<std::int64_t> cur, const std::string& why);

// Release effectiveness: a fall of more than the allowance fails; becoming undefined (nothing
// releasable any more) fails too, since the gate can no longer see release work. The allowance
// is kEffectivenessTolerance, or the observed byte tolerance over the smaller of the two runs'
// releasable bytes where that is larger (tolerances.hpp says why).
void compare_effectiveness(std::vector<Row>& rows, const std::string& subject,
                           const std::optional<double>& base, const std::optional<double>& cur,
                           std::uint64_t base_releasable, std::uint64_t cur_releasable,
                           const ByteTolerance& observed);

}  // namespace memrel
