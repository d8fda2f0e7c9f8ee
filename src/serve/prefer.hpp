#pragma once
// The Prefer request header (RFC 7240 §2): a client's preferences, which a
// server honours or ignores; Preference-Applied says which it honoured.

#include <string>
#include <string_view>
#include <vector>

namespace abci::serve {

/// Whether the Prefer header lines `values` (a request may send several,
/// each a comma-separated list) hold the preference `token`, its name
/// matched without regard to case. A preference's value and parameters do
/// not matter here; commas and semicolons inside quoted strings separate
/// nothing. An element that is not a preference is skipped, as RFC 7240
/// has a preference a server does not understand ignored.
[[nodiscard]] bool has_preference(const std::vector<std::string>& values, std::string_view token);

}  // namespace abci::serve
