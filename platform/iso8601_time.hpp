// A run's start time as the history keeps it: an ISO 8601 date, or a date and time, checked
// field by field and, where it carries an offset from UTC, told in UTC, so that the text orders
// as the times do.
#pragma once

#include <string>

namespace memrel {

// `text` as the history stores it: "YYYY-MM-DD" as it is; a date and time ('T' or ' ', then
// HH:MM, optionally :SS and a fraction) with an offset (Z, +HH:MM, -HH:MM, +HHMM) as
// "YYYY-MM-DDTHH:MM:SS[.fraction]Z"; without one (local time, unknown zone), as it is.
// Throws std::invalid_argument saying what is wrong ("no day 30 in its month", "no time 25:00 in
// a day", an offset beyond 14 hours, anything after the time).
std::string history_time_text(const std::string& text);

}  // namespace memrel
