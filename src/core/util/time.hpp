#pragma once
// Timestamps on the wire: strict RFC 3339 parsing for what clients send, and
// one fixed ISO 8601 form for what we send back.

#include <chrono>
#include <string>
#include <string_view>

namespace abci::util {

/// Parses an RFC 3339 `date-time`: "YYYY-MM-DDTHH:MM:SS", optional fraction
/// ("." and 1 or more digits; digits past nanoseconds are truncated), then "Z"
/// or "+hh:mm"/"-hh:mm". "T" and "Z" may be lower case, as RFC 3339 allows.
/// Returns the UTC instant. Throws Error(invalid_input) naming the rule broken:
/// any other shape, a day the month does not have, hour > 23, minute > 59, a
/// leap second (:60, which system_clock cannot represent), or an instant
/// outside system_clock's range (about years 1678-2261).
[[nodiscard]] std::chrono::system_clock::time_point parse_rfc3339(std::string_view text);

/// The UTC form "2026-11-22T10:00:00.000Z" (always milliseconds, rounded
/// down, and "Z"), as JavaScript's Date.toISOString() writes it.
[[nodiscard]] std::string format_iso8601_utc(std::chrono::system_clock::time_point t);

}  // namespace abci::util
